"""Who may see and write workload briefs (staff read; the lead and admins write)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse

from briefs.models import WorkloadBrief
from core.roles import STAFF_ROLES, Role, get_or_404, has_role, is_staff, role_required

if TYPE_CHECKING:
    from accounts.models import User

BRIEF_WRITERS = frozenset({Role.PROCUREMENT_LEAD, Role.ADMIN})
# A traffic trace is the platform's own record of its requests: its engineers upload it too.
TRACE_UPLOADERS = frozenset({Role.PROCUREMENT_LEAD, Role.PLATFORM_ENGINEER, Role.ADMIN})

View = Callable[..., HttpResponse]
read_required = role_required(*STAFF_ROLES)


def write_required(view: View) -> View:
    """Brief writers only: vendors (and anyone not staff) 404, other staff 403."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not is_staff(request.user):
            raise Http404
        if not has_role(request.user, *BRIEF_WRITERS):
            raise PermissionDenied("Only a procurement lead or an admin can write briefs.")
        return view(request, *args, **kwargs)

    return wrapper


def briefs_for(user: User) -> QuerySet[WorkloadBrief]:
    qs = WorkloadBrief.objects.select_related("model", "created_by")
    return qs if is_staff(user) else qs.none()


def access_brief(user: User, brief_id: Any) -> WorkloadBrief:
    return get_or_404(briefs_for(user), pk=brief_id)
