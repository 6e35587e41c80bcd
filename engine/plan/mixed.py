"""The cheapest plan across offers (a mixed fleet), as a MILP solved by HiGHS
(``scipy.optimize.milp``); docs/engine/mixed-fleet.md has the formulation.

Load: V accepted outputs a month, A = V / 730 an hour on average, peak p × A. The
load-duration curve (``mixed_recost.overflow_share``), sliced into K equal layers of height
p × A / K, gives layer k the share ``E_k = overflow(k−1/K) − overflow(k/K)`` of the month's outputs
(Σ E_k = 1). Bucket b carries the share s_b of every layer.

Variables: whole replicas n_j of every fixed configuration (whole nodes for owned
hardware), the share φ_jb of bucket b's peak that fixed configuration j carries, the
share f_bk of layer (b, k) fixed capacity covers, the share y_ebk of layer (b, k) an
elastic configuration or an API route serves, a binary u_o "offer o is used" where the
offer has a commitment or a fixed monthly charge, and the commitment shortfall w_o.

Minimise Σ price × 730 × GPUs held + Σ y × E_k × s_b × V × cost per output (elastic:
price × GPUs / (throughput × utilisation); API: its price) + Σ price × w_o + Σ fixed
charge × u_o, subject to: Σ_b φ_jb × p × A × s_b / t_jb ≤ n_j; Σ_k f_bk / K ≤ Σ_j φ_jb;
f_bk + Σ_e y_ebk ≥ 1; GPUs held ≤ the vendor's capacity; elastic GPUs at the peak
Σ y × (p × A × s_b / K) × g / t ≤ capacity; n_j ≤ M × u_o and, per layer, Σ_j y ≤ u_o;
w_o ≥ commitment × u_o − hours billed. A configuration serves only the buckets whose
service level it meets.

The plan found is re-costed in Decimal and compared with the best single candidate
(one configuration of one offer carrying everything), which is always a feasible plan:
when the solver stops at its time limit with something dearer, that candidate is the plan.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, localcontext

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_array

from engine.cost.common import DECIMAL_CONTEXT, PER_OUTPUT_QUANTUM, dec
from engine.plan.mixed_recost import cost_per_output, layer_energies, recost
from engine.plan.mixed_single import best_single
from engine.plan.mixed_types import (
    MixedPlan,
    PlanDemand,
    PlanLine,
    PlanOffer,
    PlanStatus,
    PlanVendorPart,
)

__all__ = ["HOURS", "TIME_LIMIT_S", "layer_energies", "optimise"]

HOURS = 730.0
# HiGHS' limit is wall-clock seconds; the bench reports CPU seconds
TIME_LIMIT_S = 10.0
# a dollar in a million: below a cent on the small instances of the property test
MIP_REL_GAP = 1e-6


@dataclass
class _Model:
    cost: list[float] = field(default_factory=list)
    lb: list[float] = field(default_factory=list)
    ub: list[float] = field(default_factory=list)
    integer: list[int] = field(default_factory=list)
    rows: list[int] = field(default_factory=list)
    cols: list[int] = field(default_factory=list)
    vals: list[float] = field(default_factory=list)
    lo: list[float] = field(default_factory=list)
    hi: list[float] = field(default_factory=list)

    def var(self, cost: float, ub: float = math.inf, *, integer: bool = False) -> int:
        self.cost.append(cost)
        self.lb.append(0.0)
        self.ub.append(ub)
        self.integer.append(1 if integer else 0)
        return len(self.cost) - 1

    def row(self, terms: Sequence[tuple[int, float]], lo: float, hi: float) -> None:
        r = len(self.lo)
        for col, val in terms:
            if val:
                self.rows.append(r)
                self.cols.append(col)
                self.vals.append(val)
        self.lo.append(lo)
        self.hi.append(hi)


@dataclass
class _Vars:
    """Column indices, for reading the solution back."""

    n: dict[tuple[int, int], int] = field(default_factory=dict)  # (offer, config) → replicas
    nodes: dict[int, int] = field(default_factory=dict)
    phi: dict[tuple[int, int, str], int] = field(default_factory=dict)
    f: dict[tuple[str, int], int] = field(default_factory=dict)
    y: dict[tuple[int, int, str, int], int] = field(default_factory=dict)
    u: dict[int, int] = field(default_factory=dict)
    slack: dict[int, int] = field(default_factory=dict)


@dataclass
class _Build:
    """What the offers' variables share while the model is built."""

    m: _Model
    v: _Vars
    demand: PlanDemand
    energies: list[float]
    peak: float  # outputs an hour at the peak
    weight: float  # 0 when only the capacity shortfall is minimised
    shortfall: bool
    phi_by_bucket: dict[str, list[int]]
    y_by_layer: dict[tuple[str, int], list[int]] = field(default_factory=dict)


def _fixed_offer(
    b: _Build, oi: int, offer: PlanOffer, needs_u: bool
) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """Whole replicas held for the term: (hours billed, GPUs held) terms."""
    m, v, price = b.m, b.v, float(offer.price_per_gpu_hour)
    gpu_terms = []
    for ci, cfg in enumerate(offer.configs):
        served = [k for k in b.demand.buckets if k.name in cfg.outputs_per_hour]
        if not served or cfg.gpus_per_replica < 1:
            continue
        unit = 0.0 if offer.whole_nodes else b.weight * price * HOURS * cfg.gpus_per_replica
        need = sum(b.peak * k.share / cfg.outputs_per_hour[k.name] for k in served)
        big_m = math.ceil(need * (1 + 1e-9)) + 1
        if offer.max_gpus is not None and not b.shortfall:
            big_m = min(big_m, offer.max_gpus // cfg.gpus_per_replica)
        n = m.var(unit, float(big_m), integer=True)
        v.n[(oi, ci)] = n
        gpu_terms.append((n, float(cfg.gpus_per_replica)))
        load: list[tuple[int, float]] = [(n, -1.0)]
        for k in served:
            phi = m.var(0.0, 1.0)
            v.phi[(oi, ci, k.name)] = phi
            b.phi_by_bucket[k.name].append(phi)
            load.append((phi, b.peak * k.share / cfg.outputs_per_hour[k.name]))
        m.row(load, -math.inf, 0.0)
        if needs_u:
            m.row([(n, 1.0), (v.u[oi], -float(big_m))], -math.inf, 0.0)
    if not gpu_terms:
        return [], []
    if offer.whole_nodes:
        gpn = offer.gpus_per_node
        nodes = m.var(b.weight * price * HOURS * gpn, integer=True)
        v.nodes[oi] = nodes
        m.row([*gpu_terms, (nodes, -float(gpn))], -math.inf, 0.0)
        return [(nodes, HOURS * gpn)], [(nodes, float(gpn))]
    return [(n, HOURS * g) for n, g in gpu_terms], gpu_terms


def _per_use_offer(
    b: _Build, oi: int, offer: PlanOffer, needs_u: bool
) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """Elastic or API capacity paid per output, by load layer: (hours, GPUs at peak) terms."""
    m, v, volume, k_count = b.m, b.v, b.demand.monthly_outputs, len(b.energies)
    hours: list[tuple[int, float]] = []
    cap_terms: list[tuple[int, float]] = []
    used_terms: dict[tuple[str, int], list[tuple[int, float]]] = {}
    for ci, cfg in enumerate(offer.configs):
        for bucket in b.demand.buckets:
            if bucket.name not in cfg.buckets():
                continue
            per_output = cost_per_output(offer, cfg, bucket.name)
            for k, energy in enumerate(b.energies):
                outputs = energy * bucket.share * volume
                y = m.var(b.weight * outputs * per_output, 1.0)
                v.y[(oi, ci, bucket.name, k)] = y
                b.y_by_layer.setdefault((bucket.name, k), []).append(y)
                used_terms.setdefault((bucket.name, k), []).append((y, 1.0))
                if offer.capacity == "elastic":
                    rate = cfg.outputs_per_hour[bucket.name]
                    g = cfg.gpus_per_replica
                    hours.append((y, outputs * g / (rate * offer.utilisation)))
                    cap_terms.append((y, b.peak * bucket.share / k_count * g / rate))
    if needs_u:  # per layer, which keeps the relaxation tight
        for terms in used_terms.values():
            m.row([*terms, (v.u[oi], -1.0)], -math.inf, 0.0)
    return hours, cap_terms


def _offer(b: _Build, oi: int, offer: PlanOffer) -> None:
    m, v, price = b.m, b.v, float(offer.price_per_gpu_hour)
    commit = float(offer.min_commitment_gpu_hours)
    needs_u = commit > 0 or offer.fixed_monthly > 0
    if needs_u:
        v.u[oi] = m.var(b.weight * float(offer.fixed_monthly), 1.0, integer=True)
    build = _fixed_offer if offer.capacity == "fixed" else _per_use_offer
    hours, cap_terms = build(b, oi, offer, needs_u)
    if offer.capacity == "fixed" and not cap_terms:
        return
    if offer.max_gpus is not None and cap_terms:
        terms = list(cap_terms)
        if b.shortfall:
            v.slack[oi] = m.var(1.0, integer=offer.capacity == "fixed")
            terms.append((v.slack[oi], -1.0))
        m.row(terms, -math.inf, float(offer.max_gpus))
    if commit > 0 and hours:
        w = m.var(b.weight * price)
        m.row([(v.u[oi], commit), *[(c, -h) for c, h in hours], (w, -1.0)], -math.inf, 0.0)


def _cover_buckets(b: _Build) -> None:
    """Every load layer of every bucket is served: by held replicas up to their share, or per
    use."""
    m, v, k_count = b.m, b.v, len(b.energies)
    for bucket in b.demand.buckets:
        phis = b.phi_by_bucket[bucket.name]
        f_terms: list[tuple[int, float]] = [(phi, -1.0) for phi in phis]
        for k in range(k_count):
            cover: list[tuple[int, float]] = []
            if phis:
                f = m.var(0.0, 1.0)
                v.f[(bucket.name, k)] = f
                f_terms.append((f, 1.0 / k_count))
                cover = [(f, 1.0)]
            cover += [(y, 1.0) for y in b.y_by_layer.get((bucket.name, k), [])]
            m.row(cover, 1.0, math.inf)
        if phis:
            m.row(f_terms, -math.inf, 0.0)


def _build(
    demand: PlanDemand, offers: Sequence[PlanOffer], *, shortfall: bool = False
) -> tuple[_Model, _Vars]:
    """The MILP; ``shortfall``: capacity may be exceeded by slack GPUs, whose sum is the
    objective (how many GPUs the offers lack)."""
    b = _Build(
        m=_Model(),
        v=_Vars(),
        demand=demand,
        energies=list(layer_energies(demand.peak_to_average, demand.layers, demand.load_shape)),
        peak=demand.peak_to_average * demand.monthly_outputs / HOURS,
        weight=0.0 if shortfall else 1.0,
        shortfall=shortfall,
        phi_by_bucket={k.name: [] for k in demand.buckets},
    )
    for oi, offer in enumerate(offers):
        _offer(b, oi, offer)
    _cover_buckets(b)
    return b.m, b.v


def _solve(m: _Model, time_limit: float) -> object:
    a = csr_array((m.vals, (m.rows, m.cols)), shape=(len(m.lo), len(m.cost)))
    return milp(
        np.array(m.cost),
        integrality=np.array(m.integer),
        bounds=Bounds(np.array(m.lb), np.array(m.ub)),
        constraints=LinearConstraint(a, np.array(m.lo), np.array(m.hi)),
        options={"time_limit": time_limit, "mip_rel_gap": MIP_REL_GAP, "presolve": True},
    )


def _recost(
    offers: Sequence[PlanOffer], v: _Vars, demand: PlanDemand, x: NDArray[np.float64]
) -> tuple[list[PlanLine], list[PlanVendorPart]]:
    replicas = {key: round(float(x[col])) for key, col in v.n.items()}
    nodes = {oi: round(float(x[col])) for oi, col in v.nodes.items()}
    phi = {key: float(x[col]) for key, col in v.phi.items()}
    y = {key: float(x[col]) for key, col in v.y.items()}
    return recost(demand, offers, replicas, nodes, phi, y)


def _uncovered_buckets(demand: PlanDemand, offers: Sequence[PlanOffer]) -> list[str]:
    covered: set[str] = set()
    for offer in offers:
        for cfg in offer.configs:
            if offer.capacity == "api" or cfg.gpus_per_replica >= 1:
                covered |= cfg.buckets()
    return [b.name for b in demand.buckets if b.name not in covered]


def _shortfall(
    demand: PlanDemand, offers: Sequence[PlanOffer], time_limit: float
) -> tuple[int, int]:
    m, v = _build(demand, offers, shortfall=True)
    res = _solve(m, time_limit)
    x = getattr(res, "x", None)
    if x is None:
        return 0, 0
    gpus = nodes = 0
    for oi, col in v.slack.items():
        lack = math.ceil(float(x[col]) - 1e-6)
        if lack > 0:
            gpus += lack
            nodes += math.ceil(lack / offers[oi].gpus_per_node)
    return gpus, nodes


def optimise(
    demand: PlanDemand, offers: Sequence[PlanOffer], *, time_limit: float = TIME_LIMIT_S
) -> MixedPlan:
    """The cheapest plan for ``demand`` across the eligible ``offers`` (module docstring)."""
    start = time.process_time()
    pool = [o for o in offers if o.eligible]
    volume = dec(demand.monthly_outputs)
    if not pool:
        return MixedPlan("infeasible", "not solved", reason="no eligible offer")
    missing = _uncovered_buckets(demand, pool)
    if missing:
        words = ", ".join(f"the {name}-request" for name in missing)
        return MixedPlan("infeasible", "not solved", reason=f"no offer meets {words} service level")
    single = best_single(demand, pool)
    m, v = _build(demand, pool)
    res = _solve(m, time_limit)
    x = getattr(res, "x", None)
    status = int(getattr(res, "status", 4))
    gap = getattr(res, "mip_gap", None)
    if x is None and single is None:
        gpus, nodes = _shortfall(demand, pool, time_limit)
        reason = (
            f"capacity short by {gpus} GPU{'s' * (gpus != 1)} ({nodes} node{'s' * (nodes != 1)})"
            if gpus
            else "no plan meets the brief within the offers' capacity"
        )
        if status == 1:
            reason = f"the solver found no plan within its {time_limit:g} s time limit"
        return MixedPlan(
            "infeasible",
            "infeasible" if status == 2 else "stopped early",
            reason=reason,
            solve_seconds=time.process_time() - start,
            shortfall_gpus=gpus,
            shortfall_nodes=nodes,
        )
    with localcontext(DECIMAL_CONTEXT):
        plan_cost: Decimal | None = None
        lines: list[PlanLine] = []
        parts: list[PlanVendorPart] = []
        if x is not None:
            lines, parts = _recost(pool, v, demand, np.asarray(x, dtype=float))
            plan_cost = sum((p.monthly_cost for p in parts), Decimal(0))
        plan_status: PlanStatus = "optimal" if status == 0 else "time_limit"
        stopped = f"stopped at the {time_limit:g} s time limit"
        if status == 0:
            outcome = "optimal"
        elif x is None:
            outcome = f"{stopped} before finding a plan: the best single candidate is the plan"
        else:
            outcome = f"{stopped}: the best plan found, MIP gap {100 * float(gap or 0):.2f} %"
        single_cost = None if single is None else single.cost
        if single is not None and (plan_cost is None or single.cost < plan_cost):
            lines, parts = list(single.lines), list(single.vendors)
            if status != 0:
                plan_status = "single"
                if x is not None:
                    outcome += "; the best single candidate is cheaper and is the plan"
            plan_cost = single.cost
        assert plan_cost is not None  # noqa: S101 - x or single is set
        return MixedPlan(
            status=plan_status,
            outcome=outcome,
            lines=tuple(lines),
            vendors=tuple(parts),
            monthly_cost=plan_cost,
            accepted_outputs=volume,
            cost_per_accepted_output=(plan_cost / volume).quantize(PER_OUTPUT_QUANTUM),
            total_commitment=sum((p.commitment_total for p in parts), Decimal(0)),
            best_single_id=None if single is None else single.id,
            best_single_cost=single_cost,
            saving_vs_single=None if single_cost is None else single_cost - plan_cost,
            mip_gap=None if gap is None else float(gap),
            solve_seconds=time.process_time() - start,
        )
