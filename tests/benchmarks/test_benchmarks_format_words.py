"""A result's file format is read in words on the engineer's pages ("vLLM serving benchmark
(JSON)"), not as the parser's id ("vllm-serve"), which stays as the tooltip and the API's
value. Found on the browser walk through the demo's benchmark list."""

from __future__ import annotations

import pytest

from benchmarks.models import BenchmarkResult
from benchmarks.parsers import FORMATS
from benchmarks.templatetags.evidence import format_name

pytestmark = pytest.mark.django_db


def test_every_registered_format_has_words_and_unknown_ids_pass_through():
    assert format_name("vllm-serve") == "vLLM serving benchmark (JSON)"
    assert all(format_name(fid) == name != fid for fid, name in FORMATS.items())
    assert format_name("") == "—"
    assert format_name("someday-format") == "someday-format"


def test_the_results_list_and_filter_name_formats_in_words(engineer, login):
    from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory

    result = BenchmarkResultFactory(format_id="vllm-serve", uploaded_by=engineer)
    assert BenchmarkResult.objects.filter(pk=result.pk).exists()
    page = login(engineer).get("/benchmarks/").content.decode()
    assert 'title="vllm-serve">vLLM serving benchmark (JSON)</span>' in page
    assert '<option value="vllm-serve">vLLM serving benchmark (JSON)</option>' in page
    assert '<code class="muted">vllm-serve</code>' not in page
