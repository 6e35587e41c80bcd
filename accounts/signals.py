"""Credential changes end API tokens: a new password or a deactivation revokes them. A
login remembers the browser as a known device of the account."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from accounts.models import User
from accounts.services.devices import device_remember as _remember
from accounts.tokens import tokens_revoke


def user_pre_save(sender: type[User], instance: User, **kwargs: Any) -> None:
    if instance.pk is None:
        return
    before = User.objects.filter(pk=instance.pk).values("password", "is_active").first()
    instance._credential_change = None  # type: ignore[attr-defined]
    if before is None:
        return
    if before["password"] != instance.password:
        instance._credential_change = "password changed"  # type: ignore[attr-defined]
    elif before["is_active"] and not instance.is_active:
        instance._credential_change = "deactivated"  # type: ignore[attr-defined]


def user_post_save(sender: type[User], instance: User, created: bool, **kwargs: Any) -> None:
    reason = getattr(instance, "_credential_change", None)
    if reason:
        tokens_revoke(instance, actor=None, reason=reason)
        instance._credential_change = None  # type: ignore[attr-defined]


def device_remember(sender: Any, request: HttpRequest | None, user: User, **kwargs: Any) -> None:
    """`user_logged_in` receiver (the product's form, the admin's, the sign-in link)."""
    if request is not None and isinstance(user, User):
        _remember(request, user)
