"""The roofline estimate with parameters fitted to published MLPerf Inference results.

`estimate(case)` is the per-GPU output tokens/s a replica serves at the case's request shape,
its regime (throughput-bound: memory sets the batch; latency-bound: the TPOT limit does) and
its p10–p90 from the fit's out-of-sample error in that regime. The parameters
(``data/parameters.json``) come from `python -m engine.fitted fit`, the bands
(``data/bands.json``) from `python -m engine.fitted accuracy`; docs/engine/accuracy.md says how
well it does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cache

from engine.fitted.cases import REFERENCE_GROUP, Case, case_for, group_of
from engine.fitted.roofline import PARAMETERS, Parameters, load_parameters, predict

__all__ = [
    "LATENCY_BOUND",
    "REFERENCE_GROUP",
    "THROUGHPUT_BOUND",
    "Case",
    "FittedEstimate",
    "case_for",
    "error_shares",
    "estimate",
    "group_of",
    "regime_band",
    "shape_ratio",
]

BANDS = PARAMETERS.parent / "bands.json"
THROUGHPUT_BOUND = "throughput-bound"
LATENCY_BOUND = "latency-bound"


@dataclass(frozen=True, slots=True)
class FittedEstimate:
    tokens_per_gpu_s: float
    batch: float  # requests a replica holds
    regime: str  # "throughput-bound" | "latency-bound"
    low: float  # p10 of what would be measured, tokens/s per GPU
    high: float  # p90


@cache
def _parameters() -> Parameters:
    return load_parameters()


@cache
def _bands() -> dict[str, dict[str, float]]:
    data: dict[str, dict[str, float]] = json.loads(BANDS.read_text())
    return data


def error_shares() -> dict[str, float]:
    """The shares of the estimate's error that all rows, one accelerator family, and each
    row alone carry (they sum to 1)."""
    shares = _bands().get("correlation") or {"shared": 0.0, "family": 0.0, "own": 1.0}
    return {name: float(shares[name]) for name in ("shared", "family", "own")}


def regime_band(regime: str) -> tuple[float, float]:
    """(p10, p90) of measured ÷ estimate out of sample for a regime."""
    band = _bands().get(regime) or _bands()["all"]
    return float(band["p10"]), float(band["p90"])


def estimate(case: Case, params: Parameters | None = None) -> FittedEstimate:
    """The fitted estimate of one case (``params``: the shipped ones unless given)."""
    predicted = predict([case], params or _parameters())
    tokens = float(predicted.tokens_per_gpu_s[0])
    regime = LATENCY_BOUND if bool(predicted.latency_bound[0]) else THROUGHPUT_BOUND
    low, high = regime_band(regime)
    return FittedEstimate(tokens, float(predicted.batch[0]), regime, tokens * low, tokens * high)


def shape_ratio(
    case: Case,
    input_tokens: float,
    output_tokens: float,
    tpot_limit_ms: float | None = None,
    params: Parameters | None = None,
) -> float:
    """Per-GPU throughput at another request shape ÷ at the case's own: how a published
    result measured at a benchmark's shape scales to a brief's (the estimator's own ratio)."""
    other = replace(
        case,
        input_tokens=max(1.0, float(input_tokens)),
        output_tokens=max(1.0, float(output_tokens)),
        tpot_limit_ms=tpot_limit_ms,
    )
    here = estimate(case, params).tokens_per_gpu_s
    return estimate(other, params).tokens_per_gpu_s / here if here > 0 else 1.0
