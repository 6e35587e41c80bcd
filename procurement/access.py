"""Who may see comparisons and the audit trail, create comparisons and review them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet

from core.models import AuditEvent
from core.roles import Role, get_or_404, has_role, is_staff
from procurement.models import Comparison

if TYPE_CHECKING:
    from accounts.models import User

COMPARISON_CREATORS = frozenset({Role.PROCUREMENT_LEAD, Role.ADMIN})
# A commitment above the threshold needs a second approval from one of these roles.
SECOND_APPROVER_ROLES = frozenset({Role.PLATFORM_ENGINEER, Role.SECURITY_REVIEWER})


def comparisons_for(user: User) -> QuerySet[Comparison]:
    qs = Comparison.objects.select_related("brief", "created_by")
    return qs if is_staff(user) else qs.none()


def access_comparison(user: User, comparison_id: Any, *, defer: tuple[str, ...] = ()) -> Comparison:
    """One comparison the user may see (404 otherwise); `defer` leaves large fields unread
    (a 20,000-candidate snapshot is tens of megabytes a page that never shows it would decode)."""
    return get_or_404(comparisons_for(user).defer(*defer), pk=comparison_id)


def can_review(user: User, comparison: Comparison) -> bool:
    """Finance reviews ready comparisons; never their own (four-eyes, no superuser bypass).

    Above the dual-approval threshold a platform or security reviewer gives the other
    approval, before or after finance's: both are needed, in either order.
    """

    if comparison.created_by_id == getattr(user, "id", None):
        return False
    if comparison.status != Comparison.Status.READY:
        return False
    if has_role(user, Role.FINANCE_REVIEWER):
        return True
    return comparison.required_approvals > 1 and has_role(user, *SECOND_APPROVER_ROLES)


def reviews_any(user: User) -> bool:
    """Whether this user's role reviews comparisons at all (can_review is never true else)."""
    return has_role(user, Role.FINANCE_REVIEWER, *SECOND_APPROVER_ROLES)


def audit_events_for(user: User) -> QuerySet[AuditEvent]:
    qs = AuditEvent.objects.select_related("actor")
    return qs if is_staff(user) else qs.none()
