"""The audit trail as people read it: actions in words, objects linked, and a CSV of the
filtered view (the page shows 50 events at a time; the export takes the filters along)."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from typing import Any

from django.http import StreamingHttpResponse
from django.urls import NoReverseMatch, reverse

from core.models import AuditEvent

CSV_MAX_ROWS = 50_000  # a filter by date narrows a bigger export
# Objects that have a page of their own, by the audit's object type.
OBJECT_PAGES = {
    "procurement.comparison": "procurement:comparison-detail",
    "catalog.quote": "catalog:quote-detail",
    "catalog.rfq": "catalog:rfq-detail",
    "briefs.workloadbrief": "briefs:brief-detail",
}
ACTION_WORDS = {
    "login.ok": "Logged in",
    "login.failed": "Login refused",
    "comparison.price_changed": "Price changed behind the comparison",
    "comparison.price_change_acknowledged": "Price change acknowledged",
    "comparison.decided": "Comparison decided",
    "comparison.plan_approved": "Cheapest plan across offers approved",
    "comparison.approvals_raised": "Second approval required",
    "review.approve": "Approved",
    "review.reject": "Rejected",
    "review.request_changes": "Requested changes",
    "checklist.review": "Checklist answer reviewed",
    "rfq.viewed": "RFQ viewed by the vendor",
}


def action_words(action: str) -> str:
    """ "comparison.price_changed" → "Price changed behind the comparison"; an action without
    words of its own reads as its parts ("quote.revise" → "Quote: revise")."""
    if action in ACTION_WORDS:
        return ACTION_WORDS[action]
    head, _, tail = action.partition(".")
    head = head.replace("_", " ").capitalize()
    return f"{head}: {tail.replace('_', ' ').replace('.', ' ')}" if tail else head


def object_url(event: AuditEvent) -> str:
    name = OBJECT_PAGES.get(event.object_type)
    if name is None or not event.object_id.isdigit():
        return ""
    try:
        return reverse(name, args=[int(event.object_id)])
    except NoReverseMatch:
        return ""


def present(events: Iterable[AuditEvent]) -> list[AuditEvent]:
    """Attach `action_words` and `object_url` to each event of a page."""
    shown = list(events)
    for event in shown:
        event.action_words = action_words(event.action)  # type: ignore[attr-defined]
        event.object_url = object_url(event)  # type: ignore[attr-defined]
    return shown


class _Echo:
    def write(self, value: str) -> str:
        return value


def _rows(events: Iterable[AuditEvent]) -> Iterator[list[Any]]:
    yield [
        "time_utc",
        "actor",
        "action",
        "action_code",
        "object_type",
        "object_id",
        "object",
        "summary",
        "outcome",
    ]
    for e in events:
        summary = "; ".join(f"{k}: {v}" for k, v in (e.summary or {}).items())
        yield [
            e.created_at.strftime("%Y-%m-%d %H:%M:%S"),
            e.actor_name,
            action_words(e.action),
            e.action,
            e.object_type,
            e.object_id,
            e.object_repr,
            summary,
            e.outcome,
        ]


def audit_csv(events: Any) -> StreamingHttpResponse:
    writer = csv.writer(_Echo())
    body = (writer.writerow(row) for row in _rows(events[:CSV_MAX_ROWS].iterator()))
    response = StreamingHttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="audit-trail.csv"'
    return response
