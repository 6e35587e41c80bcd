"""What each role sees first on the dashboard: its own queue of work."""

from __future__ import annotations

from typing import Any

from benchmarks import access as benchmarks_access
from briefs import access as briefs_access
from catalog import access as catalog_access
from core.roles import Role, role_of
from procurement import access
from procurement.models import Comparison, WorkerProbe

AWAITING_LIMIT = 20


def awaiting_decision(user: Any, comparisons: Any) -> list[Comparison]:
    """U25: the ready comparisons this user did not create and has not reviewed, oldest
    first (the one waiting longest is next); the view keeps those the user may decide."""
    ready = (
        comparisons.filter(status=Comparison.Status.READY)
        .exclude(created_by=user)
        .exclude(reviews__reviewer=user)
        .select_related("brief", "created_by")
        .order_by("finished_at", "pk")
    )
    return list(ready[:AWAITING_LIMIT])


def dashboard_context(user: Any) -> dict[str, Any]:
    role = role_of(user)
    ctx: dict[str, Any] = {"cards": []}
    if role == Role.VENDOR:
        rfqs = catalog_access.rfqs_for(user)
        quotes = catalog_access.quotes_for(user)
        ctx["cards"] = [
            {
                "label": "Open RFQs for you",
                "value": rfqs.filter(status="open").count(),
                "url": "/vendor/",
            },
            {
                "label": "Your quotes (current)",
                "value": quotes.current().count(),
                "url": "/vendor/",
            },
        ]
        return ctx
    comparisons = access.comparisons_for(user)
    quotes = catalog_access.quotes_for(user)
    ctx["cards"] = [
        {
            "label": "Workload briefs",
            "value": briefs_access.briefs_for(user).count(),
            "url": "/briefs/",
        },
        {"label": "Current quotes", "value": quotes.current().count(), "url": "/catalog/quotes/"},
        {
            "label": "Stale quotes",
            "value": quotes.current().stale().count(),
            "url": "/catalog/quotes/?stale=1",
        },
        {
            "label": "Awaiting review",
            "value": comparisons.filter(status=Comparison.Status.READY).count(),
            "url": "/comparisons/?status=ready",
        },
        {
            "label": "Benchmark results",
            "value": benchmarks_access.results_for(user).count(),
            "url": "/benchmarks/",
        },
    ]
    ctx["awaiting_decision"] = awaiting_decision(user, comparisons)
    ctx["recent_comparisons"] = list(comparisons.order_by("-created_at")[:8])
    if role == Role.ADMIN:
        ctx["probes"] = list(WorkerProbe.objects.order_by("-requested_at")[:5])
    return ctx
