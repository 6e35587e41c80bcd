"""Quotes (staff): list with stale flags and filters, detail with versions, enter, revise,
withdraw."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render

from accounts.http import AuthedRequest
from catalog import access, charts, market, panels, selectors, services
from catalog.access import staff_required, writer_required
from catalog.filters import QuoteFilter
from catalog.forms.quotes import (
    FIELD_GROUPS,
    QuoteForm,
    QuoteWithdrawForm,
    quote_initial,
    quote_initial_from_rfq,
)
from catalog.models import Quote
from catalog.templatetags.catalog_tags import price
from catalog.validation import field_label
from catalog.views.quote_csv import quotes_csv
from core.forms import form_status, saved
from core.listing import Column, apply_sort, list_page, query_without
from core.roles import has_role

if TYPE_CHECKING:
    from accounts.models import User

# Prices sort by value: each converted to the base currency at the catalog's newest FX rate.
PRICE_ORDER = (
    selectors.in_base_currency("price_per_gpu_hour"),
    selectors.in_base_currency("price_per_node"),
)
QUOTE_COLUMNS = (
    Column("provider", "Provider", "provider__name"),
    Column("accelerator", "Accelerator", ("accelerator__name", "price_per_gpu_hour")),
    Column("capacity", "Capacity", ("capacity_model", "term_months")),
    Column("price", "Price / GPU-hour", PRICE_ORDER, numeric=True),
    # Computed per row against the public list prices (catalog.market): shown, not sorted.
    Column("market", "Market position"),
    Column("gpus_per_node", "GPUs / node", "gpus_per_node", numeric=True),
    Column("region", "Region", "region"),
    Column("captured", "Captured", "quoted_at"),
    Column("version", "Version", "version"),
)


MONEY_FIELDS = {
    f.name for f in Quote._meta.concrete_fields if getattr(f, "decimal_places", None) == 4
}


def _display(quote: Quote, name: str) -> str:
    value = getattr(quote, name)
    if getattr(Quote._meta.get_field(name), "choices", None):  # "Not stated", not "unknown"
        return str(getattr(quote, f"get_{name}_display")())
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value in (None, ""):
        return "—"
    if name in MONEY_FIELDS:
        return f"{quote.currency} {price(value)}"
    if isinstance(value, datetime):
        return f"{value:%Y-%m-%d %H:%M} UTC"
    return str(value)


def quote_facts(quote: Quote) -> list[tuple[str, list[tuple[str, str]]]]:
    """Every entered field of a version, grouped as on the form; empty groups left out."""
    groups = []
    for title, names in FIELD_GROUPS:
        rows = [(field_label(n), _display(quote, n)) for n in names]
        if any(value not in ("—", "no") for _, value in rows):
            groups.append((title, rows))
    return groups


def quote_page_context(user: User, quote: Quote) -> dict[str, Any]:
    """What both the staff and the vendor quote pages show: versions, chart, checklist."""
    versions = selectors.quote_versions_for(user, quote)
    latest = versions[-1] if versions else quote
    points = [
        charts.PricePoint(
            v.version,
            v.quoted_at,
            float(v.price_per_gpu_hour) if v.price_per_gpu_hour is not None else None,
            v.status,
        )
        for v in versions
    ]
    is_latest = latest.pk == quote.pk
    return {
        "quote": quote,
        "facts": quote_facts(quote),
        "versions": versions,
        "latest": latest,
        "is_latest": is_latest,
        "can_change": is_latest
        and quote.status == Quote.Status.SUBMITTED
        and access.can_revise_quote(user, quote),
        "checklist": panels.checklist_summary(quote),
        "fig": charts.price_history(points, quote.currency) if len(points) > 1 else None,
    }


@staff_required
def quote_list(request: AuthedRequest) -> HttpResponse:
    params = request.GET.copy()
    params.setdefault("current", "true")
    quote_filter = QuoteFilter(params, queryset=access.quotes_for(request.user), user=request.user)
    if request.GET.get("format") == "csv" and quote_filter.is_valid():
        ordered, _ = apply_sort(
            quote_filter.qs, QUOTE_COLUMNS, request.GET.get("sort", ""), default="accelerator"
        )
        return quotes_csv(list(ordered))
    listing = list_page(
        request,
        quote_filter.qs,
        QUOTE_COLUMNS,
        default_sort="accelerator",
        filter_ignore=["current"],
        keys_first=True,
    )
    context = {
        "filter": quote_filter,
        "listing": listing,
        "page": listing.page,
        "checklists": panels.checklist_summaries(listing.page.object_list),
        "markets": market.market_positions(listing.page.object_list),
        "page_query": listing.page_query,
        "csv_query": f"{query_without(request, 'page', 'format')}&format=csv".lstrip("&"),
        "can_write": has_role(request.user, *access.CATALOG_WRITERS),
    }
    return render(request, "catalog/quote_list.html", context)


@staff_required
def quote_detail(request: AuthedRequest, pk: int) -> HttpResponse:
    quote = access.access_quote(request.user, pk)
    context = quote_page_context(request.user, quote)
    context["staff"] = True
    context["market"] = market.quote_market_position(quote)
    # Staff see the whole market reference behind a flag; vendors read its public part only.
    context["price_reference"] = (quote.price_check or {}).get("reference")
    return render(request, "catalog/quote_detail.html", context)


def revise_quote(user: User, quote: Quote, data: dict[str, Any]) -> Quote:
    """A revision from the quote form (staff's and the vendor's)."""
    confirm = data["confirm_unusual_price"]
    return services.quote_revise(
        acting_user=user, quote=quote, data=data, confirm_unusual_price=confirm
    )


def withdraw_quote(user: User, quote: Quote, data: dict[str, Any]) -> Quote:
    return services.quote_withdraw(acting_user=user, quote=quote, reason=data["reason"])


@writer_required
def quote_create(request: AuthedRequest) -> HttpResponse:
    rfq = access.access_rfq(request.user, request.GET["rfq"]) if request.GET.get("rfq") else None
    initial = quote_initial_from_rfq(rfq) if rfq is not None else None
    form = QuoteForm(request.POST or None, staff=True, rfq=rfq, initial=initial)

    def submit(data: dict[str, Any]) -> Quote:
        return services.quote_submit(
            acting_user=request.user,
            data=data,  # the service reads the quote's own fields only
            rfq=rfq,
            provider=data["provider"],
            is_public_list_price=data["is_public_list_price"],
            confirm_unusual_price=data["confirm_unusual_price"],
        )

    if quote := saved(request, form, submit):
        messages.success(request, f"Quote saved as version {quote.version}.")
        return redirect(quote)
    context = {"form": form, "rfq": rfq, "title": "Enter a quote"}
    return render(request, "catalog/quote_form.html", context, status=form_status(request))


@writer_required
def quote_revise(request: AuthedRequest, pk: int) -> HttpResponse:
    quote = access.access_quote(request.user, pk)
    form = QuoteForm(request.POST or None, initial=quote_initial(quote), rfq=quote.rfq)
    if new := saved(request, form, lambda data: revise_quote(request.user, quote, data)):
        messages.success(
            request, f"Saved version {new.version}; version {quote.version} is kept unchanged."
        )
        return redirect(new)
    context = {"form": form, "quote": quote, "title": f"Revise {quote}"}
    return render(request, "catalog/quote_form.html", context, status=form_status(request))


@writer_required
def quote_withdraw(request: AuthedRequest, pk: int) -> HttpResponse:
    quote = access.access_quote(request.user, pk)
    form = QuoteWithdrawForm(request.POST or None)
    if new := saved(request, form, lambda data: withdraw_quote(request.user, quote, data)):
        messages.success(request, f"Quote withdrawn (version {new.version}).")
        return redirect(new)
    context = {"form": form, "quote": quote, "cancel_url": quote.get_absolute_url()}
    return render(request, "catalog/quote_withdraw.html", context, status=form_status(request))
