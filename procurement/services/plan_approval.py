"""Approving the cheapest plan across offers instead of one row (`services.reviews` calls these
under the comparison's row lock; the rules are read from `selectors/reviews/plan.py`).

- an infeasible or absent plan is refused with its reason;
- approving the plan rather than the recommended row needs a written justification, as any
  other row does, unless the plan costs less a month than that row (P14);
- every vendor's part must still stand as computed (`integrity.changes_since_compute` on each
  part's row: no revised or withdrawn quote, no changed checklist answer, no reopened RFQ);
- each part's quote must be complete at the plan's checklist level (that of its largest
  commitment) or its own when that asks more;
- a total commitment above the threshold raises the comparison to two approvals, though each
  part be below it (audited, never lowered); both approvals must then be for the plan;
- the approval keeps each vendor's part as the reviewer saw it (`PlanPart`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.audit import audit_record
from core.errors import DomainError
from procurement.charts_plan import plan_noun
from procurement.models import Comparison, PlanPart, Review
from procurement.selectors.reviews.plan import (
    PlanDecision,
    plan_decision,
    plan_refusal,
    stored_plan,
)
from procurement.services.integrity import changes_since_compute, refuse_changed

if TYPE_CHECKING:
    from accounts.models import User


def plan_changes(comparison: Comparison, decision: PlanDecision) -> list[str]:
    """What moved behind any vendor part since the compute (the sentences the 409 gives)."""
    changes: list[str] = []
    for part in decision.parts:
        if part.candidate is None:
            changes.append(f"{part.label} is no longer a row of this comparison.")
            continue
        found = changes_since_compute(comparison, part.candidate)
        changes += [c for c in found if c not in changes]
    return changes


def _cheaper_than_the_row(comparison: Comparison, decision: PlanDecision) -> bool:
    """P14: a plan that costs less a month than the recommended row is the computed better
    choice, so approving it asks no more than approving the row does."""
    row = comparison.candidates.filter(key=comparison.recommended_key).first()
    if row is None or row.total_usd is None:
        return False
    return decision.monthly_cost_usd < row.total_usd


def plan_for_approval(comparison: Comparison, justification: str) -> PlanDecision:
    """The plan a reviewer may approve now, or the error that says why not."""
    refusal = plan_refusal(stored_plan(comparison))
    decision = plan_decision(comparison) if refusal is None else None
    if decision is None:
        message = refusal or "There is no plan across offers to approve."
        raise DomainError(message, fields={"candidate": [message]})
    if not justification.strip() and not _cheaper_than_the_row(comparison, decision):
        raise DomainError(
            "Approving the cheapest plan across offers instead of the recommended row needs a "
            "written justification.",
            fields={"justification": ["Explain why this plan rather than the recommended row."]},
        )
    refuse_changed(plan_changes(comparison, decision))
    if (short := decision.checklist_refusal) is not None:
        raise DomainError(short, fields={"candidate": [short]})
    return decision


def plan_summary(decision: PlanDecision) -> dict[str, Any]:
    """The plan as the audit trail keeps it: each vendor's part, the total, the level."""
    return {
        "commitment_usd": str(decision.commitment_usd),
        "monthly_cost_usd": str(decision.monthly_cost_usd),
        "checklist_level": decision.level,
        "parts": [
            {
                "candidate": part.offer_id,
                "label": part.label,
                "replicas": part.replicas,
                "gpus": part.gpus,
                "commitment_usd": str(part.commitment_usd),
                "term": part.term,
            }
            for part in decision.parts
        ],
    }


def raise_to_two_approvals(comparison: Comparison, user: User, **why: str) -> None:
    """Raise `required_approvals` to 2, audited with ``why`` (what is approved, its
    commitment and the threshold). Called under the comparison's row lock; never lowered."""
    before = comparison.required_approvals
    comparison.required_approvals = 2
    comparison.save(update_fields=["required_approvals"])
    audit_record(
        actor=user,
        action="comparison.approvals_raised",
        obj=comparison,
        summary={
            "before": {"required_approvals": before},
            "after": {"required_approvals": 2},
            **why,
        },
    )


def require_dual_for_plan(comparison: Comparison, user: User, decision: PlanDecision) -> None:
    """Raise `required_approvals` to 2 when the plan's total commitment is above the
    threshold (the compute weighed the recommended row only). Never lowered."""
    if comparison.required_approvals > 1 or not decision.above_threshold:
        return
    raise_to_two_approvals(
        comparison,
        user,
        candidate="plan",
        commitment_usd=str(decision.commitment_usd),
        threshold_usd=str(decision.threshold_usd),
        largest_part_usd=str(decision.largest.commitment_usd),
    )


def same_subject_as(earlier: Review, *, approves_plan: bool, candidate_id: int | None) -> str:
    """ "" when an earlier approval is for what this one approves, else the error's words."""
    if earlier.approves_plan and approves_plan:
        return ""
    if not earlier.approves_plan and not approves_plan and earlier.candidate_id == candidate_id:
        return ""
    if earlier.approves_plan:
        return plan_noun((earlier.comparison.result or {}).get("plan") or {})
    return str(earlier.candidate)


def record_plan_parts(review: Review, decision: PlanDecision) -> list[PlanPart]:
    """Keep each vendor's part of the approved plan on the review, as it was approved."""
    return PlanPart.objects.bulk_create(
        [
            PlanPart(
                review=review,
                comparison_id=review.comparison_id,
                candidate=part.candidate,
                position=part.position,
                label=part.label[:300],
                configuration=part.configuration[:300],
                capacity=part.capacity[:10],
                role=part.role[:40],
                replicas=part.replicas,
                gpus=part.gpus,
                monthly_cost_usd=part.monthly_cost_usd,
                commitment_usd=part.commitment_usd,
                contract_usd=part.contract_usd,
                term_months=part.term_months,
                term=part.term[:80],
                checklist_level=part.checklist_level,
            )
            for part in decision.parts
        ]
    )
