"""Model API rows: the price of one attempt and the API lines (cost.py has the formulas).

One attempt's input: the cached share ``c`` (``cached_input_fraction``) at the cached-input
price, the written share ``w`` (``cache_write_fraction``) at the cache-write price when the
route publishes one, the rest ``1 − c − w`` at the input price; a route that does not price
writes bills written tokens as ordinary input (``w`` counts with the rest).

Whether a failed attempt (429, 5xx, timeout) is billed is an explicit assumption, per
route: ``CandidateInput.failed_attempts_billed`` (share of failed attempts billed, 0..1), or
the workload's ``api_failed_attempts_billed`` when the route does not say. Billed attempts =
completed + share × (attempts − completed); rejected outputs (acceptance) are always billed.
"""

from __future__ import annotations

from decimal import Decimal, localcontext

from engine.cost.common import DECIMAL_CONTEXT, MILLION, dec, money
from engine.types import ApiPricing, CandidateInput, WorkloadInput


def api_cost_per_attempt(workload: WorkloadInput, pricing: ApiPricing) -> Decimal:
    with localcontext(DECIMAL_CONTEXT):
        cached = dec(workload.cached_input_fraction)
        tokens_in = dec(workload.input_tokens_per_request)
        p_cached = pricing.price_per_m_cached_input_tokens
        if p_cached is None:
            p_cached = pricing.price_per_m_input_tokens
        p_write = pricing.price_per_m_cache_write_tokens
        written = Decimal(0) if p_write is None else dec(workload.cache_write_fraction)
        per_m = (
            tokens_in * (1 - cached - written) * pricing.price_per_m_input_tokens
            + tokens_in * cached * p_cached
            + tokens_in * written * (p_write or Decimal(0))
            + dec(workload.output_tokens_per_request) * pricing.price_per_m_output_tokens
        )
        return per_m / MILLION + pricing.price_per_output


def failed_attempts_billed(workload: WorkloadInput, cand: CandidateInput) -> float:
    """Share of failed API attempts the provider bills (the route's, else the workload's)."""
    own = cand.failed_attempts_billed
    return workload.api_failed_attempts_billed if own is None else own


def billed_attempts(
    workload: WorkloadInput, cand: CandidateInput, completed: Decimal, attempts: Decimal
) -> Decimal:
    share = dec(failed_attempts_billed(workload, cand))
    return completed + share * (attempts - completed)


def api_lines(
    workload: WorkloadInput,
    cand: CandidateInput,
    *,
    accepted: Decimal,
    completed: Decimal,
    attempts: Decimal,
    retry_name: str,
) -> dict[str, Decimal]:
    """api_compute (accepted outputs) and the retry line (billed attempts beyond them)."""
    assert cand.api_pricing is not None  # noqa: S101 - validated on input
    per_attempt = api_cost_per_attempt(workload, cand.api_pricing)
    spend = money(billed_attempts(workload, cand, completed, attempts) * per_attempt)
    compute = money(accepted * per_attempt)
    return {"api_compute": compute, retry_name: spend - compute}
