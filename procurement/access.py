"""Roles and THE access functions. Nothing else decides who may see or change what.

Both surfaces use this module: HTML views through `role_required` and the `access_*`
functions, the API through `procurement.api.permissions.HasRole` and `get_queryset()`
returning the `*_for(user)` querysets. Missing and forbidden objects give the same 404, so
ids cannot be probed (a vendor never learns that another provider's quote exists).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any, TypeVar

from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse

from accounts.models import Role
from procurement.errors import NotAllowed

if TYPE_CHECKING:
    from accounts.models import User

STAFF_ROLES = frozenset(
    {
        Role.PROCUREMENT_LEAD,
        Role.PLATFORM_ENGINEER,
        Role.FINANCE_REVIEWER,
        Role.SECURITY_REVIEWER,
        Role.ADMIN,
    }
)
CATALOG_WRITERS = frozenset({Role.PROCUREMENT_LEAD, Role.ADMIN})
FX_WRITERS = frozenset({Role.FINANCE_REVIEWER, Role.ADMIN})
BRIEF_WRITERS = frozenset({Role.PROCUREMENT_LEAD, Role.ADMIN})
COMPARISON_CREATORS = frozenset({Role.PROCUREMENT_LEAD, Role.ADMIN})
BENCHMARK_UPLOADERS = frozenset({Role.PLATFORM_ENGINEER, Role.PROCUREMENT_LEAD, Role.ADMIN})
# Who may review which checklist section (DOMAIN.md's four sections).
CHECKLIST_REVIEWERS: dict[str, frozenset[str]] = {
    "hardware": frozenset({Role.PLATFORM_ENGINEER, Role.ADMIN}),
    "software": frozenset({Role.PLATFORM_ENGINEER, Role.ADMIN}),
    "commercial": frozenset({Role.FINANCE_REVIEWER, Role.PROCUREMENT_LEAD, Role.ADMIN}),
    "security": frozenset({Role.SECURITY_REVIEWER, Role.ADMIN}),
}
# A commitment above the threshold needs a second approval from one of these roles.
SECOND_APPROVER_ROLES = frozenset({Role.PLATFORM_ENGINEER, Role.SECURITY_REVIEWER})

M = TypeVar("M", bound=Model)


def role_of(user: Any) -> str | None:
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return None
    return str(user.role)


def is_staff(user: Any) -> bool:
    return role_of(user) in STAFF_ROLES


def is_vendor(user: Any) -> bool:
    return role_of(user) == Role.VENDOR


def has_role(user: Any, *roles: str) -> bool:
    return role_of(user) in roles


def require_role(user: Any, *roles: str) -> None:
    """Raise NotAllowed unless the user has one of the roles (services call this)."""
    if not has_role(user, *roles):
        raise NotAllowed()


def role_required(
    *roles: str,
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """View decorator. Vendors get 404 for staff-only pages, so pages cannot be probed."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not has_role(request.user, *roles):
                raise Http404
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


def get_or_404(queryset: QuerySet[M], **lookup: Any) -> M:
    try:
        return queryset.get(**lookup)
    except (queryset.model.DoesNotExist, ValueError, TypeError) as exc:
        raise Http404 from exc


# --- Catalog -----------------------------------------------------------------------------------


def providers_for(user: User) -> QuerySet[Any]:
    from accounts.models import Provider

    if is_staff(user):
        return Provider.objects.all()
    if is_vendor(user):
        return Provider.objects.filter(pk=user.provider_id)
    return Provider.objects.none()


def quotes_for(user: User) -> QuerySet[Any]:
    """The only way code obtains Quotes on behalf of a user."""
    from catalog.models import Quote

    qs = Quote.objects.select_related("provider", "accelerator", "entered_by", "rfq")
    if is_staff(user):
        return qs
    if is_vendor(user):
        return qs.filter(provider_id=user.provider_id)
    return qs.none()


def access_quote(user: User, quote_id: Any) -> Any:
    return get_or_404(quotes_for(user), pk=quote_id)


def can_revise_quote(user: User, quote: Any) -> bool:
    """Vendors revise their own organisation's quotes while the RFQ is open; staff any time."""
    if has_role(user, *CATALOG_WRITERS):
        return True
    if is_vendor(user) and quote.provider_id == user.provider_id:
        return quote.rfq is None or quote.rfq.is_open_for_answers()
    return False


def api_routes_for(user: User) -> QuerySet[Any]:
    from catalog.models import ModelApiRoute

    qs = ModelApiRoute.objects.select_related("provider", "model_profile")
    if is_staff(user):
        return qs
    if is_vendor(user):
        return qs.filter(provider_id=user.provider_id)
    return qs.none()


def fx_rates_for(user: User) -> QuerySet[Any]:
    from catalog.models import FxRate

    return FxRate.objects.all() if is_staff(user) else FxRate.objects.none()


def rfqs_for(user: User) -> QuerySet[Any]:
    from catalog.models import Rfq

    qs = Rfq.objects.select_related("created_by", "brief")
    if is_staff(user):
        return qs
    if is_vendor(user):
        return qs.filter(providers=user.provider_id)
    return qs.none()


def access_rfq(user: User, rfq_id: Any) -> Any:
    return get_or_404(rfqs_for(user), pk=rfq_id)


# --- Checklist ---------------------------------------------------------------------------------


def answers_for(user: User) -> QuerySet[Any]:
    from checklist.models import ChecklistAnswer

    qs = ChecklistAnswer.objects.select_related("item", "provider", "quote", "answered_by")
    if is_staff(user):
        return qs
    if is_vendor(user):
        return qs.filter(provider_id=user.provider_id)
    return qs.none()


def access_answer(user: User, answer_id: Any) -> Any:
    return get_or_404(answers_for(user), pk=answer_id)


def can_review_checklist_section(user: User, section: str) -> bool:
    return has_role(user, *CHECKLIST_REVIEWERS.get(section, frozenset()))


# --- Briefs, benchmarks, comparisons -----------------------------------------------------------


def briefs_for(user: User) -> QuerySet[Any]:
    from procurement.models import WorkloadBrief

    qs = WorkloadBrief.objects.select_related("model", "created_by")
    return qs if is_staff(user) else qs.none()


def access_brief(user: User, brief_id: Any) -> Any:
    return get_or_404(briefs_for(user), pk=brief_id)


def results_for(user: User) -> QuerySet[Any]:
    from benchmarks.models import BenchmarkResult

    qs = BenchmarkResult.objects.select_related("accelerator", "quote__provider", "uploaded_by")
    return qs if is_staff(user) else qs.none()


def access_result(user: User, result_id: Any) -> Any:
    return get_or_404(results_for(user), pk=result_id)


def plans_for(user: User) -> QuerySet[Any]:
    from benchmarks.models import BenchmarkPlan

    qs = BenchmarkPlan.objects.select_related("quote__provider", "quote__accelerator", "brief")
    return qs if is_staff(user) else qs.none()


def access_plan(user: User, plan_id: Any) -> Any:
    return get_or_404(plans_for(user), pk=plan_id)


def comparisons_for(user: User) -> QuerySet[Any]:
    from procurement.models import Comparison

    qs = Comparison.objects.select_related("brief", "created_by")
    return qs if is_staff(user) else qs.none()


def access_comparison(user: User, comparison_id: Any) -> Any:
    return get_or_404(comparisons_for(user), pk=comparison_id)


def can_review(user: User, comparison: Any) -> bool:
    """Finance reviews ready comparisons; never their own (four-eyes, no superuser bypass).

    Above the dual-approval threshold a platform or security reviewer adds the second
    approval once finance has approved.
    """
    from procurement.models import Comparison

    if comparison.created_by_id == getattr(user, "id", None):
        return False
    if comparison.status != Comparison.Status.READY:
        return False
    if has_role(user, Role.FINANCE_REVIEWER):
        return True
    return comparison.required_approvals > 1 and has_role(user, *SECOND_APPROVER_ROLES)


def audit_events_for(user: User) -> QuerySet[Any]:
    from procurement.models import AuditEvent

    qs = AuditEvent.objects.select_related("actor")
    if has_role(user, Role.ADMIN):
        return qs
    if is_staff(user):
        return qs
    return qs.none()
