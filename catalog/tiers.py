"""Which of a model API route's price tiers a workload pays (pure, no Django).

A route's `price_tiers` (imported from LiteLLM, strings per million tokens) may hold `batch`,
`priority`, `flex`, long-context tiers (`above_200k_tokens` with `above_input_tokens`) and
cache-write prices. A batch-inference or evaluation brief pays the batch tier. Requests whose
input is above a long-context threshold pay that tier (the highest threshold exceeded):

- with the brief's mean and p95 input, the share of requests (and of input tokens) above the
  threshold is read from a log-normal fitted to that mean and p95, and the tier's prices apply
  to that share only (input prices by the share of input tokens, output prices by the share
  of requests); the tier's words state the shares; none when the threshold is at or above
  the brief's context window (no request is that long);
- with one figure only, that figure decides for every request (the earlier reading).

Batch and long-context tiers combine as providers publish them: a long-context request sent
in batch pays the long-context price at the batch discount (the batch tier's ratio to the
base price). Everything else pays the route's base prices.

**Cache writes.** A route that prices a prompt-cache write apart (LiteLLM's
`cache_creation_input_token_cost`, kept as `price_cache_write_per_m_tokens`; routes imported
before that column keep it as the `standard` tier's `cache_write_per_m`) has that price carried
through the same tiers: a long-context or batch tier's own cache-write price replaces it on the
share those tiers cover. `None` when the route does not price writes (they are then ordinary
input tokens).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

Z95 = 1.6448536269514722  # the standard normal's 95th percentile


@dataclass(frozen=True, slots=True)
class TierPrices:
    input_per_m: Decimal
    output_per_m: Decimal
    cached_input_per_m: Decimal | None
    tiers: tuple[str, ...]  # the tiers applied, e.g. ("batch",); () = base prices
    cache_write_per_m: Decimal | None = None  # None: the route does not price cache writes


def _dec(value: Any) -> Decimal | None:
    return None if value in (None, "") else Decimal(str(value))


def share_above(mean: float, p95: float, threshold: float) -> tuple[float, float]:
    """(share of requests, share of input tokens) above ``threshold`` for input lengths
    log-normal with this mean and p95 (all at the mean when p95 ≤ mean)."""
    if mean <= 0:
        return 0.0, 0.0
    gap = math.log(p95 / mean) if p95 > mean else 0.0
    if gap <= 0:
        above = 1.0 if mean > threshold else 0.0
        return above, above
    # ln p95 − ln mean = Z95·σ − σ²/2: the smaller root (a larger p95 than the fit allows
    # is read at the widest log-normal, σ = Z95)
    sigma = Z95 - math.sqrt(max(Z95 * Z95 - 2 * gap, 0.0))
    mu = math.log(mean) - sigma * sigma / 2

    def tail(z: float) -> float:
        return 0.5 * math.erfc(z / math.sqrt(2))

    z = (math.log(threshold) - mu) / sigma
    return tail(z), tail(z - sigma)  # tokens: the size-biased log-normal's tail


def _blend(base: Decimal | None, tier: Decimal | None, share: float) -> Decimal | None:
    if tier is None or base is None:
        return tier if base is None else base
    weight = Decimal(str(round(share, 6)))
    return base * (1 - weight) + tier * weight


def prices_for(
    route: Mapping[str, Any],
    *,
    batch: bool,
    input_tokens: float | None,
    p95_input_tokens: float | None = None,
    context_window_tokens: float | None = None,
) -> TierPrices:
    """The per-million prices a workload pays on this route, and which tiers set them
    (``input_tokens``: the brief's mean input, else its p95; see the module docstring)."""
    base = {
        "input_per_m": _dec(route["price_input_per_m_tokens"]),
        "output_per_m": _dec(route["price_output_per_m_tokens"]),
        "cached_input_per_m": _dec(route.get("price_cached_input_per_m_tokens")),
        "cache_write_per_m": _dec(route.get("price_cache_write_per_m_tokens")),
    }
    tiers: dict[str, dict[str, Any]] = route.get("price_tiers") or {}
    standard = tiers.get("standard")
    if base["cache_write_per_m"] is None and isinstance(standard, dict):
        base["cache_write_per_m"] = _dec(standard.get("cache_write_per_m"))
    applied: list[str] = []
    batch_tier = tiers.get("batch") if batch and isinstance(tiers.get("batch"), dict) else None

    def tier_prices(name: str, start: dict[str, Decimal | None]) -> dict[str, Decimal | None]:
        out = dict(start)
        for key in out:
            value = _dec(tiers[name].get(key))
            if value is not None:
                out[key] = value
        return out

    flat = tier_prices("batch", base) if batch_tier is not None else dict(base)
    prices = dict(flat)
    long_context = sorted(
        (int(t["above_input_tokens"]), name)
        for name, t in tiers.items()
        if isinstance(t, dict) and t.get("above_input_tokens")
    )
    if long_context:
        threshold, name = long_context[0]
        mean, p95 = input_tokens, p95_input_tokens
        if context_window_tokens and threshold >= context_window_tokens:
            requests = tokens = 0.0  # no request of the brief is that long
        elif mean and p95 and p95 != mean and mean > 0:
            # the lowest threshold's tier on the share above it (a second, higher tier is
            # rare; its share is priced at the first one's)
            requests, tokens = share_above(float(mean), float(p95), float(threshold))
        else:
            exceeded = [item for item in long_context if mean and mean > item[0]]
            if exceeded:
                threshold, name = exceeded[-1]
            requests = tokens = 1.0 if exceeded else 0.0
        if requests > 0:
            long_prices = tier_prices(name, base)
            if batch_tier is not None:
                # the batch discount applies to the long-context price as well
                for key, value in long_prices.items():
                    b, f = base[key], flat[key]
                    if value is not None and b and f is not None and b != f:
                        long_prices[key] = value * f / b
            shares = {
                "input_per_m": tokens,
                "cached_input_per_m": tokens,
                "cache_write_per_m": tokens,
                "output_per_m": requests,
            }
            for key in prices:
                prices[key] = _blend(flat[key], long_prices[key], shares[key])
            applied.append(
                name
                if requests >= 1
                else f"{name} on {requests:.1%} of requests ({tokens:.1%} of input tokens)"
            )
    if batch_tier is not None:
        applied.append("batch")
    return TierPrices(
        input_per_m=prices["input_per_m"] or Decimal(0),
        output_per_m=prices["output_per_m"] or Decimal(0),
        cached_input_per_m=prices["cached_input_per_m"],
        tiers=tuple(applied),
        cache_write_per_m=prices["cache_write_per_m"],
    )


def input_limit_reason(route: Mapping[str, Any], p95_input_tokens: int | None) -> str | None:
    """The brief's p95 input is longer than the model accepts."""
    limit = route.get("max_input_tokens")
    if limit and p95_input_tokens and p95_input_tokens > int(limit):
        return (
            f"the model accepts at most {int(limit):,} input tokens; the brief's p95 input is "
            f"{int(p95_input_tokens):,}"
        )
    return None
