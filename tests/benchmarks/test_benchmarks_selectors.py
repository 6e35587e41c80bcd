"""evidence_results_for: every parsed result a comparison freezes, with its figures.

It never ranks: which result counts for a candidate is the matching rules' decision
(engine/evidence.py), taken at compute time.
"""

from __future__ import annotations

import pytest

from benchmarks.models import BenchmarkResult
from benchmarks.selectors import evidence_results_for
from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory, metrics_dict
from tests.factories import QuoteFactory

pytestmark = pytest.mark.django_db


def test_every_parsed_result_with_its_figures(quote_a, quote_b, h100, h200, brief):
    slow = BenchmarkResultFactory(
        quote=quote_a, accelerator=h100, gpu_count=2, metrics=metrics_dict(output_tokens_per_s=1000)
    )
    fast = BenchmarkResultFactory(
        quote=quote_a,
        accelerator=h100,
        gpu_count=2,
        metrics=metrics_dict(output_tokens_per_s=3000, acceptance_rate=0.9),
    )
    h200_result = BenchmarkResultFactory(accelerator=h200, gpu_count=1)

    out = evidence_results_for([quote_a.pk, quote_b.pk], [h100.pk, h200.pk], None)

    assert [r["result_id"] for r in out] == [slow.pk, fast.pk, h200_result.pk]
    best = out[1]
    assert best["quote_id"] == quote_a.pk
    assert best["accelerator"] == h100.slug
    assert best["tokens_per_s_per_gpu"] == pytest.approx(1500.0)
    assert best["output_tokens_per_s"] == 3000
    assert best["acceptance_rate"] == 0.9
    assert best["has_acceptance_data"] is True
    assert best["gpu_count"] == 2
    assert best["ttft_p95_ms"] == 300.0
    assert best["e2e_p99_ms"] == 12000.0
    assert best["request_throughput_rps"] == 6.0
    assert out[2]["has_acceptance_data"] is False


def test_results_of_another_brief_are_left_out(quote_a, h100, brief, lead):
    other_brief = type(brief).objects.create(
        title="other", workload_class="batch_inference", created_by=lead
    )
    BenchmarkResultFactory(quote=quote_a, accelerator=h100, brief=other_brief)
    own = BenchmarkResultFactory(quote=quote_a, accelerator=h100, brief=brief)
    unscoped = BenchmarkResultFactory(quote=quote_a, accelerator=h100)

    out = evidence_results_for([quote_a.pk], [], brief.pk)

    assert [r["result_id"] for r in out] == [own.pk, unscoped.pk]


def test_unparsed_results_are_left_out(quote_a, h100):
    BenchmarkResultFactory(quote=quote_a, accelerator=h100, status=BenchmarkResult.Status.FAILED)
    BenchmarkResultFactory(quote=quote_a, accelerator=h100, status=BenchmarkResult.Status.PENDING)
    assert evidence_results_for([quote_a.pk], [h100.pk], None) == []


def test_missing_figures_are_none_not_guessed(quote_a, h100):
    BenchmarkResultFactory(
        quote=quote_a,
        accelerator=h100,
        metrics={"output_tokens_per_s": None, "ttft_ms": None, "e2e_ms": {"p99": None}},
    )
    (figures,) = evidence_results_for([quote_a.pk], [], None)
    assert figures["tokens_per_s_per_gpu"] is None
    assert figures["ttft_p95_ms"] is None
    assert figures["e2e_p99_ms"] is None
    assert figures["acceptance_rate"] is None


def test_query_count_is_constant(quote_a, h100, brief, django_assert_max_num_queries, provider_a):
    quotes = [QuoteFactory(provider=provider_a, accelerator=h100) for _ in range(20)]
    for quote in quotes:
        BenchmarkResultFactory.create_batch(2, quote=quote, accelerator=h100, brief=brief)
    with django_assert_max_num_queries(1):
        out = evidence_results_for([q.pk for q in quotes], [h100.pk], brief.pk)
    assert len(out) == 40


def test_empty_ids_make_no_query(django_assert_num_queries):
    with django_assert_num_queries(0):
        assert evidence_results_for([], [], None) == []
