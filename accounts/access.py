"""Who may see which user accounts: administrators all of them, everyone else only their own."""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import User
from core.roles import Role, get_or_404, has_role


def users_for(user: User) -> QuerySet[User]:
    if has_role(user, Role.ADMIN):
        return User.objects.all()
    if getattr(user, "is_authenticated", False) and user.is_active:
        return User.objects.filter(pk=user.pk)
    return User.objects.none()


# Managing other people's accounts (role, provider, activation) is the administrator's alone.
USER_MANAGER_ROLES = (Role.ADMIN,)


def can_manage_users(user: object) -> bool:
    return has_role(user, *USER_MANAGER_ROLES)


def access_managed_user(user: User, user_id: int) -> User:
    """A user account an administrator may change; the same 404 for missing and forbidden."""

    return get_or_404(
        users_for(user) if can_manage_users(user) else User.objects.none(), pk=user_id
    )
