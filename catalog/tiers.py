"""Which of a model API route's price tiers a workload pays (pure, no Django).

A route's `price_tiers` (imported from LiteLLM, strings per million tokens) may hold `batch`,
`priority`, `flex`, long-context tiers (`above_200k_tokens` with `above_input_tokens`) and
cache-write prices. A batch-inference brief pays the batch tier; requests whose input is above
a long-context threshold pay that tier (the highest threshold exceeded). Everything else pays
the route's base prices.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any


@dataclass(frozen=True, slots=True)
class TierPrices:
    input_per_m: Decimal
    output_per_m: Decimal
    cached_input_per_m: Decimal | None
    tiers: tuple[str, ...]  # the tiers applied, e.g. ("batch",); () = base prices


def _dec(value: Any) -> Decimal | None:
    return None if value in (None, "") else Decimal(str(value))


def prices_for(route: Mapping[str, Any], *, batch: bool, input_tokens: float | None) -> TierPrices:
    """The per-million prices a workload pays on this route, and which tiers set them."""
    prices = {
        "input_per_m": _dec(route["price_input_per_m_tokens"]),
        "output_per_m": _dec(route["price_output_per_m_tokens"]),
        "cached_input_per_m": _dec(route.get("price_cached_input_per_m_tokens")),
    }
    tiers: dict[str, dict[str, Any]] = route.get("price_tiers") or {}
    applied: list[str] = []
    long_context = [
        (int(t["above_input_tokens"]), name)
        for name, t in tiers.items()
        if isinstance(t, dict) and t.get("above_input_tokens")
    ]
    exceeded = [item for item in sorted(long_context) if input_tokens and input_tokens > item[0]]
    chosen = [exceeded[-1][1]] if exceeded else []
    if batch and isinstance(tiers.get("batch"), dict):
        chosen.append("batch")
    for name in chosen:
        for key in prices:
            value = _dec(tiers[name].get(key))
            if value is not None:
                prices[key] = value
        applied.append(name)
    return TierPrices(
        input_per_m=prices["input_per_m"] or Decimal(0),
        output_per_m=prices["output_per_m"] or Decimal(0),
        cached_input_per_m=prices["cached_input_per_m"],
        tiers=tuple(applied),
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
