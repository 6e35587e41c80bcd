"""The best single candidate of the mixed-fleet model (one configuration of one offer
carrying every bucket), and the Decimal costing both it and the optimiser's plans share.

A single candidate is a feasible plan of the MILP (mixed.py), so the plan is never dearer;
it is also the plan when the solver stops early with something dearer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, localcontext

from engine.cost.common import DECIMAL_CONTEXT, dec, money
from engine.plan.mixed_types import PlanConfig, PlanDemand, PlanLine, PlanOffer, PlanVendorPart
from engine.types import HOURS_PER_MONTH

# need × (1 − tolerance): an exact integer number of replicas adds no replica
CEIL_TOLERANCE = Decimal("1E-12")


def vendor_part(
    offer: PlanOffer, lines: Sequence[PlanLine], billed: Decimal, nodes: int | None
) -> PlanVendorPart:
    """The offer's part: its lines, whole nodes' spare GPUs, commitment shortfall and
    fixed monthly charges; what it commits (fixed: the hours held) over its term."""
    price = offer.price_per_gpu_hour
    compute = sum((line.monthly_cost for line in lines), Decimal(0))
    if nodes is not None:  # whole nodes: the spare GPUs of the last node are paid too
        held = HOURS_PER_MONTH * offer.gpus_per_node * nodes
        compute += money((held - billed) * price)
        billed = held
    shortfall = max(Decimal(0), offer.min_commitment_gpu_hours - billed)
    total = compute + money(shortfall * price) + offer.fixed_monthly
    if offer.overage_premium and billed > offer.min_commitment_gpu_hours:
        total += money((billed - offer.min_commitment_gpu_hours) * offer.overage_premium)
    committed_h = offer.min_commitment_gpu_hours
    if offer.capacity == "fixed":
        committed_h = billed + shortfall
    return PlanVendorPart(
        offer_id=offer.id,
        label=offer.label or offer.id,
        capacity=offer.capacity,
        monthly_cost=money(total),
        committed_gpu_hours_per_month=committed_h,
        term_months=offer.term_months,
        commitment_total=money(
            committed_h * price / (1 + offer.stranded_share) * offer.term_months
        ),
    )


def whole_replicas_gpus(at_peak: Decimal, gpus_per_replica: int) -> int:
    """Elastic GPUs at the peak as whole replicas of the configuration (an 8-GPU shape at a
    fraction of a replica is 8 GPUs, not 1)."""
    if at_peak <= 0:
        return 0
    return math.ceil(at_peak / gpus_per_replica * (1 - CEIL_TOLERANCE)) * gpus_per_replica


@dataclass(frozen=True, slots=True)
class SinglePlan:
    id: str  # "offer/config"
    cost: Decimal
    lines: tuple[PlanLine, ...]
    vendors: tuple[PlanVendorPart, ...]


def single_plan(demand: PlanDemand, offer: PlanOffer, cfg: PlanConfig) -> SinglePlan | None:
    """``cfg`` of ``offer`` alone carrying the whole brief, or None when it cannot."""
    names = [b.name for b in demand.buckets]
    if not set(names) <= cfg.buckets():
        return None
    if offer.capacity != "api" and cfg.gpus_per_replica < 1:
        return None
    volume = dec(demand.monthly_outputs)
    peak = dec(demand.peak_to_average) * volume / HOURS_PER_MONTH
    replicas = gpus = 0
    nodes: int | None = None
    cost = hours = Decimal(0)
    if offer.capacity == "api":
        cost = sum(
            (dec(b.share) * volume * cfg.api_price_per_output[b.name] for b in demand.buckets),
            Decimal(0),
        )
    elif offer.capacity == "fixed":
        need = sum(
            (peak * dec(b.share) / dec(cfg.outputs_per_hour[b.name]) for b in demand.buckets),
            Decimal(0),
        )
        replicas = math.ceil(need * (1 - CEIL_TOLERANCE))
        gpus = replicas * cfg.gpus_per_replica
        held = gpus
        if offer.whole_nodes:
            nodes = -(-gpus // offer.gpus_per_node)
            held = nodes * offer.gpus_per_node
        if offer.max_gpus is not None and held > offer.max_gpus:
            return None
        hours = HOURS_PER_MONTH * gpus
        cost = hours * offer.price_per_gpu_hour
    else:
        g = cfg.gpus_per_replica
        util = dec(offer.utilisation)
        at_peak = Decimal(0)
        for b in demand.buckets:
            rate = dec(cfg.outputs_per_hour[b.name])
            hours += dec(b.share) * volume * g / (rate * util)
            at_peak += peak * dec(b.share) * g / rate
        gpus = whole_replicas_gpus(at_peak, g)
        if offer.max_gpus is not None and at_peak > offer.max_gpus:
            return None
        cost = hours * offer.price_per_gpu_hour
    line = PlanLine(
        offer_id=offer.id,
        config_id=cfg.id,
        label=cfg.label or f"{offer.label or offer.id} {cfg.id}",
        capacity=offer.capacity,
        role="base" if offer.capacity == "fixed" else "overflow",
        replicas=replicas,
        gpus=gpus,
        billed_gpu_hours=hours,
        monthly_cost=money(cost),
        traffic_share=1.0,
        bucket_shares=dict.fromkeys(names, 1.0),
    )
    part = vendor_part(offer, [line], hours, nodes)
    return SinglePlan(f"{offer.id}/{cfg.id}", part.monthly_cost, (line,), (part,))


def best_single(demand: PlanDemand, offers: Sequence[PlanOffer]) -> SinglePlan | None:
    """The cheapest single candidate (ties: the earlier offer and configuration)."""
    best: SinglePlan | None = None
    with localcontext(DECIMAL_CONTEXT):
        for offer in offers:
            for cfg in offer.configs:
                plan = single_plan(demand, offer, cfg)
                if plan is not None and (best is None or plan.cost < best.cost):
                    best = plan
    return best
