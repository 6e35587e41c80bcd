"""Accept all the answers awaiting review in one section of a quote's checklist."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.http import AuthedRequest
from catalog import access as catalog_access
from checklist import queue, selectors
from checklist.models import Section
from core.errors import DomainError
from core.roles import is_staff


@require_POST
def section_accept(request: AuthedRequest, quote_id: int, section: str) -> HttpResponse:
    quote = catalog_access.access_quote(request.user, quote_id)
    if not is_staff(request.user) or section not in Section.values:
        raise Http404
    detail = selectors.quote_checklist_detail(quote)
    answers = queue.pending_in_section(request.user, detail, section)
    label = Section(section).label
    if not answers:
        messages.info(request, f"Nothing in {label} awaits your review.")
    else:
        try:
            done = queue.section_accept(acting_user=request.user, answers=answers)
        except DomainError as exc:
            messages.error(request, f"{exc.message} Nothing was accepted.")
        else:
            messages.success(
                request,
                f"Accepted {len(done)} answer{'s' if len(done) != 1 else ''} in {label}, "
                "each recorded in the audit trail.",
            )
    url = reverse("checklist:quote-detail", args=[quote.pk])
    return redirect(f"{url}#section-{section}")
