"""Who may see which user accounts: administrators all of them, everyone else only their own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import QuerySet

from core.roles import Role, has_role

if TYPE_CHECKING:
    from accounts.models import User


def users_for(user: User) -> QuerySet[User]:
    from accounts.models import User

    if has_role(user, Role.ADMIN):
        return User.objects.all()
    if getattr(user, "is_authenticated", False) and user.is_active:
        return User.objects.filter(pk=user.pk)
    return User.objects.none()
