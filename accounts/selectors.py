"""Reads of users for other apps (who to notify, who holds a role)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from accounts.models import User


def reachable_users(
    *, roles: Iterable[str] | None = None, ids: Iterable[int] | None = None
) -> QuerySet[User]:
    """Active users with an e-mail address, by role and/or id, in a stable order."""
    qs = User.objects.filter(is_active=True).exclude(email="")
    if roles is not None:
        qs = qs.filter(role__in=list(roles))
    if ids is not None:
        qs = qs.filter(pk__in=list(ids))
    return qs.order_by("username")
