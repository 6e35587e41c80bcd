"""User management by administrators: role, provider and activation change here, each
change audited in the hash chain; the Django admin only shows users.

A deactivation also revokes the user's API tokens and ends their login sessions at once (not
only at their next request). An administrator cannot deactivate themselves or take away their
own administrator role, so the product never loses its last way to manage users by accident.
"""

from __future__ import annotations

from typing import Any

from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone

from accounts.access import USER_MANAGER_ROLES
from accounts.models import Provider, User
from accounts.tokens import tokens_revoke
from core.audit import audit_record
from core.errors import DomainError
from core.roles import Role, require_role


def user_update(
    *,
    acting_user: User,
    user: User,
    role: str,
    provider: Provider | None,
    is_active: bool,
) -> User:
    """Apply an administrator's changes to `user`; one audit event per changed attribute."""
    require_role(acting_user, *USER_MANAGER_ROLES)
    _check(acting_user=acting_user, user=user, role=role, provider=provider, is_active=is_active)
    if role != Role.VENDOR:
        provider = None  # only vendors belong to a provider (the vendor_has_provider rule)
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        changes = _changes(locked, role=role, provider=provider, is_active=is_active)
        if not changes:
            return locked
        locked.role, locked.provider, locked.is_active = role, provider, is_active
        if not is_active:
            tokens_revoke(locked, actor=acting_user, reason="deactivated")
        locked.save(update_fields=["role", "provider", "is_active"])
        for action, summary in changes:
            audit_record(actor=acting_user, action=action, obj=locked, summary=summary)
        if not is_active:
            ended = user_sessions_end(locked)
            audit_record(
                actor=acting_user,
                action="user.sessions_ended",
                obj=locked,
                summary={"count": ended, "reason": "deactivated"},
            )
    return locked


def _check(
    *, acting_user: User, user: User, role: str, provider: Provider | None, is_active: bool
) -> None:
    if role not in Role.values:
        raise DomainError("Unknown role.", fields={"role": ["Choose one of the roles."]})
    if role == Role.VENDOR and provider is None:
        raise DomainError(
            "A vendor belongs to a provider.",
            fields={"provider": ["Choose the vendor's provider."]},
        )
    if user.pk == acting_user.pk and (not is_active or role != Role.ADMIN):
        raise DomainError(
            "You cannot deactivate yourself or remove your own administrator role; "
            "ask another administrator.",
            fields={"__all__": ["Another administrator must make this change."]},
        )


def _changes(
    user: User, *, role: str, provider: Provider | None, is_active: bool
) -> list[tuple[str, dict[str, Any]]]:
    changes: list[tuple[str, dict[str, Any]]] = []
    if user.is_active != is_active:
        changes.append(("user.reactivated" if is_active else "user.deactivated", {}))
    if user.role != role:
        changes.append(("user.role_changed", {"before": user.role, "after": role}))
    if user.provider_id != (provider.pk if provider else None):
        changes.append(
            (
                "user.provider_changed",
                {
                    "before": str(user.provider) if user.provider else "",
                    "after": str(provider) if provider else "",
                },
            )
        )
    return changes


def user_sessions_end(user: User) -> int:
    """Delete every unexpired login session of `user`; how many went. Sessions are stored
    signed and encoded, so each is decoded (an administrator's rare action, not a hot path)."""
    ended = 0
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator():
        if str(session.get_decoded().get("_auth_user_id")) == str(user.pk):
            session.delete()
            ended += 1
    return ended
