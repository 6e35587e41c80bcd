"""What changed since a comparison was computed, among the things an approval relies on.

A finance approval awards one row: its quote version (or API route), the checklist answers
that made it eligible and the RFQ it answered. If any of these moved after the compute — the
vendor revised or withdrew the quote, a checklist answer changed, the RFQ was reopened — the
approval would rest on figures nobody computed. `review_submit` refuses it (409) and says what
changed; a recompute makes a new revision from the current offers.
"""

from __future__ import annotations

from typing import Any

from catalog.models import Quote
from catalog.selectors import quote_latest_version
from checklist.selectors import quote_checklist_summaries
from core.errors import Conflict
from procurement.models import CandidateResult, Comparison


def _comparable(summary: dict[str, Any] | None) -> Any:
    """The parts of a checklist summary that decide eligibility (not timestamps or wording)."""
    if not summary:
        return None
    return {k: v for k, v in summary.items() if k not in {"checked_at", "generated_at"}}


def changes_since_compute(comparison: Comparison, candidate: CandidateResult) -> list[str]:
    """Plain sentences, one per change; empty when the row still stands as computed."""
    changes: list[str] = []
    if Comparison.objects.filter(supersedes_id=comparison.pk).exists():
        changes.append("A newer revision of this comparison exists; review that one.")
    quote = candidate.quote
    if quote is not None:
        latest = quote_latest_version(quote)  # one query over the lineage
        if latest.pk != quote.pk:
            if latest.status == Quote.Status.WITHDRAWN:
                changes.append(f"Quote #{quote.pk} ({quote}) was withdrawn by its provider.")
            else:
                changes.append(
                    f"Quote #{quote.pk} ({quote}) was revised: version {latest.version} "
                    f"(#{latest.pk}) now stands at {latest.price_per_gpu_hour} "
                    f"{latest.currency} per GPU-hour."
                )
        rfq = quote.rfq
        finished = comparison.finished_at
        if rfq is not None and rfq.reopened_at and finished and rfq.reopened_at > finished:
            changes.append(f"The RFQ “{rfq}” was reopened after the comparison was computed.")
        frozen = ((comparison.snapshot or {}).get("checklist") or {}).get(str(quote.pk))
        now = quote_checklist_summaries([quote]).get(quote.pk)
        if frozen is not None and _comparable(frozen) != _comparable(now):
            changes.append(f"Checklist answers for quote #{quote.pk} changed since the compute.")
    route = candidate.api_route
    if route is not None and not route.is_active:
        changes.append(f"API route {route} is no longer offered.")
    return changes


def refuse_changed(changes: list[str]) -> None:
    """The 409 an approval gets while something it relies on moved since the compute."""
    if changes:
        raise Conflict(
            "What this approval relies on changed since the compute: "
            + " ".join(changes)
            + " Recompute the comparison to review the current offers."
        )
