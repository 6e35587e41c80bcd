"""The engine's own limits on terms, horizons, FX rates and brief figures.

Entry points (brief form and rules, the quote model's fields, FX rates) validate against these,
so a value the engine would refuse, or could not cost sensibly, is refused where it is typed,
with the field named. The engine validates the same bounds on its inputs.
"""

from __future__ import annotations

MAX_HORIZON_MONTHS = 120  # planning horizon: 1 month … 10 years
MIN_HORIZON_MONTHS = 1
MAX_TERM_MONTHS = 120  # a reservation or contract term (0 = none)
FX_RATE_MIN = 1e-6  # units of the base currency per unit of the quote currency
FX_RATE_MAX = 1e6

# The most nodes the engine sizes one offer to (engine.memory.spec): a quote may not state more
# capacity than that, or its row "cannot be sized" (R6).
MAX_NODES = 10_000

# Brief figures: (low, high) inclusive; None = unbounded on that side.
BRIEF_BOUNDS: dict[str, tuple[float, float]] = {
    "horizon_months": (MIN_HORIZON_MONTHS, MAX_HORIZON_MONTHS),
    "expected_model_churn_months": (1, MAX_HORIZON_MONTHS),
    "peak_to_average": (1.0, 100.0),
    "monthly_accepted_outputs_low": (0.0, 1e15),
    "monthly_accepted_outputs_likely": (0.0, 1e15),
    "monthly_accepted_outputs_high": (0.0, 1e15),
    "platform_fte": (0.0, 1000.0),
    "loaded_monthly_cost_per_fte": (0.0, 1_000_000.0),
    "storage_gb": (0.0, 1e9),
    "egress_gb_month": (0.0, 1e9),
    "training_tokens_b": (0.0, 1e6),
    "expected_mfu": (0.0, 1.0),
    "run_success_probability": (0.0, 1.0),
    "node_failure_rate_per_day": (0.0, 100.0),
    "checkpoint_interval_min": (0.0, 100_000.0),
    "checkpoint_write_s": (0.0, 86_400.0),
    "restart_time_min": (0.0, 100_000.0),
    "checkpoint_size_gb": (0.0, 1e7),
    "target_gpus": (1, 1_000_000),
    # The engine serves at least one sequence at a time (performance.py); 0 was read as 1.
    "concurrency": (1, 10_000_000),
    "batch_size": (1, 10_000_000),
    "moderation_cost_per_asset": (0.0, 10_000.0),
    "review_minutes_per_asset": (0.0, 10_000.0),
    "gpu_seconds_per_asset": (0.0, 1e7),
}
# Strictly above the low bound (a zero would divide by nothing or mean "no run").
BRIEF_LOW_OPEN = frozenset({"training_tokens_b", "expected_mfu", "run_success_probability"})


def bound_message(name: str, label: str) -> str:
    lo, hi = BRIEF_BOUNDS[name]
    above = "above" if name in BRIEF_LOW_OPEN else "at least"
    return f"{label} must be {above} {lo:g} and at most {hi:g} (the engine's limits)."


def fx_bound_message(label: str) -> str:
    return f"{label} must be between {FX_RATE_MIN:g} and {FX_RATE_MAX:g} (the engine's limits)."


def out_of_bounds(name: str, value: float) -> bool:
    lo, hi = BRIEF_BOUNDS[name]
    if value > hi:
        return True
    return value <= lo if name in BRIEF_LOW_OPEN else value < lo
