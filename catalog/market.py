"""Reads for a quote's market position: where its price sits among the public list prices
(imported, or entered as public) for the same accelerator, capacity model and currency that
were current on its quoted date: quoted on or before that day and not revised or withdrawn
by then.

`quote_market_position(quote)` answers for one quote (its page, the API detail);
`market_positions(quotes)` for a list page or a whole export in one query, whatever the
number of quotes (the peers of every quote are read together, then judged per quote here).
A selectors module of its own: `catalog/selectors.py` is at the size the house keeps.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.db.models import OuterRef, Q, Subquery

from catalog.models import Quote

OUTLIER_MIN_PEERS = 4  # fewer prices than this give no quartiles worth the name
FENCE_PLACES = Decimal("0.0001")


def market_position(price: Decimal, peers: list[Decimal]) -> dict[str, Any]:
    """Where `price` sits among `peers`: percentile (share priced below, ties counted half)
    and an outlier flag (Tukey fences, 1.5 x IQR, from OUTLIER_MIN_PEERS prices)."""
    if not peers:
        return {"peers": 0, "percentile": None, "outlier": None}
    below = sum(1 for p in peers if p < price)
    equal = sum(1 for p in peers if p == price)
    percentile = round((below + equal / 2) / len(peers) * 100, 1)
    outlier = None
    fences = None
    if len(peers) >= OUTLIER_MIN_PEERS:
        # linear interpolation between closest ranks
        q1, _, q3 = statistics.quantiles(peers, n=4, method="inclusive")
        iqr = q3 - q1
        low, high = q1 - Decimal("1.5") * iqr, q3 + Decimal("1.5") * iqr
        fences = [str(low.quantize(FENCE_PLACES)), str(high.quantize(FENCE_PLACES))]
        outlier = "low" if price < low else "high" if price > high else None
    return {
        "peers": len(peers),
        "percentile": percentile,
        "median": str(statistics.median(peers)),  # an even count: the mean of the middle two
        "outlier": outlier,
        "fences": fences,
    }


def _day_end(moment: datetime) -> datetime:
    return moment.replace(hour=23, minute=59, second=59, microsecond=999999)


def _basis(quote: Quote) -> str:
    return (
        f"{quote.accelerator} {quote.get_capacity_model_display().lower()} public list prices in "
        f"{quote.currency} current on {quote.quoted_at:%Y-%m-%d}"
    )


def quote_market_position(quote: Quote) -> dict[str, Any] | None:
    """This quote's percentile among the public list prices current on its quoted date.
    None without a price per GPU-hour."""
    return market_positions([quote])[quote.pk]


@dataclass(frozen=True, slots=True)
class _Peer:
    """A public list price as the batched read sees it, with the version that replaced it."""

    pk: int
    price: Decimal
    quoted_at: datetime
    replaced_at: datetime | None  # the superseding version's quoted date, if any
    withdrawn: bool  # superseded by a withdrawal

    def current_on(self, end: datetime) -> bool:
        """Quoted by `end`, not replaced by then and never withdrawn (as the single read)."""
        if self.quoted_at > end or self.withdrawn:
            return False
        return self.replaced_at is None or self.replaced_at > end


_Key = tuple[int, str, str]  # accelerator, capacity model, currency


def market_positions(quotes: Iterable[Quote]) -> dict[int, dict[str, Any] | None]:
    """{quote id: its market position, None without a price per GPU-hour} in one query:
    the public list prices of every (accelerator, capacity model, currency) the quotes name,
    each with the quoted date and status of the version that replaced it."""
    wanted = list(quotes)
    priced = [q for q in wanted if q.price_per_gpu_hour is not None]
    out: dict[int, dict[str, Any] | None] = {q.pk: None for q in wanted}
    if not priced:
        return out
    keys = {(q.accelerator_id, q.capacity_model, q.currency) for q in priced}
    latest_end = max(_day_end(q.quoted_at) for q in priced)
    match = Q()
    for accelerator_id, capacity_model, currency in keys:
        match |= Q(accelerator_id=accelerator_id, capacity_model=capacity_model, currency=currency)
    replacing = Quote.objects.filter(supersedes=OuterRef("pk"))
    rows = (
        Quote.objects.filter(match)
        .filter(
            is_public_list_price=True,
            status=Quote.Status.SUBMITTED,
            quoted_at__lte=latest_end,
            price_per_gpu_hour__isnull=False,
        )
        # The replacing version by subquery, not a LEFT JOIN on itself (catalog.models.quotes
        # says why the planner misjudges that join).
        .annotate(
            replaced_at=Subquery(replacing.values("quoted_at")[:1]),
            replaced_status=Subquery(replacing.values("status")[:1]),
        )
        .values_list(
            "pk",
            "accelerator_id",
            "capacity_model",
            "currency",
            "price_per_gpu_hour",
            "quoted_at",
            "replaced_at",
            "replaced_status",
        )
    )
    peers: dict[_Key, list[_Peer]] = defaultdict(list)
    for pk, accelerator_id, model, currency, price, quoted_at, replaced_at, status in rows:
        if price is None:  # the query leaves these out; the check narrows the type
            continue
        peers[(accelerator_id, model, currency)].append(
            _Peer(pk, price, quoted_at, replaced_at, status == Quote.Status.WITHDRAWN)
        )
    # Many quotes share a key and a day (a price file is imported at once): judge each pair once.
    current: dict[tuple[_Key, date], list[_Peer]] = {}
    for quote in priced:
        key: _Key = (quote.accelerator_id, quote.capacity_model, quote.currency)
        end = _day_end(quote.quoted_at)
        found = current.get((key, end.date()))
        if found is None:
            found = [p for p in peers.get(key, []) if p.current_on(end)]
            current[(key, end.date())] = found
        prices = [p.price for p in found if p.pk != quote.pk]
        position = market_position(quote.price_per_gpu_hour or Decimal(0), prices)
        position["basis"] = _basis(quote)
        out[quote.pk] = position
    return out
