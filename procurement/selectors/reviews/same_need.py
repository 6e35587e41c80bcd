"""One decision per need (issue 40, U2): the other decisions of a comparison's brief.

A brief is one need whatever its version; two comparisons of it approved side by side commit
twice for one workload. Before an approval the reviewer is told of every other comparison of
the brief's lineage that is approved (and not superseded) or part-approved, with its money,
and says whether this approval supersedes or adds to them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db.models import Exists, OuterRef, Q

from briefs.selectors import brief_versions
from procurement.models import Comparison, Review

SUPERSEDE = "supersede"
ADD = "add"


def same_need_choices() -> list[tuple[str, str]]:
    return [
        (SUPERSEDE, "supersedes the other decision (it stops being tracked)"),
        (ADD, "adds to it (both are tracked)"),
    ]


@dataclass(frozen=True, slots=True)
class OtherDecision:
    pk: int
    title: str
    status: str  # "approved" or "part-approved"
    decided_at: datetime | None
    commitment_usd: Decimal | None

    @property
    def words(self) -> str:
        money = f"USD {self.commitment_usd:,.2f}" if self.commitment_usd is not None else "no sum"
        when = f" on {self.decided_at:%Y-%m-%d}" if self.decided_at else ""
        return f"comparison {self.pk} “{self.title}”, {self.status}{when} ({money})"


def other_decisions(comparison: Comparison) -> list[OtherDecision]:
    """The brief lineage's other approved (not superseded) or part-approved comparisons."""
    approved_once = Exists(
        Review.objects.filter(comparison=OuterRef("pk"), decision=Review.Decision.APPROVE)
    )
    others = (
        Comparison.objects.filter(brief__in=[b.pk for b in brief_versions(comparison.brief)])
        .exclude(pk=comparison.pk)
        .filter(
            Q(status=Comparison.Status.APPROVED, decision_superseded_by__isnull=True)
            | Q(approved_once, status=Comparison.Status.READY)
        )
        .order_by("pk")
    )
    return [
        OtherDecision(
            c.pk,
            c.title,
            "approved" if c.status == Comparison.Status.APPROVED else "part-approved",
            c.decided_at,
            c.commitment_usd,
        )
        for c in others
    ]
