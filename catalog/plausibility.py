"""Is a typed price plausible? Far from the market needs an explicit confirmation.

A price per GPU-hour is "far from the market" when it is above 5× or below 0.2× the median
current offer for the same accelerator, capacity model and currency (from 3 offers, so one
odd quote does not make a market), or more than 5× above the highest / below 0.2× the lowest
public list price for them. Such a price is refused until the person entering it confirms it
(a checkbox in the form, `confirm_unusual_price: true` in the API); the confirmed quote keeps
the check's figures, and every comparison row built on it carries PRICE_FAR_FROM_MARKET.

Whatever the market, a price outside `BAND_BASE` (0.01–500 units of the base currency per
GPU-hour, converted at the currency's newest FX rate) is far from any market too: the
first quote in a currency has no market of its own to be compared with. A currency without
an FX rate is compared with its own market only.

A purchase is judged the same way per GPU bought (price per node ÷ GPUs per node), against
the current purchase offers and public purchase list prices for the accelerator, and against
`PURCHASE_BAND_BASE` (100–1,000,000 base units per GPU): a $1 server is a slip, not a deal.

The median and percentile come from the market-position code (`selectors.market_position`).
Imports are not checked: public list prices are the market this check reads.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings

from catalog.models import CapacityModel, FxRate, Quote
from catalog.selectors import market_position

FAR_ABOVE = Decimal(5)
FAR_BELOW = Decimal("0.2")
MIN_MARKET_OFFERS = 3
# Per GPU-hour in the base currency: no GPU rents for under a cent, and the dearest rent for
# well under 100, so outside this band a decimal point or the currency slipped.
BAND_BASE = (Decimal("0.01"), Decimal(500))
# Per GPU bought, in the base currency: the smallest data-centre cards sell for hundreds,
# rack-scale systems for well under a million per GPU.
PURCHASE_BAND_BASE = (Decimal(100), Decimal(1_000_000))
HOURLY = "per GPU-hour"
PER_GPU_BOUGHT = "per GPU bought"


def _band_reason(
    price: Decimal,
    currency: str,
    band: tuple[Decimal, Decimal] = BAND_BASE,
    what: str = "GPU-hours cost",
) -> str | None:
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
    low, high = band
    converted = price * rate
    if low <= converted <= high:
        return None
    shown = f"{_plain(converted.quantize(Decimal('0.0001')))} {base}"
    if currency != base:
        shown += f" at the newest {currency} rate"
    return f"outside every market: {shown}, where {what} {_plain(low)}–{_plain(high)} {base}"


def _ratio(price: Decimal, reference: Decimal) -> Decimal:
    return (price / reference).quantize(Decimal("0.001"))


def _plain(value: Decimal) -> str:
    """2.5000 → "2.5" (prices are stored with four places; messages read better without)."""
    return format(value.normalize(), "f")


def _far(ratio: Decimal) -> bool:
    return ratio > FAR_ABOVE or ratio < FAR_BELOW


def _price(value: Decimal | str | None) -> Decimal | None:
    try:
        price = Decimal(str(value)) if value not in (None, "") else None
    except InvalidOperation:
        return None  # the quote rules name a price that is not a number
    if price is None or not price.is_finite() or price <= 0:
        return None
    return price


def _judge(
    price: Decimal,
    currency: str,
    offers: list[tuple[Decimal, bool]],
    *,
    unit: str,
    band: tuple[Decimal, Decimal],
    band_what: str,
) -> dict[str, Any] | None:
    """The figures and message when `price` is far from `offers` (price, is public list
    price) or outside `band`; None when it is plausible."""
    prices = [p for p, _ in offers]
    listed = [p for p, public in offers if public]
    reasons: list[str] = []
    found: dict[str, Any] = {"price": format(price, "f"), "currency": currency}
    if unit != HOURLY:  # hourly checks stored before purchases were checked carry no unit
        found.update(unit=unit, field="price_per_node")
    if len(prices) >= MIN_MARKET_OFFERS:
        median = Decimal(market_position(price, prices)["median"])
        ratio = _ratio(price, median)
        found.update(median=format(median, "f"), ratio=format(ratio, "f"), offers=len(prices))
        if _far(ratio):
            reasons.append(
                f"{_plain(ratio)}× the median current offer ({_plain(median)} {currency} "
                f"{unit}, {len(prices)} offers)"
            )
    if listed:
        low, high = min(listed), max(listed)
        found["list_range"] = [format(low, "f"), format(high, "f")]
        if price < low * FAR_BELOW or price > high * FAR_ABOVE:
            reasons.append(
                f"outside the public list prices ({_plain(low)}–{_plain(high)} {currency})"
            )
    band_reason = _band_reason(price, currency, band, band_what)
    if band_reason:
        reasons.append(band_reason)
    if not reasons:
        return None
    found["message"] = (
        f"{_plain(price)} {currency} {unit} is far from the market: " + "; ".join(reasons) + "."
    )
    return found


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
    hourly = _price(price)
    if hourly is None:
        return None
    offers = (
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
    return _judge(
        hourly,
        currency,
        [(p, public) for p, public in offers if p is not None],
        unit=HOURLY,
        band=BAND_BASE,
        band_what="GPU-hours cost",
    )


def purchase_price_check(
    *,
    accelerator_id: int,
    currency: str,
    price_per_node: Decimal | str | None,
    gpus_per_node: int | str | None,
    lineage_ids: Iterable[int] = (),
) -> dict[str, Any] | None:
    """As `price_check`, for a purchase: the price per GPU bought against the current
    purchase offers and public purchase list prices for the accelerator, and the band."""
    node_price = _price(price_per_node)
    try:
        gpus = int(gpus_per_node or 0)
    except (TypeError, ValueError):
        return None  # the quote rules name the GPUs per node
    if node_price is None or gpus <= 0:
        return None
    offers = (
        Quote.objects.current()
        .filter(
            accelerator_id=accelerator_id,
            capacity_model=CapacityModel.PURCHASE,
            currency=currency,
            price_per_node__isnull=False,
            gpus_per_node__gt=0,
        )
        .exclude(pk__in=list(lineage_ids))
        .values_list("price_per_node", "gpus_per_node", "is_public_list_price")
    )
    cent = Decimal("0.01")
    return _judge(
        (node_price / gpus).quantize(cent),
        currency,
        [((node / n).quantize(cent), public) for node, n, public in offers if node and n],
        unit=PER_GPU_BOUGHT,
        band=PURCHASE_BAND_BASE,
        band_what="a GPU bought costs",
    )
