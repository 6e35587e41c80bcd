"""API tokens, on django-rest-knox: stored as a SHA-512 digest with only an 15-character
prefix in clear, an expiry (``API_TOKEN_TTL_DAYS``), one token per client that asked for one
(at most ``API_TOKEN_LIMIT_PER_USER`` a user, the oldest revoked),
revocable by their user (the API) and by an administrator (the admin), and revoked on a
password change and on deactivation (signals in accounts.apps)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from knox.models import AuthToken

from accounts.models import User
from core.audit import audit_record


def token_issue(user: User, *, via: str) -> str:
    """A new token for `user`; the key is returned once and never stored. A user holds at
    most ``API_TOKEN_LIMIT_PER_USER`` tokens: the oldest beyond it are revoked (S9), so a
    client asking for a token on every run does not pile up live credentials."""
    instance, key = AuthToken.objects.create(user=user)
    audit_record(
        actor=user,
        action="token.created",
        obj=user,
        summary={"via": via, "prefix": instance.token_key[:8]},
    )
    limit = max(1, settings.API_TOKEN_LIMIT_PER_USER)
    oldest = AuthToken.objects.filter(user=user).order_by("-created", "-pk")[limit:]
    over = list(oldest.values_list("pk", flat=True))
    if over:
        AuthToken.objects.filter(pk__in=over).delete()
        audit_record(
            actor=user,
            action="token.revoked",
            obj=user,
            summary={"reason": f"over the limit of {limit} tokens", "count": len(over)},
        )
    return str(key)


def tokens_of(user: User) -> list[dict[str, Any]]:
    return [
        {"prefix": t.token_key[:8], "created": t.created, "expiry": t.expiry}
        for t in AuthToken.objects.filter(user=user).order_by("-created")
    ]


def tokens_revoke(user: User, *, actor: Any, reason: str, prefix: str = "") -> int:
    """Delete `user`'s tokens (those whose key starts with `prefix`); audited when any went."""
    tokens = AuthToken.objects.filter(user=user)
    if prefix:
        tokens = tokens.filter(token_key__startswith=prefix)
    count: int
    count, _ = tokens.delete()
    if count:
        audit_record(
            actor=actor,
            action="token.revoked",
            obj=user,
            summary={"reason": reason, "count": count, **({"prefix": prefix} if prefix else {})},
        )
    return count
