"""Snapshot brief → the engine's `WorkloadInput`. Pure: no Django, no database.

Mapping notes (stated here so a reviewer can check them):

- volumes, acceptance, failure and utilisation are the brief's low/likely/high ranges,
  unless the comparison overrides them; peak-to-average is the brief's single figure;
- tokens per request for costs are the mean input/output tokens (p95 when no mean is given);
  memory fit and latency use the p95 figures;
- training: tokens = the brief's training tokens; node MTBF = 24 h / node failures per day,
  read per node (the field's label says "per node") and multiplied by the run's nodes;
  MFU = expected MFU ± `mfu_spread`; checkpoint interval 60 min and restart 30 min when the
  brief gives none (adapter fine-tuning does not ask for them);
- media: GPU-seconds per asset are read as measured on the `media_reference_tflops` GPU
  (H100 SXM) and scaled per accelerator (sizing.py); review cost per asset = review
  minutes / 60 × `reviewer_hourly_usd`, reviewing every completed asset.
"""

from __future__ import annotations

from decimal import Decimal
from typing import cast

from core import workloads
from core.workloads import WorkloadClassName
from engine.errors import EngineInputError
from engine.types import MediaSpec, Range, TrainingSpec, WorkloadInput
from engine.types.input import BilledTokenType
from procurement.snapshot.assumptions import scalar
from procurement.snapshot.assumptions import sources as scalar_sources
from procurement.snapshot.schema import BriefRow, Effective, ModelRow, Overrides, Snapshot

NO_FAILURE_MTBF_H = 1e9  # no node failure rate given: failures do not enter the cost


def dec(value: str | float | Decimal | None, default: str = "0") -> Decimal:
    """A JSON number or decimal string as Decimal (floats through their shortest spelling)."""
    if value is None or value == "":
        return Decimal(default)
    if isinstance(value, float):
        return Decimal(repr(value))
    return Decimal(str(value))


def brief_range(brief: BriefRow, overrides: Overrides, name: str) -> Range | None:
    part = overrides.get(name)
    if isinstance(part, dict):
        return Range(float(part["low"]), float(part["likely"]), float(part["high"]))
    values = [brief.get(f"{name}_{p}") for p in ("low", "likely", "high")]
    if any(v is None for v in values):
        return None
    low, likely, high = (_bound(v) for v in values)
    return Range(low, likely, high)


def _bound(value: object) -> float:
    """One bound of a brief's range: a JSON number (a numeric string reads as its number)."""
    if isinstance(value, int | float | str):
        return float(value)
    raise TypeError(f"a range bound must be a number, got {value!r}")


def engine_class(brief: BriefRow) -> WorkloadClassName:
    """The engine reads the brief's own spelling (one taxonomy, no translation)."""
    return brief["workload_class"]


def tokens_per_request(brief: BriefRow) -> tuple[float, float]:
    """Mean input and output tokens per request (p95 when no mean is given)."""
    tokens_in = brief.get("mean_input_tokens") or brief.get("p95_input_tokens") or 0
    tokens_out = brief.get("mean_output_tokens") or brief.get("p95_output_tokens") or 0
    return float(tokens_in), float(tokens_out)


def _training_spec(snap: Snapshot, a: Effective) -> TrainingSpec:
    brief = snap["brief"]
    model: ModelRow = snap.get("model") or {}
    active = model.get("params_active_b") or (model.get("spec") or {}).get("params_b") or 1.0
    tokens = float(brief.get("training_tokens_b") or 0) * 1e9
    rate = brief.get("node_failure_rate_per_day") or 0
    mtbf = 24.0 / float(rate) if rate and rate > 0 else NO_FAILURE_MTBF_H
    mfu = float(brief.get("expected_mfu") or 0.4)
    spread = float(a["mfu_spread"])
    return TrainingSpec(
        active_params_b=float(active),
        tokens=Range.fixed(tokens),
        checkpoint_write_s=float(brief.get("checkpoint_write_s") or 0),
        checkpoint_interval_h=float(brief.get("checkpoint_interval_min") or 60) / 60,
        node_mtbf_h=Range.fixed(mtbf),
        mfu=Range(max(0.01, mfu * (1 - spread)), mfu, min(1.0, mfu * (1 + spread))),
        success_probability=Range.fixed(float(brief.get("run_success_probability") or 1.0)),
        checkpoint_size_gb=float(brief.get("checkpoint_size_gb") or 0),
        restart_h=float(brief.get("restart_time_min") or 30) / 60,
        failure_rate_scope="node",
        flops_per_param_token=_flops_per_param_token(brief, model, float(active)),
    )


# LoRA adapts the 7 linear maps of a transformer layer (q, k, v, o, gate, up, down); each
# adds rank × (inputs + outputs) weights, about rank × 2 × hidden.
LORA_ADAPTED_MATRICES = 7


def _flops_per_param_token(brief: BriefRow, model: ModelRow, active_b: float) -> float:
    """P13: full training costs 6 FLOPs per parameter and token (forward 2, backward 4). An
    adapter's frozen base needs no weight gradients: 4 per base parameter, and 6 per adapter
    weight, which the LoRA rank sizes (left out when the profile gives no layers or width)."""
    if brief.get("workload_class") not in workloads.ADAPTER:
        return 6.0
    spec = model.get("spec") or {}
    rank, hidden, layers = brief.get("lora_rank"), spec.get("hidden_size"), spec.get("layers")
    if not (rank and hidden and layers and active_b > 0):
        return 4.0
    adapter = float(rank) * 2 * float(hidden) * LORA_ADAPTED_MATRICES * float(layers)
    return 4.0 + 6.0 * adapter / (active_b * 1e9)


def _media_spec(brief: BriefRow, a: Effective) -> MediaSpec:
    minutes = float(brief.get("review_minutes_per_asset") or 0)
    return MediaSpec(
        moderation_cost_per_asset=dec(brief.get("moderation_cost_per_asset")),
        review_fraction=1.0 if minutes > 0 else 0.0,
        review_cost_per_asset=dec(minutes) / 60 * dec(a["reviewer_hourly_usd"]),
    )


BRIEF_SOURCED = {
    "horizon_months": "horizon_months",
    "platform_labor_fte": "platform_fte",
    "loaded_monthly_cost_per_fte": "loaded_monthly_cost_per_fte",
    "storage_gb": "storage_gb",
    "egress_gb_per_month": "egress_gb_month",
    "utilisation": "utilisation_likely",
}


def _sources(brief: BriefRow, overrides: Overrides) -> dict[str, str]:
    """Where each assumption the engine lists came from."""
    out = scalar_sources(overrides)
    for name, field in BRIEF_SOURCED.items():
        given = brief.get(field) not in (None, "")
        out[name] = "override" if name in overrides else "brief" if given else "engine default"
    for name in ("life_months", "price_per_kwh", "pue", "colocation_per_node_month"):
        scalar = "purchase_life_months" if name == "life_months" else name
        out[f"purchase.{name}"] = out.get(scalar, "product default")
    for name in ("cost_of_capital_annual", "residual_value_share"):
        out[f"purchase.{name}"] = out[name]
    out["purchase.support_per_node_year"] = "quote"
    return out


def _engine_default(name: str) -> Range:
    """The engine's own default for a ranged field the brief leaves empty."""
    default = WorkloadInput.__dataclass_fields__[name].default
    if not isinstance(default, Range):
        raise TypeError(f"WorkloadInput.{name} has no Range default")
    return default


def workload_input(snap: Snapshot) -> WorkloadInput:
    """The brief (with the comparison's overrides) as the cost engine's workload."""
    brief = snap["brief"]
    a = snap["assumptions"]["effective"]
    overrides = snap["assumptions"]["overrides"]
    cls = engine_class(brief)
    tokens_in, tokens_out = tokens_per_request(brief)
    peak = (
        brief_range(brief, overrides, "peak_to_average")
        if "peak_to_average" in overrides
        else Range.fixed(float(brief.get("peak_to_average") or 1.0))
    )
    if peak is None:  # an override frozen without its range: refused as the engine refuses it
        raise EngineInputError("peak_to_average", "must be a Range(low, likely, high), got None")
    managed = brief.get("operating_model") == "managed"
    # A horizon of 0 is refused by the engine (and at brief entry), never read as 12
    raw_horizon = brief.get("horizon_months")
    horizon = 12 if raw_horizon is None else int(raw_horizon)
    return WorkloadInput(
        workload_class=cls,
        monthly_accepted_outputs=brief_range(brief, overrides, "monthly_accepted_outputs"),
        acceptance_rate=brief_range(brief, overrides, "acceptance_rate")
        or _engine_default("acceptance_rate"),
        failure_rate=brief_range(brief, overrides, "failure_rate")
        or _engine_default("failure_rate"),
        utilisation=brief_range(brief, overrides, "utilisation") or _engine_default("utilisation"),
        peak_to_average=peak,
        input_tokens_per_request=tokens_in,
        output_tokens_per_request=tokens_out,
        cached_input_fraction=float(a["cached_input_fraction"]),
        cache_write_fraction=float(scalar(a, "cache_write_fraction")),
        ttft_p95_target_ms=brief.get("ttft_p95_ms"),
        itl_p95_target_ms=brief.get("itl_p95_ms"),
        e2e_p99_target_ms=brief.get("e2e_p99_ms"),
        platform_labor_fte=0.0 if managed else float(brief.get("platform_fte") or 0),
        loaded_monthly_cost_per_fte=dec(brief.get("loaded_monthly_cost_per_fte")),
        vendor_management_fte=float(a["vendor_management_fte"]),
        horizon_months=horizon,
        expected_model_churn_months=int(brief.get("expected_model_churn_months") or horizon),
        storage_gb=float(brief.get("storage_gb") or 0),
        egress_gb_per_month=float(brief.get("egress_gb_month") or 0),
        serving_stack_per_month=dec(a["serving_stack_per_month"]),
        observability_per_month=dec(a["observability_per_month"]),
        headroom_margin_pct=float(a["headroom_margin_pct"]),
        stale_quote_days=int(snap.get("stale_quote_days") or 30),
        fixed_peak_headroom=float(scalar(a, "fixed_peak_headroom")),
        spot_rework_share=float(scalar(a, "spot_rework_share")),
        api_failed_attempts_billed=float(scalar(a, "api_failed_attempts_billed")),
        term_residual_use_share=float(scalar(a, "term_residual_use_share")),
        capacity_unstated_warn_gpus=int(scalar(a, "capacity_unstated_warn_gpus")),
        rate_limit_unstated_warn_rps=float(scalar(a, "rate_limit_unstated_warn_rps")),
        vendor_management_cap_share=None
        if "vendor_management_fte" in overrides
        else float(scalar(a, "vendor_management_cap_share")),
        assumption_sources=_sources(brief, overrides),
        # the stored spelling, checked by WorkloadInput (an unknown one is refused there)
        tokens_billed=cast(BilledTokenType, brief.get("billed_token_type") or "output"),
        training=_training_spec(snap, a) if brief["workload_class"] in workloads.TRAINING else None,
        media=_media_spec(brief, a) if cls == "media" else None,
    )
