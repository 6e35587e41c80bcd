"""Finance review of a comparison: approve, reject or request changes (four-eyes, dual approval).

Rules, all re-checked here so no view can bypass them:

- the creator of a comparison never reviews it, superusers and admins included;
- only a READY comparison is reviewed; a decided one is frozen (a recompute makes a new
  revision that supersedes it);
- whoever entered an FX rate the comparison converts with does not approve it;
- every decision carries a comment; approving a row other than the recommended one needs a
  written justification; an ineligible row cannot be approved;
- above the dual-approval threshold (`required_approvals == 2`) the comparison is approved
  once finance AND a platform engineer or security reviewer have approved the same row; the
  first approval keeps it READY ("1 of 2 approvals"); any reject or request for changes
  decides at once. Approving a non-recommended row whose own commitment is above the threshold
  raises the comparison to two approvals (the compute only weighed the recommended row);
- approving a row (or a plan) whose rows carry a named warning (estimate-only, spot for a
  real-time service, proxy evidence) needs each acknowledged (`acknowledged`, U8);
- the cheapest plan across offers is approved as a candidate too (`candidate_key="plan"`):
  its total commitment drives the threshold, its largest commitment the checklist level, and
  each vendor's part is kept on the review (`services/plan_approval.py`).

Two reviewers acting at the same moment cannot both win: the comparison row is locked with
`select_for_update` inside the transaction and status and approvals are re-read under the
lock (measured: with `atomic()` alone 40 of 40 simultaneous pairs both won). The loser gets
`Conflict` (409 in the API, a form error in HTML).
The rules the pages read as well (who may
review now, approval slots and labels) live in `selectors/reviews/policy.py`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from decimal import Decimal
from functools import partial
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from catalog.models import FxRate
from core.audit import audit_record
from core.errors import Conflict, DomainError, NotAllowed
from procurement import notifications
from procurement.models import CandidateResult, Comparison, Review
from procurement.selectors.reviews.acknowledge import acknowledgements
from procurement.selectors.reviews.plan import PLAN_KEY, PlanDecision
from procurement.selectors.reviews.policy import (
    DECIDED_STATUSES,
    FINANCE_SLOT,
    SECOND_SLOT,
    STATUS_AFTER,
    approval_slot,
    approvals_label,
    review_refusal,
    row_commitment_usd,
)
from procurement.selectors.reviews.same_need import (
    ADD,
    SUPERSEDE,
    OtherDecision,
    other_decisions,
)
from procurement.services.integrity import changes_since_compute, refuse_changed
from procurement.services.plan_approval import (
    plan_for_approval,
    plan_summary,
    raise_to_two_approvals,
    record_plan_parts,
    require_dual_for_plan,
    same_subject_as,
)

if TYPE_CHECKING:
    from accounts.models import User

COMMENT_MAX = 5000


def _check_shape(decision: str, comment: str) -> None:
    if decision not in Review.Decision.values:
        raise DomainError(
            "Choose approve, reject or request changes.",
            fields={"decision": [f"Unknown decision {decision!r}."]},
        )
    if not comment.strip():
        raise DomainError(
            "Every decision needs a comment.",
            fields={"comment": ["Write a comment: what you checked and why you decided."]},
        )
    if len(comment) > COMMENT_MAX:
        raise DomainError(
            f"The comment is longer than {COMMENT_MAX} characters.",
            fields={"comment": [f"At most {COMMENT_MAX} characters."]},
        )


def _refuse(user: User, comparison: Comparison) -> None:
    """Raise the right error when `review_refusal` says no (409 when someone decided first)."""
    reason = review_refusal(user, comparison)
    if reason is None:
        return
    if comparison.created_by_id == getattr(user, "id", None):
        raise NotAllowed(reason)
    if comparison.status in DECIDED_STATUSES:
        raise Conflict(reason)
    if comparison.status != Comparison.Status.READY:
        raise DomainError(reason, fields={"comparison": [reason]})
    raise NotAllowed(reason)


def _candidate_for(
    comparison: Comparison, decision: str, candidate_key: str | None, justification: str
) -> CandidateResult | None:
    """The row an approval is for (the recommended one by default), with its rules."""
    if decision != Review.Decision.APPROVE and not candidate_key:
        return None
    key = candidate_key or comparison.recommended_key
    if not key:
        raise DomainError(
            "This comparison has no recommended row: choose the candidate you approve.",
            fields={"candidate": ["Choose a candidate."]},
        )
    candidate = comparison.candidates.filter(key=key).first()
    if candidate is None:
        raise DomainError(
            f"No candidate {key!r} in this comparison.",
            fields={"candidate": [f"Unknown candidate {key!r}."]},
        )
    if decision != Review.Decision.APPROVE:
        return candidate
    if not candidate.eligible:
        raise DomainError(
            f"{candidate.label} is not eligible ({'; '.join(candidate.reasons) or 'see its row'}),"
            " so it cannot be approved.",
            fields={"candidate": ["An ineligible candidate cannot be approved."]},
        )
    if key != comparison.recommended_key and not justification.strip():
        raise DomainError(
            "Approving a candidate other than the recommended one needs a written justification.",
            fields={"justification": ["Explain why this row rather than the recommended one."]},
        )
    return candidate


def _check_approval_slot(
    comparison: Comparison, user: User, candidate: CandidateResult | None, *, approves_plan: bool
) -> int:
    """For dual approval: the reviewer fills the missing slot, for the same row (or the same
    plan). Returns the number of approvals already given."""
    approvals = list(
        comparison.reviews.filter(decision=Review.Decision.APPROVE).select_related("candidate")
    )
    slot = approval_slot(str(user.role))
    for earlier in approvals:
        if approval_slot(earlier.reviewer_role) == slot:
            raise Conflict(
                f"The {slot} approval was already given by {earlier.reviewer}; the other "
                f"approval must come from a "
                f"{SECOND_SLOT if slot == FINANCE_SLOT else FINANCE_SLOT} reviewer.",
            )
        other = same_subject_as(
            earlier,
            approves_plan=approves_plan,
            candidate_id=candidate.pk if candidate is not None else None,
        )
        if other:
            raise DomainError(
                f"The first approval is for {other}; approve that, or reject or request changes.",
                fields={"candidate": [f"The first approval chose {other}."]},
            )
    return len(approvals)


def _require_dual_for_row(comparison: Comparison, user: User, candidate: CandidateResult) -> None:
    """Raise `required_approvals` to 2 when the approved row, not the recommended one, commits
    more than the threshold: the compute set the number from the recommended row
    only, so approving a dearer contract through "another row" would have dodged dual approval.
    Called under the comparison's row lock; the number never goes down."""
    if comparison.required_approvals > 1 or candidate.key == comparison.recommended_key:
        return
    commitment = row_commitment_usd(candidate)
    threshold = Decimal(settings.DUAL_APPROVAL_THRESHOLD_USD)
    if commitment is None or commitment <= threshold:
        return
    raise_to_two_approvals(
        comparison,
        user,
        candidate=candidate.key,
        commitment_usd=str(commitment),
        threshold_usd=str(threshold),
    )


def fx_rates_entered_by(comparison: Comparison, user: User) -> list[str]:
    """The FX rates frozen in this comparison that `user` entered (whoever sets a rate
    does not also approve the money converted with it), as "1 JPY = … (as of)"."""
    used = Q()
    for currency, rate in (comparison.shown_snapshot_facts().get("fx_rates") or {}).items():
        if isinstance(rate, dict) and rate.get("as_of"):
            used |= Q(currency=currency, as_of=rate["as_of"])
    if not used:
        return []
    return [str(rate) for rate in FxRate.objects.filter(used, entered_by_id=user.pk)]


@transaction.atomic
def review_submit(
    *,
    acting_user: User,
    comparison: Comparison,
    decision: str,
    comment: str,
    candidate_key: str | None = None,
    justification: str = "",
    same_need: str = "",
    acknowledged: Collection[str] = (),
) -> Review:
    """Record one reviewer's decision and move the comparison on. See the module docstring.

    ``same_need`` ("supersede" or "add") answers, for an approval, what it does to the other
    approved or part-approved comparisons of the same brief (asked with a 409 otherwise);
    ``acknowledged`` the codes of the named warnings the approver accepts (400 naming those
    missing)."""
    _check_shape(decision, comment)
    _refuse(acting_user, comparison)  # early, clear answer before taking the lock
    locked = Comparison.objects.select_for_update().get(pk=comparison.pk)
    _refuse(acting_user, locked)  # re-checked under the lock: someone may have decided
    if locked.reviews.filter(reviewer=acting_user).exists():
        raise Conflict("You already reviewed this comparison; a review is never edited.")
    approving_plan = decision == Review.Decision.APPROVE and candidate_key == PLAN_KEY
    row_key = None if candidate_key == PLAN_KEY else candidate_key
    candidate = None if approving_plan else _candidate_for(locked, decision, row_key, justification)
    before = {"status": locked.status}
    given = 0
    plan: PlanDecision | None = None
    others: list[OtherDecision] = []
    accepted: list[str] = []
    if decision == Review.Decision.APPROVE:
        others = _same_need(locked, same_need)
        if approving_plan:
            plan = plan_for_approval(locked, justification)
            subject = [part.candidate for part in plan.parts if part.candidate is not None]
        else:
            assert candidate is not None  # noqa: S101 - a row approval always names a row
            refuse_changed(changes_since_compute(locked, candidate))
            _refuse_expired(candidate)
            subject = [candidate]
        accepted = _acknowledged(subject, acknowledged)
        if entered := fx_rates_entered_by(locked, acting_user):
            raise NotAllowed(
                f"You entered the FX rate{'s' if len(entered) > 1 else ''} this comparison "
                f"converts prices with ({'; '.join(entered)}), so another reviewer must "
                "approve it (separation of duties); you may still reject it or request changes."
            )
        if plan is not None:
            require_dual_for_plan(locked, acting_user, plan)
        elif candidate is not None:
            _require_dual_for_row(locked, acting_user, candidate)
        if locked.required_approvals > 1:
            given = _check_approval_slot(
                locked, acting_user, candidate, approves_plan=approving_plan
            )
    try:
        with transaction.atomic():
            review = Review.objects.create(
                comparison=locked,
                comparison_creator_id=locked.created_by_id,
                reviewer=acting_user,
                reviewer_role=str(acting_user.role),
                decision=decision,
                candidate=candidate,
                comment=comment.strip(),
                justification=justification.strip(),
                approves_plan=plan is not None,
            )
            if plan is not None:
                record_plan_parts(review, plan)
    except IntegrityError as exc:  # the DB backstops: four-eyes, one review per reviewer
        raise Conflict("This review conflicts with an existing one; reload the page.") from exc
    new_status = STATUS_AFTER.get(decision)
    if decision == Review.Decision.APPROVE and given + 1 >= locked.required_approvals:
        new_status = Comparison.Status.APPROVED
    audit_record(
        actor=acting_user,
        action=f"review.{decision}",
        obj=review,
        summary={
            "comparison": locked.pk,
            "candidate": PLAN_KEY if plan is not None else (candidate.key if candidate else None),
            "approvals": approvals_label(locked, given + 1)
            if decision == Review.Decision.APPROVE
            else None,
            "justification": bool(review.justification),
            **({"acknowledged": accepted} if accepted else {}),
            **({"plan": plan_summary(plan)} if plan is not None else {}),
            **({"same_need": same_need, "others": [o.pk for o in others]} if others else {}),
        },
    )
    if new_status is not None:
        _decide(locked, acting_user, review, before, new_status, given, plan)
        if new_status == Comparison.Status.APPROVED and same_need == SUPERSEDE:
            _supersede(locked, acting_user, others)
    elif decision == Review.Decision.APPROVE:
        transaction.on_commit(partial(notifications.notify_approval_needed, locked, review))
    comparison.refresh_from_db()
    return review


def _acknowledged(rows: Sequence[CandidateResult], acknowledged: Collection[str]) -> list[str]:
    """The named warnings of what is approved, each acknowledged, or a 400 naming those
    missing (U8); returns the codes acknowledged, for the audit trail."""
    needed = acknowledgements(rows)
    missing = [a for a in needed if a.code not in set(acknowledged)]
    if missing:
        raise DomainError(
            "Approving this needs each warning acknowledged: "
            + "; ".join(a.words for a in missing)
            + ".",
            fields={"acknowledge": [f"{a.code}: {a.words}" for a in missing]},
        )
    return [a.code for a in needed]


def _same_need(comparison: Comparison, same_need: str) -> list[OtherDecision]:
    """The brief's other decisions; an approval must say whether it supersedes or adds to them
    before anything is recorded (U2: two contradictory decisions for one need)."""
    others = other_decisions(comparison)
    if others and same_need not in (SUPERSEDE, ADD):
        listed = "; ".join(o.words for o in others)
        raise Conflict(
            f"The same brief already has {listed}. Say whether approving this comparison "
            "supersedes it (it stops being tracked) or adds to it.",
            fields={"same_need": ["Choose whether this approval supersedes or adds."]},
        )
    return others


def _supersede(comparison: Comparison, user: User, others: list[OtherDecision]) -> None:
    approved = [o.pk for o in others if o.status == "approved"]
    if not approved:
        return
    now = timezone.now()
    Comparison.objects.filter(pk__in=approved, decision_superseded_by__isnull=True).update(
        decision_superseded_by=comparison, decision_superseded_at=now
    )
    for pk in approved:
        audit_record(
            actor=user,
            action="comparison.decision_superseded",
            object_type="procurement.comparison",
            object_id=str(pk),
            summary={"superseded_by": comparison.pk},
        )


def _refuse_expired(candidate: CandidateResult) -> None:
    """P19: a price past its ``valid_until`` can no longer be bought, whatever it was when
    the comparison was computed."""
    valid_until = (candidate.detail or {}).get("valid_until")
    if not valid_until or datetime.fromisoformat(valid_until) >= timezone.now():
        return
    raise Conflict(
        f"The price of {candidate.label} expired on {datetime.fromisoformat(valid_until):%Y-%m-%d}"
        " (valid until), so it can no longer be bought. Ask the vendor to re-confirm it by a new "
        "revision of the quote, then recompute the comparison."
    )


def _decide(
    comparison: Comparison,
    user: User,
    review: Review,
    before: dict[str, str],
    status: str,
    given: int,
    plan: PlanDecision | None = None,
) -> None:
    comparison.status = status
    comparison.decided_at = timezone.now()
    comparison.save(update_fields=["status", "decided_at"])
    after: dict[str, str | None] = {"status": status}
    if status == Comparison.Status.APPROVED:
        after["approvals"] = approvals_label(comparison, given + 1)
        after["candidate"] = review.candidate.key if review.candidate else None
        if plan is not None:
            after["candidate"] = PLAN_KEY
    audit_record(
        actor=user,
        action="comparison.decided",
        obj=comparison,
        summary={"before": before, "after": after, "review": review.pk},
    )
    if status == Comparison.Status.APPROVED and plan is not None:
        audit_record(
            actor=user,
            action="comparison.plan_approved",
            obj=comparison,
            summary={"review": review.pk, **plan_summary(plan)},
        )
    transaction.on_commit(partial(notifications.notify_comparison_decided, comparison, review))
