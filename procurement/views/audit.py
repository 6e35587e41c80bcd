"""The audit page: the append-only trail, filterable and paginated, with the hash-chain status.

Read-only by construction: this module has no form that writes, the admin is read-only, and
the API exposes GET only. Admins, finance and security reviewers read it; others get 404.
"""

from __future__ import annotations

from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from accounts.http import AuthedRequest
from core.audit import AuditPaginator, audit_chain_verify
from core.listing import paginate
from core.roles import role_required
from procurement.forms.reviews import AuditFilterForm
from procurement.selectors.reviews.audit import (
    AUDIT_READER_ROLES,
    audit_events_filtered,
    audit_filter_choices,
)
from procurement.views.audit_present import action_words, audit_csv, object_words, present

PAGE_SIZE = 50


@require_http_methods(["GET"])
@role_required(*AUDIT_READER_ROLES)
def audit_list(request: AuthedRequest) -> HttpResponse | StreamingHttpResponse:
    actions, object_types = audit_filter_choices(request.user)
    form = AuditFilterForm(
        request.GET or None,
        actions=[(a, action_words(a)) for a in actions],
        object_types=[(t, object_words(t)) for t in object_types],
    )
    valid = form.is_valid() if form.is_bound else True
    filters = {k: v for k, v in (form.cleaned_data if form.is_bound and valid else {}).items() if v}
    events = audit_events_filtered(request.user, **filters)
    if valid and request.GET.get("format") == "csv":
        return audit_csv(events)
    page = paginate(
        events, request.GET.get("page"), per_page=PAGE_SIZE, paginator_class=AuditPaginator
    )
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "page": page,
        "query": query.urlencode(),
        "events": present(page, request.user),
        "broken": audit_chain_verify(),
    }
    return render(request, "procurement/audit_list.html", context, status=200 if valid else 400)
