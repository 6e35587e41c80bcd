"""Capacity models: break-even across volume (the plan across offers, a fixed base with
elastic or API overflow included, is mixed.py).

docs/domain.md, "Rent, reserve, buy, or use a model API?": reserve or buy once traffic is
proven; for many teams the answer is hybrid — fixed capacity for the base load and
elastic GPUs or a model API for the peak and overflow.

Break-even (one accelerator): the cheapest eligible offer of each option — ``on_demand``
(elastic capacity), ``reserved`` (reserved, dedicated cluster, private cloud),
``purchase`` — plus the best API route, costed by cost.py at every monthly volume of a
geometric grid (likely / 10 … likely × 10).

A fixed-capacity total is a step function of volume — it jumps where the peak first
needs another replica, at volume ``n × likely / peak replicas(likely)`` for each whole n.
Crossings are found on the grid refined with those step volumes (each step evaluated just
before it and just past it): between two points where neither curve steps, totals are linear
and the crossing is interpolated; where the order changes across a step, the crossing is
the step itself (``at_step``), never an interpolation through it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import Decimal

import numpy as np

from engine import cost
from engine.types import (
    ELASTIC_CAPACITY,
    BreakevenCurve,
    BreakevenResult,
    CandidateInput,
    Crossing,
    PointEstimate,
    WorkloadInput,
)

__all__ = ["breakeven", "step_volumes"]

RESERVED_LIKE = frozenset({"reserved", "dedicated_cluster", "private_cloud"})
GRID_POINTS = 25
MAX_STEPS = 400  # step volumes refined per curve; beyond that the steps are tiny
STEP_EPSILON = 1e-9  # relative: "just before" and "just past" a step volume


def _option(cand: CandidateInput) -> str | None:
    if cand.is_api:
        return "api"
    if cand.capacity_model == "purchase":
        return "purchase"
    if cand.capacity_model in RESERVED_LIKE:
        return "reserved"
    if cand.capacity_model in ELASTIC_CAPACITY:
        return "on_demand"
    return None


def _cheapest(
    cands: Sequence[CandidateInput], estimates: Mapping[str, PointEstimate]
) -> CandidateInput | None:
    costed = [c for c in cands if c.id in estimates]
    if not costed:
        return None
    return min(costed, key=lambda c: (estimates[c.id].unit_cost_exact, c.id))


def step_volumes(
    workload: WorkloadInput, cand: CandidateInput, lo: float, hi: float
) -> list[float]:
    """Volumes in [lo, hi] where ``cand``'s fixed capacity needs one more replica."""
    if not cand.is_fixed or cand.throughput_per_replica is None:
        return []
    assert workload.monthly_accepted_outputs is not None  # noqa: S101 - volume classes only
    v = cost.likely_values(workload, cand)
    likely = v["monthly_accepted_outputs"]
    attempts = cost.dec(likely) / (
        cost.dec(v["acceptance_rate"]) * (1 - cost.dec(v["failure_rate"]))
    )
    gpu_s = cost.gpu_seconds_numerator(workload, cand) / cost.dec(v["throughput_per_replica"])
    per_volume = (
        float(cost.peak_replicas(workload, cand, attempts, gpu_s, cost.dec(v["peak_to_average"])))
        / likely
    )
    if per_volume <= 0:
        return []
    first, last = math.ceil(lo * per_volume), math.floor(hi * per_volume)
    if last - first + 1 > MAX_STEPS:
        return []
    return [n / per_volume for n in range(max(1, first), last + 1) if lo <= n / per_volume <= hi]


def breakeven(
    workload: WorkloadInput,
    candidates: Sequence[CandidateInput],
    estimates: Mapping[str, PointEstimate],
    *,
    accelerator: str,
    points: int = GRID_POINTS,
) -> BreakevenResult | None:
    """Unit cost and monthly total vs volume for each capacity option of ``accelerator``."""
    if workload.is_training or workload.monthly_accepted_outputs is None:
        return None
    reps: dict[str, CandidateInput] = {}
    for option in ("on_demand", "reserved", "purchase", "api"):
        pool = [
            c
            for c in candidates
            if _option(c) == option and (option == "api" or c.accelerator == accelerator)
        ]
        best = _cheapest(pool, estimates)
        if best is not None:
            reps[option] = best
    if len(reps) < 2:
        return None
    likely = workload.monthly_accepted_outputs.likely
    volumes = tuple(float(f"{v:.6g}") for v in np.geomspace(likely / 10, likely * 10, points))
    curves: list[BreakevenCurve] = []
    # (candidate id, volume) → monthly total: each option meets the others in several pairs
    totals: dict[tuple[str, float], Decimal] = {}
    for option, cand in reps.items():
        runs = [
            cost.point_estimate(workload, cand, values={"monthly_accepted_outputs": v})
            for v in volumes
        ]
        totals.update(((cand.id, v), r.total) for v, r in zip(volumes, runs, strict=True))
        curves.append(
            BreakevenCurve(
                option=option,
                candidate_id=cand.id,
                unit_costs=tuple(r.unit_cost for r in runs),
                monthly_totals=tuple(r.total for r in runs),
            )
        )
    crossings: list[Crossing] = []
    for i, a in enumerate(curves):
        for b in curves[i + 1 :]:
            crossings.extend(
                _crossings(
                    workload, reps[a.option], reps[b.option], a.option, b.option, volumes, totals
                )
            )
    cheapest: list[str] = []
    for k in range(len(volumes)):
        cheapest.append(min(curves, key=lambda c: (c.unit_costs[k], c.option)).option)
    label, _ = cost.unit_label_and_scale(workload)
    return BreakevenResult(
        accelerator=accelerator,
        unit_label=label,
        volumes=volumes,
        curves=tuple(curves),
        crossings=tuple(crossings),
        cheapest_by_volume=tuple(cheapest),
    )


def _crossings(
    workload: WorkloadInput,
    a: CandidateInput,
    b: CandidateInput,
    option_a: str,
    option_b: str,
    volumes: Sequence[float],
    totals: dict[tuple[str, float], Decimal],
) -> list[Crossing]:
    """Volumes where ``a``'s monthly total changes order with ``b``'s (see the docstring)."""
    lo, hi = volumes[0], volumes[-1]
    steps = sorted(set(step_volumes(workload, a, lo, hi)) | set(step_volumes(workload, b, lo, hi)))
    # (volume, step volume when this is the far side of a step, else None): each step s
    # is evaluated just before it (old capacity) and just past it (one more replica)
    marks: dict[float, float | None] = dict.fromkeys(volumes)
    for edge in steps:
        marks[edge * (1 - STEP_EPSILON)] = None
        if edge * (1 + STEP_EPSILON) <= hi:
            marks[edge * (1 + STEP_EPSILON)] = edge
    points = sorted(marks.items())

    def total(cand: CandidateInput, volume: float) -> Decimal:
        known = totals.get((cand.id, volume))
        if known is None:
            values = {"monthly_accepted_outputs": volume}
            known = totals[(cand.id, volume)] = cost.point_estimate(
                workload, cand, values=values
            ).total
        return known

    def diff(volume: float) -> float:
        return float(total(a, volume) - total(b, volume))

    diffs = [diff(v) for v, _ in points]
    found: list[Crossing] = []
    last: tuple[int, float] | None = None  # (index, diff) of the last non-zero diff
    for k, d in enumerate(diffs):
        if d == 0:
            continue
        if last is not None and (d > 0) != (last[1] > 0):
            j, dj = last
            step = points[k][1] if j == k - 1 else None
            at_step = step is not None
            if step is not None:
                at = step
            elif j == k - 1:
                vj, vk = points[j][0], points[k][0]
                at = vj + (vk - vj) * dj / (dj - d)
            else:  # equal totals on the points in between: the first of them
                at = points[j + 1][0]
            found.append(
                Crossing(
                    option_a=option_a,
                    option_b=option_b,
                    monthly_accepted_outputs=float(f"{at:.6g}"),
                    cheaper_above=option_a if d < 0 else option_b,
                    at_step=at_step,
                )
            )
        last = (k, d)
    return found
