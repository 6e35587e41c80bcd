"""Capacity models: break-even across volume, and the hybrid base + peak plan.

DOMAIN.md, "Rent, reserve, buy, or use a model API?": reserve or buy once traffic is
proven; for many teams the answer is hybrid — fixed capacity for the base load and
elastic GPUs or a model API for the peak and overflow.

Break-even (one accelerator): the cheapest eligible offer of each option — ``on_demand``
(elastic capacity), ``reserved`` (reserved, dedicated cluster, private cloud),
``purchase`` — plus the best API route, costed by cost.py at every monthly volume of a
geometric grid (likely / 10 … likely × 10). Crossings are where two monthly totals change
order, interpolated linearly between grid points.

Hybrid: the load-duration curve over a month is modelled as ``L(x) = p × (1 − x)^(p − 1)``
for the share of time x ∈ [0, 1], with mean 1 and peak p = peak-to-average (flat at p = 1,
linear at p = 2). Fixed capacity sized for a fraction f of the peak (level c = f × p)
serves ``∫ min(L, c)``; the overflow share is::

    overflow(f) = 1 − f^(p/(p−1)) − f × p × (1 − f^(1/(p−1)))     (p > 1);  1 − f  (p = 1)

The fixed part costs ``ceil(f × peak replicas) × GPUs × 730 h`` (at least the commitment);
the overflow goes to elastic GPUs (work / utilisation) or to the API (per attempt). The
plan keeps the base offer's storage, network, serving, observability and labour lines, and
adds the overflow offer's fixed network and serving costs (and vendor-management time
when the overflow is managed). The split f ∈ {0.05, 0.10, …, 1.00} with the lowest cost
per accepted output wins (f = 1 is the base offer alone).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import Decimal, localcontext

import numpy as np

from procurement.engine import cost
from procurement.engine.types import (
    ELASTIC_CAPACITY,
    HOURS_PER_MONTH,
    SECONDS_PER_HOUR,
    BreakevenCurve,
    BreakevenResult,
    CandidateInput,
    Crossing,
    HybridPlan,
    PointEstimate,
    WorkloadInput,
)

RESERVED_LIKE = frozenset({"reserved", "dedicated_cluster", "private_cloud"})
GRID_POINTS = 25
SPLIT_STEPS = 20


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
    for option, cand in reps.items():
        runs = [
            cost.point_estimate(workload, cand, values={"monthly_accepted_outputs": v})
            for v in volumes
        ]
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
            crossings.extend(_crossings(a, b, volumes))
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


def _crossings(a: BreakevenCurve, b: BreakevenCurve, volumes: Sequence[float]) -> list[Crossing]:
    """Volumes where ``a``'s monthly total changes order with ``b``'s (linear in between)."""
    diffs = [float(x - y) for x, y in zip(a.monthly_totals, b.monthly_totals, strict=True)]
    found: list[Crossing] = []
    last: tuple[int, float] | None = None  # (index, diff) of the last non-zero diff
    for k, d in enumerate(diffs):
        if d == 0:
            continue
        if last is not None and (d > 0) != (last[1] > 0):
            j, dj = last
            if j == k - 1:
                at = volumes[j] + (volumes[k] - volumes[j]) * dj / (dj - d)
            else:  # equal totals on the grid points in between: the first of them
                at = volumes[j + 1]
            found.append(
                Crossing(
                    option_a=a.option,
                    option_b=b.option,
                    monthly_accepted_outputs=at,
                    cheaper_above=a.option if d < 0 else b.option,
                )
            )
        last = (k, d)
    return found


def overflow_share(fraction_of_peak: float, peak_to_average: float) -> float:
    """Share of the month's load above fixed capacity sized at ``fraction_of_peak``."""
    f, p = fraction_of_peak, peak_to_average
    if f >= 1:
        return 0.0
    if p <= 1:
        return 1.0 - f
    k = p - 1.0
    share = 1.0 - float(f ** (p / k)) - f * p * (1.0 - float(f ** (1.0 / k)))
    return min(1.0, max(0.0, share))


def _hybrid_cost(
    workload: WorkloadInput, base: CandidateInput, over: CandidateInput, f: float
) -> tuple[dict[str, Decimal], Decimal, Decimal, int, float]:
    """(lines, accepted, attempts, fixed replicas, fixed share of volume) at split f."""
    v = cost.likely_values(workload, base)
    accepted = cost.dec(v["monthly_accepted_outputs"])
    completed = accepted / cost.dec(v["acceptance_rate"])
    attempts = completed / (1 - cost.dec(v["failure_rate"]))
    retry_share = (attempts - accepted) / attempts
    spill = cost.dec(overflow_share(f, v["peak_to_average"]))
    compute_name, retry_name, idle_name = cost.line_names(workload)
    lines = {compute_name: Decimal(0), retry_name: Decimal(0), idle_name: Decimal(0)}

    def add_gpu(work_h: Decimal, billed: Decimal, price: Decimal) -> None:
        _, (retry, idle), used = cost.split_exactly(
            billed * price, [retry_share * work_h * price, (billed - work_h) * price]
        )
        lines[retry_name] += retry
        lines[idle_name] += idle
        lines[compute_name] += used

    base_price = cost.price_per_gpu_hour(base)
    assert base_price is not None  # noqa: S101 - GPU candidates have one
    assert base.throughput_per_replica is not None  # noqa: S101 - costed candidates have one
    gpu_s = cost.gpu_seconds_numerator(workload, base) / cost.dec(
        base.throughput_per_replica.likely
    )
    peak_replicas = (
        cost.dec(f)
        * cost.dec(v["peak_to_average"])
        * attempts
        * gpu_s
        / (base.gpus_per_replica * HOURS_PER_MONTH * SECONDS_PER_HOUR)
    )
    replicas = math.ceil(peak_replicas)
    billed = cost.fixed_gpus_allocated(base, replicas) * HOURS_PER_MONTH
    billed = max(billed, base.min_commitment_gpu_hours_per_month)
    work_h = (1 - spill) * attempts * gpu_s / SECONDS_PER_HOUR
    add_gpu(work_h, billed, base_price)
    over_attempts = spill * attempts
    if spill > 0:
        if over.is_api:
            assert over.api_pricing is not None  # noqa: S101 - validated on input
            per_attempt = cost.api_cost_per_attempt(workload, over.api_pricing)
            spend = cost.money(over_attempts * per_attempt)
            api = cost.money(over_attempts * (1 - retry_share) * per_attempt)
            lines["api_compute"] = api
            lines[retry_name] += spend - api
        else:
            over_price = cost.price_per_gpu_hour(over)
            assert over_price is not None  # noqa: S101 - GPU candidates have one
            assert over.throughput_per_replica is not None  # noqa: S101
            o_gpu_s = cost.gpu_seconds_numerator(workload, over) / cost.dec(
                over.throughput_per_replica.likely
            )
            o_work = over_attempts * o_gpu_s / SECONDS_PER_HOUR
            util = over.utilisation.likely if over.utilisation else v["utilisation"]
            o_billed = o_work / cost.dec(util) if over.idle_billed else o_work
            o_billed = max(o_billed, over.min_commitment_gpu_hours_per_month)
            add_gpu(o_work, o_billed, over_price)
    base_only = cost.point_estimate(workload, base)
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
    return ordered, accepted, attempts, replicas, float(1 - spill)


def hybrid_plan(
    workload: WorkloadInput,
    candidates: Sequence[CandidateInput],
    estimates: Mapping[str, PointEstimate],
    *,
    max_each: int = 3,
    steps: int = SPLIT_STEPS,
) -> HybridPlan | None:
    """The cheapest fixed-base + elastic/API-peak plan over the best few offers of each."""
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
                for step in range(1, steps + 1):
                    f = step / steps
                    lines, accepted, _, _, _ = _hybrid_cost(workload, base, over, f)
                    unit = sum(lines.values(), Decimal(0)) / accepted * scale
                    curve.append((f, unit.quantize(cost.UNIT_QUANTUM)))
                    if best is None or unit < best[0]:
                        best = (unit, base, over, f)
        assert best is not None  # noqa: S101 - bases and overs are non-empty
        _, base, over, f = best
        lines, accepted, _, replicas, fixed_share = _hybrid_cost(workload, base, over, f)
        total = sum(lines.values(), Decimal(0))
        per_output = total / accepted
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
    )
