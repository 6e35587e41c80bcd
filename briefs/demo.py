"""Demo workload briefs by user `lead`: four complete briefs and one paused draft, and the
support brief's traffic trace. Idempotent.

Called first by `procurement.demo.load`. Goes through `services_briefs.brief_create`, so the
demo obeys the same rules (and leaves the same audit trail) as real input. The numbers are
plausible for a mid-sized enterprise team; they are demo data, not advice.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from django.core.files import File

from accounts.models import User
from briefs.models import TrafficTrace, WorkloadBrief
from briefs.services import brief_create
from briefs.services.traces import traffic_trace_read, traffic_trace_upload
from catalog.demo import RFQ_TITLE
from catalog.models import ModelProfile, Rfq

MODEL_SLUGS = ("llama-3-1-70b", "llama-3-1-8b", "qwen2-5-72b")


def _ranges(prefix: str, low: float, likely: float, high: float) -> dict[str, float]:
    return {f"{prefix}_low": low, f"{prefix}_likely": likely, f"{prefix}_high": high}


BRIEFS: list[dict[str, Any]] = [
    {
        "title": "Customer support chat assistant",
        "workload_class": "realtime_inference",
        "description": "Streaming answers for the support portal, EU customers, 24/7.",
        "model": "llama-3-1-70b",
        "context_window_tokens": 16384,
        "p95_input_tokens": 3500,
        "p95_output_tokens": 600,
        "mean_input_tokens": 1400,
        "mean_output_tokens": 250,
        "streaming": True,
        "concurrency": 48,
        "ttft_p95_ms": 800,
        "itl_p95_ms": 50,
        "e2e_p99_ms": 25000,
        "peak_to_average": 2.5,
        **_ranges("monthly_accepted_outputs", 1_500_000, 2_500_000, 4_000_000),
        **_ranges("acceptance_rate", 0.85, 0.92, 0.96),
        **_ranges("failure_rate", 0.005, 0.01, 0.03),
        **_ranges("utilisation", 0.35, 0.55, 0.7),
        "allowed_regions": ["eu-west", "eu-central"],
        "private_endpoint_required": True,
        "residency_notes": "Conversation logs stay in the EU; no provider-side retention.",
        "platform_fte": 1.0,
        "storage_gb": 500,
        "egress_gb_month": 200,
        "horizon_months": 12,
        "expected_model_churn_months": 9,
    },
    {
        "title": "Nightly document summarisation",
        "workload_class": "batch_inference",
        "description": "Summarise the day's contracts and tickets overnight (8-hour window).",
        "model": "llama-3-1-8b",
        "context_window_tokens": 32768,
        "p95_input_tokens": 12000,
        "p95_output_tokens": 800,
        "mean_input_tokens": 5000,
        "mean_output_tokens": 400,
        "streaming": False,
        "concurrency": 64,
        "batch_size": 64,
        "e2e_p99_ms": 120000,
        "peak_to_average": 1.0,
        **_ranges("monthly_accepted_outputs", 3_000_000, 4_000_000, 6_000_000),
        **_ranges("acceptance_rate", 0.9, 0.95, 0.98),
        **_ranges("failure_rate", 0.01, 0.02, 0.05),
        **_ranges("utilisation", 0.6, 0.75, 0.9),
        "allowed_regions": ["eu-west"],
        "operating_model": "shared",
        "platform_fte": 0.3,
        "storage_gb": 2000,
        "egress_gb_month": 50,
        "horizon_months": 12,
        "expected_model_churn_months": 6,
    },
    {
        "title": "Support-tone LoRA adapter",
        "workload_class": "adapter_finetune",
        "description": "Monthly LoRA refresh on curated support transcripts.",
        "model": "llama-3-1-8b",
        "sequence_length": 4096,
        "training_tokens_b": 0.2,
        "lora_rank": 16,
        "optimizer": "adamw",
        "sharding": "ddp",
        "expected_mfu": 0.35,
        "target_gpus": 1,
        "run_success_probability": 0.9,
        "checkpoint_size_gb": 0.5,
        "checkpoint_interval_min": 30,
        "checkpoint_write_s": 20,
        "restart_time_min": 10,
        "node_failure_rate_per_day": 0.01,
        **_ranges("monthly_accepted_outputs", 1, 2, 4),
        **_ranges("acceptance_rate", 0.6, 0.75, 0.9),
        **_ranges("utilisation", 0.5, 0.7, 0.85),
        "allowed_regions": ["eu-west"],
        "platform_fte": 0.2,
        "storage_gb": 200,
        "horizon_months": 12,
        "expected_model_churn_months": 6,
    },
    {
        "title": "Product image generation",
        "workload_class": "media",
        "description": "Catalogue images (1024×1024, SDXL-class diffusion), queue-tolerant.",
        "media_kind": "image",
        "gpu_seconds_per_asset": 3.5,
        "moderation_cost_per_asset": Decimal("0.0020"),
        "review_minutes_per_asset": 0.2,
        "peak_to_average": 1.5,
        **_ranges("monthly_accepted_outputs", 200_000, 400_000, 800_000),
        **_ranges("acceptance_rate", 0.55, 0.7, 0.8),
        **_ranges("failure_rate", 0.01, 0.02, 0.04),
        **_ranges("utilisation", 0.4, 0.6, 0.8),
        "platform_fte": 0.5,
        "storage_gb": 5000,
        "egress_gb_month": 2000,
        "horizon_months": 12,
        "expected_model_churn_months": 4,
    },
    {
        # Paused on purpose: no concurrency, latency target, index size or volume yet.
        "title": "Contract search assistant (draft)",
        "workload_class": "retrieval",
        "description": "Legal asked for it; traffic and latency needs are still unknown.",
        "model": "qwen2-5-72b",
        "context_window_tokens": 32768,
        "p95_input_tokens": 24000,
        "p95_output_tokens": 800,
        **_ranges("utilisation", 0.3, 0.5, 0.7),
        "allowed_regions": ["eu-central"],
        "private_endpoint_required": True,
        "platform_fte": 0.5,
        "horizon_months": 12,
    },
]


def _models() -> dict[str, ModelProfile]:
    found = {m.slug: m for m in ModelProfile.objects.filter(slug__in=MODEL_SLUGS)}
    if len(found) < len(MODEL_SLUGS):
        # catalog.demo normally loaded them; load the checked-in catalog if it did not.
        from catalog.services.seed_data import catalog_load

        catalog_load()
        found = {m.slug: m for m in ModelProfile.objects.filter(slug__in=MODEL_SLUGS)}
    return found


RFQ_BRIEF_TITLE = "Customer support chat assistant"


def load(stdout: Any = None) -> None:
    lead = User.objects.filter(username="lead").first()
    if lead is None:
        if stdout is not None:
            stdout.write("briefs demo: user 'lead' is missing (run accounts.demo first); skipped")
        return
    models = _models()
    created = 0
    for spec in BRIEFS:
        if WorkloadBrief.objects.filter(title=spec["title"], created_by=lead).exists():
            continue
        data = dict(spec)
        if "model" in data:
            data["model"] = models[data["model"]]
        brief_create(acting_user=lead, data=data, volume_confirmed=True)  # seeded on purpose
        created += 1
    # The catalog demo's RFQ asks for the support brief's capacity (catalog/demo.py runs
    # first, before any brief exists): link it, so the RFQ page shows the brief it serves.
    support = WorkloadBrief.objects.filter(title=RFQ_BRIEF_TITLE, created_by=lead).first()
    if support is not None:
        Rfq.objects.filter(title=RFQ_TITLE, brief__isnull=True).update(brief=support)
        _demo_trace(support, lead)
    if stdout is not None:
        stdout.write(f"briefs demo: {created} created, {len(BRIEFS) - created} already there")


DEMO_TRACE = Path(__file__).resolve().parent / "data" / "azure-llm-conversation-2023.csv"


def _demo_trace(brief: WorkloadBrief, lead: User) -> None:
    """The support brief's traffic: the shipped Azure conversation trace (briefs/data/SOURCES.md)
    as a representative hour, read at once (the worker would read it too: the claim makes the
    second read a no-op)."""
    if TrafficTrace.objects.filter(brief=brief).exists():
        return
    with DEMO_TRACE.open("rb") as handle:
        trace = traffic_trace_upload(
            brief=brief,
            upload=File(handle, name=DEMO_TRACE.name),
            window=TrafficTrace.Window.HOUR,
            acting_user=lead,
        )
    traffic_trace_read(trace_id=trace.pk)
