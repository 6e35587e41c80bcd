"""Brief values per workload class, for tests (valid values; `complete=False` leaves gaps)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

RANGES: dict[str, Any] = {
    "monthly_accepted_outputs_low": 1_000_000,
    "monthly_accepted_outputs_likely": 2_000_000,
    "monthly_accepted_outputs_high": 4_000_000,
    "acceptance_rate_low": 0.8,
    "acceptance_rate_likely": 0.9,
    "acceptance_rate_high": 0.95,
    "failure_rate_low": 0.01,
    "failure_rate_likely": 0.02,
    "failure_rate_high": 0.05,
    "utilisation_low": 0.3,
    "utilisation_likely": 0.5,
    "utilisation_high": 0.7,
}
TRAINING: dict[str, Any] = {
    "training_tokens_b": 2.0,
    "sequence_length": 4096,
    "global_batch_tokens": 4_194_304,
    "target_gpus": 16,
    "expected_mfu": 0.4,
    "run_success_probability": 0.9,
    "checkpoint_size_gb": 1100.0,
    "checkpoint_interval_min": 60.0,
    "checkpoint_write_s": 90.0,
    "restart_time_min": 20.0,
    "node_failure_rate_per_day": 0.02,
    "lora_rank": 16,
}


def brief_factory_kwargs(workload_class: str, *, complete: bool = True) -> dict[str, Any]:
    """Field values for WorkloadBriefFactory(**kwargs) of the given class."""
    kwargs: dict[str, Any] = {"workload_class": workload_class, **RANGES}
    if workload_class in ("training", "full_finetune", "adapter_finetune"):
        kwargs.update(TRAINING)
    if workload_class == "media":
        kwargs.update(
            model=None,
            media_kind="image",
            gpu_seconds_per_asset=4.0,
            moderation_cost_per_asset=Decimal("0.002"),
            review_minutes_per_asset=0.1,
        )
    if workload_class in ("batch_inference", "evaluation"):
        kwargs["batch_size"] = 64
    if workload_class == "retrieval":
        kwargs["storage_gb"] = 2000
    if not complete:
        kwargs.update(
            concurrency=None,
            e2e_p99_ms=None,
            acceptance_rate_high=None,
            media_kind="",
            training_tokens_b=None,
            lora_rank=None,
        )
    return kwargs
