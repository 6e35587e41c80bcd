"""HTML views of benchmark plans: list, create for a candidate, detail, manual step checks."""

from __future__ import annotations

from itertools import groupby
from typing import Any

from django.contrib import messages
from django.db.models import Count, Q
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.http import AuthedRequest
from benchmarks import access, services
from benchmarks.forms import PlanCreateForm, StepCheckForm
from benchmarks.models import BenchmarkPlan, BenchmarkPlanStep, Phase
from benchmarks.services.plans import plan_results
from benchmarks.views.results import READERS, UPLOADERS
from core.errors import DomainError, NotFound
from core.forms import apply_domain_error
from core.roles import has_role, role_required

_STATUS = BenchmarkPlanStep.Status


@require_GET
@role_required(*READERS)
def plan_list(request: AuthedRequest) -> HttpResponse:
    plans = (
        access.plans_for(request.user)
        .annotate(
            steps_total=Count("steps"),
            steps_passed=Count("steps", filter=Q(steps__status=_STATUS.PASSED)),
            steps_failed=Count("steps", filter=Q(steps__status=_STATUS.FAILED)),
        )
        .order_by("-created_at")
    )
    can_write = has_role(request.user, *UPLOADERS)
    context = {"plans": plans, "can_create": can_write, "can_upload": can_write}
    return render(request, "benchmarks/plan_list.html", context)


@require_http_methods(["GET", "POST"])
@role_required(*UPLOADERS)
def plan_create(request: AuthedRequest) -> HttpResponse:
    """`?quote=&brief=` preselects the candidate; posting creates (or opens) its plan."""
    if request.method == "POST":
        form = PlanCreateForm(request.POST, user=request.user)
        if form.is_valid():
            plan, created = services.benchmark_plan_create(
                acting_user=request.user, **form.cleaned_data
            )
            if not created:
                messages.info(request, "This candidate already has a plan for this brief.")
            return redirect(plan.get_absolute_url())
        context = {"form": form, "can_upload": True}
        return render(request, "benchmarks/plan_create.html", context, status=400)
    initial = {k: request.GET.get(k) for k in ("quote", "brief") if request.GET.get(k)}
    form = PlanCreateForm(user=request.user, initial=initial)
    return render(request, "benchmarks/plan_create.html", {"form": form, "can_upload": True})


def _plan_context(
    request: AuthedRequest, plan: BenchmarkPlan, bound: tuple[int, StepCheckForm] | None = None
) -> dict[str, Any]:
    steps = list(plan.steps.select_related("result", "checked_by"))
    for step in steps:
        # The template reads `step.form` (a page-only attribute, not a model field).
        form: StepCheckForm | None = None
        if bound and bound[0] == step.pk:
            form = bound[1]
        elif step.kind == BenchmarkPlanStep.Kind.MANUAL:
            form = StepCheckForm(
                initial={
                    "status": step.status,
                    "notes": step.notes,
                    "evidence_url": step.evidence_url,
                },
                prefix=f"s{step.pk}",
            )
        if form is not None:
            setattr(step, "form", form)  # noqa: B010
    phases = [
        {"phase": Phase(number), "steps": list(items)}
        for number, items in groupby(steps, key=lambda s: s.phase)
    ]
    return {
        "plan": plan,
        "phases": phases,
        "totals": {s: sum(1 for x in steps if x.status == s) for s in _STATUS.values},
        "results": plan_results(plan),
        "can_check": has_role(request.user, *UPLOADERS),
        "can_upload": has_role(request.user, *UPLOADERS),
    }


@require_GET
@role_required(*READERS)
def plan_detail(request: AuthedRequest, plan_id: int) -> HttpResponse:
    plan = access.access_plan(request.user, plan_id)
    # Automatic verdicts are derived data: re-judged here (a comparison may have finished
    # since), writing only the steps whose verdict changed.
    services.benchmark_plan_refresh(plan=plan)
    return render(request, "benchmarks/plan_detail.html", _plan_context(request, plan))


@require_POST
@role_required(*UPLOADERS)
def plan_step_check(request: AuthedRequest, plan_id: int, step_id: int) -> HttpResponse:
    plan = access.access_plan(request.user, plan_id)
    form = StepCheckForm(request.POST, prefix=f"s{step_id}")
    if form.is_valid():
        try:
            step = services.benchmark_plan_step_check(
                acting_user=request.user, plan=plan, step_id=step_id, **form.cleaned_data
            )
        except NotFound as exc:
            raise Http404 from exc
        except DomainError as exc:
            apply_domain_error(form, exc, summary=True)
        else:
            messages.success(request, f"“{step.title}” marked {step.get_status_display()}.")
            return redirect(f"{plan.get_absolute_url()}#step-{step.pk}")
    context = _plan_context(request, plan, bound=(int(step_id), form))
    return render(request, "benchmarks/plan_detail.html", context, status=400)
