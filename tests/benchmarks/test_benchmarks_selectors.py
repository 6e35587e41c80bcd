"""measured_performance_for: the best parsed result per quote and per accelerator."""

from __future__ import annotations

import pytest

from benchmarks.models import BenchmarkResult
from benchmarks.selectors import measured_performance_for
from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory, metrics_dict
from tests.factories import QuoteFactory

pytestmark = pytest.mark.django_db


def test_figures_of_best_result_per_quote_and_accelerator(quote_a, quote_b, h100, h200, brief):
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

    out = measured_performance_for([quote_a.pk, quote_b.pk], [h100.pk, h200.pk], None)

    assert set(out["by_quote"]) == {quote_a.pk}
    best = out["by_quote"][quote_a.pk]
    assert best["result_id"] == fast.pk != slow.pk
    assert best["tokens_per_s_per_gpu"] == pytest.approx(1500.0)
    assert best["output_tokens_per_s"] == 3000
    assert best["acceptance_rate"] == 0.9
    assert best["has_acceptance_data"] is True
    assert best["gpu_count"] == 2
    assert best["ttft_p95_ms"] == 300.0
    assert best["e2e_p99_ms"] == 12000.0
    assert best["request_throughput_rps"] == 6.0
    assert out["by_accelerator"][h100.pk]["result_id"] == fast.pk
    assert out["by_accelerator"][h200.pk]["result_id"] == h200_result.pk
    assert out["by_accelerator"][h200.pk]["has_acceptance_data"] is False


def test_brief_results_and_latency_targets_win(quote_a, h100, brief, lead):
    other_brief = type(brief).objects.create(
        title="other", workload_class="batch_inference", created_by=lead
    )
    BenchmarkResultFactory(quote=quote_a, accelerator=h100, brief=other_brief)
    misses_target = BenchmarkResultFactory(
        quote=quote_a,
        accelerator=h100,
        brief=brief,
        metrics=metrics_dict(output_tokens_per_s=9000, e2e=(9000.0, 15000.0, 30000.0)),
    )
    meets_target = BenchmarkResultFactory(
        quote=quote_a, accelerator=h100, brief=brief, metrics=metrics_dict(output_tokens_per_s=2000)
    )
    unscoped = BenchmarkResultFactory(
        quote=quote_a, accelerator=h100, metrics=metrics_dict(output_tokens_per_s=99999)
    )

    out = measured_performance_for([quote_a.pk], [], brief.pk)

    assert out["by_quote"][quote_a.pk]["result_id"] == meets_target.pk
    assert misses_target.pk != unscoped.pk
    assert out["by_accelerator"] == {}


def test_unparsed_results_are_ignored(quote_a, h100):
    BenchmarkResultFactory(quote=quote_a, accelerator=h100, status=BenchmarkResult.Status.FAILED)
    BenchmarkResultFactory(quote=quote_a, accelerator=h100, status=BenchmarkResult.Status.PENDING)
    assert measured_performance_for([quote_a.pk], [h100.pk], None) == {
        "by_quote": {},
        "by_accelerator": {},
    }


def test_missing_figures_are_none_not_guessed(quote_a, h100):
    BenchmarkResultFactory(
        quote=quote_a,
        accelerator=h100,
        metrics={"output_tokens_per_s": None, "ttft_ms": None, "e2e_ms": {"p99": None}},
    )
    figures = measured_performance_for([quote_a.pk], [], None)["by_quote"][quote_a.pk]
    assert figures["tokens_per_s_per_gpu"] is None
    assert figures["ttft_p95_ms"] is None
    assert figures["e2e_p99_ms"] is None
    assert figures["acceptance_rate"] is None


def test_query_count_is_constant(quote_a, h100, brief, django_assert_max_num_queries, provider_a):
    quotes = [QuoteFactory(provider=provider_a, accelerator=h100) for _ in range(20)]
    for quote in quotes:
        BenchmarkResultFactory.create_batch(2, quote=quote, accelerator=h100, brief=brief)
    with django_assert_max_num_queries(2):
        out = measured_performance_for([q.pk for q in quotes], [h100.pk], brief.pk)
    assert len(out["by_quote"]) == 20


def test_empty_ids_make_no_query(django_assert_num_queries):
    with django_assert_num_queries(0):
        assert measured_performance_for([], [], None) == {"by_quote": {}, "by_accelerator": {}}
