"""Is a typed price plausible? Far from the market needs an explicit confirmation.

The market reference is built so that no vendor can move it, and so that nothing it reads
from a competitor's confidential offer reaches a vendor:

- **Voices, not quotes.** Each public list price (imported, or entered by procurement as
  public) is one voice. Each vendor's other current offers for the accelerator and capacity
  model make *one* voice together: the median of its per-region-group medians. A vendor that
  posts seven quotes still has one voice, and its own quotes are never its own market.
- **One currency.** Every price is converted to the base currency at its currency's newest FX
  rate, so a 10× slip in EUR is compared with the USD market too. A price in a currency with no
  FX rate cannot be judged at all: it is *held* (flagged, never recommended) until a rate for
  its currency is entered, and `quotes_rejudge` (catalog.services) judges every current quote
  in that currency again then, and on every later rate.
- **Who is judged against what.** A vendor's price is judged against the public list prices
  when there are any for the accelerator (the capacity model's, else the accelerator's other
  hourly list prices, so a first offer in an empty market is still checked), and against the
  voices' median only when no public price exists at all. Procurement's own entries are judged
  against both. Far means above 5× or below 0.2× the reference (the median of at least 3
  voices; the highest / lowest list price). One or two voices are a market too, for an
  order-of-magnitude check (above 10× or below 0.1× their median): a lone rival is enough to
  catch a 60× price. A price over twice the median list price of its capacity model and
  above every other ask is far as well: the 2–4× of an instance price typed per GPU.
- **No market at all.** Every accelerator carries a price band per GPU-hour beside its specs
  (`price_band` in catalog/data/accelerators.json, with its source: the public rents of its
  class), so a first offer for new hardware is judged against its datasheet class.
- **What is said to whom.** The stored message and a vendor's refusal name public data only
  ("far from the public list prices for this accelerator (n sources)"); the figures (median of
  the voices, their count, the ratio) are kept under ``reference`` for staff.

Whatever the market, a price outside `BAND_BASE` (0.05–100 units of the base currency per
GPU-hour) is far from any market. A purchase is judged the same way per GPU bought (price per
node ÷ GPUs per node) against `PURCHASE_BAND_BASE` (100–1,000,000 base units per GPU).

A confirmed or held far price keeps the check's figures, and every comparison row built on it
carries PRICE_FAR_FROM_MARKET: a block until procurement enters the price itself, unless
procurement confirmed it.
Imports are not checked: public list prices are the market this check reads.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path
from statistics import median
from typing import Any

from django.conf import settings

from catalog.models import Accelerator, CapacityModel, FxRate, Quote
from catalog.regions import place_of

FAR_ABOVE = Decimal(5)
FAR_BELOW = Decimal("0.2")
# A 4-GPU instance price typed per GPU is 2–4× the market, inside the 5× band (P16): a price
# over twice the median list price of its capacity model and dearer than every other ask is
# far too. A dear real offer is confirmed once; the slip is caught.
DEAR_ABOVE = Decimal(2)
MIN_MARKET_OFFERS = 3  # voices: fewer than three vendors or list prices make no median
# One or two voices still tell an order of magnitude: a lone rival is a market for a 10× slip.
FEW_ABOVE = Decimal(10)
FEW_BELOW = Decimal("0.1")
# Per GPU-hour in the base currency: no data-centre GPU rents for under 5 cents (a T4 spot is
# about 0.10), and a rack-scale GPU for well under 100, so outside this band a decimal point or
# the currency slipped. Each accelerator's own band (`accelerator_band`) is narrower.
BAND_BASE = (Decimal("0.05"), Decimal(100))
ACCELERATORS_JSON = Path(__file__).resolve().parent / "data" / "accelerators.json"
HELD_NO_FX_RATE = "no_fx_rate"
# Per GPU bought, in the base currency: the smallest data-centre cards sell for hundreds,
# rack-scale systems for well under a million per GPU.
PURCHASE_BAND_BASE = (Decimal(100), Decimal(1_000_000))
HOURLY = "per GPU-hour"
PER_GPU_BOUGHT = "per GPU bought"
HOURLY_MODELS = tuple(m for m in CapacityModel.values if m != CapacityModel.PURCHASE)
FOUR = Decimal("0.0001")


@dataclass(frozen=True, slots=True)
class Offer:
    """One current offer as the reference reads it: price in the base currency."""

    price_base: Decimal
    provider_id: int
    region: str
    public: bool
    capacity_model: str


@dataclass(slots=True)
class Reference:
    """The voices a price is judged against (all in the base currency)."""

    listed: list[Decimal] = field(default_factory=list)
    listed_other_models: list[Decimal] = field(default_factory=list)
    vendor_voices: list[Decimal] = field(default_factory=list)

    @property
    def voices(self) -> list[Decimal]:
        return [*self.listed, *self.vendor_voices]


def newest_rates() -> dict[str, Decimal]:
    """Currency → units of the base currency per unit, at its newest FX rate (base = 1)."""
    rates: dict[str, Decimal] = {}
    for currency, rate in FxRate.objects.order_by("currency", "-as_of", "-id").values_list(
        "currency", "rate_to_base"
    ):
        rates.setdefault(currency, rate)
    rates[settings.BASE_CURRENCY] = Decimal(1)
    return rates


def _region_group(region: str) -> str:
    place = place_of(region) if region else None
    if place is None:
        return region.strip().lower()
    return place.area or place.country or place.code


def _vendor_voice(offers: list[Offer]) -> Decimal:
    """A vendor's one voice: the median of its per-region-group medians."""
    groups: dict[str, list[Decimal]] = defaultdict(list)
    for offer in offers:
        groups[_region_group(offer.region)].append(offer.price_base)
    return Decimal(median(Decimal(median(prices)) for prices in groups.values()))


def reference_from(
    offers: Iterable[Offer], *, capacity_model: str, exclude_provider_id: int | None
) -> Reference:
    """Group offers into voices (pure: the tests feed it rows directly)."""
    ref = Reference()
    by_vendor: dict[int, list[Offer]] = defaultdict(list)
    for offer in offers:
        if offer.public:
            target = ref.listed if offer.capacity_model == capacity_model else None
            (target if target is not None else ref.listed_other_models).append(offer.price_base)
        elif offer.capacity_model == capacity_model and offer.provider_id != exclude_provider_id:
            by_vendor[offer.provider_id].append(offer)
    ref.vendor_voices = [_vendor_voice(group) for group in by_vendor.values()]
    return ref


@cache
def _bands() -> dict[str, dict[str, Any]]:
    rows = json.loads(ACCELERATORS_JSON.read_text(encoding="utf-8"))
    return {row["slug"]: row["price_band"] for row in rows if row.get("price_band")}


def accelerator_band(
    slug: str, rates: dict[str, Decimal]
) -> tuple[tuple[Decimal, Decimal], str] | None:
    """(low, high) per GPU-hour in the base currency and its source, from the accelerator's
    datasheet class (catalog/data/accelerators.json); None for an accelerator without one
    or a band in a currency with no rate."""
    band = _bands().get(slug)
    if band is None:
        return None
    rate = rates.get(str(band.get("currency") or settings.BASE_CURRENCY))
    if rate is None:
        return None
    low, high = (Decimal(str(v)) * rate for v in band["per_gpu_hour"])
    return (low.quantize(FOUR), high.quantize(FOUR)), str(band.get("source") or "")


def held_for_fx(price: Decimal, currency: str, unit: str) -> dict[str, Any]:
    """A price in a currency without an FX rate cannot be judged: it is held, not plausible."""
    message = (
        f"{_plain(price)} {currency} {unit} is held: there is no {currency} FX rate to judge it "
        f"against the market, so no comparison may recommend it until finance enters a "
        f"{currency} rate; the price is judged again then."
    )
    return {
        "price": format(price, "f"),
        "currency": currency,
        "held": HELD_NO_FX_RATE,
        "message": message,
        "reference": {"currency": currency, "message": message},
    }


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


def _outside_list(price: Decimal, listed: list[Decimal]) -> bool:
    return price < min(listed) * FAR_BELOW or price > max(listed) * FAR_ABOVE


def _dearest(price_base: Decimal, ref: Reference, *, by_staff: bool) -> bool:
    """Over twice the median list price and above every other ask: the list prices, and for
    procurement the vendors' voices too (a vendor is never judged by its rivals' offers)."""
    asks = [*ref.listed, *(ref.vendor_voices if by_staff else ())]
    return price_base > DEAR_ABOVE * Decimal(median(ref.listed)) and price_base > max(asks)


def _sources(n: int) -> str:
    return f"{n} source" if n == 1 else f"{n} sources"


def judge(
    price: Decimal,
    currency: str,
    rate: Decimal,
    ref: Reference,
    *,
    by_staff: bool,
    unit: str,
    band: tuple[Decimal, Decimal],
    band_what: str,
    class_band: tuple[tuple[Decimal, Decimal], str] | None = None,
) -> dict[str, Any] | None:
    """The check's figures and messages when `price` (in `currency`, `rate` base units per
    unit) is far from `ref`, outside `band` or outside the accelerator's `class_band`; None
    when it is plausible."""
    base = settings.BASE_CURRENCY
    price_base = (price * rate).quantize(FOUR)
    public: list[str] = []  # reasons a vendor may read (public data only)
    staff: list[str] = []  # the full picture, for procurement
    reference: dict[str, Any] = {"currency": base, "price": format(price_base, "f")}
    listed = ref.listed or ref.listed_other_models
    far = False
    if listed:
        low, high = min(listed), max(listed)
        reference.update(
            list_range=[format(low, "f"), format(high, "f")],
            list_sources=len(listed),
            list_of_other_capacity_models=not ref.listed,
        )
        if _outside_list(price_base, listed):
            far = True
            other = " (other capacity models)" if not ref.listed else ""
            public.append(
                f"far from the public list prices for this accelerator{other} "
                f"({_sources(len(listed))})"
            )
            staff.append(f"outside the public list prices ({_plain(low)}–{_plain(high)} {base})")
        elif ref.listed and _dearest(price_base, ref, by_staff=by_staff):
            far = True
            public.append(
                "more than twice the median public list price for this accelerator and above "
                f"every one of them ({_sources(len(ref.listed))})"
            )
            staff.append(
                f"more than twice the median list price ({_plain(Decimal(median(ref.listed)))} "
                f"{base}) and dearer than every other ask"
            )
    voices = ref.voices
    if voices:
        middle = Decimal(median(voices)).quantize(FOUR)
        ratio = (price_base / middle).quantize(Decimal("0.001"))
        reference.update(median=format(middle, "f"), ratio=format(ratio, "f"), voices=len(voices))
    # A vendor is judged against the voices only when no public price exists: otherwise
    # whether it is refused would let it bracket its competitors' median by probing.
    judged = bool(voices) and (by_staff or not listed)
    few = len(voices) < MIN_MARKET_OFFERS
    if judged and few and (ratio > FEW_ABOVE or ratio < FEW_BELOW):
        far = True
        staff.append(
            f"{_plain(ratio)}× the median of {len(voices)} voices ({_plain(middle)} {base} "
            f"{unit}): more than ten times off"
        )
        public.append("an order of magnitude away from the other offers for this accelerator")
    elif judged and not few and _far(ratio):
        far = True
        staff.append(
            f"{_plain(ratio)}× the median of {len(voices)} voices ({_plain(middle)} {base} "
            f"{unit}; one per vendor, each public list price its own)"
        )
        public.append(
            "far from the other offers for this accelerator"
            if not listed
            else "far from the market reference for this accelerator"
        )
    band_reason = _band_reason(price_base, currency, band, band_what)
    if band_reason:
        far = True
        public.append(band_reason)
        staff.append(band_reason)
    elif class_band is not None:
        (low, high), source = class_band
        if not low <= price_base <= high:
            far = True
            reason = (
                f"outside this accelerator's datasheet class: {_plain(price_base)} {base} "
                f"{unit}, where its class rents for {_plain(low)}–{_plain(high)} {base}"
            )
            public.append(reason)
            staff.append(f"{reason} ({source})" if source else reason)
            reference["class_band"] = [format(low, "f"), format(high, "f")]
    if not far:
        return None
    if "median" in reference and not any("voices" in reason for reason in staff):
        # Not a reason here (a vendor is judged by public prices), but part of the picture.
        staff.append(
            f"the median of {reference['voices']} voices is {_plain(Decimal(reference['median']))} "
            f"{base} ({_plain(Decimal(reference['ratio']))}×)"
        )
    head = f"{_plain(price)} {currency} {unit} is far from the market: "
    found: dict[str, Any] = {
        "price": format(price, "f"),
        "currency": currency,
        "message": head + "; ".join(public) + ".",
        "reference": {**reference, "message": head + "; ".join(staff) + "."},
    }
    if unit != HOURLY:
        found.update(unit=unit, field="price_per_node")
    return found


def _band_reason(
    price_base: Decimal, currency: str, band: tuple[Decimal, Decimal], what: str
) -> str | None:
    """Outside the absolute band once converted."""
    low, high = band
    if low <= price_base <= high:
        return None
    base = settings.BASE_CURRENCY
    shown = f"{_plain(price_base)} {base}"
    if currency != base:
        shown += f" at the newest {currency} rate"
    return f"outside every market: {shown}, where {what} {_plain(low)}–{_plain(high)} {base}"


def _offers(
    rows: Iterable[tuple[Decimal | None, int, str, str, bool, str]],
    rates: dict[str, Decimal],
) -> list[Offer]:
    """Rows (price, provider, currency, region, public, capacity model) → offers in the
    base currency; rows in a currency without a rate are held themselves, so no voice."""
    offers = []
    for price, provider_id, row_currency, region, public, model in rows:
        rate = rates.get(row_currency)
        if price is None or rate is None:
            continue
        price_base = (price * rate).quantize(FOUR)
        offers.append(Offer(price_base, provider_id, region or "", public, model))
    return offers


def price_check(
    *,
    accelerator_id: int,
    capacity_model: str,
    currency: str,
    price: Decimal | str | None,
    lineage_ids: Iterable[int] = (),
    provider_id: int | None = None,
    by_staff: bool = True,
) -> dict[str, Any] | None:
    """The check's figures and messages when `price` is far from the market; None when it
    is not. `lineage_ids`: versions of the quote being revised; `provider_id`: the provider
    the quote is for, whose own offers are not its market; `by_staff`: procurement's entry
    (judged against every voice) or a vendor's (against public prices first)."""
    hourly = _price(price)
    if hourly is None:
        return None
    rates = newest_rates()
    if currency not in rates:
        return held_for_fx(hourly, currency, HOURLY)
    rows = (
        Quote.objects.current()
        .filter(
            accelerator_id=accelerator_id,
            capacity_model__in=HOURLY_MODELS,
            price_per_gpu_hour__isnull=False,
        )
        .exclude(pk__in=list(lineage_ids))
        .values_list(
            "price_per_gpu_hour",
            "provider_id",
            "currency",
            "region",
            "is_public_list_price",
            "capacity_model",
        )
    )
    ref = reference_from(
        _offers(rows, rates),
        capacity_model=capacity_model,
        exclude_provider_id=provider_id,
    )
    return judge(
        hourly,
        currency,
        rates[currency],
        ref,
        by_staff=by_staff,
        unit=HOURLY,
        band=BAND_BASE,
        band_what="GPU-hours cost",
        class_band=accelerator_band(
            Accelerator.objects.filter(pk=accelerator_id).values_list("slug", flat=True).first()
            or "",
            rates,
        ),
    )


def purchase_price_check(
    *,
    accelerator_id: int,
    currency: str,
    price_per_node: Decimal | str | None,
    gpus_per_node: int | str | None,
    lineage_ids: Iterable[int] = (),
    provider_id: int | None = None,
    by_staff: bool = True,
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
    rates = newest_rates()
    if currency not in rates:
        return held_for_fx((node_price / gpus).quantize(Decimal("0.01")), currency, PER_GPU_BOUGHT)
    cent = Decimal("0.01")
    rows = (
        Quote.objects.current()
        .filter(
            accelerator_id=accelerator_id,
            capacity_model=CapacityModel.PURCHASE,
            price_per_node__isnull=False,
            gpus_per_node__gt=0,
        )
        .exclude(pk__in=list(lineage_ids))
        .values_list(
            "price_per_node",
            "gpus_per_node",
            "provider_id",
            "currency",
            "region",
            "is_public_list_price",
        )
    )
    per_gpu = [
        ((node / n).quantize(cent), provider, cur, region, public, CapacityModel.PURCHASE.value)
        for node, n, provider, cur, region, public in rows
        if node and n
    ]
    ref = reference_from(
        _offers(per_gpu, rates),
        capacity_model=CapacityModel.PURCHASE,
        exclude_provider_id=provider_id,
    )
    return judge(
        (node_price / gpus).quantize(cent),
        currency,
        rates[currency],
        ref,
        by_staff=by_staff,
        unit=PER_GPU_BOUGHT,
        band=PURCHASE_BAND_BASE,
        band_what="a GPU bought costs",
    )


def check_for_viewer(check: dict[str, Any], *, staff: bool) -> dict[str, Any]:
    """A stored check as a viewer may read it: vendors never see the staff figures."""
    if staff:
        return check
    return {k: v for k, v in check.items() if k != "reference"}
