"""Fixtures of the deployments tests: an H200 offer and its engineer's 8-GPU TP=8 sweep."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import timezone

from benchmarks.models import BenchmarkResult
from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from tests.comparisons.conftest import checklist_items  # noqa: F401 - a fixture
from tests.comparisons.factories_comparisons import answer_checklist
from tests.factories import AcceleratorFactory, ProviderFactory, QuoteFactory, WorkloadBriefFactory


def h200():
    return AcceleratorFactory(
        slug="h200-sxm-141gb",
        name="H200 SXM 141GB",
        memory_gb=141.0,
        memory_bandwidth_tbps=4.8,
        bf16_dense_tflops=989.5,
        fp8_dense_tflops=1979.0,
        interconnect_gbps=900.0,
        tdp_w=700,
    )


def h200_quote(lead, **extra):
    provider = extra.pop("provider", None) or ProviderFactory(name="Contoso", slug="contoso")
    answer_checklist(provider, lead)
    fields = {
        "provider": provider,
        "accelerator": h200(),
        "capacity_model": "reserved",
        "term_months": 12,
        "price_per_gpu_hour": Decimal("3.5000"),
        "title": "Contoso H200 reserved",
        "entered_by": lead,
        **extra,
    }
    return QuoteFactory(**fields)


def sweep_on(lead, quote, *, gpus=8, tp=8, sha="a"):
    """The engineer's vLLM sweep on the quote: concurrency 32 meets TTFT 800 ms at 752 ms."""
    points = [
        {
            "label": f"concurrency {c}",
            "concurrency": float(c),
            "output_tokens_per_s": tps,
            "ttft_ms": {"p50": None, "p95": ttft, "p99": None, "mean": None},
            "itl_ms": {"p50": itl, "p95": itl * 1.5, "p99": None, "mean": None},
            "e2e_ms": {"p50": None, "p95": None, "p99": 12000.0, "mean": None},
        }
        for c, tps, ttft, itl in (
            (8, 2400.0, 310.0, 14.0),
            (32, 6400.0, 752.0, 22.0),
            (64, 8000.0, 1900.0, 45.0),
        )
    ]
    return BenchmarkResult.objects.create(
        uploaded_by=lead,
        quote=quote,
        accelerator=quote.accelerator,
        gpu_count=gpus,
        tensor_parallel=tp,
        pipeline_parallel=1,
        serving_engine="vllm",
        raw_file="benchmarks/sweep.json",
        original_name="sweep.json",
        sha256=sha * 64,
        size_bytes=10,
        format_id="vllm",
        status=BenchmarkResult.Status.PARSED,
        parsed_at=timezone.now(),
        metrics={"output_tokens_per_s": 2400.0, "operating_points": points},
        model_name="meta-llama/Llama-3.1-70B-Instruct",
        precision="bf16",
        input_tokens_mean=1500,
        output_tokens_mean=300,
        concurrency=64,
    )


@pytest.fixture
def deploy_brief(db, lead):
    return WorkloadBriefFactory(created_by=lead)


def run_rows(lead, brief, quotes, seed=7, assumptions=None):
    comparison = comparison_create(
        acting_user=lead,
        brief=brief,
        quote_ids=[q.pk for q in quotes],
        seed=seed,
        assumptions=assumptions,
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    rows = {r.quote_id: r for r in CandidateResult.objects.filter(comparison=comparison)}
    return comparison, rows
