"""API token authentication: knox's check in one query (the token row with its user).

knox's own ``_cleanup_token`` reads every token of the user on every request to delete the
expired ones (a second query, a quarter of an ETag hit's CPU). The presented token's own
expiry is still checked here on every request, and the token and its user are read fresh
each time, so a revoked token or a deactivated user stops working on the next request.
Other expired tokens are deleted by ``accounts.tasks.api_tokens_purge_expired_task``.
"""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from knox.models import AuthToken
from knox.signals import token_expired


class TokenAuthentication(KnoxTokenAuthentication):  # type: ignore[misc]  # knox is untyped
    def _cleanup_token(self, auth_token: AuthToken) -> bool:
        if auth_token.expiry is not None and auth_token.expiry < timezone.now():
            username = auth_token.user.get_username()
            auth_token.delete()
            token_expired.send(sender=self.__class__, username=username, source="auth_token")
            return True
        return False


def api_tokens_purge_expired() -> int:
    """Delete every expired API token; returns how many went."""
    count: int
    count, _ = AuthToken.objects.filter(expiry__lt=timezone.now()).delete()
    return count


class TokenAuthenticationScheme(KnoxTokenScheme):  # type: ignore[no-untyped-call]  # untyped base
    """The OpenAPI description of the check above: knox's bearer scheme, the same header (the
    schema generator finds an extension by the authenticator's dotted path, not its base)."""

    target_class = "accounts.auth.TokenAuthentication"
