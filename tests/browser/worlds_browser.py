"""Small worlds for the page tour, built through factories and the services (so the live
server thread sees committed rows, made the way the product makes them)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.core.files import File
from django.utils import timezone

from tests.comparisons.factories_comparisons import h100, l40s, scenario_quotes
from tests.factories import (
    AcceleratorFactory,
    ModelProfileFactory,
    QuoteFactory,
    RfqFactory,
    WorkloadBriefFactory,
)

PARSER_FIXTURES = Path(__file__).resolve().parents[1] / "parsers" / "fixtures"
VLLM_SAMPLE = "vllm-serve/llmd_exp7_H100_vllm-2replicas_benchmark_2025-05-13_04-55-27.json"
AIPERF_SAMPLE = "aiperf/aiperf_examples_run1_profile_export.jsonl"


def h200() -> Any:
    return AcceleratorFactory(
        slug="h200-sxm-141gb",
        name="H200 SXM 141GB",
        memory_gb=141.0,
        memory_type="HBM3e",
        memory_bandwidth_tbps=4.8,
        bf16_dense_tflops=989.5,
        fp8_dense_tflops=1979.0,
        tdp_w=700,
    )


@dataclass
class CatalogWorld:
    accelerators: list[Any]
    fresh: Any  # provider A's H100 quote, revised once: v2 is current
    first_version: Any
    stale: Any  # provider B's H200 quote, captured 45 days ago
    rfq: Any


def catalog_world(*, lead: Any, vendor_a: Any, provider_a: Any, provider_b: Any) -> CatalogWorld:
    from catalog.services import quote_revise

    accelerators = [h100(), h200(), l40s()]
    rfq = RfqFactory(
        title="Support chat capacity, Q3",
        created_by=lead,
        providers=[provider_a, provider_b],
        requirements="8x H100 or H200 per node in eu-west.",
        capacity_models=["on_demand", "reserved"],
    )
    rfq.accelerators.set(accelerators[:2])
    first = QuoteFactory(
        provider=provider_a,
        accelerator=accelerators[0],
        rfq=rfq,
        title="H100 on-demand",
        entered_by=vendor_a,
    )
    fresh = quote_revise(
        acting_user=vendor_a, quote=first, data={"price_per_gpu_hour": Decimal("2.19")}
    )
    stale = QuoteFactory(
        provider=provider_b,
        accelerator=accelerators[1],
        title="H200 reserved",
        capacity_model="reserved",
        term_months=12,
        price_per_gpu_hour=Decimal("3.1000"),
        quoted_at=timezone.now() - timedelta(days=45),
        entered_by=lead,
    )
    return CatalogWorld(accelerators, fresh, first, stale, rfq)


def upload_result(*, engineer: Any, quote: Any, brief: Any, sample: str, gpus: int) -> Any:
    """A benchmark result ingested (and parsed) the way the upload page does it."""
    from benchmarks.models import BenchmarkResult
    from benchmarks.services import UploadMeta, benchmark_result_ingest, benchmark_result_parse

    path = PARSER_FIXTURES / sample
    # The AIPerf per-request export does not say its model (the upload asks for it); the
    # same run's summary file names gpt-oss-20b.
    model = ModelProfileFactory(slug="gpt-oss-20b", name="gpt-oss-20b")
    with path.open("rb") as handle:
        outcome = benchmark_result_ingest(
            acting_user=engineer,
            upload=File(handle, name=path.name),
            meta=UploadMeta(
                quote=quote,
                gpu_count=gpus,
                brief=brief,
                serving_engine="vLLM",
                model_profile=model if sample == AIPERF_SAMPLE else None,
                precision="bf16",  # neither sample states it; the upload asks (issue 14)
            ),
        )
    result = outcome.result
    if result.status == BenchmarkResult.Status.PENDING:  # big files are parsed by a worker
        benchmark_result_parse(result_id=result.pk)
        result.refresh_from_db()
    return result


@dataclass
class DecisionWorld:
    brief: Any
    comparison: Any
    quotes: tuple[Any, Any]


def decision_world(*, lead: Any) -> DecisionWorld:
    """A complete brief and a comparison of two real quotes, computed in-process."""
    from procurement.services.comparisons import comparison_create, comparison_run

    brief = WorkloadBriefFactory(title="Support chat assistant", created_by=lead, e2e_p99_ms=30_000)
    cheap, fast = scenario_quotes(lead)
    comparison = comparison_create(
        acting_user=lead,
        brief=brief,
        quote_ids=[cheap.pk, fast.pk],
        seed=7,
        title="Support chat: L40S or H100",
        enqueue=False,
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    return DecisionWorld(brief, comparison, (cheap, fast))
