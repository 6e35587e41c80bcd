"""Finance review screens: the review page (rows, why the recommended one wins, decision
form, history), the side-by-side view and the printable decision record. "Recompute as new
revision" posts to the comparisons area's `procurement:comparison-recompute`.

Vendors get 404 on every one of them (`access.access_comparison`); the decision rules live
in `services_reviews.review_submit`, re-checked there whatever the view does.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import patch_vary_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from accounts.http import AuthedRequest
from core.errors import DomainError
from core.forms import apply_domain_error
from procurement import access
from procurement.forms.reviews import PairForm, ReviewForm, RowFilterForm
from procurement.models import CandidateResult, Comparison, PriceChange
from procurement.selectors.reviews import policy
from procurement.selectors.reviews.acknowledge import Acknowledgement, acknowledgements
from procurement.selectors.reviews.plan import PLAN_KEY, PlanDecision, plan_decision
from procurement.selectors.reviews.record import side_by_side
from procurement.selectors.reviews.rows import candidates_of, filter_and_sort
from procurement.services import price_changes as services_price_changes
from procurement.services import reviews as services_reviews
from procurement.views.review_context import record_context, review_context


@require_http_methods(["GET", "POST"])
def comparison_review(request: AuthedRequest, pk: int) -> HttpResponse:
    comparison = access.access_comparison(request.user, pk)
    rows = candidates_of(comparison)
    filter_form = RowFilterForm(request.GET or None, rows=rows)
    # The plan is offered while the comparison awaits a decision; the rows partial (htmx)
    # shows no plan, so its quotes' checklists are not read for it.
    partial = request.method == "GET" and request.htmx and not request.htmx.history_restore_request
    ready = comparison.status == Comparison.Status.READY
    plan = plan_decision(comparison) if ready and not partial else None
    form = ReviewForm(
        request.POST or None,
        candidates=rows,
        recommended_key=comparison.recommended_key,
        plan_choice=(PLAN_KEY, plan.label) if plan is not None else None,
        acknowledgements=_to_acknowledge(request, comparison, rows, plan) if ready else [],
        acknowledge_for=request.POST.get("candidate", ""),
    )
    status = _submit(request, comparison, form) if request.method == "POST" else 200
    if status == 302:
        return redirect("procurement:comparison-review", pk=comparison.pk)
    context = review_context(request.user, comparison, rows, filter_form, form, plan)
    template = "procurement/review_page.html" + ("#rows" if partial else "")
    response = render(request, template, context, status=status)
    patch_vary_headers(response, ["HX-Request"])  # the same URL answers a page or a partial
    return response


def _to_acknowledge(
    request: AuthedRequest,
    comparison: Comparison,
    rows: list[CandidateResult],
    plan: PlanDecision | None,
) -> list[Acknowledgement]:
    """The warnings the candidate chosen (the posted one, else the recommended row) asks the
    approver to accept (U8)."""
    chosen = request.POST.get("candidate") or comparison.recommended_key
    if chosen == PLAN_KEY and plan is not None:
        return acknowledgements(p.candidate for p in plan.parts if p.candidate is not None)
    return acknowledgements(row for row in rows if row.key == chosen)


def _submit(request: AuthedRequest, comparison: Comparison, form: ReviewForm) -> int:
    """Submit the decision; the HTTP status to answer (302 once recorded)."""
    if not form.is_valid():
        return 400
    try:
        review = services_reviews.review_submit(
            acting_user=request.user,
            comparison=comparison,
            decision=form.cleaned_data["decision"],
            comment=form.cleaned_data["comment"],
            candidate_key=form.cleaned_data["candidate"] or None,
            justification=form.cleaned_data["justification"],
            same_need=form.cleaned_data.get("same_need") or "",
            acknowledged=form.cleaned_data.get("acknowledge") or [],
        )
    except DomainError as exc:
        apply_domain_error(form, exc)
        return exc.status_code
    messages.success(request, _decision_message(comparison, review))
    return 302


def _decision_message(comparison: Comparison, review: Any) -> str:
    if comparison.status == Comparison.Status.READY:
        given = policy.approvals_recorded(comparison)
        return (
            f"Approval recorded: {policy.approvals_label(comparison, given)}. "
            "The comparison stays ready until the second approval."
        )
    if comparison.status == Comparison.Status.CHANGES_REQUESTED:
        return "Decision recorded: changes requested; the comparison goes back to its creator."
    return f"Decision recorded: the comparison is now {comparison.get_status_display().lower()}."


@require_http_methods(["GET"])
def comparison_side_by_side(request: AuthedRequest, pk: int) -> HttpResponse:
    comparison = access.access_comparison(request.user, pk)
    rows = candidates_of(comparison)
    by_key = {row.key: row for row in rows}
    ranked = filter_and_sort(rows, eligible_only=True) + filter_and_sort(rows)
    default_a = comparison.recommended_key or (ranked[0].key if ranked else "")
    a = request.GET.get("a") or default_a
    data = {"a": a, "b": request.GET.get("b") or next((r.key for r in ranked if r.key != a), "")}
    form = PairForm(data, rows=rows)
    valid = form.is_valid()
    row_a = by_key.get(data["a"]) if valid else None
    row_b = by_key.get(data["b"]) if valid else None
    context: dict[str, object] = {
        "comparison": comparison,
        "form": form,
        "too_few": len(rows) < 2,
        "a": row_a,
        "b": row_b,
    }
    if valid and row_a is not None and row_b is not None:  # a valid pair names two rows
        context["pairs"] = side_by_side(row_a, row_b)
    status = 200 if valid or len(rows) < 2 else 400
    return render(request, "procurement/side_by_side.html", context, status=status)


@require_http_methods(["GET"])
def comparison_record(request: AuthedRequest, pk: int) -> HttpResponse:
    # The record shows the snapshot's facts, never the snapshot itself.
    comparison = access.access_comparison(request.user, pk, defer=("snapshot",))
    context = record_context(request.user, comparison)
    return render(request, "procurement/decision_record.html", context)


@require_http_methods(["POST"])
def price_change_acknowledge(request: AuthedRequest, pk: int, flag_pk: int) -> HttpResponse:
    """Acknowledge a price change within the tolerance (the owner or a reviewer)."""
    comparison = access.access_comparison(request.user, pk)
    flag = get_object_or_404(PriceChange, pk=flag_pk, comparison=comparison)
    try:
        services_price_changes.price_change_acknowledge(acting_user=request.user, flag=flag)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "Price change acknowledged: the decision stands as recorded.")
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=False):
        target = comparison.get_absolute_url()
    return redirect(target)
