"""Contracts priced as they are bought: the rules the cost lines and the ranking call.

Pure Decimal arithmetic (no Django). Each rule is written once here and called by the point
estimate, the Monte Carlo and the eligibility checks (docs/engine/cost-model.md,
"Contracts as bought").
"""

from __future__ import annotations

from decimal import Decimal

from engine.types import HOURS_PER_MONTH, CandidateInput, WorkloadInput


def sale_block_gpus(cand: CandidateInput) -> int:
    """The smallest number of GPUs fixed capacity is sold in: a node for owned hardware and
    for offers sold by the node, else one GPU."""
    if cand.capacity_model == "purchase" or (cand.is_fixed and cand.unit_of_sale == "node"):
        return cand.gpus_per_node
    return 1


def in_sale_blocks(cand: CandidateInput, gpus: int) -> int:
    """``gpus`` rounded up to whole blocks of sale (P3: the money follows what is bought)."""
    block = sale_block_gpus(cand)
    return -(-gpus // block) * block


def training_contract_usd(cand: CandidateInput, price: Decimal) -> Decimal | None:
    """A term contract a training run binds: committed GPU-hours a month × price × term
    (None: no term contract). Owned hardware is costed by its amortisation instead."""
    if not cand.is_fixed or cand.capacity_model == "purchase" or cand.term_months <= 0:
        return None
    held = Decimal(in_sale_blocks(cand, cand.gpus_per_replica)) * HOURS_PER_MONTH
    committed = max(cand.min_commitment_gpu_hours_per_month, held)
    return committed * price * cand.term_months


def training_contract_unused(
    workload: WorkloadInput, cand: CandidateInput, run_gpu_spend: Decimal, price: Decimal
) -> Decimal:
    """The part of a term contract the run does not use, less the stated residual use (P1).

        unused = max(0, contract − run's GPU spend) × (1 − term_residual_use_share)

    So a training row costs max(contract, run) over the horizon: a 3-month, 128-GPU
    reservation is paid in full whether the run holds it for 0.8 months or 3."""
    contract = training_contract_usd(cand, price)
    if contract is None or contract <= run_gpu_spend:
        return Decimal(0)
    return (contract - run_gpu_spend) * (1 - Decimal(repr(workload.term_residual_use_share)))


DAYS_PER_MONTH = HOURS_PER_MONTH / 24


def expired_reason(cand: CandidateInput) -> str | None:
    """P19: a price past its ``valid_until`` cannot be bought any more, so it cannot win."""
    if not cand.quote_expired_on:
        return None
    return (
        f"the price expired on {cand.quote_expired_on} (valid until): it can no longer be "
        "bought; ask the vendor to re-confirm it by a new revision"
    )


def capacity_start_reason(workload: WorkloadInput, cand: CandidateInput) -> str | None:
    """P5: capacity that can only start after the brief's horizon ends serves none of it."""
    days = Decimal(repr(cand.capacity_starts_in_days))
    horizon_days = workload.horizon_months * DAYS_PER_MONTH
    if days < horizon_days:
        return None
    return (
        f"its capacity can start only in {days:,.0f} days, after the brief's "
        f"{workload.horizon_months}-month horizon ({horizon_days:,.0f} days) ends"
    )


CAPACITY_STARTS_LATE = "CAPACITY_STARTS_LATE"
RATE_LIMIT_NOT_STATED = "RATE_LIMIT_NOT_STATED"


def capacity_start_warning(workload: WorkloadInput, cand: CandidateInput) -> str | None:
    """Capacity that starts inside the horizon, but not now: the first days need other
    capacity (or the run starts late)."""
    days = cand.capacity_starts_in_days
    if days <= 0 or capacity_start_reason(workload, cand) is not None:
        return None
    return (
        f"its capacity can start only in {days:,.0f} days: the horizon's first "
        f"{days:,.0f} days need other capacity, or the work starts late"
    )


def peak_api_load(workload: WorkloadInput) -> tuple[float, float] | None:
    """(requests, tokens) a minute at the peak, at the likely volume (None: no volume)."""
    if workload.monthly_accepted_outputs is None:
        return None
    attempts = workload.monthly_accepted_outputs.likely / (
        workload.acceptance_rate.likely * (1 - workload.failure_rate.likely)
    )
    per_minute = attempts * workload.peak_to_average.likely / (float(HOURS_PER_MONTH) * 60)
    tokens = per_minute * (workload.input_tokens_per_request + workload.output_tokens_per_request)
    return per_minute, tokens


def rate_limit_reasons(workload: WorkloadInput, cand: CandidateInput) -> list[str]:
    """P10: an API route's stated rate limits are its capacity: the peak must fit them."""
    load = peak_api_load(workload)
    if not cand.is_api or load is None:
        return []
    per_minute, tokens = load
    reasons = []
    if (tpm := cand.rate_limit_tpm) and tokens > tpm:
        reasons.append(f"peak load needs ~{tokens:,.0f} tokens/min; the route allows {tpm:,}")
    if (rpm := cand.rate_limit_rpm) and per_minute > rpm:
        reasons.append(f"peak load needs ~{per_minute:,.0f} requests/min; the route allows {rpm:,}")
    return reasons


def rate_limit_warning(workload: WorkloadInput, cand: CandidateInput) -> str | None:
    """P10: a route that states no rate limit is warned about above the brief's threshold,
    as an offer that states no GPU capacity is (CAPACITY_NOT_STATED)."""
    load = peak_api_load(workload)
    if not cand.is_api or load is None or cand.rate_limit_rpm or cand.rate_limit_tpm:
        return None
    per_minute, tokens = load
    if per_minute / 60 <= workload.rate_limit_unstated_warn_rps:
        return None
    return (
        f"the peak needs ~{per_minute / 60:,.1f} requests/s (~{tokens:,.0f} tokens/min) and "
        "the route states no rate limit: ask the provider for the limits of this account "
        "before approving"
    )


def spot_alone_reason(workload: WorkloadInput, cand: CandidateInput) -> str | None:
    """P4: a real-time service with latency targets never stands on preemptible capacity
    alone: a reclaimed replica breaks the targets under load. Spot may only add to a base."""
    if cand.capacity_model != "spot" or not workload.is_realtime_with_targets:
        return None
    return (
        "spot capacity can be reclaimed at any time: a real-time service with latency "
        "targets is not recommended on spot alone (at most as overflow above other capacity)"
    )


def vendor_management_labour(workload: WorkloadInput, labour: Decimal, bill: Decimal) -> Decimal:
    """P11: the product's default vendor-management labour is at most a stated share of the
    row's vendor bill, so it never dominates a small API bill; a stated FTE is kept."""
    cap = workload.vendor_management_cap_share
    if cap is None:
        return labour
    return min(labour, bill * Decimal(repr(cap)))


UNIT_OF_SALE_NOT_STATED = "UNIT_OF_SALE_NOT_STATED"


def unit_of_sale_warning(cand: CandidateInput, billed_gpus: int, price: Decimal) -> str | None:
    """P3: fixed capacity billed by the GPU on a quote that does not say it sells single
    GPUs: the words say so, and what whole nodes would cost."""
    node = cand.gpus_per_node
    if (
        not cand.is_fixed
        or cand.capacity_model == "purchase"
        or cand.unit_of_sale
        or billed_gpus % node == 0
    ):
        return None
    whole = -(-billed_gpus // node) * node
    more = (whole - billed_gpus) * HOURS_PER_MONTH * price
    return (
        f"costed as {billed_gpus:,} GPUs ({billed_gpus / node:g} × {node}-GPU nodes): the quote "
        "does not say whether the vendor sells single GPUs; sold by the whole node it holds "
        f"{whole:,} GPUs and costs {more:,.2f} more a month (record the unit of sale on the quote)"
    )


ROUTE_PRECISION_DIFFERS = "ROUTE_PRECISION_DIFFERS"


def route_precision_warning(cand: CandidateInput) -> str | None:
    """P12: a route that serves the brief's model at a lower precision (an FP8 "Turbo"
    deployment for a BF16 brief) is that model only as a quantised proxy: say so."""
    if not cand.is_api or not cand.precision_note:
        return None
    return cand.precision_note
