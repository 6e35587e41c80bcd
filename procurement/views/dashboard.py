"""The dashboard (one per role) and the health endpoint."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from accounts.http import AuthedRequest
from briefs.access import BRIEF_WRITERS
from core.roles import Role, has_role, role_of, role_required
from procurement.selectors import dashboard as selectors_dashboard
from procurement.selectors.reviews import policy
from procurement.services import system as services_system
from procurement.views.price_notices import notices_for_dashboard
from procurement.views.review_standing import queue_blocks


def dashboard(request: AuthedRequest) -> HttpResponse:
    role = role_of(request.user)
    stamp = selectors_dashboard.tables_stamp()
    context = selectors_dashboard.dashboard_context(request.user, stamp)
    context["awaiting_decision"] = [
        c
        for c in context.get("awaiting_decision", [])
        if policy.review_refusal(request.user, c) is None
    ]
    # Said in the queue before the reviewer opens the page: "reject or request changes only".
    blocks = queue_blocks(request.user, context["awaiting_decision"])
    for c in context["awaiting_decision"]:
        c.approve_closed = blocks.get(c.pk, "")
    if role != Role.VENDOR:  # the owner, the approvers and whoever may decide
        context["price_changes"] = selectors_dashboard.per_user(
            request.user, "notices", stamp, lambda: notices_for_dashboard(request.user)
        )
    context["role"] = role
    context["can_create_brief"] = has_role(request.user, *BRIEF_WRITERS)
    context["can_probe_worker"] = role == Role.ADMIN
    return render(request, "dashboard.html", context)


@require_POST
@role_required(Role.ADMIN)
def worker_probe(request: AuthedRequest) -> HttpResponse:
    probe = services_system.worker_probe_request(acting_user=request.user)
    if getattr(probe, "sent", None) is False:
        messages.warning(
            request, "The broker is unreachable: the probe was saved but no worker was rung."
        )
    return redirect("dashboard")


@login_not_required
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """503 when this web process cannot serve pages (database, broker, static files), so a
    load balancer stops sending it users; "degraded" with 200 when only the background work
    is behind (no heartbeat from the beat through a worker, or a queue older than its limit):
    the pages still work, and taking every web process out of rotation for it would turn a
    stuck worker into a full outage. Monitoring alerts on `status` (docs/reliability.md)."""
    serving = {
        "database": services_system.database_ok(),
        "broker": services_system.broker_ok(),
        "static": services_system.static_ok(),
    }
    # The checks that read tables need the database; without it they say so instead.
    background = (
        {"workers": services_system.workers_ok(), "queues": services_system.queues_ok()}
        if serving["database"][0]
        else {"workers": (False, "unknown: no database"), "queues": (False, "unknown: no database")}
    )
    checks = {**serving, **background}
    ok = all(passed for passed, _ in checks.values())
    return JsonResponse(
        {
            "status": "ok" if ok else "degraded",
            **{name: {"ok": passed, "detail": detail} for name, (passed, detail) in checks.items()},
        },
        status=200 if all(passed for passed, _ in serving.values()) else 503,
    )
