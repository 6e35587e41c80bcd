"""Cost per accepted output at every operating point of a sweep.

The row is costed at one point (operating_points.choose_point); the charts show the others
beside it. Each point is costed by the same cost model as the row (cost.point_estimate),
with only what the point changes replaced:

- throughput per replica = the point's output tokens/s × the evidence's scaling factor
  (the same factor the row's throughput carries);
- acceptance and failure = the row's, for every point: a measured throughput is successful
  tokens per wall-clock second, so a point's failed requests are already in its throughput,
  and its SLO attainment (shown beside it) is not charged as rejected output.

So the chosen point's cost is the row's unit cost, to the last digit, the chosen point is
the cheapest point meeting the service level on this chart, and a point past the service
level shows what it would cost without being eligible. A point that cannot be costed (no
throughput: every request failed, or the file gives none) is kept with its reason.

Tokens/s per user (the charts' x axis, "interactivity") = 1000 / the median inter-token
gap (ITL, else TPOT; the mean when no median), else the point's output tokens/s ÷ its
concurrency; None when the file gives neither.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal
from typing import TypedDict

from engine import cost
from engine.errors import EngineInputError
from engine.operating_points import (
    MeasuredPoint,
    ServiceLevel,
    describe,
    error_rate_of,
    meets,
    slo_attainment,
)
from engine.types import CandidateInput, Range, WorkloadInput

MAX_POINTS = 64  # a chart of more points says nothing more; a sweep file may hold hundreds


class PointCostRow(TypedDict):
    """One operating point, costed, as JSON frozen with its row: what the charts and their
    tables read."""

    label: str
    statement: str  # "concurrency 50, TTFT p95 835 ms"
    concurrency: float | None
    request_rate_per_s: float | None
    tokens_per_s: float  # per replica, as costed (scaled like the row)
    tokens_per_s_per_user: float | None
    ttft_p95_ms: float | None
    itl_p95_ms: float | None
    e2e_p99_ms: float | None
    meets: bool | None  # None: no target, or the file lacks the figure
    goodput: float | None  # SLO attainment: share of requests within every target
    slo_attainment: float | None  # the same figure as `goodput`
    error_rate: float | None
    unit_cost: str | None  # exact decimal; None: this point cannot be costed (see `reason`)
    costable: bool
    reason: str  # why the point is not costable
    chosen: bool


def _rounded(value: float | None, places: int) -> float | None:
    return None if value is None else round(value, places)


def tokens_per_user(point: MeasuredPoint) -> float | None:
    """Output tokens per second one user sees at this point (see the module docstring)."""
    gap = point.itl_ms or point.tpot_ms
    per_token_ms = None
    if gap is not None:
        per_token_ms = gap.p50 if gap.p50 else gap.mean
    if per_token_ms:
        return 1000.0 / per_token_ms
    if point.concurrency and point.output_tokens_per_s:
        return point.output_tokens_per_s / point.concurrency
    return None


def point_costs(
    workload: WorkloadInput,
    cand: CandidateInput,
    points: Sequence[MeasuredPoint],
    slo: ServiceLevel,
    *,
    realtime: bool,
    chosen_label: str,
    throughput_factor: float = 1.0,
    base_acceptance: Range | None = None,
) -> list[PointCostRow]:
    """Every point of ``points`` (at most MAX_POINTS, in sweep order), costed for ``cand``.

    ``base_acceptance``: the acceptance every point is costed at (None: the row's own, else
    the workload's). Never raises for a point: one that cannot be costed says why.
    """
    acceptance = base_acceptance if base_acceptance is not None else cand.acceptance_rate
    out: list[PointCostRow] = []
    for point in list(points)[:MAX_POINTS]:
        share = slo_attainment(point, slo) if realtime and slo.any else None
        errors = error_rate_of(point)
        # rounded to 0.001 tokens/s as the row's own throughput is, so that the chosen
        # point costs exactly what the row does
        tokens = round(float(point.output_tokens_per_s or 0.0) * throughput_factor, 3)
        unit: Decimal | None = None
        reason = ""
        if not (tokens > 0 and math.isfinite(tokens)):
            reason = (
                "not costable: every request failed"
                if errors is not None and errors >= 1
                else "not costable: no successful output tokens measured at this point"
            )
        else:
            try:
                at_point = replace(
                    cand, throughput_per_replica=Range.fixed(tokens), acceptance_rate=acceptance
                )
                unit = cost.point_estimate(workload, at_point).unit_cost
            except EngineInputError as exc:
                reason = f"not costable: {exc.message}"
        itl = point.itl_ms or point.tpot_ms
        out.append(
            {
                "label": point.label,
                "statement": describe(point),
                "concurrency": point.concurrency,
                "request_rate_per_s": point.request_rate_per_s,
                "tokens_per_s": tokens if tokens > 0 and math.isfinite(tokens) else 0.0,
                "tokens_per_s_per_user": _rounded(tokens_per_user(point), 3),
                "ttft_p95_ms": point.ttft_ms.p95 if point.ttft_ms else None,
                "itl_p95_ms": itl.p95 if itl else None,
                "e2e_p99_ms": point.e2e_ms.p99 if point.e2e_ms else None,
                "meets": meets(point, slo) if slo.any else None,
                "goodput": _rounded(share, 4),
                "slo_attainment": _rounded(share, 4),
                "error_rate": _rounded(errors, 4),
                "unit_cost": None if unit is None else format(unit, "f"),
                "costable": unit is not None,
                "reason": reason,
                "chosen": point.label == chosen_label,
            }
        )
    return out
