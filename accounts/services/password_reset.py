"""Password reset requests: counted per address and per e-mail address (L9), mailed by a
worker so that known and unknown addresses cost the same."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth.forms import PasswordResetForm
from django.db import transaction
from django.utils import timezone

from accounts.models import PasswordResetRequest
from core import jobs


def password_reset_refusal(*, email: str, ip_address: str | None) -> str | None:
    """Why a reset link is not sent ("address", "email"), or None; the same for known and
    unknown e-mail addresses, so the refusal reveals no account."""
    since = timezone.now() - timedelta(seconds=settings.PASSWORD_RESET_WINDOW_S)
    recent = PasswordResetRequest.objects.filter(created_at__gte=since)
    if ip_address and recent.filter(ip_address=ip_address).count() >= (
        settings.PASSWORD_RESET_ADDRESS_LIMIT
    ):
        return "address"
    if recent.filter(email__iexact=email).count() >= settings.PASSWORD_RESET_EMAIL_LIMIT:
        return "email"
    return None


def password_reset_requested(*, email: str, ip_address: str | None) -> PasswordResetRequest:
    """Count a request (rows older than two windows go, so the table stays small)."""
    PasswordResetRequest.objects.filter(
        created_at__lt=timezone.now() - timedelta(seconds=2 * settings.PASSWORD_RESET_WINDOW_S)
    ).delete()
    return PasswordResetRequest.objects.create(email=email[:254].lower(), ip_address=ip_address)


RESET_MAIL_TASK = "accounts.tasks.password_reset_mail_send_task"
RESET_EMAIL_TEMPLATE = "emails/password_reset.txt"
RESET_SUBJECT_TEMPLATE = "emails/password_reset_subject.txt"


def password_reset_mail_later(*, request_id: int, domain: str, use_https: bool) -> None:
    """Queue the reset mail of a counted request, after commit, for every address alike.

    The request neither looks the address up nor sends anything: a known address used to
    answer slower than an unknown one (a link made and mailed inside the request), which told
    an attacker which addresses have accounts. The worker looks the address up instead."""
    transaction.on_commit(
        partial(jobs.send_safely, RESET_MAIL_TASK, (request_id, domain, use_https))
    )


def password_reset_mail_send(*, request_id: int, domain: str, use_https: bool) -> int:
    """Mail a one-time link to each active account with the request's address (Django's reset
    form and tokens); how many were sent. None for an unknown address, or a purged request."""
    row = PasswordResetRequest.objects.filter(pk=request_id).first()
    if row is None:
        return 0
    form = PasswordResetForm({"email": row.email})
    if not form.is_valid():
        return 0
    users = list(form.get_users(row.email))
    if users:
        form.save(
            domain_override=domain,
            use_https=use_https,
            email_template_name=RESET_EMAIL_TEMPLATE,
            subject_template_name=RESET_SUBJECT_TEMPLATE,
        )
    return len(users)
