"""The roofline estimate with parameters fitted to published MLPerf Inference results.

`estimate(case)` is the per-GPU output tokens/s a replica serves at the case's request shape,
its regime (throughput-bound: memory sets the batch; latency-bound: the TPOT limit does) and
its p10–p90 from the fit's out-of-sample error in that regime. The parameters
(``data/<engine version>/parameters.json``) come from `python -m engine.fitted fit`, the bands
(``data/<engine version>/bands.json``) from `python -m engine.fitted accuracy`;
docs/engine/accuracy.md says how well it does. Each engine version whose parameters changed
keeps its own (`VERSIONS`): a snapshot computes on the version it was frozen under.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cache

from engine.fitted.cases import REFERENCE_GROUP, Case, case_for, group_of
from engine.fitted.roofline import (
    CURRENT,
    DATA,
    VERSIONS,
    Parameters,
    load_parameters,
    predict,
)

__all__ = [
    "CURRENT",
    "LATENCY_BOUND",
    "REFERENCE_GROUP",
    "THROUGHPUT_BOUND",
    "VERSIONS",
    "Case",
    "FittedEstimate",
    "case_for",
    "error_shares",
    "estimate",
    "estimator_name",
    "group_of",
    "regime_band",
    "shape_ratio",
    "version_for",
    "version_of_estimator",
]

ESTIMATOR = "fitted"
THROUGHPUT_BOUND = "throughput-bound"
LATENCY_BOUND = "latency-bound"


@dataclass(frozen=True, slots=True)
class FittedEstimate:
    tokens_per_gpu_s: float
    batch: float  # requests a replica holds
    regime: str  # "throughput-bound" | "latency-bound"
    low: float  # p10 of what would be measured, tokens/s per GPU
    high: float  # p90


def version_for(engine_version: tuple[int, ...]) -> str | None:
    """The fitted parameters an engine version computes on: the newest of `VERSIONS` not
    after it (None: an engine from before the fitted estimate)."""
    found = [v for v in VERSIONS if tuple(int(x) for x in v.split(".")) <= engine_version]
    return found[-1] if found else None


def estimator_name(version: str = CURRENT) -> str:
    """The estimator's name in a row's error group: "fitted" for engine 1.8.0 (as its
    snapshots froze it), "fitted 1.9.0" on."""
    return ESTIMATOR if version == VERSIONS[0] else f"{ESTIMATOR} {version}"


def version_of_estimator(name: str) -> str:
    """`estimator_name`'s inverse (the current version for a name it does not know)."""
    if name == ESTIMATOR:
        return VERSIONS[0]
    version = name.removeprefix(f"{ESTIMATOR} ")
    return version if version in VERSIONS else CURRENT


@cache
def _parameters(version: str) -> Parameters:
    return load_parameters(DATA / version / "parameters.json")


@cache
def _bands(version: str) -> dict[str, dict[str, float]]:
    data: dict[str, dict[str, float]] = json.loads((DATA / version / "bands.json").read_text())
    return data


def error_shares(version: str = CURRENT) -> dict[str, float]:
    """The shares of the estimate's error that all rows, one accelerator family, and each
    row alone carry (they sum to 1)."""
    shares = _bands(version).get("correlation") or {"shared": 0.0, "family": 0.0, "own": 1.0}
    return {name: float(shares[name]) for name in ("shared", "family", "own")}


def regime_band(regime: str, version: str = CURRENT) -> tuple[float, float]:
    """(p10, p90) of measured ÷ estimate out of sample for a regime."""
    band = _bands(version).get(regime) or _bands(version)["all"]
    return float(band["p10"]), float(band["p90"])


def estimate(
    case: Case, params: Parameters | None = None, version: str = CURRENT
) -> FittedEstimate:
    """The fitted estimate of one case on ``version``'s parameters (or ``params``)."""
    predicted = predict([case], params or _parameters(version))
    tokens = float(predicted.tokens_per_gpu_s[0])
    regime = LATENCY_BOUND if bool(predicted.latency_bound[0]) else THROUGHPUT_BOUND
    low, high = regime_band(regime, version)
    return FittedEstimate(tokens, float(predicted.batch[0]), regime, tokens * low, tokens * high)


def shape_ratio(
    case: Case,
    input_tokens: float,
    output_tokens: float,
    tpot_limit_ms: float | None = None,
    params: Parameters | None = None,
    version: str = CURRENT,
) -> float:
    """Per-GPU throughput at another request shape ÷ at the case's own: how a published
    result measured at a benchmark's shape scales to a brief's (the estimator's own ratio)."""
    other = replace(
        case,
        input_tokens=max(1.0, float(input_tokens)),
        output_tokens=max(1.0, float(output_tokens)),
        tpot_limit_ms=tpot_limit_ms,
    )
    here = estimate(case, params, version).tokens_per_gpu_s
    return estimate(other, params, version).tokens_per_gpu_s / here if here > 0 else 1.0
