"""U37: the benchmark list's empty state knows about the filter."""

from __future__ import annotations

import pytest

from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory

pytestmark = pytest.mark.django_db


def test_empty_filtered_result_list_says_so(login, engineer, quote_a, brief):
    """U37: rows exist, none failed: "No result matches these filters", not "Upload the first"."""
    BenchmarkResultFactory(quote=quote_a, accelerator=quote_a.accelerator, brief=brief)
    html = login(engineer).get("/benchmarks/?status=failed").content.decode()
    assert "No result matches these filters." in html
    assert "Upload the first one" not in html
