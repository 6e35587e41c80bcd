"""Which brief fields each workload class needs before it can be compared.

An incomplete brief means "pause the selection: the team is still buying possibility, not
capacity" (DOMAIN.md, step 1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from procurement.models import WorkloadBrief

COMMON = ["title", "workload_class", "horizon_months", "operating_model"]
RANGES = [
    "monthly_accepted_outputs",
    "acceptance_rate",
    "failure_rate",
    "utilisation",
]
INFERENCE = [
    "model",
    "weight_precision",
    "kv_precision",
    "context_window_tokens",
    "p95_input_tokens",
    "p95_output_tokens",
    "concurrency",
]
REALTIME = ["ttft_p95_ms", "e2e_p99_ms"]
TRAINING = [
    "model",
    "training_tokens_b",
    "sequence_length",
    "checkpoint_interval_min",
    "checkpoint_write_s",
    "restart_time_min",
    "expected_mfu",
    "node_failure_rate_per_day",
    "target_gpus",
]
ADAPTER = ["model", "training_tokens_b", "sequence_length", "lora_rank", "expected_mfu"]
MEDIA = ["gpu_seconds_per_asset", "review_minutes_per_asset"]

REQUIRED_BY_CLASS: dict[str, list[str]] = {
    "realtime_inference": INFERENCE + REALTIME,
    "batch_inference": INFERENCE,
    "retrieval": INFERENCE,
    "evaluation": INFERENCE,
    "training": TRAINING,
    "full_finetune": TRAINING,
    "adapter_finetune": ADAPTER,
    "media": MEDIA,
}


def _blank(value: object) -> bool:
    return value is None or value == ""


def missing_fields(brief: WorkloadBrief) -> list[str]:
    """Names of the fields still missing, in form order; ranged fields by their base name."""
    missing = [name for name in COMMON if _blank(getattr(brief, name, None))]
    for name in REQUIRED_BY_CLASS.get(brief.workload_class, []):
        if _blank(getattr(brief, name + "_id" if name == "model" else name, None)):
            missing.append(name)
    needs_labour = brief.operating_model != "managed"
    if needs_labour and _blank(brief.platform_fte):
        missing.append("platform_fte")
    for base in RANGES:
        parts = [getattr(brief, f"{base}_{p}") for p in ("low", "likely", "high")]
        if any(_blank(v) for v in parts):
            missing.append(base)
    return missing
