"""The cheapest plan across offers (a mixed fleet), as a MILP solved by HiGHS
(``scipy.optimize.milp``); docs/engine/mixed-fleet.md has the formulation.

Load: V accepted outputs a month, A = V / 730 an hour on average, peak p × A. The
load-duration curve of hybrid.py, sliced into K equal layers of height p × A / K, gives
layer k the share ``E_k = overflow(k−1/K) − overflow(k/K)`` of the month's outputs
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
from engine.plan.mixed_recost import cost_per_output, fixed_energy, layer_energies, recost
from engine.plan.mixed_single import best_single
from engine.plan.mixed_types import (
    MixedPlan,
    PlanDemand,
    PlanLine,
    PlanOffer,
    PlanStatus,
    PlanVendorPart,
)

__all__ = ["HOURS", "TIME_LIMIT_S", "fixed_energy", "layer_energies", "optimise"]

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


def _build(
    demand: PlanDemand, offers: Sequence[PlanOffer], *, shortfall: bool = False
) -> tuple[_Model, _Vars]:
    """The MILP; ``shortfall``: capacity may be exceeded by slack GPUs, whose sum is the
    objective (how many GPUs the offers lack)."""
    m, v = _Model(), _Vars()
    energies = layer_energies(demand.peak_to_average, demand.layers)
    k_count = len(energies)
    volume = demand.monthly_outputs
    peak = demand.peak_to_average * volume / HOURS  # outputs an hour at the peak
    weight = 0.0 if shortfall else 1.0
    phi_by_bucket: dict[str, list[int]] = {b.name: [] for b in demand.buckets}
    y_by_layer: dict[tuple[str, int], list[int]] = {}
    for oi, offer in enumerate(offers):
        price = float(offer.price_per_gpu_hour)
        commit = float(offer.min_commitment_gpu_hours)
        needs_u = commit > 0 or offer.fixed_monthly > 0
        if needs_u:
            v.u[oi] = m.var(weight * float(offer.fixed_monthly), 1.0, integer=True)
        hours: list[tuple[int, float]] = []  # hours billed, before the commitment
        cap_terms: list[tuple[int, float]] = []  # GPUs held (fixed) or at the peak (elastic)
        used_terms: dict[tuple[str, int], list[tuple[int, float]]] = {}
        if offer.capacity == "fixed":
            gpu_terms = []
            for ci, cfg in enumerate(offer.configs):
                served = [b for b in demand.buckets if b.name in cfg.outputs_per_hour]
                if not served or cfg.gpus_per_replica < 1:
                    continue
                unit = 0.0 if offer.whole_nodes else weight * price * HOURS * cfg.gpus_per_replica
                need = sum(peak * b.share / cfg.outputs_per_hour[b.name] for b in served)
                big_m = math.ceil(need * (1 + 1e-9)) + 1
                if offer.max_gpus is not None and not shortfall:
                    big_m = min(big_m, offer.max_gpus // cfg.gpus_per_replica)
                n = m.var(unit, float(big_m), integer=True)
                v.n[(oi, ci)] = n
                gpu_terms.append((n, float(cfg.gpus_per_replica)))
                load: list[tuple[int, float]] = [(n, -1.0)]
                for b in served:
                    phi = m.var(0.0, 1.0)
                    v.phi[(oi, ci, b.name)] = phi
                    phi_by_bucket[b.name].append(phi)
                    load.append((phi, peak * b.share / cfg.outputs_per_hour[b.name]))
                m.row(load, -math.inf, 0.0)
                if needs_u:
                    m.row([(n, 1.0), (v.u[oi], -float(big_m))], -math.inf, 0.0)
            if not gpu_terms:
                continue
            if offer.whole_nodes:
                gpn = offer.gpus_per_node
                nodes = m.var(weight * price * HOURS * gpn, integer=True)
                v.nodes[oi] = nodes
                m.row([*gpu_terms, (nodes, -float(gpn))], -math.inf, 0.0)
                hours = [(nodes, HOURS * gpn)]
                cap_terms = [(nodes, float(gpn))]
            else:
                hours = [(n, HOURS * g) for n, g in gpu_terms]
                cap_terms = gpu_terms
        else:
            for ci, cfg in enumerate(offer.configs):
                for b in demand.buckets:
                    if b.name not in cfg.buckets():
                        continue
                    per_output = cost_per_output(offer, cfg, b.name)
                    for k, energy in enumerate(energies):
                        outputs = energy * b.share * volume
                        y = m.var(weight * outputs * per_output, 1.0)
                        v.y[(oi, ci, b.name, k)] = y
                        y_by_layer.setdefault((b.name, k), []).append(y)
                        used_terms.setdefault((b.name, k), []).append((y, 1.0))
                        if offer.capacity == "elastic":
                            rate = cfg.outputs_per_hour[b.name]
                            g = cfg.gpus_per_replica
                            hours.append((y, outputs * g / (rate * offer.utilisation)))
                            cap_terms.append((y, peak * b.share / k_count * g / rate))
            if needs_u:  # per layer, which keeps the relaxation tight
                for terms in used_terms.values():
                    m.row([*terms, (v.u[oi], -1.0)], -math.inf, 0.0)
        if offer.max_gpus is not None and cap_terms:
            terms = list(cap_terms)
            if shortfall:
                v.slack[oi] = m.var(1.0, integer=offer.capacity == "fixed")
                terms.append((v.slack[oi], -1.0))
            m.row(terms, -math.inf, float(offer.max_gpus))
        if commit > 0 and hours:
            w = m.var(weight * price)
            m.row([(v.u[oi], commit), *[(c, -h) for c, h in hours], (w, -1.0)], -math.inf, 0.0)
    for b in demand.buckets:
        f_terms: list[tuple[int, float]] = [(phi, -1.0) for phi in phi_by_bucket[b.name]]
        for k in range(k_count):
            if phi_by_bucket[b.name]:
                f = m.var(0.0, 1.0)
                v.f[(b.name, k)] = f
                f_terms.append((f, 1.0 / k_count))
                cover = [(f, 1.0)]
            else:
                cover = []
            cover += [(y, 1.0) for y in y_by_layer.get((b.name, k), [])]
            m.row(cover, 1.0, math.inf)
        if phi_by_bucket[b.name]:
            m.row(f_terms, -math.inf, 0.0)
    return m, v


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


def _eligible(offers: Sequence[PlanOffer]) -> list[PlanOffer]:
    return [o for o in offers if o.eligible]


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
    pool = _eligible(offers)
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
