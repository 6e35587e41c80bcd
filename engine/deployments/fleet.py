"""The fleet a costed row implies, and what is bought.

At the likely values, with ``gpu_s`` the GPU-seconds one attempt takes on a replica
(GPUs per replica × output tokens ÷ tokens/s per replica, or GPUs ÷ outputs/s)::

    replicas at average = ceil(attempts × gpu_s / (GPUs per replica × 730 h × 3600 s))
    replicas at peak    = ceil(peak-to-average × attempts × gpu_s
                               / (GPUs per replica × 730 h × 3600 s × (1 − peak headroom)))
    GPUs                = replicas × GPUs per replica
    nodes at peak       = ceil(GPUs at peak / GPUs per node)

A training run holds its GPUs for the run: one replica of the brief's GPUs. Fixed capacity
(reserved, dedicated, private cloud, purchase) buys the peak fleet for the term; elastic
capacity (on-demand, spot, marketplace, managed endpoint) is paid as used: its figure is an
expected spend, not a commitment.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import localcontext

from engine.cost.common import DECIMAL_CONTEXT, dec, gpu_seconds_numerator, likely_values
from engine.cost.contracts import in_sale_blocks, sale_block_gpus
from engine.cost.serving import peak_replicas
from engine.types import (
    HOURS_PER_MONTH,
    SECONDS_PER_HOUR,
    CandidateInput,
    JsonMixin,
    PointEstimate,
    WorkloadInput,
)

CAPACITY_WORDS = {
    "reserved": "reserved",
    "dedicated_cluster": "dedicated cluster",
    "private_cloud": "private cloud",
    "purchase": "purchased",
    "on_demand": "on demand",
    "spot": "spot / preemptible",
    "marketplace": "marketplace",
    "managed_endpoint": "managed endpoint",
}


@dataclass(frozen=True, slots=True)
class Fleet(JsonMixin):
    """Replicas, GPUs and nodes at the average and at the peak, and what is bought."""

    gpus_per_replica: int
    gpus_per_node: int
    replicas_average: int
    replicas_peak: int
    gpus_average: int
    gpus_peak: int
    nodes_peak: int
    fixed: bool  # the peak fleet is bought for the term; else paid as used
    term_months: int
    bought: str  # "6 × 8-GPU H200 nodes, 12 months, reserved"
    spend_kind: str  # "commitment" | "expected spend"


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def bought_words(cand: CandidateInput, *, gpus: int, horizon: int) -> str:
    """What the decision buys, as the approval reads it."""
    name = cand.accelerator_name or cand.accelerator
    capacity = CAPACITY_WORDS.get(cand.capacity_model, cand.capacity_model.replace("_", " "))
    if cand.is_fixed:
        term = cand.term_months or horizon
        months = plural(term, "month")
        if cand.purchase is not None and cand.term_months <= 0:
            # P15: owned hardware has no term; it is paid off over its life
            months = f"amortised over {plural(cand.purchase.life_months, 'month')}"
        elif cand.term_months <= 0:
            months += " (no term stated: the horizon)"
        # P3: the words name what the money bills, in the offer's unit of sale
        held = max(
            in_sale_blocks(cand, gpus),
            math.ceil(cand.min_commitment_gpu_hours_per_month / HOURS_PER_MONTH),
        )
        if sale_block_gpus(cand) > 1 or held % cand.gpus_per_node == 0:
            nodes = -(-held // cand.gpus_per_node)
            return f"{nodes:,} × {cand.gpus_per_node}-GPU {name} nodes, {months}, {capacity}"
        sold = "by the GPU" if cand.unit_of_sale == "gpu" else "unit of sale not stated"
        share = f"{held / cand.gpus_per_node:g}"
        return (
            f"{plural(held, f'{name} GPU'.strip())} ({share} × {cand.gpus_per_node}-GPU nodes), "
            f"{months}, {capacity}, {sold}"
        )
    return (
        f"up to {plural(gpus, name + ' GPU')} at peak, {capacity}, paid as used "
        f"over {plural(horizon, 'month')}: an expected spend, not a commitment"
    )


def fleet_of(
    workload: WorkloadInput, cand: CandidateInput, estimate: PointEstimate
) -> Fleet | None:
    """The fleet of a costed GPU row (None for a model API route)."""
    if cand.is_api:
        return None
    per = cand.gpus_per_replica
    node = cand.gpus_per_node
    if workload.is_training:
        avg = peak = 1
    else:
        values = likely_values(workload, cand)
        with localcontext(DECIMAL_CONTEXT):
            attempts = estimate.attempts
            gpu_s = gpu_seconds_numerator(workload, cand) / dec(values["throughput_per_replica"])
            exact_avg = attempts * gpu_s / (per * HOURS_PER_MONTH * SECONDS_PER_HOUR)
            peak_share = dec(values["peak_to_average"])
            exact_peak = peak_replicas(workload, cand, attempts, gpu_s, peak_share)
        avg = max(1, math.ceil(exact_avg))
        peak = max(avg, math.ceil(exact_peak))
    gpus_peak = peak * per
    nodes = max(1, -(-gpus_peak // node))
    return Fleet(
        gpus_per_replica=per,
        gpus_per_node=node,
        replicas_average=avg,
        replicas_peak=peak,
        gpus_average=avg * per,
        gpus_peak=gpus_peak,
        nodes_peak=nodes,
        fixed=cand.is_fixed,
        term_months=cand.term_months,
        bought=bought_words(cand, gpus=gpus_peak, horizon=workload.horizon_months),
        spend_kind="commitment" if cand.is_fixed else "expected spend",
    )
