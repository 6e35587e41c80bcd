"""Rows and points for the operating-point chart tests (no database but `sweep_result`)."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

from django.utils import timezone

from benchmarks.models import BenchmarkResult


def point(label, per_user, cost, meets, chosen=False, **extra):
    return {
        "label": label,
        "statement": f"{label}, TTFT p95 …",
        "tokens_per_s_per_user": per_user,
        "tokens_per_s": 1000.0,
        "unit_cost": cost,
        "meets": meets,
        "chosen": chosen,
        "goodput": None,
        **extra,
    }


SWEEP = [
    point("concurrency 8", 80.0, "1.90", True),
    point("concurrency 32", 50.0, "0.95", True, chosen=True),
    point("concurrency 64", 25.0, "0.76", False),
    point("rate inf/s", None, "0.70", False),  # no per-user figure: table only
]


def swept_row(key="quote:1", rank=1, points=SWEEP, eligible=True, label=None, **extra):
    return SimpleNamespace(
        key=key,
        rank=rank,
        eligible=eligible,
        provider_name="P",
        accelerator_name="H100",
        capacity_model="on_demand",
        label=label or f"P: Offer {key.split(':')[-1]} v1",
        detail={"operating_points": points},
        **extra,
    )


def costed_row(key, rank, label, *, region="eu-west", version=1, capacity="on_demand", cost="1.5"):
    """A costed row without a sweep, labelled as the snapshot labels it ("Provider: title vN")."""
    return SimpleNamespace(
        key=key,
        rank=rank,
        eligible=True,
        label=label,
        provider_name=label.split(":")[0],
        accelerator_name="H100 SXM 80GB",
        capacity_model=capacity,
        unit_cost_usd=Decimal(cost),
        total_usd=Decimal("1000"),
        cost_lines={"gpu_compute": "900", "storage": "100"},
        p10=1.0,
        p50=1.5,
        p90=2.0,
        detail={"region": region, "quote_version": version},
        performance={},
    )


def sweep_result(lead, quote, sha="1"):
    points = [
        {
            "label": f"concurrency {c}",
            "concurrency": float(c),
            "output_tokens_per_s": tps,
            "ttft_ms": {"p50": None, "p95": ttft, "p99": None, "mean": None},
            "itl_ms": {"p50": itl, "p95": itl * 1.5, "p99": None, "mean": None},
            "e2e_ms": {"p50": None, "p95": None, "p99": 9000.0, "mean": None},
        }
        for c, tps, ttft, itl in (
            (8, 1200.0, 300.0, 12.0),
            (32, 2400.0, 835.0, 20.0),
            (64, 3000.0, 2600.0, 40.0),
        )
    ]
    BenchmarkResult.objects.create(
        uploaded_by=lead,
        quote=quote,
        accelerator=quote.accelerator,
        gpu_count=4,
        raw_file="benchmarks/sweep.json",
        original_name="sweep.json",
        sha256=sha * 64,
        size_bytes=10,
        format_id="vllm",
        status=BenchmarkResult.Status.PARSED,
        parsed_at=timezone.now(),
        metrics={"output_tokens_per_s": 1200.0, "operating_points": points},
        model_name="meta-llama/Llama-3.1-70B-Instruct",
        precision="bf16",
        input_tokens_mean=1500,
        output_tokens_mean=300,
        concurrency=64,
    )
