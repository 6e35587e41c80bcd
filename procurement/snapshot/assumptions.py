"""Assumptions a comparison may override, with their stated defaults. Pure: no Django.

Two kinds:

- ranged overrides of the brief (``utilisation``, ``acceptance_rate``, ``failure_rate``,
  ``monthly_accepted_outputs``, ``peak_to_average``): ``{"low", "likely", "high"}`` or one
  number (a fixed value);
- scalars with a default used when the brief has no field for them (memory-fit overhead and
  safety margin, roofline efficiencies, the spread put around a throughput figure, purchase
  power price...).

``validate_overrides`` returns the cleaned overrides or a dict of per-field messages;
``effective`` merges them over the defaults, which is what the snapshot freezes.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.values import finite_or_none
from engine.memory.spec import DEFAULT_OVERHEAD_GB, DEFAULT_SAFETY_MARGIN
from engine.performance import DEFAULT_COMPUTE_EFFICIENCY, DEFAULT_MEMORY_EFFICIENCY
from procurement.snapshot.schema import Effective, Overrides


@dataclass(frozen=True, slots=True)
class Scalar:
    default: float
    lo: float
    hi: float
    label: str
    help: str = ""
    integer: bool = False


@dataclass(frozen=True, slots=True)
class Ranged:
    lo: float
    hi: float
    label: str
    help: str = ""


RANGED: dict[str, Ranged] = {
    "utilisation": Ranged(0.01, 1.0, "Utilisation", "Busy share of billed elastic GPU-hours."),
    "acceptance_rate": Ranged(0.01, 1.0, "Acceptance rate", "Share of outputs that pass."),
    "failure_rate": Ranged(0.0, 0.99, "Failure rate", "Share of attempts that fail."),
    "monthly_accepted_outputs": Ranged(1.0, 1e15, "Accepted outputs per month"),
    "peak_to_average": Ranged(1.0, 100.0, "Peak-to-average ratio"),
}

SCALARS: dict[str, Scalar] = {
    "headroom_margin_pct": Scalar(
        10.0, 0.0, 90.0, "Headroom margin (%)", "Memory headroom below which a row is warned."
    ),
    "overhead_gb": Scalar(DEFAULT_OVERHEAD_GB, 0.0, 64.0, "Runtime overhead per GPU (GB)"),
    "safety_margin": Scalar(DEFAULT_SAFETY_MARGIN, 0.0, 0.5, "Memory safety margin (share)"),
    "memory_efficiency": Scalar(
        DEFAULT_MEMORY_EFFICIENCY, 0.05, 1.0, "Achieved share of memory bandwidth (estimates)"
    ),
    "compute_efficiency": Scalar(
        DEFAULT_COMPUTE_EFFICIENCY, 0.05, 1.0, "Achieved share of peak FLOPS (estimates)"
    ),
    "estimate_spread_low": Scalar(0.75, 0.05, 1.0, "Estimated throughput, low factor"),
    "estimate_spread_high": Scalar(1.10, 1.0, 5.0, "Estimated throughput, high factor"),
    "measured_spread_low": Scalar(0.90, 0.05, 1.0, "Measured throughput, low factor"),
    "measured_spread_high": Scalar(1.05, 1.0, 5.0, "Measured throughput, high factor"),
    "cached_input_fraction": Scalar(
        0.0,
        0.0,
        1.0,
        "Cached share of input tokens (APIs, and GPU rows whose engine caches prefixes)",
        "Read from a prompt cache: the cached-input price on API routes, no prefill on GPU "
        "rows whose serving engine caches prefixes (vLLM, SGLang, TensorRT-LLM, TGI 3).",
    ),
    # A cached prefix reused under steady traffic is written once: no write share unless
    # stated (per-conversation caches write each new turn).
    "cache_write_fraction": Scalar(
        0.0,
        0.0,
        1.0,
        "Share of input tokens written to the prompt cache (APIs that price writes)",
        "Charged at the route's cache-write price where it publishes one (Anthropic: 1.25 × "
        "input); elsewhere written tokens are ordinary input.",
    ),
    "observability_per_month": Scalar(0.0, 0.0, 1e9, "Observability per month (USD)"),
    "serving_stack_per_month": Scalar(
        0.0,
        0.0,
        1e9,
        "Own serving stack per month (USD)",
        "Gateway, autoscaler... when the team runs them.",
    ),
    "vendor_management_fte": Scalar(0.1, 0.0, 100.0, "Vendor-management FTE (API, managed)"),
    "price_per_kwh": Scalar(0.12, 0.0, 10.0, "Electricity per kWh (USD, purchase)"),
    "pue": Scalar(1.4, 1.0, 3.0, "Data-centre PUE (purchase)"),
    "colocation_per_node_month": Scalar(0.0, 0.0, 1e7, "Colocation per node-month (USD)"),
    "purchase_life_months": Scalar(
        36, 1, 120, "Hardware life when the quote gives none", integer=True
    ),
    "mfu_spread": Scalar(0.2, 0.0, 0.9, "Training MFU ± share"),
    "media_reference_tflops": Scalar(
        989.5,
        1.0,
        100_000.0,
        "GPU the brief's GPU-seconds per asset were measured on",
        "BF16 dense TFLOPS; other GPUs scale by theirs (H100 SXM).",
    ),
    "reviewer_hourly_usd": Scalar(60.0, 0.0, 10_000.0, "Operator review, per hour (USD, media)"),
    # Fixed capacity keeps a fifth of its measured throughput free at the peak
    # (queueing, bursts inside the hour); spot redoes a tenth of its work after interruptions.
    "fixed_peak_headroom": Scalar(
        0.2,
        0.0,
        0.9,
        "Peak headroom of fixed capacity (share)",
        "Share of a fixed replica's measured throughput kept free at the peak.",
    ),
    "spot_rework_share": Scalar(
        0.1,
        0.0,
        5.0,
        "Spot interruption rework (share of work)",
        "Work redone, plus restart time, after spot interruptions, as a share of the work.",
    ),
    # Above this peak fleet an offer that does not state its capacity is warned about.
    "capacity_unstated_warn_gpus": Scalar(
        64.0,
        1.0,
        1_000_000.0,
        "Warn when capacity is not stated above (GPUs at peak)",
        "An offer that does not say how many GPUs it has is flagged when the fleet needs more.",
    ),
    # P10: a model API route that states no rate limit is flagged above this peak.
    "rate_limit_unstated_warn_rps": Scalar(
        1.0,
        0.0,
        1_000_000.0,
        "Warn when an API route states no rate limit above (requests/s at peak)",
        "A route that does not state its account's rate limits is flagged when the peak needs "
        "more, as an offer that does not state its GPUs is.",
    ),
    # P11: the default vendor-management labour scales with the bill it manages.
    "vendor_management_cap_share": Scalar(
        0.25,
        0.0,
        1.0,
        "Default vendor-management labour, at most this share of the row's vendor bill",
        "Applies while the vendor-management FTE is the product default; a stated FTE counts "
        "in full.",
    ),
    # A reserved term longer than the horizon is paid in full; only a stated use of the rest
    # (resale, other teams) lowers what the horizon's outputs carry.
    "term_residual_use_share": Scalar(
        0.0,
        0.0,
        1.0,
        "Residual use of a term beyond the horizon (share)",
        "Share of the months past the horizon the organisation will use (resale, other "
        "teams); 0: they count in full in the unit cost.",
    ),
    # Conservative: a failed attempt is billed like a completed one unless stated.
    "api_failed_attempts_billed": Scalar(
        1.0,
        0.0,
        1.0,
        "Share of failed API attempts billed",
        "1: every failed attempt is billed; 0: only completed attempts are (typical for 429/5xx).",
    ),
    # API rows pay for the storage (and egress) the workload needs somewhere; GPU rows
    # whose quote states no storage price pay the same default.
    "api_storage_per_gb_month": Scalar(
        0.023,
        0.0,
        100.0,
        "Storage per GB-month beside an API or where a quote states none (USD)",
        "Object-storage list price.",
    ),
    "api_egress_per_gb": Scalar(0.0, 0.0, 100.0, "Egress per GB beside an API (USD)"),
    # Owned hardware carries its financing and is sold at the end of its life.
    "cost_of_capital_annual": Scalar(
        0.08, 0.0, 1.0, "Cost of capital (share a year, purchase)", "On the average capital."
    ),
    "residual_value_share": Scalar(
        0.1, 0.0, 1.0, "Residual value at end of life (share of capex, purchase)"
    ),
}

FORM_RANGED = ("utilisation", "acceptance_rate", "failure_rate", "peak_to_average")
FORM_SCALARS = (
    "headroom_margin_pct",
    "observability_per_month",
    "serving_stack_per_month",
    "cached_input_fraction",
    "cache_write_fraction",
    "price_per_kwh",
    "pue",
)


def _clean_ranged(
    name: str, spec: Ranged, raw: object, errors: dict[str, list[str]]
) -> dict[str, float] | None:
    if not isinstance(raw, dict):
        raw = {"low": raw, "likely": raw, "high": raw}
    unknown = sorted(set(raw) - {"low", "likely", "high"})
    if unknown:
        errors[name] = [f"Unknown part(s) {', '.join(unknown)}: use low, likely, high."]
        return None
    values: dict[str, float] = {}
    for part in ("low", "likely", "high"):
        number = finite_or_none(raw.get(part))
        if number is None:
            errors[f"{name}.{part}"] = ["A finite number is required."]
            return None
        if not spec.lo <= number <= spec.hi:
            errors[f"{name}.{part}"] = [f"Must be between {spec.lo:g} and {spec.hi:g}."]
            return None
        values[part] = number
    if not values["low"] <= values["likely"] <= values["high"]:
        errors[name] = ["Must satisfy low ≤ likely ≤ high."]
        return None
    return values


def validate_overrides(raw: object) -> tuple[Overrides, dict[str, list[str]]]:
    """(cleaned overrides, errors). Unknown names are errors, so typos are never ignored."""
    if raw is None:
        return {}, {}
    if not isinstance(raw, dict):
        return {}, {"assumptions": ["Must be an object of name → value."]}
    errors: dict[str, list[str]] = {}
    clean: Overrides = {}
    unknown = sorted(set(raw) - set(RANGED) - set(SCALARS))
    if unknown:
        errors["assumptions"] = [f"Unknown assumption(s): {', '.join(map(str, unknown))}."]
    for name, value in raw.items():
        if name in RANGED:
            ranged = _clean_ranged(name, RANGED[name], value, errors)
            if ranged is not None:
                clean[name] = ranged
        elif name in SCALARS:
            spec = SCALARS[name]
            number = finite_or_none(value)
            if number is None:
                errors[name] = ["A finite number is required."]
            elif not spec.lo <= number <= spec.hi:
                errors[name] = [f"Must be between {spec.lo:g} and {spec.hi:g}."]
            elif spec.integer and number != int(number):
                errors[name] = ["A whole number is required."]
            else:
                clean[name] = int(number) if spec.integer else number
    return clean, errors


def scalar(effective_values: Effective, name: str) -> float:
    """A scalar from a frozen snapshot; its default when the snapshot predates it."""
    return effective_values.get(name, SCALARS[name].default)


def sources(overrides: Overrides) -> dict[str, str]:
    """Where each value came from: "override" (the comparison's) or "product default"."""
    return {name: "override" if name in overrides else "product default" for name in SCALARS}


def effective(overrides: Overrides) -> Effective:
    """Every scalar at its default or override (ranged overrides are read from `overrides`)."""
    out: Effective = {name: spec.default for name, spec in SCALARS.items()}
    out.update({k: v for k, v in overrides.items() if k in SCALARS and not isinstance(v, dict)})
    return out
