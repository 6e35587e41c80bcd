"""DRF permission built on the kernel's roles (the same door as the HTML views)."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from core.roles import STAFF_ROLES, has_role, is_staff


class HasRole(BasePermission):
    """Allow `read_roles` for safe methods and `write_roles` otherwise.

    Views set `read_roles` / `write_roles`; vendors are scoped by `get_queryset()`.
    """

    message = "Your role does not allow this."

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            roles = getattr(view, "read_roles", STAFF_ROLES)
        else:
            roles = getattr(view, "write_roles", frozenset())
        return has_role(request.user, *roles)


class StaffOnly(HasRole):
    """HasRole, but anyone who is not staff gets 404: these routes do not exist for them."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.user and request.user.is_authenticated and not is_staff(request.user):
            raise exceptions.NotFound()
        if not hasattr(view, (request.method or "").lower()):
            return True  # let the view answer 405 Method Not Allowed
        return super().has_permission(request, view)
