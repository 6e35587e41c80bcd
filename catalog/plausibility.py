"""Is a typed price plausible? Far from the market needs an explicit confirmation.

A price per GPU-hour is "far from the market" when it is above 5× or below 0.2× the median
current offer for the same accelerator, capacity model and currency (from 3 offers, so one
odd quote does not make a market), or more than 5× above the highest / below 0.2× the lowest
public list price for them. Such a price is refused until the person entering it confirms it
(a checkbox in the form, `confirm_unusual_price: true` in the API); the confirmed quote keeps
the check's figures, and every comparison row built on it carries PRICE_FAR_FROM_MARKET.

Whatever the market, a price outside `BAND_BASE` (0.01–500 units of the base currency per
GPU-hour, converted at the currency's newest FX rate) is far from any market too (L6): the
first quote in a currency has no market of its own to be compared with. A currency without
an FX rate is compared with its own market only.

The median and percentile come from the market-position code (`selectors.market_position`).
Imports are not checked: public list prices are the market this check reads.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings

from catalog.models import FxRate, Quote
from catalog.selectors import market_position

FAR_ABOVE = Decimal(5)
FAR_BELOW = Decimal("0.2")
MIN_MARKET_OFFERS = 3
# Per GPU-hour in the base currency: no GPU rents for under a cent, and the dearest rent for
# well under 100, so outside this band a decimal point or the currency slipped.
BAND_BASE = (Decimal("0.01"), Decimal(500))


def _band_reason(price: Decimal, currency: str) -> str | None:
    """Why `price` is outside the plausible band once converted; None inside (or no rate)."""
    base = settings.BASE_CURRENCY
    if currency == base:
        rate: Decimal | None = Decimal(1)
    else:
        rate = (
            FxRate.objects.filter(currency=currency)
            .order_by("-as_of", "-id")
            .values_list("rate_to_base", flat=True)
            .first()
        )
    if rate is None:
        return None
    low, high = BAND_BASE
    converted = price * rate
    if low <= converted <= high:
        return None
    shown = f"{_plain(converted.quantize(Decimal('0.0001')))} {base}"
    if currency != base:
        shown += f" at the newest {currency} rate"
    return (
        f"outside every market: {shown}, where GPU-hours cost {_plain(low)}–{_plain(high)} {base}"
    )


def _ratio(price: Decimal, reference: Decimal) -> Decimal:
    return (price / reference).quantize(Decimal("0.001"))


def _plain(value: Decimal) -> str:
    """2.5000 → "2.5" (prices are stored with four places; messages read better without)."""
    return format(value.normalize(), "f")


def _far(ratio: Decimal) -> bool:
    return ratio > FAR_ABOVE or ratio < FAR_BELOW


def price_check(
    *,
    accelerator_id: int,
    capacity_model: str,
    currency: str,
    price: Decimal | str | None,
    lineage_ids: Iterable[int] = (),
) -> dict[str, Any] | None:
    """The check's figures and message when `price` is far from the market; None when it
    is not (or when there is no market to compare with). `lineage_ids`: versions of the quote
    being revised, which are not their own market."""
    try:
        price = Decimal(str(price)) if price not in (None, "") else None
    except InvalidOperation:
        return None  # the quote rules name a price that is not a number
    if price is None or not price.is_finite() or price <= 0:
        return None
    offers = list(
        Quote.objects.current()
        .filter(
            accelerator_id=accelerator_id,
            capacity_model=capacity_model,
            currency=currency,
            price_per_gpu_hour__isnull=False,
        )
        .exclude(pk__in=list(lineage_ids))
        .values_list("price_per_gpu_hour", "is_public_list_price")
    )
    prices = [p for p, _ in offers if p is not None]
    listed = [p for p, public in offers if public and p is not None]
    reasons: list[str] = []
    found: dict[str, Any] = {"price": format(price, "f"), "currency": currency}
    if len(prices) >= MIN_MARKET_OFFERS:
        median = Decimal(market_position(price, prices)["median"])
        ratio = _ratio(price, median)
        found.update(median=format(median, "f"), ratio=format(ratio, "f"), offers=len(prices))
        if _far(ratio):
            reasons.append(
                f"{_plain(ratio)}× the median current offer ({_plain(median)} {currency} per "
                f"GPU-hour, "
                f"{len(prices)} offers)"
            )
    if listed:
        low, high = min(listed), max(listed)
        found["list_range"] = [format(low, "f"), format(high, "f")]
        if price < low * FAR_BELOW or price > high * FAR_ABOVE:
            reasons.append(
                f"outside the public list prices ({_plain(low)}–{_plain(high)} {currency})"
            )
    band = _band_reason(price, currency)
    if band:
        reasons.append(band)
    if not reasons:
        return None
    found["message"] = (
        f"{_plain(price)} {currency} per GPU-hour is far from the market: "
        + "; ".join(reasons)
        + "."
    )
    return found
