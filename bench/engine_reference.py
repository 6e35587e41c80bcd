"""The straightforward pure-Python Monte Carlo: one candidate, one sample at a time.

It evaluates the same cost model as montecarlo.py (see that module's docstring for the
formulas, which follow docs/domain.md, "Step 2") with plain floats and ``math``, from the same
random streams, so the two agree to ~1e-12 relative. It exists to check the vectorised
version and to measure how much faster that is; it is never used to produce results.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from engine import cost
from engine.montecarlo import (
    CEIL_RELATIVE_TOLERANCE,
    SECONDS_PER_MONTH,
    CandidateConstants,
    candidate_constants,
    candidate_stream_key,
    check_seed,
    shared_stream_key,
    uniforms,
    unit_scale,
)
from engine.types import CandidateInput, Range, WorkloadInput

THROUGHPUT = "throughput_per_replica"


def triangular_value(u: float, r: Range) -> float:
    """Inverse CDF of triangular(low, likely, high) at u."""
    low, likely, high = r.low, r.likely, r.high
    width = high - low
    if width <= 0:
        return likely
    if u < (likely - low) / width:
        return low + math.sqrt(u * (width * (likely - low)))
    return high - math.sqrt((1.0 - u) * (width * (high - likely)))


def _draws(r: Range, seed: int, key: tuple[int, ...], samples: int) -> list[float]:
    if r.is_fixed:
        return [r.likely] * samples
    return [triangular_value(u, r) for u in uniforms(seed, key, samples).tolist()]


def _ceil(x: float) -> float:
    return float(math.ceil(x * (1.0 - CEIL_RELATIVE_TOLERANCE)))


def _volume_unit_cost(
    c: CandidateConstants, v: dict[str, float], thr: float, util: float, scale: float
) -> float:
    accepted = v["monthly_accepted_outputs"]
    v = dict(v)
    if "own:acceptance_rate" in v:
        v["acceptance_rate"] = v["own:acceptance_rate"]
    if "own:failure_rate" in v:
        v["failure_rate"] = v["own:failure_rate"]
    completed = accepted / v["acceptance_rate"]
    attempts = completed / (1.0 - v["failure_rate"])
    if c.path == "api":
        gpu = c.api_per_attempt * (completed + c.api_failed_billed * (attempts - completed))
    else:
        if c.path == "elastic":
            billed = attempts / 3600.0 * c.gpu_s_numerator / thr
            if c.idle_billed:
                billed /= util
        else:
            peak_rate = v["peak_to_average"] * attempts / SECONDS_PER_MONTH
            replicas = _ceil(peak_rate * (c.gpu_s_numerator / c.gpus) / thr)
            gpus = replicas * c.gpus
            if c.node_gpus > 1:
                gpus = _ceil(gpus / c.node_gpus) * c.node_gpus
            billed = gpus * 730.0
        billed = max(billed, c.min_commitment_h)
        gpu = billed * c.price + (billed - c.min_commitment_h) * c.overage_premium
    total = gpu + c.fixed_monthly + c.per_accepted * accepted + c.per_completed * completed
    return total * (scale / accepted)


def _training_unit_cost(c: CandidateConstants, v: dict[str, float], thr: float) -> float:
    tps = thr if c.path == "train_measured" else c.tps_per_mfu * v["mfu"]
    wall = v["tokens"] / 3600.0 / tps
    wall *= c.checkpoint_factor
    wall *= 1.0 + c.failure_factor / v["node_mtbf_h"]
    accepted = v["success_probability"] * v.get("acceptance_rate", 1.0)
    return wall * c.per_wall_hour / v.get("utilisation", 1.0) / accepted


def reference_unit_costs(
    workload: WorkloadInput, candidates: Sequence[CandidateInput], *, seed: int, samples: int
) -> list[list[float]]:
    """Unit cost of every candidate in every sample, row per candidate, by plain loops."""
    check_seed(seed, samples)
    scale = unit_scale(workload)
    shared = {
        name: _draws(r, seed, shared_stream_key(name), samples)
        for name, r in cost.shared_ranges(workload).items()
    }
    rows: list[list[float]] = []
    for cand in candidates:
        c = candidate_constants(workload, cand)
        thr_draws = (
            _draws(
                c.throughput,
                seed,
                candidate_stream_key(c.stream_id(THROUGHPUT), THROUGHPUT),
                samples,
            )
            if c.throughput is not None
            else [math.nan] * samples
        )
        util_draws = (
            _draws(c.utilisation, seed, candidate_stream_key(cand.id, "utilisation"), samples)
            if c.utilisation is not None and c.path == "elastic"
            else shared.get("utilisation", [math.nan] * samples)
        )
        own = {
            f"own:{name}": _draws(r, seed, candidate_stream_key(c.stream_id(name), name), samples)
            for name, r in (("acceptance_rate", c.acceptance), ("failure_rate", c.failure))
            if r is not None
        }
        row: list[float] = []
        for s in range(samples):
            values = {name: draws[s] for name, draws in {**shared, **own}.items()}
            if workload.is_training:
                row.append(_training_unit_cost(c, values, thr_draws[s]))
            else:
                row.append(_volume_unit_cost(c, values, thr_draws[s], util_draws[s], scale))
        rows.append(row)
    return rows
