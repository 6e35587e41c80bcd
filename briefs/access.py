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


def _staff_with(roles: frozenset[Role], refusal: str) -> Callable[[View], View]:
    """A view for staff of ``roles``: vendors (and anyone not staff) 404, other staff 403."""

    def decorate(view: View) -> View:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not is_staff(request.user):
                raise Http404
            if not has_role(request.user, *roles):
                raise PermissionDenied(refusal)
            return view(request, *args, **kwargs)

        return wrapper

    return decorate


write_required = _staff_with(BRIEF_WRITERS, "Only a procurement lead or an admin can write briefs.")
trace_upload_required = _staff_with(
    TRACE_UPLOADERS,
    "Only a procurement lead, a platform engineer or an admin can upload traces.",
)


def briefs_for(user: User) -> QuerySet[WorkloadBrief]:
    qs = WorkloadBrief.objects.select_related("model", "created_by")
    return qs if is_staff(user) else qs.none()


def access_brief(user: User, brief_id: Any) -> WorkloadBrief:
    return get_or_404(briefs_for(user), pk=brief_id)
