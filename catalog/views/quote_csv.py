"""The quotes list as CSV: every row of the filtered, sorted list (not one page), with its
market position and checklist completeness, read in a fixed number of queries whatever the
number of rows (catalog.market, the checklist panel).

Money is written as the quote holds it, two decimals or more where the source has them
(2.4900 → 2.49, 0.0750 → 0.075); headers are words, the quote id last.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from typing import Any

from django.http import HttpResponse

from catalog import market, panels
from catalog.models import Quote
from core.spreadsheet import spreadsheet_text
from core.templatetags.numbers import ordinal
from core.values import money_decimal

HEADER = (
    "Provider",
    "Offer",
    "Accelerator",
    "Capacity model",
    "Term (months)",
    "Currency",
    "Price per GPU-hour",
    "Price per node",
    "GPUs per node",
    "Region",
    "Captured (UTC)",
    "Valid until (UTC)",
    "Version",
    "Status",
    "Public list price",
    "Stale",
    "Market position",
    "Market percentile",
    "Comparable list prices",
    "Market median",
    "Market outlier",
    "Far from market",
    "Checklist complete (%)",
    "Quote id",
)


def csv_cell(value: object) -> object:
    """A CSV cell: None blank, booleans in words, text a spreadsheet would run as a formula
    quoted with a ' (numbers, negative ones included, stay numbers)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return spreadsheet_text(value) if isinstance(value, str) else value


def market_words(percentile: float) -> str:
    """ "33rd percentile"; the ends in words (a 0th percentile reads as a slip)."""
    if percentile <= 0:
        return "below every list price"
    if percentile >= 100:
        return "above every list price"
    return f"{ordinal(percentile)} percentile"


def _market_cells(position: dict[str, Any] | None) -> list[object]:
    if position is None:  # no price per GPU-hour (a purchase is priced per node)
        return [None] * 5
    if position.get("percentile") is None:
        return ["no public list prices to compare with", None, 0, None, None]
    return [
        market_words(position["percentile"]),
        position["percentile"],
        position["peers"],
        money_decimal(position.get("median")),
        position.get("outlier") or "",
    ]


def quote_row(
    quote: Quote, position: dict[str, Any] | None, checklist: dict[str, Any] | None
) -> list[object]:
    return [
        quote.provider.name,
        quote.title,
        quote.accelerator.name,
        quote.get_capacity_model_display(),
        quote.term_months or None,
        quote.currency,
        money_decimal(quote.price_per_gpu_hour),
        money_decimal(quote.price_per_node),
        quote.gpus_per_node,
        quote.region,
        f"{quote.quoted_at:%Y-%m-%d %H:%M}",
        f"{quote.valid_until:%Y-%m-%d %H:%M}" if quote.valid_until else None,
        quote.version,
        quote.get_status_display(),
        quote.is_public_list_price,
        quote.is_stale(),
        *_market_cells(position),
        quote.price_far_from_market,
        checklist.get("completeness_pct") if checklist else None,
        quote.pk,
    ]


def quotes_csv(quotes: Sequence[Quote]) -> HttpResponse:
    """Every quote of the list, in its order, as CSV."""
    positions = market.market_positions(quotes)
    checklists = panels.checklist_summaries(quotes)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="quotes.csv"'
    writer = csv.writer(response)
    writer.writerow(HEADER)
    for quote in quotes:
        row = quote_row(quote, positions.get(quote.pk), checklists.get(quote.pk))
        writer.writerow([csv_cell(value) for value in row])
    return response
