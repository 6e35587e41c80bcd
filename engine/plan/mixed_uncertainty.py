"""p10–p90 of a mixed plan's cost per accepted output, from the same Monte Carlo draws as
the comparison's rows (engine/montecarlo: one value per sample, shared volume, throughput
per row or per evidence key).

The plan's replica mix is held: per sample s, each fixed configuration j carries
``replicas × t_jb × θ_js`` of bucket b (θ = sampled ÷ likely throughput of its row; its
replica time split between buckets as in the plan), covering ``c_bs`` of bucket b's peak at
that sample's volume; what it leaves, ``(1 − served(c_bs)) × s_b × V_s`` outputs on the
plan's load-duration curve, goes to the plan's overflow lines of bucket b in the plan's
proportions (elastic: GPU-hours at that sample's throughput; API: its price); a bucket
without an overflow line pays for the gap at its fixed lines' cost per output. Fixed GPUs
are paid whatever the sample; commitments and fixed charges are the plan's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from engine.errors import EngineInputError
from engine.plan.mixed import HOURS, layer_energies
from engine.plan.mixed_types import MixedPlan, PlanDemand, PlanLine, PlanOffer
from engine.types.common import JsonMixin

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class PlanSpread(JsonMixin):
    """The plan's cost per accepted output across the samples."""

    p10: float
    p50: float
    p90: float
    mean: float
    samples: int


def _served(covered: FloatArray, energies: FloatArray) -> FloatArray:
    """Share of the month's outputs fixed capacity covering ``covered`` of the peak serves."""
    k = len(energies)
    steps = np.clip(covered[:, None] * k - np.arange(k)[None, :], 0.0, 1.0)
    out: FloatArray = steps @ energies
    return out


def plan_cost_samples(
    plan: MixedPlan,
    demand: PlanDemand,
    offers: Sequence[PlanOffer],
    volume: FloatArray,
    throughput: Mapping[str, FloatArray],
    price: Mapping[str, FloatArray] | None = None,
    fixed_monthly: float = 0.0,
) -> FloatArray:
    """Cost per accepted output of ``plan`` in each sample.

    ``volume``: (S,) accepted outputs a month; ``throughput``: "offer/config" → (S,)
    sampled ÷ likely throughput (absent: 1); ``price``: offer id → (S,) price factor;
    ``fixed_monthly``: monthly costs outside the plan's model (the workload's own lines),
    spread over each sample's volume as the rows spread theirs."""
    if not plan.feasible:
        raise EngineInputError("plan", f"no plan to spread: {plan.reason}")
    volume = np.asarray(volume, dtype=np.float64)
    n = len(volume)
    ones = np.ones(n)
    by_id = {o.id: o for o in offers}
    configs = {(o.id, c.id): c for o in offers for c in o.configs}
    energies = np.array(layer_energies(demand.peak_to_average, demand.layers, demand.load_shape))
    peak = demand.peak_to_average * volume / HOURS
    total = np.full(n, float(fixed_monthly))
    for part in plan.vendors:  # commitment shortfall, whole-node spares, fixed charges
        lines_cost = sum(
            float(ln.monthly_cost) for ln in plan.lines if ln.offer_id == part.offer_id
        )
        total += float(part.monthly_cost) - lines_cost

    def factor(line: PlanLine) -> FloatArray:
        return throughput.get(f"{line.offer_id}/{line.config_id}", ones)

    def price_of(offer_id: str) -> FloatArray:
        return ones if price is None else price.get(offer_id, ones)

    for bucket in demand.buckets:
        b = bucket.name
        fixed = [ln for ln in plan.lines if ln.capacity == "fixed" and b in ln.bucket_shares]
        over = [ln for ln in plan.lines if ln.capacity != "fixed" and b in ln.bucket_shares]
        capacity = np.zeros(n)
        fixed_outputs = 0.0
        for ln in fixed:
            cfg = configs[(ln.offer_id, ln.config_id)]
            weights = {
                name: share * _share(demand, name) / cfg.outputs_per_hour[name]
                for name, share in ln.bucket_shares.items()
            }
            time_share = weights[b] / sum(weights.values())
            capacity += ln.replicas * cfg.outputs_per_hour[b] * time_share * factor(ln)
            fixed_outputs += ln.bucket_shares[b] * bucket.share * demand.monthly_outputs
        covered = capacity / (peak * bucket.share)
        left = (1.0 - _served(covered, energies)) * bucket.share * volume
        weight = sum(ln.bucket_shares[b] for ln in over)
        if not over:
            cost = sum(float(ln.monthly_cost) * ln.bucket_shares[b] for ln in fixed)
            per_output = cost / fixed_outputs if fixed_outputs else 0.0
            total += left * per_output
            continue
        for ln in over:
            offer = by_id[ln.offer_id]
            cfg = configs[(ln.offer_id, ln.config_id)]
            outputs = left * ln.bucket_shares[b] / weight
            if offer.capacity == "api":
                total += outputs * float(cfg.api_price_per_output[b])
            else:
                rate = cfg.outputs_per_hour[b] * factor(ln) * offer.utilisation
                hours = outputs * cfg.gpus_per_replica / rate
                total += hours * float(offer.price_per_gpu_hour) * price_of(offer.id)
    for ln in plan.lines:
        if ln.capacity == "fixed":
            total += float(ln.monthly_cost) * price_of(ln.offer_id)
    out: FloatArray = total / volume
    return out


def _share(demand: PlanDemand, name: str) -> float:
    return next(b.share for b in demand.buckets if b.name == name)


def plan_spread(
    plan: MixedPlan,
    demand: PlanDemand,
    offers: Sequence[PlanOffer],
    volume: FloatArray,
    throughput: Mapping[str, FloatArray],
    price: Mapping[str, FloatArray] | None = None,
    fixed_monthly: float = 0.0,
) -> PlanSpread:
    """p10 / p50 / p90 (linear interpolation, as the rows) and the mean."""
    values = plan_cost_samples(plan, demand, offers, volume, throughput, price, fixed_monthly)
    p10, p50, p90 = np.quantile(values, (0.1, 0.5, 0.9), method="linear")
    return PlanSpread(float(p10), float(p50), float(p90), float(values.mean()), len(values))
