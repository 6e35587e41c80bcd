"""What a reviewer may do on a comparison, said before they act.

The review service re-checks every rule when a decision is submitted; this module only reads
the same rules ahead of time so the decision bar and the dashboard queue can say, from the
first visit, "you may reject or request changes" with the reason, disable Approve, and, once
the reviewer has decided, show their decision instead of a form.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from accounts.models import User as UserModel
from catalog.models import FxRate
from core.roles import Role
from procurement.access import SECOND_APPROVER_ROLES
from procurement.models import Comparison, Review
from procurement.selectors.reviews import policy
from procurement.services import reviews as services_reviews

if TYPE_CHECKING:
    from accounts.models import User

DECISION_PAST: dict[str, str] = {
    Review.Decision.APPROVE.value: "approved",
    Review.Decision.REJECT.value: "rejected",
    Review.Decision.REQUEST_CHANGES.value: "requested changes",
}


@dataclass(frozen=True, slots=True)
class Standing:
    """`may_decide`: the decision form is shown; `may_approve`: its Approve choice is open.
    `headline` titles the decision bar; `reason` says why something is closed (or, after the
    reviewer's own decision, what happens next)."""

    may_decide: bool
    may_approve: bool
    headline: str
    reason: str
    own_review: Review | None = None

    @property
    def approve_only_closed(self) -> bool:
        return self.may_decide and not self.may_approve


def _others_who_may_approve(user: User, comparison: Comparison, slot: str) -> list[str]:
    """Usernames of the active reviewers who could give this approval instead (at most 3)."""
    roles = {Role.FINANCE_REVIEWER} if slot == policy.FINANCE_SLOT else SECOND_APPROVER_ROLES
    people = (
        UserModel.objects.filter(role__in=roles, is_active=True)
        .exclude(pk__in=[user.pk, comparison.created_by_id])
        .order_by("username")
        .values_list("username", flat=True)
    )
    return list(people[:3])


def approve_block(
    user: User,
    comparison: Comparison,
    approvals: Iterable[tuple[str, str]],
    *,
    entered_fx: Sequence[str] = (),
) -> str | None:
    """Why this reviewer may not approve although they may decide, or None.

    `approvals` are (reviewer role, reviewer username) of the approvals already given;
    `entered_fx` the FX rates of this comparison that the reviewer entered.
    """
    slot = policy.approval_slot(str(getattr(user, "role", "")))
    if entered_fx:
        who = _others_who_may_approve(user, comparison, slot)
        rates = "s" if len(entered_fx) > 1 else ""
        return (
            f"You entered the FX rate{rates} this comparison converts prices with "
            f"({'; '.join(entered_fx)}): you may reject or request changes; another "
            f"{slot} reviewer{' (' + ', '.join(who) + ')' if who else ''} must approve it "
            "(separation of duties)."
        )
    if comparison.required_approvals > 1:
        for role, username in approvals:
            if policy.approval_slot(role) == slot:
                other = policy.SECOND_SLOT if slot == policy.FINANCE_SLOT else policy.FINANCE_SLOT
                return (
                    f"The {slot} approval was already given by {username}: you may reject or "
                    f"request changes; the other approval must come from a {other} reviewer."
                )
    return None


def reviewer_standing(
    user: User, comparison: Comparison, reviews: Sequence[Review], *, next_reviewer: str
) -> Standing:
    """What `user` may do on `comparison` now, given its reviews (oldest first)."""
    own = next((r for r in reviews if r.reviewer_id == getattr(user, "pk", None)), None)
    if own is not None:
        when = own.created_at.strftime("%Y-%m-%d %H:%M")
        if comparison.status == Comparison.Status.READY:
            after = f"waiting for {next_reviewer}"
        else:
            after = f"the comparison is {comparison.get_status_display().lower()}"
        verb = DECISION_PAST.get(own.decision, own.decision)
        return Standing(False, False, f"You {verb} on {when} UTC", after, own)
    refusal = policy.review_refusal(user, comparison)
    if refusal is not None:
        return Standing(False, False, "Decision", refusal)
    approvals = [
        (r.reviewer_role, r.reviewer.username)
        for r in reviews
        if r.decision == Review.Decision.APPROVE
    ]
    blocked = approve_block(
        user,
        comparison,
        approvals,
        entered_fx=services_reviews.fx_rates_entered_by(comparison, user),
    )
    if blocked is not None:
        return Standing(True, False, "You may reject or request changes", blocked)
    return Standing(True, True, "Your decision is needed", "")


def queue_blocks(user: User, comparisons: Sequence[Any]) -> dict[int, str]:
    """For the dashboard queue: the comparisons this user may decide but not approve, with
    the reason, by comparison id (one query for the approvals, FX read only for users who
    entered a rate)."""
    if not comparisons:
        return {}
    ids = [c.pk for c in comparisons]
    approvals: dict[int, list[tuple[str, str]]] = {}
    for comparison_id, role, username in Review.objects.filter(
        comparison_id__in=ids, decision=Review.Decision.APPROVE
    ).values_list("comparison_id", "reviewer_role", "reviewer__username"):
        approvals.setdefault(comparison_id, []).append((role, username))
    enters_fx = FxRate.objects.filter(entered_by_id=getattr(user, "pk", None)).exists()
    blocks: dict[int, str] = {}
    for comparison in comparisons:
        entered = services_reviews.fx_rates_entered_by(comparison, user) if enters_fx else []
        reason = approve_block(
            user, comparison, approvals.get(comparison.pk, []), entered_fx=entered
        )
        if reason is not None:
            blocks[comparison.pk] = reason
    return blocks
