"""Context of the review page and the decision record: what the templates show, plus the
booleans that say what the user may do (templates never decide access)."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils.timezone import now

from core.roles import has_role
from procurement import access, charts
from procurement.charts_plan import plan_figure, plan_noun, plan_title
from procurement.models import CandidateResult, Comparison
from procurement.selectors.comparisons import recommendation_notes_of
from procurement.selectors.reviews import policy
from procurement.selectors.reviews.brief_facts import brief_facts
from procurement.selectors.reviews.frozen import new_since
from procurement.selectors.reviews.plan import (
    PlanDecision,
    approved_plan_parts,
)
from procurement.selectors.reviews.record import assumptions_of, record_rows
from procurement.selectors.reviews.rows import (
    SORTS,
    approvals_given,
    filter_and_sort,
    history_of,
    plans_for_quotes,
    recommendation_summary,
    review_rows,
    reviews_of,
    safe_reverse,
)
from procurement.selectors.reviews.same_need import other_decisions
from procurement.selectors.trace import trace_sizing_of
from procurement.services.integrity import changes_since_compute
from procurement.services.plan_approval import plan_changes
from procurement.views.price_notices import notices_of
from procurement.views.review_standing import reviewer_standing

if TYPE_CHECKING:
    from accounts.models import User
    from procurement.forms.reviews import ReviewForm, RowFilterForm

HISTORY_LIMIT = 50


def next_reviewer(comparison: Comparison, reviews: list[Any]) -> str:
    """Who decides next, in words ("—" once decided or while it is not ready)."""
    if comparison.status != Comparison.Status.READY:
        return "—"
    if comparison.required_approvals < 2:
        return "a finance reviewer"
    slots = {policy.approval_slot(r.reviewer_role) for r in reviews if r.decision == "approve"}
    missing = [
        f"a {slot} reviewer"
        for slot in (policy.FINANCE_SLOT, policy.SECOND_SLOT)
        if slot not in slots
    ]
    return " and ".join(missing) or "—"


def review_overdue(comparison: Comparison) -> bool:
    """Past its due date and still undecided (a decided comparison is never overdue)."""
    due = comparison.review_due_at
    return comparison.status == Comparison.Status.READY and due is not None and due < now()


def dual_row(comparison: Comparison, reviews: list[Any]) -> dict[str, Any] | None:
    """The approved non-recommended row, or plan, that raised the comparison to two approvals
    (its commitment is above the threshold while the recommended row's was not), or None."""
    if comparison.required_approvals < 2:
        return None
    threshold = Decimal(settings.DUAL_APPROVAL_THRESHOLD_USD)
    for review in reviews:
        if review.decision == "approve" and review.approves_plan:
            parts = list(review.plan_parts.all())
            total = sum((p.commitment_usd for p in parts), Decimal(0))
            if total > threshold and (comparison.commitment_usd or 0) <= threshold:
                return {
                    "label": plan_noun((comparison.result or {}).get("plan") or {}).capitalize(),
                    "commitment_usd": total,
                    "plan": True,
                    "largest_usd": max(p.commitment_usd for p in parts),
                }
            continue
        row = review.candidate
        if review.decision != "approve" or row is None or row.key == comparison.recommended_key:
            continue
        commitment = policy.row_commitment_usd(row)
        if commitment is not None and commitment > threshold:
            return {"label": row.label, "commitment_usd": commitment}
    return None


def plan_context(
    comparison: Comparison, plan: PlanDecision | None, reviews: list[Any], *, drift: bool = True
) -> dict[str, Any]:
    """The plan as a decision on the review page and the record: what approving it commits
    (each vendor's part, total, term, approvals, checklist level), why it cannot be approved,
    and, once approved, the parts as approved."""
    approved = approved_plan_parts(reviews)
    changes: list[str] = []
    if plan is not None and drift and comparison.status == Comparison.Status.READY:
        changes = plan_changes(comparison, plan)
    return {
        "plan_decision": plan,
        "plan_changes": changes,
        "approved_plan": approved,
        "approved_plan_total": sum((p.commitment_usd for p in approved), Decimal(0)),
        "approved_plan_monthly": sum((p.monthly_cost_usd for p in approved), Decimal(0)),
        # the plan in the rows' unit, with the workload's own costs (mixed_recommended)
        "plan_in_rows": (comparison.result or {}).get("plan") if approved else None,
        "plan_noun": plan_noun((comparison.result or {}).get("plan") or {}),
    }


def _common(user: User, comparison: Comparison) -> dict[str, Any]:
    reviews = reviews_of(comparison)
    given = approvals_given(reviews)
    superseded_by = Comparison.objects.filter(supersedes=comparison).only("id", "revision").first()
    return {
        "comparison": comparison,
        "dual_row": dual_row(comparison, reviews),
        "dual_threshold_usd": Decimal(settings.DUAL_APPROVAL_THRESHOLD_USD),
        "reviews": reviews,
        "approvals_label": policy.approvals_label(comparison, given),
        "approvals_needed": max(comparison.required_approvals - given, 0),
        "next_reviewer": next_reviewer(comparison, reviews),
        "review_overdue": review_overdue(comparison),
        "history": list(history_of(comparison, reviews)[:HISTORY_LIMIT]),
        "recommendation_notes": recommendation_notes_of(comparison),
        "detail_url": safe_reverse("procurement:comparison-detail", comparison.pk),
        "list_url": safe_reverse("procurement:comparison-list"),
        "superseded_by": superseded_by,
        "can_recompute": has_role(user, *access.COMPARISON_CREATORS)
        and comparison.is_finished
        and superseded_by is None,
        "assumptions": assumptions_of(comparison),
        "price_changes": notices_of(user, comparison),
    }


def review_context(
    user: User,
    comparison: Comparison,
    rows: list[CandidateResult],
    filter_form: RowFilterForm,
    form: ReviewForm,
    plan: PlanDecision | None = None,
) -> dict[str, Any]:
    filters = filter_form.filters()
    shown = filter_and_sort(rows, **filters)
    context = _common(user, comparison)
    standing = reviewer_standing(
        user, comparison, context["reviews"], next_reviewer=context["next_reviewer"]
    )
    if standing.approve_only_closed:
        form.close_approve()
    context.update(
        rows=review_rows(user, comparison, shown),
        total_rows=len(rows),
        # ineligible rows start folded, as on the results page
        ineligible_shown=sum(1 for r in shown if not r.eligible),
        filters=filters,
        sort_label=SORTS.get(filters["sort"], SORTS["unit"])[0],
        filter_form=filter_form,
        summary=recommendation_summary(comparison, rows),
        form=form,
        can_review=standing.may_decide,
        # U2: the brief's other decisions, told before anyone approves this one
        same_need=other_decisions(comparison)
        if comparison.status == Comparison.Status.READY
        else [],
        standing=standing,
        refusal=standing.reason or None,
        new_since=new_since(user, comparison, rows, changes=_approval_drift(comparison, rows)),
        mixed_plan=(comparison.result or {}).get("plan"),
        plan_chart=plan_figure(comparison.result or {}),
        mixed_plan_title=plan_title((comparison.result or {}).get("plan") or {}),
        trace_sizing=trace_sizing_of(comparison),
        **plan_context(comparison, plan, context["reviews"]),
    )
    return context


def _approval_drift(comparison: Comparison, rows: list[CandidateResult]) -> list[str]:
    """What the recommended row's approval rests on that changed since the compute (the same
    sentences the 409 gives), while a decision is still open."""
    if comparison.status != Comparison.Status.READY:
        return []
    recommended = next((r for r in rows if r.key == comparison.recommended_key), None)
    return changes_since_compute(comparison, recommended) if recommended is not None else []


def record_context(user: User, comparison: Comparison) -> dict[str, Any]:
    """The printable record: the best eligible rows in full, the recommendation's evidence, the
    approved plan's vendor parts, and the ineligible rows summarised by reason (every row is
    in the exports)."""
    context = _common(user, comparison)
    context.update(plan_context(comparison, None, context["reviews"], drift=False))
    approved = next(
        (r.candidate for r in reversed(context["reviews"]) if r.decision == "approve"), None
    )
    listed = record_rows(comparison, chosen_pk=approved.pk if approved is not None else None)
    rows = listed.rows
    chosen = next(
        (r for r in rows if approved is not None and r.pk == approved.pk),
        next((r for r in rows if r.key == comparison.recommended_key), None),
    )
    plans = plans_for_quotes(
        user, comparison, [chosen.quote_id] if chosen and chosen.quote_id else []
    )
    summary = recommendation_summary(comparison, rows)
    if summary is not None:
        summary.update(
            eligible_count=listed.eligible_count, ineligible_count=listed.ineligible_count
        )
    context.update(
        rows=review_rows(user, comparison, rows),
        listed=listed,
        summary=summary,
        chosen=chosen,
        plan=plans.get(chosen.quote_id) if chosen and chosen.quote_id is not None else None,
        brief_facts=brief_facts(comparison.brief),
        charts=charts.comparison_figures(comparison, rows),
        warnings=[(r.label, w) for r in rows for w in (r.warnings or [])],
        warned_rows=sum(1 for r in rows if r.warnings),
        # the ineligible rows start folded, as on the review page (printed open)
        ineligible_shown=sum(1 for r in rows if not r.eligible),
        new_since=new_since(user, comparison, rows),
    )
    return context
