"""Roles and the predicates every app's `access.py` is built on.

One door for both surfaces: HTML views use `role_required` and their app's `access_*`
functions, the API uses `core.api.permissions.HasRole` and `get_queryset()` returning the
app's `*_for(user)` querysets. Missing and forbidden objects give the same 404, so ids cannot
be probed (a vendor never learns that another provider's quote exists).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from django.core.exceptions import ObjectDoesNotExist
from django.db import models
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponseBase

from core.errors import NotAllowed


class Role(models.TextChoices):
    PROCUREMENT_LEAD = "lead", "Procurement lead"
    PLATFORM_ENGINEER = "engineer", "Platform engineer"
    FINANCE_REVIEWER = "finance", "Finance reviewer"
    SECURITY_REVIEWER = "security", "Security reviewer"
    VENDOR = "vendor", "Vendor"
    ADMIN = "admin", "Administrator"


STAFF_ROLES = frozenset(
    {
        Role.PROCUREMENT_LEAD,
        Role.PLATFORM_ENGINEER,
        Role.FINANCE_REVIEWER,
        Role.SECURITY_REVIEWER,
        Role.ADMIN,
    }
)

M = TypeVar("M", bound=Model)
View = Callable[..., HttpResponseBase]


def role_of(user: object) -> str | None:
    if not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", False):
        return None
    return str(getattr(user, "role", "")) or None


def is_staff(user: object) -> bool:
    return role_of(user) in STAFF_ROLES


def is_vendor(user: object) -> bool:
    return role_of(user) == Role.VENDOR


def has_role(user: object, *roles: str) -> bool:
    return role_of(user) in roles


def require_role(user: object, *roles: str) -> None:
    """Raise NotAllowed unless the user has one of the roles (services call this)."""
    if not has_role(user, *roles):
        raise NotAllowed()


def role_required(*roles: str) -> Callable[[View], View]:
    """View decorator. Vendors get 404 for staff-only pages, so pages cannot be probed."""

    def decorator(view: View) -> View:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if not has_role(request.user, *roles):
                raise Http404
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


def get_or_404(queryset: QuerySet[M], **lookup: Any) -> M:
    """One object of a restricted queryset, or the same 404 for missing and forbidden."""
    try:
        return queryset.get(**lookup)
    except (ObjectDoesNotExist, ValueError, TypeError) as exc:
        raise Http404 from exc
