"""The audit trail as people read it: actions in words, objects named in words and linked to
their page, and a CSV of the filtered view (the page shows 50 events at a time; the export
takes the filters along).

Links are decided per reader: the user pages are the admins' only, so only admins get links
to them; a checklist answer links to its quote's checklist, read for the page's answers in
one query.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from django.http import StreamingHttpResponse

from core.models import AuditEvent
from core.roles import Role, has_role
from procurement.exports import csv_lines
from procurement.selectors.reviews.audit import checklist_answer_places
from procurement.selectors.reviews.rows import safe_reverse

CSV_MAX_ROWS = 50_000  # a filter by date narrows a bigger export
# Objects that have a page of their own, by the audit's object type (the id is the argument).
OBJECT_PAGES = {
    "procurement.comparison": "procurement:comparison-detail",
    "catalog.quote": "catalog:quote-detail",
    "catalog.rfq": "catalog:rfq-detail",
    "catalog.import": "catalog:import-job",
    "briefs.workloadbrief": "briefs:brief-detail",
    "benchmarks.benchmarkresult": "benchmarks:result-detail",
    "benchmarks.benchmarkplan": "benchmarks:plan-detail",
}
# Objects listed on a page without one of their own: the list.
OBJECT_LISTS = {
    "catalog.modelapiroute": "catalog:api-route-list",
    "catalog.fxrate": "catalog:fx-list",
    "catalog.modelprofile": "catalog:model-list",
    "accounts.provider": "catalog:provider-list",
}
ADMIN_PAGES = {"accounts.user": "accounts:user-manage", "user": "accounts:user-manage"}
CHECKLIST_ANSWER = "checklist.checklistanswer"
OBJECT_WORDS = {
    "procurement.comparison": "comparison",
    "procurement.review": "review",
    "catalog.quote": "quote",
    "catalog.rfq": "RFQ",
    "catalog.import": "price-list import",
    "catalog.modelapiroute": "model API route",
    "catalog.fxrate": "exchange rate",
    "catalog.modelprofile": "model profile",
    "catalog.calibrationentry": "calibration entry",
    "accounts.provider": "provider",
    "accounts.user": "user",
    "accounts.apitoken": "API token",
    "user": "user",
    "briefs.workloadbrief": "brief",
    "benchmarks.benchmarkresult": "benchmark result",
    "benchmarks.benchmarkplan": "benchmark plan",
    CHECKLIST_ANSWER: "checklist answer",
    "finops.billingimport": "bill import",
    "finops.reconciliation": "reconciliation",
}
ACTION_WORDS = {
    "login.ok": "Logged in",
    "login.failed": "Login refused",
    "login.link_requested": "Login link requested",
    "password.changed": "Password changed",
    "password.reset": "Password reset",
    "user.sessions_ended": "Sessions ended",
    "token.created": "API token created",
    "token.revoked": "API token revoked",
    "provider.created": "Provider added",
    "brief.created": "Brief created",
    "brief.revised": "Brief revised",
    "quote.submitted": "Quote submitted",
    "quote.revised": "Quote revised",
    "quote.revised_by_import": "Quote revised by a price-list import",
    "quote.withdrawn": "Quote withdrawn",
    "rfq.created": "RFQ sent",
    "rfq.reopened": "RFQ reopened",
    "rfq.closed": "RFQ closed",
    "rfq.viewed": "RFQ viewed by the vendor",
    "fx_rate.created": "Exchange rate entered",
    "model_profile.created": "Model profile added",
    "api_route.created": "Model API route added",
    "api_route.import_retired": "Model API route retired by an import",
    "catalog.imported": "Price list imported",
    "catalog.import_queued": "Price-list import queued",
    "catalog.import_failed": "Price-list import failed",
    "catalog.import_rejected": "Price-list import refused",
    "calibration_entry.billed_month_recorded": "Billed month recorded",
    "checklist.answer": "Checklist answered",
    "checklist.review": "Checklist answer reviewed",
    "benchmark_result.uploaded": "Benchmark uploaded",
    "benchmark_result.upload_duplicate": "Benchmark upload refused as a duplicate",
    "benchmark_result.rejected": "Benchmark upload refused",
    "benchmark_result.parsed": "Benchmark parsed",
    "benchmark_result.parse_failed": "Benchmark could not be parsed",
    "benchmark_result.model_set": "Benchmark model named",
    "benchmark_plan.created": "Benchmark plan created",
    "benchmark_plan.step_checked": "Benchmark plan step checked",
    "benchmark_plan.refreshed": "Benchmark plan refreshed",
    "comparison.create": "Comparison created",
    "comparison.computed": "Comparison computed",
    "comparison.failed": "Comparison failed",
    "comparison.retry": "Comparison retried",
    "comparison.approvals_raised": "Approvals required raised",
    "comparison.price_changed": "Price changed behind the comparison",
    "comparison.price_change_acknowledged": "Price change acknowledged",
    "comparison.price_change_notified": "Price change notices sent",
    "comparison.decided": "Comparison decided",
    "comparison.plan_approved": "Cheapest plan across offers approved",
    "comparison.exported_csv": "Comparison exported (CSV)",
    "comparison.exported_xlsx": "Comparison exported (XLSX)",
    "review.approve": "Approved",
    "review.reject": "Rejected",
    "review.request_changes": "Requested changes",
    "billing_import.created": "Bill import started",
    "billing_import.imported": "Bill imported",
    "billing_import.refused": "Bill refused",
    "actual_outputs.recorded": "Counted outputs recorded",
    "reconciliation.computed": "Month reconciled",
}


def action_words(action: str) -> str:
    """ "comparison.price_changed" → "Price changed behind the comparison"; an action without
    words of its own reads as its parts ("quote.revise" → "Quote: revise")."""
    if action in ACTION_WORDS:
        return ACTION_WORDS[action]
    if action.startswith("comparison.exported_focus_"):
        dataset = action.removeprefix("comparison.exported_focus_").replace("_", " ")
        return f"FOCUS export ({dataset})"
    head, _, tail = action.partition(".")
    head = head.replace("_", " ").capitalize()
    return f"{head}: {tail.replace('_', ' ').replace('.', ' ')}" if tail else head


def object_words(object_type: str) -> str:
    """ "catalog.quote" → "quote"; a type without words reads as its model name."""
    if object_type in OBJECT_WORDS:
        return OBJECT_WORDS[object_type]
    return object_type.rpartition(".")[2] or object_type


def object_url(
    event: AuditEvent,
    *,
    admin: bool = False,
    answer_places: dict[int, tuple[int | None, str]] | None = None,
) -> str:
    """The page of the event's object, for this reader ("" when it has none)."""
    object_type, object_id = event.object_type, event.object_id
    if object_type in OBJECT_LISTS:
        return safe_reverse(OBJECT_LISTS[object_type])
    if not object_id.isdigit():
        return ""
    if object_type in OBJECT_PAGES:
        return safe_reverse(OBJECT_PAGES[object_type], int(object_id))
    if object_type in ADMIN_PAGES:
        return safe_reverse(ADMIN_PAGES[object_type], int(object_id)) if admin else ""
    if object_type == CHECKLIST_ANSWER:
        quote_id, item = (answer_places or {}).get(int(object_id), (None, ""))
        if quote_id is None:  # a provider-wide default has no page of its own
            return ""
        return f"{safe_reverse('checklist:quote-detail', quote_id)}#item-{item}"
    return ""


def present(events: Iterable[AuditEvent], user: Any = None) -> list[AuditEvent]:
    """Attach `action_words`, `object_words` and `object_url` to each event of a page."""
    shown = list(events)
    admin = user is not None and has_role(user, Role.ADMIN)
    answer_ids = [
        int(e.object_id)
        for e in shown
        if e.object_type == CHECKLIST_ANSWER and e.object_id.isdigit()
    ]
    places = checklist_answer_places(answer_ids) if answer_ids else {}
    for event in shown:
        event.action_words = action_words(event.action)  # type: ignore[attr-defined]
        event.object_words = object_words(event.object_type)  # type: ignore[attr-defined]
        event.object_url = object_url(  # type: ignore[attr-defined]
            event, admin=admin, answer_places=places
        )
    return shown


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
    # Titles and summaries are typed by people: none may run as a spreadsheet formula.
    body = csv_lines(_rows(events[:CSV_MAX_ROWS].iterator()))
    response = StreamingHttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="audit-trail.csv"'
    return response
