"""The hybrid base + peak plan: fixed capacity for the base load, elastic GPUs or an API
for the peak above it (docs/domain.md, "Rent, reserve, buy, or use a model API?").

The load-duration curve over a month is ``L(x) = p × (1 − x)^(p − 1)`` for the share of
time x ∈ [0, 1], with mean 1 and peak p = peak-to-average (flat at p = 1, linear at
p = 2). Fixed capacity able to carry a fraction c of the peak serves ``∫ min(L, c × p)``;
the overflow share is::

    overflow(c) = 1 − c^(p/(p−1)) − c × p × (1 − c^(1/(p−1)))     (p > 1);  1 − c  (p = 1)

A split f buys ``ceil(f × peak replicas)`` whole replicas (whole nodes for owned hardware,
at least the minimum commitment). The overflow is what exceeds the capacity of what is
paid for — c = min(1, replicas held / peak replicas), not f. The overflow goes to elastic
GPUs (work × (1 + spot rework) / utilisation) or to the API (billed attempts). The plan
keeps the base offer's storage, network, serving, observability and labour lines, and adds
the overflow offer's fixed network and serving costs (and vendor-management time when the
overflow is managed).

The grid is f ∈ {0, 1/steps, …, 1}: f = 0 is the overflow offer alone ("all elastic"),
f = 1 the base offer alone ("all fixed"). The plan reports the recommended single row's
unit cost and whether the best split beats it; when it does not, ``note`` says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import Decimal, localcontext

from engine import cost
from engine.types import (
    HOURS_PER_MONTH,
    SECONDS_PER_HOUR,
    CandidateInput,
    HybridPlan,
    PointEstimate,
    WorkloadInput,
)

SPLIT_STEPS = 20
# f × peak replicas that should be an exact integer (3.0000000000000004) adds no replica
CEIL_TOLERANCE = Decimal("1E-12")


def overflow_share(fraction_of_peak: float, peak_to_average: float) -> float:
    """Share of the month's load above fixed capacity able to carry ``fraction_of_peak``."""
    f, p = fraction_of_peak, peak_to_average
    if f >= 1:
        return 0.0
    if f <= 0:
        return 1.0
    if p <= 1:
        return 1.0 - f
    k = p - 1.0
    share = 1.0 - float(f ** (p / k)) - f * p * (1.0 - float(f ** (1.0 / k)))
    return min(1.0, max(0.0, share))


def _held_replicas(base: CandidateInput, replicas: int) -> Decimal:
    """Whole replicas the paid-for GPUs can run (nodes and the commitment included)."""
    gpus = Decimal(cost.fixed_gpus_allocated(base, replicas))
    gpus = max(gpus, base.min_commitment_gpu_hours_per_month / HOURS_PER_MONTH)
    return Decimal(math.floor(gpus / base.gpus_per_replica))


def hybrid_cost(
    workload: WorkloadInput,
    base: CandidateInput,
    over: CandidateInput,
    f: float,
    *,
    base_estimate: PointEstimate | None = None,
) -> tuple[dict[str, Decimal], Decimal, int, float]:
    """(lines, accepted, fixed replicas, fixed share of volume) at split f (0 < f ≤ 1).

    ``base_estimate``: ``base``'s point estimate at the likely values, when already known."""
    v = cost.likely_values(workload, base)
    accepted = cost.dec(v["monthly_accepted_outputs"])
    completed = accepted / cost.dec(v["acceptance_rate"])
    attempts = completed / (1 - cost.dec(v["failure_rate"]))
    retry_share = (attempts - accepted) / attempts
    compute_name, retry_name, idle_name = cost.line_names(workload)
    lines = {compute_name: Decimal(0), retry_name: Decimal(0), idle_name: Decimal(0)}

    def add_gpu(work_h: Decimal, rework_h: Decimal, billed: Decimal, price: Decimal) -> None:
        parts = [retry_share * work_h * price, (billed - work_h - rework_h) * price]
        _, (retry, idle), used = cost.split_exactly(billed * price, parts)
        lines[retry_name] += retry
        lines[idle_name] += idle
        lines[compute_name] += used

    base_price = cost.price_per_gpu_hour(base)
    assert base_price is not None  # noqa: S101 - GPU candidates have one
    assert base.throughput_per_replica is not None  # noqa: S101 - costed candidates have one
    gpu_s = cost.gpu_seconds_numerator(workload, base) / cost.dec(
        base.throughput_per_replica.likely
    )
    full = cost.peak_replicas(workload, base, attempts, gpu_s, cost.dec(v["peak_to_average"]))
    replicas = math.ceil(cost.dec(f) * full * (1 - CEIL_TOLERANCE))
    billed = cost.fixed_gpus_allocated(base, replicas) * HOURS_PER_MONTH
    billed = max(billed, base.min_commitment_gpu_hours_per_month)
    carried = min(Decimal(1), _held_replicas(base, replicas) / full) if full > 0 else Decimal(1)
    spill = cost.dec(overflow_share(float(carried), v["peak_to_average"]))
    work_h = (1 - spill) * attempts * gpu_s / SECONDS_PER_HOUR
    add_gpu(work_h, Decimal(0), billed, base_price)
    if spill > 0:
        _add_overflow(workload, over, v, spill, completed, attempts, retry_share, lines, add_gpu)
    base_only = base_estimate or cost.point_estimate(workload, base)
    for name, value in base_only.lines.items():
        if name not in lines and name != "api_compute":
            lines[name] = value
    if spill > 0:
        extra_net = (
            over.public_ip_per_month
            + over.load_balancer_per_month
            + over.private_networking_per_month
        )
        lines["network"] += cost.money(extra_net)
        lines["serving_stack"] = lines.get("serving_stack", Decimal(0)) + cost.money(
            over.serving_stack_per_month
        )
        if not over.self_managed:
            lines["platform_labor"] += cost.money(
                cost.dec(workload.vendor_management_fte) * workload.loaded_monthly_cost_per_fte
            )
    ordered = {name: lines[name] for name in cost.LINE_ORDER if name in lines}
    return ordered, accepted, replicas, float(1 - spill)


def _add_overflow(
    workload: WorkloadInput,
    over: CandidateInput,
    v: Mapping[str, float],
    spill: Decimal,
    completed: Decimal,
    attempts: Decimal,
    retry_share: Decimal,
    lines: dict[str, Decimal],
    add_gpu: object,
) -> None:
    _, retry_name, _ = cost.line_names(workload)
    over_attempts = spill * attempts
    if over.is_api:
        assert over.api_pricing is not None  # noqa: S101 - validated on input
        per_attempt = cost.api_cost_per_attempt(workload, over.api_pricing)
        billed = cost.billed_attempts(workload, over, spill * completed, over_attempts)
        spend = cost.money(billed * per_attempt)
        api = cost.money(over_attempts * (1 - retry_share) * per_attempt)
        lines["api_compute"] = api
        lines[retry_name] += spend - api
        return
    over_price = cost.price_per_gpu_hour(over)
    assert over_price is not None  # noqa: S101 - GPU candidates have one
    assert over.throughput_per_replica is not None  # noqa: S101
    o_gpu_s = cost.gpu_seconds_numerator(workload, over) / cost.dec(
        over.throughput_per_replica.likely
    )
    o_work = over_attempts * o_gpu_s / SECONDS_PER_HOUR
    rework = o_work * cost.spot_rework_share(workload, over)
    util = over.utilisation.likely if over.utilisation else v["utilisation"]
    o_billed = (o_work + rework) / cost.dec(util) if over.idle_billed else o_work + rework
    o_billed = max(o_billed, over.min_commitment_gpu_hours_per_month)
    add_gpu(o_work, rework, o_billed, over_price)  # type: ignore[operator]


def _unit(lines: Mapping[str, Decimal], accepted: Decimal, scale: Decimal) -> Decimal:
    return sum(lines.values(), Decimal(0)) / accepted * scale


def _split_cost(
    workload: WorkloadInput,
    base: CandidateInput,
    over: CandidateInput,
    f: float,
    estimates: Mapping[str, PointEstimate],
) -> tuple[dict[str, Decimal], Decimal, int, float]:
    if f <= 0:  # all elastic: the overflow offer alone
        est = estimates.get(over.id) or cost.point_estimate(workload, over)
        return dict(est.lines), est.accepted_outputs, 0, 0.0
    return hybrid_cost(workload, base, over, f, base_estimate=estimates.get(base.id))


def hybrid_plan(
    workload: WorkloadInput,
    candidates: Sequence[CandidateInput],
    estimates: Mapping[str, PointEstimate],
    *,
    max_each: int = 3,
    steps: int = SPLIT_STEPS,
    recommended_id: str | None = None,
) -> HybridPlan | None:
    """The cheapest fixed-base + elastic/API-peak split over the best few offers of each."""
    if workload.is_training or workload.monthly_accepted_outputs is None:
        return None
    costed = sorted(
        (c for c in candidates if c.id in estimates),
        key=lambda c: (estimates[c.id].unit_cost_exact, c.id),
    )
    bases = [c for c in costed if c.is_fixed][:max_each]
    overs = [c for c in costed if not c.is_api and not c.is_fixed][:max_each]
    overs += [c for c in costed if c.is_api][:1]
    if not bases or not overs:
        return None
    label, scale = cost.unit_label_and_scale(workload)
    best: tuple[Decimal, CandidateInput, CandidateInput, float] | None = None
    curves: dict[tuple[str, str], list[tuple[float, Decimal]]] = {}
    with localcontext(cost.DECIMAL_CONTEXT):
        for base in bases:
            for over in overs:
                curve = curves.setdefault((base.id, over.id), [])
                for step in range(steps + 1):
                    f = step / steps
                    lines, accepted, _, _ = _split_cost(workload, base, over, f, estimates)
                    unit = _unit(lines, accepted, scale)
                    curve.append((f, unit.quantize(cost.UNIT_QUANTUM)))
                    if best is None or unit < best[0]:
                        best = (unit, base, over, f)
        assert best is not None  # noqa: S101 - bases and overs are non-empty
        _, base, over, f = best
        lines, accepted, replicas, fixed_share = _split_cost(workload, base, over, f, estimates)
        total = sum(lines.values(), Decimal(0))
        per_output = total / accepted
        rec = estimates.get(recommended_id) if recommended_id else None
        rec_unit = None if rec is None else rec.unit_cost_exact
        beats = None if rec_unit is None else per_output * scale < rec_unit
    note = _note(f, beats, recommended_id, rec)
    return HybridPlan(
        candidate_id=f"hybrid:{base.id}+{over.id}",
        label=f"{base.label} (base) + {over.label} (peak)",
        base_candidate_id=base.id,
        overflow_candidate_id=over.id,
        fixed_fraction_of_peak=f,
        fixed_share_of_volume=fixed_share,
        fixed_replicas=replicas,
        cost_lines=lines,
        total=total,
        accepted_outputs=accepted,
        unit_cost=(per_output * scale).quantize(cost.UNIT_QUANTUM),
        unit_label=label,
        unit_cost_per_accepted_output=per_output.quantize(cost.PER_OUTPUT_QUANTUM),
        split_curve=tuple(curves[(base.id, over.id)]),
        recommended_unit_cost=None if rec is None else rec.unit_cost,
        beats_recommendation=beats,
        note=note,
    )


def _note(f: float, beats: bool | None, rec_id: str | None, rec: PointEstimate | None) -> str:
    if beats is False and rec is not None:
        return (
            f"no hybrid split is cheaper than the recommendation ({rec_id}, "
            f"{rec.unit_cost} {rec.unit_label})"
        )
    if f <= 0:
        return "the best split is all elastic: no fixed base pays for itself"
    if f >= 1:
        return "the best split is all fixed: the base offer alone"
    return ""
