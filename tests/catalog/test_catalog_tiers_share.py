"""Long-context and batch tiers as providers publish them (issue 24, N10)."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from catalog.tiers import prices_for, share_above
from tests.catalog.test_catalog_tiers import ROUTE


def test_n10_the_long_context_tier_applies_to_the_share_above_its_threshold():
    """Mean 100k, p95 250k input tokens, a 200k threshold: a mean-only reading paid base
    prices for every request although more than 5 % of them are above 200k.

    Log-normal through mean m and p95 q: ln q − ln m = 1.645 σ − σ²/2, so
    σ = 1.645 − √(1.645² − 2 ln 2.5) = 0.7106, μ = ln m − σ²/2 = 11.2604;
    requests above 200k = 1 − Φ((ln 200k − μ) / σ) = 1 − Φ(1.331) ≈ 9.2 %;
    input tokens above it = 1 − Φ(1.331 − σ) ≈ 26.8 %."""
    requests, tokens = share_above(100_000, 250_000, 200_000)
    assert requests == pytest.approx(0.0916, abs=0.001)
    assert tokens == pytest.approx(0.2675, abs=0.001)
    assert requests > 0.05  # the p95 is above the threshold
    prices = prices_for(ROUTE, batch=False, input_tokens=100_000, p95_input_tokens=250_000)
    weight_in, weight_out = Decimal(str(round(tokens, 6))), Decimal(str(round(requests, 6)))
    assert prices.input_per_m == Decimal("3.0000") * (1 - weight_in) + Decimal("6") * weight_in
    assert prices.output_per_m == (
        Decimal("15.0000") * (1 - weight_out) + Decimal("22.5") * weight_out
    )
    assert prices.tiers == ("above_200k_tokens on 9.2% of requests (26.8% of input tokens)",)
    short = prices_for(ROUTE, batch=False, input_tokens=2_000, p95_input_tokens=6_000)
    assert short.input_per_m == pytest.approx(Decimal("3"), abs=Decimal("0.0001"))
    assert math.isclose(share_above(2_000, 6_000, 200_000)[0], 0.0, abs_tol=1e-6)
    # a threshold past the brief's context window: no request is that long
    capped = prices_for(
        ROUTE,
        batch=False,
        input_tokens=2_000,
        p95_input_tokens=8_000,
        context_window_tokens=8_192,
    )
    assert (capped.input_per_m, capped.tiers) == (Decimal("3.0000"), ())


def test_n10_batch_and_long_context_tiers_combine():
    """A long prompt sent in batch pays the long-context price at the batch discount
    (batch 1.5 / base 3 = ½): input 6 × ½ = 3, output 22.5 × 7.5 / 15 = 11.25; the batch
    tier used to replace the long-context one (1.5 / 7.5)."""
    prices = prices_for(ROUTE, batch=True, input_tokens=250_000)
    assert (prices.input_per_m, prices.output_per_m) == (Decimal("3"), Decimal("11.25"))
    assert prices.tiers == ("above_200k_tokens", "batch")


def test_n10_cache_writes_are_priced_through_the_tiers():
    """The route's cache-write price (its column; a route imported before the column keeps
    it as the `standard` tier) is carried like the other prices: a long-context tier's own
    write price on the share of input tokens above the threshold, at the batch discount in
    batch when the batch tier publishes a write price. Here 3.75 base, 7.50 above 200k;
    every request above it (mean 250k, no p95): 7.50; in batch with a batch write price of
    1.875: 7.50 × 1.875 / 3.75 = 3.75; a batch tier that prices no write leaves it 7.50."""
    assert prices_for(ROUTE, batch=False, input_tokens=2_000).cache_write_per_m == Decimal("3.75")
    own = {**ROUTE, "price_cache_write_per_m_tokens": "4.00"}
    assert prices_for(own, batch=False, input_tokens=2_000).cache_write_per_m == Decimal("4.00")
    long_context = {**ROUTE["price_tiers"]["above_200k_tokens"], "cache_write_per_m": "7.50"}
    tiers = {**ROUTE["price_tiers"], "above_200k_tokens": long_context}
    long = {**ROUTE, "price_tiers": tiers}
    assert prices_for(long, batch=False, input_tokens=250_000).cache_write_per_m == Decimal("7.50")
    assert prices_for(long, batch=True, input_tokens=250_000).cache_write_per_m == Decimal("7.50")
    batch_writes = {**tiers, "batch": {**tiers["batch"], "cache_write_per_m": "1.875"}}
    both = {**ROUTE, "price_tiers": batch_writes}
    assert prices_for(both, batch=True, input_tokens=250_000).cache_write_per_m == Decimal("3.75")
    plain = {k: v for k, v in ROUTE.items() if k != "price_tiers"}
    assert prices_for(plain, batch=False, input_tokens=2_000).cache_write_per_m is None
