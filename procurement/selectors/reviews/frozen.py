"""The evidence a comparison froze, and what arrived after it was computed (record drift).

A decision record shows the evidence as it stood when the comparison was computed: the
benchmark results in its snapshot, the quote versions its rows name and the checklist
summaries copied into its rows. Anything newer (a result uploaded later, a revised quote, a
checklist answer given later) is listed apart, as "new since this comparison was computed",
so a reviewer sees it without mistaking it for what the numbers rest on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db.models import Q
from django.utils.dateparse import parse_datetime

from benchmarks import access as benchmarks_access
from catalog.models import Quote
from checklist.models import ChecklistAnswer
from procurement.models import CandidateResult, Comparison
from procurement.snapshot.evidence import result_ids_in
from procurement.snapshot.upgrade import upgrade

if TYPE_CHECKING:
    from accounts.models import User

NEW_SINCE_LIMIT = 50


def frozen_result_ids(comparison: Comparison) -> set[int]:
    """The results frozen in the snapshot. Read from the small facts field; a comparison
    written before the facts carried them reads only the snapshot's "measured" part."""
    facts = comparison.snapshot_facts or {}
    if "evidence_result_ids" in facts:
        return {int(i) for i in facts["evidence_result_ids"]}
    stored = Comparison.objects.filter(pk=comparison.pk).values_list("snapshot", flat=True).first()
    if not isinstance(stored, dict):
        return set()
    return set(result_ids_in(upgrade(stored)["measured"]))


def computed_at(comparison: Comparison) -> datetime | None:
    """When the inputs were frozen (the snapshot's as_of), else when the row was created."""
    raw = comparison.shown_snapshot_facts().get("as_of")
    parsed = parse_datetime(raw) if isinstance(raw, str) else None
    return parsed or comparison.created_at


@dataclass
class NewSince:
    """Evidence that arrived after the comparison was computed; none of it is in the numbers."""

    computed_at: datetime | None
    results: list[dict[str, Any]] = field(default_factory=list)
    quote_versions: list[dict[str, Any]] = field(default_factory=list)
    checklist_answers: list[dict[str, Any]] = field(default_factory=list)
    # What the recommended row's approval rests on that moved (services.integrity): an
    # approval is refused (409) until a recompute, so the reviewer reads it before trying.
    changes: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.results or self.quote_versions or self.checklist_answers or self.changes)

    def export_rows(self) -> list[dict[str, Any]]:
        """Flat rows for the exports: kind, what, when (UTC, to the minute)."""
        rows = [
            {"kind": "benchmark result", "what": f"#{r['id']} {r['name']}", "when": r["created_at"]}
            for r in self.results
        ]
        rows += [
            {"kind": "quote version", "what": q["label"], "when": q["created_at"]}
            for q in self.quote_versions
        ]
        rows += [
            {"kind": "checklist answer", "what": a["label"], "when": a["answered_at"]}
            for a in self.checklist_answers
        ]
        dated = [{**r, "when": f"{r['when']:%Y-%m-%d %H:%M}"} for r in rows]
        return dated + [
            {"kind": "changed since compute", "what": c, "when": ""} for c in self.changes
        ]


def _quote_ids(rows: Iterable[CandidateResult]) -> list[int]:
    return sorted({r.quote_id for r in rows if r.quote_id})


def _new_results(
    user: User, comparison: Comparison, rows: Sequence[CandidateResult], since: datetime
) -> list[dict[str, Any]]:
    quote_ids = _quote_ids(rows)
    accelerator_ids = sorted({r.quote.accelerator_id for r in rows if r.quote is not None})
    if not quote_ids and not accelerator_ids:
        return []
    results = (
        benchmarks_access.results_for(user)
        .filter(Q(quote_id__in=quote_ids) | Q(accelerator_id__in=accelerator_ids))
        .filter(Q(brief_id=comparison.brief_id) | Q(brief__isnull=True))
        .filter(Q(created_at__gt=since) | Q(parsed_at__gt=since))
        .exclude(pk__in=frozen_result_ids(comparison))
        .select_related("accelerator")
        .order_by("created_at", "id")[:NEW_SINCE_LIMIT]
    )
    return [
        {
            "id": r.pk,
            "name": r.original_name,
            "model": r.model_name,
            "accelerator": str(r.accelerator),
            "status": r.get_status_display(),
            "created_at": r.created_at,
            "url": r.get_absolute_url(),
        }
        for r in results
    ]


def _new_quote_versions(rows: Sequence[CandidateResult]) -> list[dict[str, Any]]:
    used = {r.quote_id: r.quote.version for r in rows if r.quote is not None}
    if not used:
        return []
    successors = Quote.objects.filter(supersedes_id__in=list(used)).select_related(
        "provider", "accelerator"
    )
    return [
        {
            "label": f"{q.provider} · {q.accelerator} v{q.version}"
            + (" withdrawn" if q.status == Quote.Status.WITHDRAWN else "")
            + f" (the comparison used v{used.get(q.supersedes_id or 0, '?')})",
            "created_at": q.created_at,
            "url": q.get_absolute_url(),
        }
        for q in successors.order_by("created_at")[:NEW_SINCE_LIMIT]
        if q.supersedes_id is not None
    ]


def _new_answers(rows: Sequence[CandidateResult], since: datetime) -> list[dict[str, Any]]:
    quote_ids = _quote_ids(rows)
    providers = sorted({r.quote.provider_id for r in rows if r.quote is not None})
    if not quote_ids:
        return []
    answers = (
        ChecklistAnswer.objects.filter(answered_at__gt=since)
        .filter(Q(quote_id__in=quote_ids) | Q(quote__isnull=True, provider_id__in=providers))
        .select_related("provider", "item")
        .order_by("answered_at")[:NEW_SINCE_LIMIT]
    )
    return [
        {
            "label": f"{a.provider}: {a.item.code} = {a.get_status_display()}"
            + (f" (quote #{a.quote_id})" if a.quote_id else " (provider default)"),
            "answered_at": a.answered_at,
        }
        for a in answers
    ]


def new_since(
    user: User,
    comparison: Comparison,
    rows: Sequence[CandidateResult],
    *,
    changes: Sequence[str] = (),
) -> NewSince:
    """Evidence that arrived after the comparison was computed (a few queries, capped), with
    `changes`: what the approval of the recommended row rests on that moved since."""
    since = computed_at(comparison)
    if since is None:
        return NewSince(computed_at=None, changes=list(changes))
    return NewSince(
        computed_at=since,
        results=_new_results(user, comparison, rows, since),
        quote_versions=_new_quote_versions(rows),
        checklist_answers=_new_answers(rows, since),
        changes=list(changes),
    )
