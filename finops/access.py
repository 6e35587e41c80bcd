"""Who may read the FinOps pages of a decision, import its bill and enter its counts.

Staff read every decision (the decision record is staff-wide); vendors never see them (404).
Bills are imported by the procurement lead and finance (who hold the provider's invoices);
accepted outputs are counted by those and by platform engineers (who run the servers).
Only an approved comparison is a decision with a commitment to export and reconcile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet

from core.roles import Role, get_or_404, has_role, is_staff
from procurement.models import Comparison

if TYPE_CHECKING:
    from accounts.models import User

BILL_IMPORTERS = frozenset({Role.PROCUREMENT_LEAD, Role.FINANCE_REVIEWER, Role.ADMIN})
COUNTERS = frozenset(
    {Role.PROCUREMENT_LEAD, Role.FINANCE_REVIEWER, Role.PLATFORM_ENGINEER, Role.ADMIN}
)
# The dashboards that show the drift flag: those who answer for the spend.
DRIFT_WATCHERS = frozenset({Role.PROCUREMENT_LEAD, Role.FINANCE_REVIEWER, Role.ADMIN})


def comparisons_for(user: User) -> QuerySet[Comparison]:
    """Every comparison this user may open here (approved or not: the page says which)."""
    qs = Comparison.objects.select_related("brief", "created_by")
    return qs if is_staff(user) else qs.none()


def decisions_for(user: User) -> QuerySet[Comparison]:
    """The approved comparisons (decisions) this user may see and FinOps tracks: a decision
    another approval of the same brief superseded is history, no longer tracked (U2)."""
    return comparisons_for(user).filter(
        status=Comparison.Status.APPROVED, decision_superseded_by__isnull=True
    )


def access_comparison(user: User, comparison_id: Any) -> Comparison:
    return get_or_404(comparisons_for(user), pk=comparison_id)


def can_import_bill(user: User) -> bool:
    return has_role(user, *BILL_IMPORTERS)


def can_count_outputs(user: User) -> bool:
    return has_role(user, *COUNTERS)


def watches_drift(user: User) -> bool:
    return has_role(user, *DRIFT_WATCHERS)
