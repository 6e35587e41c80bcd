"""The load-duration layers of the mixed-fleet model, and the Decimal costing of a solution
(mixed.py) from its whole numbers.

Re-costing keeps the solver's decisions and drops its tolerances: the replicas and nodes are
whole; each fixed configuration's replica time is split between its buckets as the solver
split it, and all of it is used (fixed capacity always carries what it can: the overflow is
what exceeds what is paid for); fixed capacity covers each bucket's layers from the bottom;
what it leaves in each layer goes to the overflow lines in the solver's proportions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

from engine.cost.common import dec, money
from engine.plan.mixed_single import vendor_part, whole_replicas_gpus
from engine.plan.mixed_types import PlanConfig, PlanDemand, PlanLine, PlanOffer, PlanVendorPart
from engine.trace.loadcurve import LoadCurve
from engine.types import HOURS_PER_MONTH

# Solver values below this are noise
EPS = 1e-9
FRACTION_PLACES = 12

Key = tuple[int, int]  # (offer, configuration)


def overflow_share(fraction_of_peak: float, peak_to_average: float) -> float:
    """Share of the month's load above fixed capacity able to carry ``fraction_of_peak``.

    The load-duration curve over a month is ``L(x) = p × (1 − x)^(p − 1)`` for the share of
    time x ∈ [0, 1], with mean 1 and peak p = peak-to-average (flat at p = 1, linear at
    p = 2). Fixed capacity able to carry a fraction c of the peak serves ``∫ min(L, c × p)``;
    the overflow share is::

        overflow(c) = 1 − c^(p/(p−1)) − c × p × (1 − c^(1/(p−1)))     (p > 1);  1 − c  (p = 1)
    """
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


def _overflow_shares(peak_to_average: float, layers: int, shape: Sequence[float]) -> list[float]:
    """The overflow share above each of K + 1 equal slices of the peak: the analytic curve of
    the peak-to-average ratio, or a traffic trace's own load per interval (``shape``,
    engine/trace/loadcurve.py) when the brief has one."""
    k = 1 if peak_to_average <= 1 else layers
    if shape:
        curve = LoadCurve.of(shape)
        return [curve.overflow_share(i / k) for i in range(k + 1)]
    return [overflow_share(i / k, peak_to_average) for i in range(k + 1)]


def layer_energies(peak_to_average: float, layers: int, shape: Sequence[float] = ()) -> list[float]:
    """E_k: the share of the month's outputs in each of K equal slices of the peak."""
    shares = _overflow_shares(peak_to_average, layers, shape)
    return [shares[i] - shares[i + 1] for i in range(len(shares) - 1)]


def layer_energies_exact(
    peak_to_average: float, layers: int, shape: Sequence[float] = ()
) -> list[Decimal]:
    """E_k in Decimal, as differences of the overflow shares: they add up to exactly 1."""
    shares = [dec(x) for x in _overflow_shares(peak_to_average, layers, shape)]
    return [shares[i] - shares[i + 1] for i in range(len(shares) - 1)]


def cost_per_output(offer: PlanOffer, cfg: PlanConfig, bucket: str) -> float:
    """Overflow: what one accepted output of ``bucket`` costs on ``cfg`` of ``offer``."""
    if offer.capacity == "api":
        return float(cfg.api_price_per_output[bucket])
    rate = cfg.outputs_per_hour[bucket]
    return float(offer.price_per_gpu_hour) * cfg.gpus_per_replica / (rate * offer.utilisation)


def _frac(value: float) -> Decimal:
    return Decimal(0) if value < EPS else dec(round(value, FRACTION_PLACES))


def _fixed_capacity(
    demand: PlanDemand,
    offers: Sequence[PlanOffer],
    replicas: Mapping[Key, int],
    phi: Mapping[tuple[int, int, str], float],
) -> dict[tuple[int, int, str], Decimal]:
    """Outputs an hour each fixed configuration carries of each bucket."""
    peak = demand.peak_to_average * demand.monthly_outputs / 730
    out: dict[tuple[int, int, str], Decimal] = {}
    for (oi, ci), n in replicas.items():
        cfg = offers[oi].configs[ci]
        served = [b for b in demand.buckets if (oi, ci, b.name) in phi]
        used = {
            b.name: max(0.0, phi[(oi, ci, b.name)]) * peak * b.share / cfg.outputs_per_hour[b.name]
            for b in served
        }
        total = sum(used.values())
        for b in served:
            if len(served) == 1:
                share = Decimal(1)
            elif total > 0:
                share = _frac(used[b.name] / total)
            else:
                share = Decimal(1) / len(served)
            if share > 0:
                out[(oi, ci, b.name)] = n * dec(cfg.outputs_per_hour[b.name]) * share
    return out


def recost(
    demand: PlanDemand,
    offers: Sequence[PlanOffer],
    replicas: Mapping[Key, int],
    nodes: Mapping[int, int],
    phi: Mapping[tuple[int, int, str], float],
    y: Mapping[tuple[int, int, str, int], float],
) -> tuple[list[PlanLine], list[PlanVendorPart]]:
    """The plan behind a solution, costed in Decimal from the inputs (module docstring)."""
    energies = layer_energies_exact(demand.peak_to_average, demand.layers, demand.load_shape)
    k_count = len(energies)
    volume = dec(demand.monthly_outputs)
    peak = dec(demand.peak_to_average) * volume / HOURS_PER_MONTH
    carried = _fixed_capacity(demand, offers, replicas, phi)
    shares: dict[Key, dict[str, float]] = {}
    hours: dict[Key, Decimal] = {}
    costs: dict[Key, Decimal] = {}
    peak_gpus: dict[Key, Decimal] = {}

    def overflow(key: Key, bucket: str, part: Decimal, energy: Decimal) -> None:
        """Layer share ``part`` of ``bucket`` on overflow configuration ``key``."""
        offer, cfg = offers[key[0]], _cfg(offers, key)
        share = dec(next(b.share for b in demand.buckets if b.name == bucket))
        outputs = part * energy * share * volume
        own = shares.setdefault(key, {})
        own[bucket] = own.get(bucket, 0.0) + float(part * energy)
        if offer.capacity == "api":
            costs[key] = costs.get(key, Decimal(0)) + outputs * cfg.api_price_per_output[bucket]
            return
        rate = dec(cfg.outputs_per_hour[bucket])
        g = cfg.gpus_per_replica
        used = outputs * g / (rate * dec(offer.utilisation))
        hours[key] = hours.get(key, Decimal(0)) + used
        costs[key] = costs.get(key, Decimal(0)) + used * offer.price_per_gpu_hour
        at_peak = part * peak * share / k_count * g / rate
        peak_gpus[key] = peak_gpus.get(key, Decimal(0)) + at_peak

    for b in demand.buckets:
        mine = {key[:2]: cap for key, cap in carried.items() if key[2] == b.name}
        capacity = sum(mine.values(), Decimal(0))
        covered = min(Decimal(1), capacity / (peak * dec(b.share)))
        cover = [min(Decimal(1), max(Decimal(0), covered * k_count - k)) for k in range(k_count)]
        served = sum((c * e for c, e in zip(cover, energies, strict=True)), Decimal(0))
        for key, cap in mine.items():
            if cap > 0 and served > 0:
                shares.setdefault(key, {})[b.name] = float(served * cap / capacity)
        over = {key[:2] for key, val in y.items() if key[2] == b.name and val > EPS}
        if not over:  # noise only: the cheapest overflow of the bucket takes any gap
            options = [key[:2] for key in y if key[2] == b.name and key[3] == 0]
            if options and served < 1 - Decimal(EPS):
                over = {
                    min(
                        options,
                        key=lambda o: cost_per_output(offers[o[0]], _cfg(offers, o), b.name),
                    )
                }
        for k, energy in enumerate(energies):
            left = 1 - cover[k]
            if left <= 0 or not over:
                continue
            weights = {o: max(0.0, y.get((*o, b.name, k), 0.0)) for o in over}
            total = sum(weights.values())
            for o in over:
                part = left * (_frac(weights[o] / total) if total > EPS else 1 / Decimal(len(over)))
                if part <= 0:
                    continue
                overflow(o, b.name, part, energy)
    return _lines(demand, offers, replicas, nodes, shares, hours, costs, peak_gpus)


def _cfg(offers: Sequence[PlanOffer], key: Key) -> PlanConfig:
    return offers[key[0]].configs[key[1]]


def _lines(
    demand: PlanDemand,
    offers: Sequence[PlanOffer],
    replicas: Mapping[Key, int],
    nodes: Mapping[int, int],
    shares: Mapping[Key, dict[str, float]],
    hours: Mapping[Key, Decimal],
    costs: Mapping[Key, Decimal],
    peak_gpus: Mapping[Key, Decimal],
) -> tuple[list[PlanLine], list[PlanVendorPart]]:
    lines: list[PlanLine] = []
    parts: list[PlanVendorPart] = []
    for oi, offer in enumerate(offers):
        offer_lines: list[PlanLine] = []
        billed = Decimal(0)
        for ci, cfg in enumerate(offer.configs):
            key = (oi, ci)
            n = replicas.get(key, 0)
            if offer.capacity == "fixed":
                if n <= 0:
                    continue
                gpus = n * cfg.gpus_per_replica
                used = HOURS_PER_MONTH * gpus
                cost = used * offer.price_per_gpu_hour
            else:
                if key not in shares:
                    continue
                gpus = whole_replicas_gpus(peak_gpus.get(key, Decimal(0)), cfg.gpus_per_replica)
                used = hours.get(key, Decimal(0))
                cost = costs.get(key, Decimal(0))
            billed += used
            mine = dict(shares.get(key, {}))
            offer_lines.append(
                PlanLine(
                    offer_id=offer.id,
                    config_id=cfg.id,
                    label=cfg.label or f"{offer.label or offer.id} {cfg.id}",
                    capacity=offer.capacity,
                    role="base" if offer.capacity == "fixed" else "overflow",
                    replicas=n if offer.capacity == "fixed" else 0,
                    gpus=gpus,
                    billed_gpu_hours=used,
                    monthly_cost=money(cost),
                    traffic_share=sum(mine.get(b.name, 0.0) * b.share for b in demand.buckets),
                    bucket_shares=mine,
                )
            )
        if offer_lines:
            lines += offer_lines
            parts.append(vendor_part(offer, offer_lines, billed, nodes.get(oi)))
    return lines, parts
