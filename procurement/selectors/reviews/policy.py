"""The review rules that both sides read: who may review a comparison now and why not, which
approval slot a reviewer fills, how approvals are counted and labelled, and a row's stated
commitment.

`services/reviews.py` enforces these rules under the comparison's row lock; the review page,
the dashboard and the API read them to say what the user may do and where the comparison
stands. One module, so a page can never say "you may approve" where the service refuses.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from core.roles import Role
from procurement import access
from procurement.models import CandidateResult, Comparison, Review
from procurement.selectors.reviews.commitment import row_commitment

if TYPE_CHECKING:
    from accounts.models import User

STATUS_AFTER: dict[str, str] = {
    Review.Decision.REJECT: Comparison.Status.REJECTED,
    Review.Decision.REQUEST_CHANGES: Comparison.Status.CHANGES_REQUESTED,
}
DECIDED_STATUSES = frozenset({Comparison.Status.APPROVED, *STATUS_AFTER.values()})
FINANCE_SLOT = "finance"
SECOND_SLOT = "platform or security"


def approval_slot(role: str) -> str:
    """Which of the two required approvals a reviewer's role fills."""
    return FINANCE_SLOT if role == Role.FINANCE_REVIEWER else SECOND_SLOT


def approvals_label(comparison: Comparison, approvals: int) -> str:
    return f"{approvals} of {comparison.required_approvals} approvals"


def approvals_recorded(comparison: Comparison) -> int:
    """How many approvals the comparison holds now (one query)."""
    return comparison.reviews.filter(decision=Review.Decision.APPROVE).count()


def review_refusal(user: User, comparison: Comparison) -> str | None:
    """Why this user may not review this comparison now, in words; None when they may."""
    if comparison.created_by_id == getattr(user, "id", None):
        return "You created this comparison, so someone else must review it (four-eyes rule)."
    if comparison.status in DECIDED_STATUSES:
        return (
            f"This comparison is already {comparison.get_status_display().lower()}; "
            "it is frozen. Recompute it as a new revision to review again."
        )
    if comparison.status != Comparison.Status.READY:
        return (
            f"This comparison is {comparison.get_status_display().lower()}, not ready for review."
        )
    if not access.can_review(user, comparison):
        if comparison.required_approvals > 1:
            return "Only finance, platform engineering and security reviewers review this one."
        return "Only finance reviewers review comparisons."
    return None


def row_commitment_usd(candidate: CandidateResult) -> Decimal | None:
    """The commitment the engine stated for this row, or None."""
    found = row_commitment(candidate.detail)
    return found.commitment_usd if found is not None else None
