"""Which brief fields matter for each workload class, and the rules a brief's values obey.

An incomplete brief means "pause the selection: the team is still buying possibility, not
capacity" (docs/domain.md, step 1). `missing_fields(brief)` lists what a class still needs;
`brief_errors(values)` lists values that are wrong whatever the class (ranges out of order,
fractions outside 0..1, a context window too small for the p95 request). Forms, serializers
and `services_briefs` all call `brief_errors`, so the messages are the same everywhere.
Pure: no queries (the model is read as an already-loaded object or its id).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core import workloads
from core.values import float_or_none
from engine.limits import BRIEF_BOUNDS, bound_message, out_of_bounds

if TYPE_CHECKING:
    from briefs.models import WorkloadBrief


@dataclass(frozen=True, slots=True)
class FieldGroup:
    """A fieldset of the brief form and detail page, shown for the classes it applies to."""

    key: str
    title: str
    fields: tuple[str, ...]
    classes: frozenset[str]


RANGE_BASES: tuple[str, ...] = (
    "monthly_accepted_outputs",
    "acceptance_rate",
    "failure_rate",
    "utilisation",
)
FRACTION_BASES = frozenset({"acceptance_rate", "failure_rate", "utilisation"})
# The same bounds as a comparison's overrides of these rates (procurement/snapshot/
# assumptions.py, RANGED): no output accepted, every attempt failing or GPUs never busy would
# divide a cost by zero, so a brief holding one is not "complete".
RATE_BOUNDS: dict[str, tuple[float, float]] = {
    "acceptance_rate": (0.01, 1.0),
    "failure_rate": (0.0, 0.99),
    "utilisation": (0.01, 1.0),
}
RANGE_LABELS = {
    "monthly_accepted_outputs": "Monthly accepted outputs (answers, not tokens)",
    "acceptance_rate": "Acceptance rate",
    "failure_rate": "Failure rate",
    "utilisation": "Utilisation",
}
RANGE_PARTS = ("low", "likely", "high")


def range_fields(base: str) -> tuple[str, str, str]:
    return (f"{base}_low", f"{base}_likely", f"{base}_high")


def _group(key: str, title: str, fields: str, classes: frozenset[str]) -> FieldGroup:
    return FieldGroup(key, title, tuple(fields.split()), classes)


GROUPS: tuple[FieldGroup, ...] = (
    _group("workload", "Workload", "title workload_class description", workloads.ALL),
    _group(
        "model",
        "Model and precision",
        "model weight_precision kv_precision allow_model_substitution",
        workloads.ALL,
    ),
    _group(
        "tokens",
        "Context, tokens and concurrency",
        "context_window_tokens p95_input_tokens p95_output_tokens mean_input_tokens "
        "mean_output_tokens streaming concurrency batch_size billed_token_type",
        workloads.SERVING,
    ),
    _group(
        "latency",
        "Latency targets",
        "ttft_p95_ms itl_p95_ms e2e_p99_ms max_error_rate",
        workloads.SERVING,
    ),
    _group(
        "serving",
        "Serving engine",
        "serving_engine serving_engine_version",
        workloads.SERVING,
    ),
    FieldGroup(
        "volume",
        "Volume and uncertain assumptions (low / likely / high)",
        ("peak_to_average", *(f for base in RANGE_BASES for f in range_fields(base))),
        workloads.ALL,
    ),
    _group(
        "training",
        "Training run",
        "training_tokens_b sequence_length global_batch_tokens optimizer sharding lora_rank "
        "expected_mfu target_gpus run_success_probability",
        workloads.TRAINING,
    ),
    _group(
        "checkpoints",
        "Checkpoints and failures",
        "checkpoint_size_gb checkpoint_interval_min checkpoint_write_s restart_time_min "
        "node_failure_rate_per_day",
        workloads.TRAINING,
    ),
    _group(
        "media",
        "Media generation",
        "media_kind gpu_seconds_per_asset moderation_cost_per_asset review_minutes_per_asset",
        frozenset({"media"}),
    ),
    _group(
        "boundary",
        "Data boundary",
        "allowed_regions private_endpoint_required residency_notes",
        workloads.ALL,
    ),
    _group(
        "operations",
        "Operating model, labour and horizon",
        "operating_model platform_fte loaded_monthly_cost_per_fte storage_gb egress_gb_month "
        "horizon_months expected_model_churn_months",
        workloads.ALL,
    ),
)

# Every field a person fills in, in form order.
BRIEF_FIELDS: tuple[str, ...] = tuple(name for group in GROUPS for name in group.fields)

# --- what each class needs before it can be compared --------------------------------------

COMMON = ("title", "workload_class", "horizon_months", "operating_model")
SERVING = (
    "model",
    "weight_precision",
    "kv_precision",
    "context_window_tokens",
    "p95_input_tokens",
    "p95_output_tokens",
)
TRAINING_RUN = (
    "model",
    "weight_precision",
    "training_tokens_b",
    "sequence_length",
    "target_gpus",
    "expected_mfu",
    "run_success_probability",
    "checkpoint_size_gb",
    "checkpoint_interval_min",
    "checkpoint_write_s",
    "restart_time_min",
    "node_failure_rate_per_day",
)
REQUIRED_BY_CLASS: dict[str, tuple[str, ...]] = {
    "realtime_inference": (*SERVING, "concurrency", "ttft_p95_ms", "e2e_p99_ms"),
    "batch_inference": (*SERVING, "batch_size"),
    # The index and documents live next to the GPUs; the answer waits on retrieval + generation.
    "retrieval": (*SERVING, "concurrency", "e2e_p99_ms", "storage_gb"),
    "evaluation": (*SERVING, "batch_size"),
    "training": (*TRAINING_RUN, "global_batch_tokens"),
    "full_finetune": TRAINING_RUN,
    "adapter_finetune": (
        "model",
        "weight_precision",
        "training_tokens_b",
        "sequence_length",
        "lora_rank",
        "expected_mfu",
        "checkpoint_interval_min",
    ),
    "media": (
        "media_kind",
        "gpu_seconds_per_asset",
        "moderation_cost_per_asset",
        "review_minutes_per_asset",
    ),
}
# Which uncertain assumptions each class needs as a full low / likely / high range. A training
# run's denominator is the completed run (its success probability), not a monthly volume.
RANGES_BY_CLASS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(workloads.SERVING | {"media"}, RANGE_BASES),
    "training": ("utilisation",),
    "full_finetune": ("acceptance_rate", "utilisation"),
    "adapter_finetune": ("acceptance_rate", "utilisation"),
}


def _blank(value: object) -> bool:
    return value is None or value == ""


def groups_for(workload_class: str) -> tuple[FieldGroup, ...]:
    """The fieldsets that matter for a class (all of them for an unknown class)."""
    if workload_class not in workloads.ALL:
        return GROUPS
    return tuple(g for g in GROUPS if workload_class in g.classes)


def required_fields(brief: WorkloadBrief) -> tuple[str, ...]:
    required = list(COMMON) + list(REQUIRED_BY_CLASS.get(brief.workload_class, ()))
    if brief.workload_class == "realtime_inference" and brief.streaming:
        required.append("itl_p95_ms")  # streamed answers are judged token by token
    if brief.operating_model != "managed":
        required += ["platform_fte", "loaded_monthly_cost_per_fte"]
    return tuple(dict.fromkeys(required))


def missing_fields(brief: WorkloadBrief) -> list[str]:
    """Names of the fields still missing, in form order; ranged fields by their base name."""
    missing = [
        name
        for name in required_fields(brief)
        if _blank(getattr(brief, "model_id" if name == "model" else name, None))
    ]
    for base in RANGES_BY_CLASS.get(brief.workload_class, RANGE_BASES):
        if any(_blank(getattr(brief, name, None)) for name in range_fields(base)):
            missing.append(base)
    return missing


# Labels other than the name in sentence case ("batch_size" → "Batch size"), which
# field_label and the form give every other field.
FIELD_LABELS: dict[str, str] = {
    "kv_precision": "KV-cache precision",
    "context_window_tokens": "Context window (tokens)",
    "p95_input_tokens": "p95 input (tokens)",
    "p95_output_tokens": "p95 output (tokens)",
    "mean_input_tokens": "Mean input (tokens)",
    "mean_output_tokens": "Output tokens per request (mean)",
    "streaming": "Streaming output",
    "concurrency": "Concurrent sequences at peak",
    "ttft_p95_ms": "Time to first token p95 (ms)",
    "itl_p95_ms": "Inter-token latency p95 (ms)",
    "e2e_p99_ms": "End-to-end latency p99 (ms)",
    "max_error_rate": "Maximum error rate (0..1)",
    "billed_token_type": "Unit costs count",
    "peak_to_average": "Peak-to-average traffic ratio",
    "training_tokens_b": "Training tokens (billions)",
    "sequence_length": "Sequence length (tokens)",
    "global_batch_tokens": "Global batch (tokens)",
    "sharding": "Sharding (zero1/2/3, fsdp, ddp)",
    "lora_rank": "LoRA rank",
    "checkpoint_size_gb": "Checkpoint size (GB)",
    "checkpoint_interval_min": "Checkpoint interval (min)",
    "checkpoint_write_s": "Checkpoint write time (s)",
    "restart_time_min": "Restart after a failure (min)",
    "expected_mfu": "Expected MFU (0..1)",
    "node_failure_rate_per_day": "Node failures per day (per node)",
    "target_gpus": "Target GPUs",
    "run_success_probability": "Run success probability (0..1)",
    "gpu_seconds_per_asset": "GPU seconds per asset",
    "moderation_cost_per_asset": "Moderation cost per asset (USD)",
    "review_minutes_per_asset": "Operator review per asset (min)",
    "allowed_regions": "Allowed regions",  # the form declares this field itself, unlabelled
    "allow_model_substitution": "Allow another model (substitution)",
    "platform_fte": "Platform team (FTE)",
    "loaded_monthly_cost_per_fte": "Loaded monthly cost per FTE (USD)",
    "storage_gb": "Storage (GB)",
    "egress_gb_month": "Egress (GB / month)",
    "horizon_months": "Horizon (months)",
    "expected_model_churn_months": "Expected model churn (months)",
}


def field_label(name: str) -> str:
    """Human label of a field or range base name ("acceptance_rate" → "Acceptance rate")."""
    if name in RANGE_LABELS:
        return f"{RANGE_LABELS[name]} (low / likely / high)"
    base, _, part = name.rpartition("_")
    if base in RANGE_LABELS and part in RANGE_PARTS:
        return f"{RANGE_LABELS[base]} ({part})"
    return FIELD_LABELS.get(name, name.replace("_", " ").capitalize())


def missing_labels(brief: WorkloadBrief) -> list[str]:
    return [field_label(name) for name in missing_fields(brief)]


# --- rules on the values ------------------------------------------------------------------


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if value >= 1000 else f"{value:g}"


RATE_REASONS = {
    "acceptance_rate": "at 0 no output is ever accepted, so no cost per accepted output exists.",
    "failure_rate": "at 1 every attempt fails, so nothing is ever delivered.",
    "utilisation": "at 0 the GPUs are never busy, so nothing is ever produced.",
}


def _within(value: float, bounds: tuple[float, float]) -> bool:
    return bounds[0] <= value <= bounds[1]


def range_errors(values: Mapping[str, Any]) -> dict[str, list[str]]:
    """low ≤ likely ≤ high for each range; rates are fractions within 0..1; volumes ≥ 0.

    A range may be left partly empty (the brief is then incomplete, not invalid).
    """
    errors: dict[str, list[str]] = {}
    for base in RANGE_BASES:
        label = RANGE_LABELS[base]
        parts: dict[str, float] = {}
        for part, name in zip(RANGE_PARTS, range_fields(base), strict=True):
            value = float_or_none(values.get(name))
            if value is None:
                continue
            if not math.isfinite(value):
                errors.setdefault(name, []).append(f"{label} ({part}) must be a finite number.")
            elif base in FRACTION_BASES and not 0 <= value <= 1:
                errors.setdefault(name, []).append(
                    f"{label} ({part}) is a fraction between 0 and 1 (0.92 means 92 %), "
                    f"got {value:g}."
                )
            elif value < 0:
                errors.setdefault(name, []).append(f"{label} ({part}) cannot be negative.")
            elif base in RATE_BOUNDS and not _within(value, RATE_BOUNDS[base]):
                lo, hi = RATE_BOUNDS[base]
                errors.setdefault(name, []).append(
                    f"{label} ({part}) must be between {lo:g} and {hi:g}, got {value:g}: "
                    f"{RATE_REASONS[base]}"
                )
            else:
                parts[part] = value
        low, likely, high = (parts.get(p) for p in RANGE_PARTS)
        low_name, _, high_name = range_fields(base)
        if low is not None and likely is not None and low > likely:
            errors.setdefault(low_name, []).append(
                f"{label}: low ({_fmt(low)}) must not exceed likely ({_fmt(likely)})."
            )
        if likely is not None and high is not None and likely > high:
            errors.setdefault(high_name, []).append(
                f"{label}: high ({_fmt(high)}) must be at least likely ({_fmt(likely)})."
            )
        if likely is None and low is not None and high is not None and low > high:
            errors.setdefault(high_name, []).append(
                f"{label}: high ({_fmt(high)}) must be at least low ({_fmt(low)})."
            )
    return errors


def shape_errors(values: Mapping[str, Any]) -> dict[str, list[str]]:
    """Rules between token fields, and the model's own limit on context."""
    errors: dict[str, list[str]] = {}
    window = float_or_none(values.get("context_window_tokens"))
    p95_in = float_or_none(values.get("p95_input_tokens"))
    p95_out = float_or_none(values.get("p95_output_tokens"))
    needed = p95_in + p95_out if p95_in is not None and p95_out is not None else None
    if window is not None and needed is not None and needed > window:
        errors["context_window_tokens"] = [
            f"The context window ({_fmt(window)} tokens) must hold the p95 input plus "
            f"output ({_fmt(needed)} tokens)."
        ]
    for kind, p95 in (("input", p95_in), ("output", p95_out)):
        mean = float_or_none(values.get(f"mean_{kind}_tokens"))
        if mean is not None and p95 is not None and mean > p95:
            errors[f"mean_{kind}_tokens"] = [
                f"The mean {kind} ({_fmt(mean)} tokens) cannot exceed the p95 {kind} "
                f"({_fmt(p95)} tokens)."
            ]
    model = values.get("model")
    max_context = getattr(model, "max_context", None)
    if window is not None and max_context and window > max_context:
        errors.setdefault("context_window_tokens", []).append(
            f"{model} supports at most {max_context:,} tokens of context."
        )
    return errors


def bound_errors(values: Mapping[str, Any]) -> dict[str, list[str]]:
    """Figures outside the engine's own limits (engine/limits.py), with the field named.

    The horizon is at least 1 month (0 would zero every elastic commitment).
    """
    errors: dict[str, list[str]] = {}
    for name in BRIEF_BOUNDS:
        value = float_or_none(values.get(name))
        if value is not None and math.isfinite(value) and out_of_bounds(name, value):
            errors[name] = [bound_message(name, field_label(name))]
    return errors


def brief_errors(values: Mapping[str, Any]) -> dict[str, list[str]]:
    """Every rule on the values, keyed by field name (empty when the values are valid)."""
    errors = range_errors(values)
    for name, messages in shape_errors(values).items():
        errors.setdefault(name, []).extend(messages)
    for name, messages in bound_errors(values).items():
        if name not in errors:
            errors[name] = messages
    cap = float_or_none(values.get("max_error_rate"))
    if cap is not None and math.isfinite(cap) and not 0 <= cap < 1:
        errors.setdefault("max_error_rate", []).append(
            f"{field_label('max_error_rate')} is a fraction from 0 up to (not including) 1 "
            f"(0.01 means 1 %), got {cap:g}."
        )
    for name, value in values.items():
        number = float_or_none(value) if isinstance(value, float) else None
        if number is not None and not math.isfinite(number) and name not in errors:
            errors[name] = ["Must be a finite number."]
    return errors
