"""Thin Celery tasks of the accounts: the password reset mail, sent after the response, and
the periodic purge of expired API tokens."""

from __future__ import annotations

from celery import shared_task

from accounts import services
from accounts.auth import api_tokens_purge_expired
from accounts.services import devices


# acks_late off: a redelivered message would mail a second link; at most once is right for a
# mail the user can simply ask for again.
@shared_task(acks_late=False)
def password_reset_mail_send_task(request_id: int, domain: str, use_https: bool) -> int:
    """Mail the reset link of one counted request (no mail for an unknown address)."""
    return services.password_reset_mail_send(
        request_id=request_id, domain=domain, use_https=use_https
    )


@shared_task(acks_late=False)  # at most once, like the reset mail
def login_link_mail_send_task(request_id: int, domain: str, use_https: bool) -> bool:
    """Mail the one-time sign-in link of a stepped-up login with the right password."""
    return devices.login_link_mail_send(request_id=request_id, domain=domain, use_https=use_https)


@shared_task
def api_tokens_purge_expired_task() -> int:
    return api_tokens_purge_expired()
