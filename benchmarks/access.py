"""Who may see and upload benchmark results and plans (staff only; vendors never)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet

from benchmarks.models import BenchmarkPlan, BenchmarkResult, PublishedResult
from core.roles import Role, get_or_404, is_staff

if TYPE_CHECKING:
    from accounts.models import User

BENCHMARK_UPLOADERS = frozenset({Role.PLATFORM_ENGINEER, Role.PROCUREMENT_LEAD, Role.ADMIN})


def results_for(user: User) -> QuerySet[BenchmarkResult]:
    qs = BenchmarkResult.objects.select_related(
        "accelerator", "quote__provider", "uploaded_by", "model_profile"
    )
    return qs if is_staff(user) else qs.none()


def access_result(user: User, result_id: Any) -> BenchmarkResult:
    return get_or_404(results_for(user), pk=result_id)


def plans_for(user: User) -> QuerySet[BenchmarkPlan]:
    qs = BenchmarkPlan.objects.select_related("quote__provider", "quote__accelerator", "brief")
    return qs if is_staff(user) else qs.none()


def access_plan(user: User, plan_id: Any) -> BenchmarkPlan:
    return get_or_404(plans_for(user), pk=plan_id)


def published_for(user: User) -> QuerySet[PublishedResult]:
    """Published results are public facts, shown to staff like the team's own results."""
    qs = PublishedResult.objects.select_related("accelerator", "model_profile")
    return qs if is_staff(user) else qs.none()
