"""The vendor portal: my RFQs, my answers, submit / revise / withdraw a quote.

Everything goes through `catalog.access` scoped to the vendor's organisation, so another
provider's RFQ or quote is a 404, exactly like one that does not exist.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.db.models import Count, Q
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from accounts.http import AuthedRequest
from catalog import access, selectors, services
from catalog.access import vendor_required
from catalog.errors import RfqClosed
from catalog.forms.quotes import QuoteForm, QuoteWithdrawForm, quote_initial, quote_initial_from_rfq
from catalog.tracking import rfq_viewed_record
from catalog.views.quotes import quote_page_context, revise_quote, withdraw_quote
from catalog.views.rfqs import decisions_on
from core import submissions
from core.errors import DomainError
from core.forms import apply_domain_error, form_status, saved


def checklist_url(quote_id: int) -> str:
    """The checklist answering page of a quote (built by the checklist app)."""
    return f"/checklist/quotes/{quote_id}/answer/"


@vendor_required
def vendor_home(request: AuthedRequest) -> HttpResponse:
    mine = Q(quotes__provider_id=request.user.provider_id, quotes__superseded_by__isnull=True)
    rfqs = access.rfqs_for(request.user).annotate(my_answers=Count("quotes", filter=mine))
    quotes = access.quotes_for(request.user).current().order_by("-created_at")[:50]
    return render(request, "catalog/vendor/home.html", {"rfqs": rfqs, "quotes": quotes})


@vendor_required
def vendor_rfq_detail(request: AuthedRequest, pk: int) -> HttpResponse:
    rfq = access.access_rfq(request.user, pk)
    rfq_viewed_record(acting_user=request.user, rfq=rfq)  # the lead sees who has seen it
    quotes = selectors.quotes_for_rfq(request.user, rfq)
    context = {
        "rfq": rfq,
        "accelerators": rfq.accelerators.all(),
        "capacity_labels": rfq.capacity_model_labels(),
        "quotes": quotes,
        "is_open": rfq.is_open_for_answers(),
        "outcome": vendor_outcome(rfq, request.user.provider_id, answered=quotes.exists()),
    }
    return render(request, "catalog/vendor/rfq_detail.html", context)


def vendor_outcome(rfq: Any, provider_id: int | None, *, answered: bool) -> str:
    """ "selected" / "not_selected" (or "decided" without an answer) once an approved decision
    drew on the RFQ's answers, else "". Only the outcome: the decision itself is the buyer's."""
    decisions = decisions_on(rfq)
    if not decisions:
        return ""
    if not answered:
        return "decided"
    chosen = any(provider_id in d.get("selected_providers", []) for d in decisions)
    return "selected" if chosen else "not_selected"


@vendor_required
def vendor_quote_create(request: AuthedRequest, rfq_pk: int) -> HttpResponse:
    rfq = access.access_rfq(request.user, rfq_pk)
    rfq_viewed_record(acting_user=request.user, rfq=rfq)  # a link may lead straight here
    if not rfq.is_open_for_answers():
        messages.error(request, RfqClosed().message)
        return redirect("vendor:rfq-detail", pk=rfq.pk)
    form = QuoteForm(request.POST or None, rfq=rfq, initial=quote_initial_from_rfq(rfq))
    if request.method == "POST" and form.is_valid():
        try:
            # A double click or a replay of this form makes one quote, not two.
            with submissions.once(request) as slot:
                if slot.done_url:
                    return redirect(slot.done_url)
                quote = services.quote_submit(
                    acting_user=request.user,
                    data=form.cleaned_data,
                    rfq=rfq,
                    confirm_unusual_price=form.cleaned_data["confirm_unusual_price"],
                )
                slot.made(reverse("vendor:quote-detail", kwargs={"pk": quote.pk}))
        except DomainError as exc:
            apply_domain_error(form, exc)
        else:
            messages.success(
                request, "Quote submitted. Next: answer the procurement checklist for it."
            )
            return redirect("vendor:quote-detail", pk=quote.pk)
    context = {
        "form": form,
        "rfq": rfq,
        "title": f"Answer “{rfq.title}”",
        "from_rfq": True,
        "submission": submissions.token_for(request),
    }
    return render(request, "catalog/vendor/quote_form.html", context, status=form_status(request))


@vendor_required
def vendor_quote_detail(request: AuthedRequest, pk: int) -> HttpResponse:
    quote = access.access_quote(request.user, pk)
    context = quote_page_context(request.user, quote)
    context["checklist_url"] = checklist_url(quote.pk)
    return render(request, "catalog/vendor/quote_detail.html", context)


@vendor_required
def vendor_quote_revise(request: AuthedRequest, pk: int) -> HttpResponse:
    quote = access.access_quote(request.user, pk)
    if not access.can_revise_quote(request.user, quote):
        messages.error(request, RfqClosed().message)
        return redirect("vendor:quote-detail", pk=quote.pk)
    form = QuoteForm(request.POST or None, initial=quote_initial(quote), rfq=quote.rfq)
    if new := saved(request, form, lambda data: revise_quote(request.user, quote, data)):
        messages.success(request, f"Saved version {new.version}.")
        return redirect("vendor:quote-detail", pk=new.pk)
    context = {"form": form, "quote": quote, "rfq": quote.rfq, "title": f"Revise {quote}"}
    return render(request, "catalog/vendor/quote_form.html", context, status=form_status(request))


@vendor_required
def vendor_quote_withdraw(request: AuthedRequest, pk: int) -> HttpResponse:
    quote = access.access_quote(request.user, pk)
    if not access.can_revise_quote(request.user, quote):
        messages.error(request, RfqClosed().message)
        return redirect("vendor:quote-detail", pk=quote.pk)
    form = QuoteWithdrawForm(request.POST or None)
    if new := saved(request, form, lambda data: withdraw_quote(request.user, quote, data)):
        messages.success(request, "Quote withdrawn.")
        return redirect("vendor:quote-detail", pk=new.pk)
    context = {"form": form, "quote": quote, "cancel_url": f"/vendor/quotes/{quote.pk}/"}
    return render(
        request, "catalog/vendor/quote_withdraw.html", context, status=form_status(request)
    )
