"""From the comparison's candidates to the mixed-fleet optimiser's inputs (``plan_inputs``).

Each costed, eligible candidate is one offer with one configuration (a candidate is an offer
at one configuration today): its price per GPU-hour (the effective one for owned hardware;
for fixed capacity × (1 + the share of its term past the horizon), the row's
``term_beyond_horizon`` line), GPUs per replica, accepted outputs per replica-hour
(throughput at the latency target × acceptance × (1 − failure); fixed capacity at
(1 − peak headroom), spot work less its rework), the vendor's stated capacity when the
candidate carries ``max_gpus_available``, its capacity model (fixed, elastic or API),
monthly commitment and term, and the vendor's fixed monthly network and serving costs.
The workload's own monthly costs (storage, observability, platform labour) are the same
whichever GPUs serve it and stay out of the plan's cost; ``mixed_recommended`` adds them
back where the plan is read beside the rows.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from decimal import Decimal, localcontext

import numpy as np
from numpy.typing import NDArray

from engine import cost, montecarlo
from engine.cost import contracts
from engine.errors import EngineInputError
from engine.plan.mixed_buckets import LONG, BucketSize, mean_tokens
from engine.plan.mixed_types import (
    PlanBucket,
    PlanCapacity,
    PlanConfig,
    PlanDemand,
    PlanOffer,
)
from engine.types import SECONDS_PER_HOUR, CandidateInput, CandidateOutcome, WorkloadInput

ALL = "all"


def sized_rates(
    workload: WorkloadInput,
    candidates: Sequence[CandidateInput],
    sizes: Sequence[BucketSize],
    *,
    mean_request_tokens: float | None = None,
) -> tuple[tuple[PlanBucket, ...], dict[str, dict[str, float]]]:
    """The buckets and, per candidate, its accepted outputs per replica-hour in each bucket
    it serves: ``rate × T / t_b`` with T ``mean_request_tokens`` (default: the buckets'
    share-weighted mean size), so a row carrying every bucket costs what it costs at the
    mean. Only rows that fit the p95 context serve the long bucket (``mixed_buckets``)."""
    mean_t = mean_tokens(sizes) if mean_request_tokens is None else mean_request_tokens
    if mean_t <= 0 or any(size.tokens <= 0 for size in sizes):
        raise EngineInputError("input_tokens_per_request", "the brief states no request size")
    buckets = tuple(size.bucket() for size in sizes)
    rates: dict[str, dict[str, float]] = {}
    for cand in candidates:
        if cand.is_api:
            rates[cand.id] = {size.name: 1.0 for size in sizes}
            continue
        if cand.throughput_per_replica is None:
            continue
        try:
            rate = accepted_per_replica_hour(workload, cand)
        except EngineInputError:
            continue
        fits_long = fits_long_requests(cand)
        rates[cand.id] = {
            size.name: rate * mean_t / size.tokens
            for size in sizes
            if size.name != LONG or fits_long
        }
    return buckets, rates


def fits_long_requests(cand: CandidateInput) -> bool:
    """Long requests may reach the brief's whole context window: only rows that fit it (and
    the p95 context) serve them; a row that fits only the p95 context carries short ones."""
    return cand.fits_at_p95_context and cand.fits_at_context_window is not False


def _capacity(cand: CandidateInput) -> PlanCapacity:
    if cand.is_api:
        return "api"
    return "fixed" if cand.is_fixed else "elastic"


def accepted_per_replica_hour(workload: WorkloadInput, cand: CandidateInput) -> float:
    """Accepted outputs one replica of ``cand`` delivers an hour at its likely values."""
    assert cand.throughput_per_replica is not None  # noqa: S101 - GPU rows have one
    v = cost.likely_values(workload, cand)
    with localcontext(cost.DECIMAL_CONTEXT):
        gpu_s = cost.gpu_seconds_numerator(workload, cand) / cost.dec(
            cand.throughput_per_replica.likely
        )
        attempts = cand.gpus_per_replica * SECONDS_PER_HOUR / gpu_s
        if cand.is_fixed:
            attempts *= cost.peak_capacity_share(workload)
        attempts /= 1 + cost.spot_rework_share(workload, cand)
        accepted = attempts * cost.dec(v["acceptance_rate"]) * (1 - cost.dec(v["failure_rate"]))
    return float(accepted)


def api_price_per_accepted(workload: WorkloadInput, cand: CandidateInput) -> Decimal:
    """What an API route bills per accepted output (failed attempts as it bills them)."""
    assert cand.api_pricing is not None  # noqa: S101 - validated on input
    v = cost.likely_values(workload, cand)
    with localcontext(cost.DECIMAL_CONTEXT):
        acceptance = cost.dec(v["acceptance_rate"])
        completed = 1 / acceptance
        attempts = completed / (1 - cost.dec(v["failure_rate"]))
        billed = cost.billed_attempts(workload, cand, completed, attempts)
        return billed * cost.api_cost_per_attempt(workload, cand.api_pricing)


def plan_offer(
    workload: WorkloadInput,
    cand: CandidateInput,
    rates: Mapping[str, float] | None = None,
) -> PlanOffer:
    """``cand`` as an offer of the plan; ``rates``: bucket → accepted outputs per
    replica-hour for the buckets whose service level it meets (default: one bucket)."""
    capacity = _capacity(cand)
    if capacity == "api":
        per_output = api_price_per_accepted(workload, cand)
        buckets = rates or {ALL: 1.0}
        config = PlanConfig(
            "route", 0, api_price_per_output=dict.fromkeys(buckets, per_output), label=cand.label
        )
        price = stranded = Decimal(0)
    else:
        config = PlanConfig(
            "config",
            cand.gpus_per_replica,
            dict(rates) if rates is not None else {ALL: accepted_per_replica_hour(workload, cand)},
            label=cand.label,
        )
        price = cost.price_per_gpu_hour(cand) or Decimal(0)
        stranded = cost.term_beyond_horizon_share(workload, cand)
        with localcontext(cost.DECIMAL_CONTEXT):
            price *= 1 + stranded  # the months past the horizon, paid as on the row
    util = 1.0
    if capacity == "elastic" and cand.idle_billed:
        util = cand.utilisation.likely if cand.utilisation else workload.utilisation.likely
    return PlanOffer(
        id=cand.id,
        capacity=capacity,
        configs=(config,),
        label=cand.label,
        price_per_gpu_hour=price,
        max_gpus=None if (cap := cand.max_gpus_available) is None else int(cap),
        gpus_per_node=cand.gpus_per_node,
        whole_nodes=contracts.sale_block_gpus(cand) > 1,
        min_commitment_gpu_hours=cand.min_commitment_gpu_hours_per_month,
        term_months=cand.term_months,
        fixed_monthly=cost.fixed_network_monthly(cand) + cand.serving_stack_per_month,
        utilisation=util,
        stranded_share=stranded,
        overage_premium=cost.overage_premium(cand),
    )


def plan_demand(
    workload: WorkloadInput,
    buckets: Sequence[PlanBucket] | None = None,
    load_shape: Sequence[float] = (),
) -> PlanDemand:
    """The plan's demand; ``load_shape``: a traffic trace's load per interval, whose
    load-duration curve replaces the brief's peak-to-average one."""
    assert workload.monthly_accepted_outputs is not None  # noqa: S101 - volume classes
    return PlanDemand(
        monthly_outputs=workload.monthly_accepted_outputs.likely,
        peak_to_average=workload.peak_to_average.likely,
        buckets=tuple(buckets) if buckets else (PlanBucket(ALL, 1.0),),
        load_shape=tuple(load_shape),
    )


def plan_inputs(
    candidate_inputs: Sequence[CandidateInput],
    candidate_outputs: Sequence[CandidateOutcome],
    workload: WorkloadInput,
    *,
    capacity_limited: Collection[str] = (),
    sizes: Sequence[BucketSize] | None = None,
    mean_request_tokens: float | None = None,
    load_shape: Sequence[float] = (),
) -> tuple[PlanDemand, list[PlanOffer]] | None:
    """The demand and offers the mixed plan solves over the comparison's eligible rows (None
    for training runs or when no row is eligible). ``sizes``: request-size buckets already
    made (``mixed_buckets``), rated here (``sized_rates``, with ``mean_request_tokens``);
    without them one bucket. ``capacity_limited``: rows ineligible only because their offer
    lacks the GPUs for the whole fleet — in the plan they serve up to their capacity (the
    quote's ``max_gpus_available``)."""
    if workload.is_training or workload.monthly_accepted_outputs is None:
        return None
    buckets: Sequence[PlanBucket] | None = None
    bucket_rates: Mapping[str, Mapping[str, float]] | None = None
    if sizes is not None:
        buckets, bucket_rates = sized_rates(
            workload, candidate_inputs, sizes, mean_request_tokens=mean_request_tokens
        )
    eligible = {
        o.candidate_id
        for o in candidate_outputs
        if (o.eligible or o.candidate_id in capacity_limited) and o.total is not None
    }
    offers = []
    for cand in candidate_inputs:
        # P4: the plan has no base-plus-overflow rule for spot yet, so a real-time service
        # with latency targets leaves spot out rather than risk a spot-only plan.
        if cand.id not in eligible or contracts.spot_alone_reason(workload, cand):
            continue
        rates = None if bucket_rates is None else bucket_rates.get(cand.id, {})
        if rates is not None and not rates:
            continue  # meets no bucket's service level
        try:
            offers.append(plan_offer(workload, cand, rates))
        except EngineInputError:
            continue  # not costed per replica (e.g. no throughput): not in the plan
    if not offers:
        return None
    return plan_demand(workload, buckets, load_shape), offers


def row_draws(
    workload: WorkloadInput, candidates: Sequence[CandidateInput], *, seed: int, samples: int
) -> tuple[NDArray[np.float64], dict[str, NDArray[np.float64]]]:
    """The comparison's own draws for the plan's spread (``plan_spread``): the shared monthly
    volume, and per row its accepted outputs per replica-hour as a multiple of the likely one
    (throughput from the row's or its evidence's stream; acceptance and failure shared, or
    the row's measured ones), keyed "id/config" as ``plan_offer`` names them."""
    shared = montecarlo.draw_shared(workload, seed, samples)
    volume = shared["monthly_accepted_outputs"]
    factors: dict[str, NDArray[np.float64]] = {}
    for cand in candidates:
        if cand.is_api or cand.throughput_per_replica is None:
            continue
        consts = montecarlo.candidate_constants(workload, cand)
        rates = []
        for name, own in (
            ("throughput_per_replica", cand.throughput_per_replica),
            ("acceptance_rate", cand.acceptance_rate),
            ("failure_rate", cand.failure_rate),
        ):
            if own is None:
                rates.append((shared[name], getattr(workload, name).likely))
            else:
                key = montecarlo.candidate_stream_key(consts.stream_id(name), name)
                rates.append((montecarlo.draw(own, seed, key, samples), own.likely))
        (thr, thr_l), (acc, acc_l), (fail, fail_l) = rates
        factors[f"{cand.id}/config"] = (thr / thr_l) * (acc * (1 - fail)) / (acc_l * (1 - fail_l))
    return volume, factors
