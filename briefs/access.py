"""Who may see and write workload briefs (staff read; the lead and admins write)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet

from core.roles import Role, get_or_404, is_staff

if TYPE_CHECKING:
    from accounts.models import User
    from briefs.models import WorkloadBrief

BRIEF_WRITERS = frozenset({Role.PROCUREMENT_LEAD, Role.ADMIN})


def briefs_for(user: User) -> QuerySet[WorkloadBrief]:
    from briefs.models import WorkloadBrief

    qs = WorkloadBrief.objects.select_related("model", "created_by")
    return qs if is_staff(user) else qs.none()


def access_brief(user: User, brief_id: Any) -> WorkloadBrief:
    return get_or_404(briefs_for(user), pk=brief_id)
