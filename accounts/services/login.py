"""Login throttling and the client address behind a trusted proxy.

Three counters over one window (``LOGIN_FAILURE_WINDOW_S``), all from the same rows, and
none of them lets an attacker lock another user out (docs/security.md, "Login throttling"):

- per (username, address): ``LOGIN_FAILURE_LIMIT`` failures refuse that pair (one guesser
  cannot lock the same user out at other addresses, nor other users at this address);
- per address across usernames: ``LOGIN_FAILURE_ADDRESS_LIMIT`` failures refuse the address
  (password spraying); only the sprayer's own address is refused;
- per username across addresses: past ``LOGIN_FAILURE_ACCOUNT_LIMIT`` failures the account is
  refused *from every address that has failed for it in the window*. An address that has
  never failed for the account (the user's own) still logs in with the right password, as
  does the address where the user last logged in; a rotating attacker gets one guess per
  fresh address, never the user's lock-out.

Failure rows are bounded per address: at most ``LOGIN_FAILURE_ADDRESS_LIMIT`` per window (the
address is refused after that), and refusals are one aggregate row per address per window
whose ``attempts`` counts them; rows older than two windows are purged. The audit trail
gets the first failure per (username, address) per window and the first refusal per address
per window, whose summary carries the previous window's refusal count.
"""

from __future__ import annotations

import ipaddress
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth.forms import PasswordResetForm
from django.db import transaction
from django.db.models import F, Q
from django.http import HttpRequest
from django.utils import timezone

from accounts.models import LoginFailure, PasswordResetRequest, User
from core import jobs
from core.audit import audit_record


def client_ip(request: HttpRequest | None) -> str | None:
    """REMOTE_ADDR, or the right-most untrusted hop of X-Forwarded-For when REMOTE_ADDR is one
    of ``TRUSTED_PROXIES`` (addresses or networks). Without trusted proxies the header is
    ignored, so it cannot be spoofed.

    Hops left of the first untrusted one were written by the client and are never believed.
    When every hop is a trusted address (a client on the proxy's own host, say), the left-most
    hop is the client: answering the proxy's address instead would put every such client on
    one counter, so that one of them could lock the others out."""
    if request is None:
        return None
    remote: str | None = request.META.get("REMOTE_ADDR") or None
    if not remote or not _trusted(remote):
        return remote
    forwarded: str = request.META.get("HTTP_X_FORWARDED_FOR", "")
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    nearest = remote
    for hop in reversed(hops):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return nearest  # garbage from beyond the last trusted hop: stop there
        if not _trusted(hop):
            return hop
        nearest = hop
    return nearest


def _trusted(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in ipaddress.ip_network(net, strict=False) for net in settings.TRUSTED_PROXIES)


def _since() -> datetime:
    return timezone.now() - timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_S)


def login_refusal(*, username: str, ip_address: str | None) -> str | None:
    """Why this attempt is refused before the password is checked ("pair", "address",
    "account"), or None."""
    recent = LoginFailure.objects.filter(created_at__gte=_since(), throttled=False)
    if recent.filter(username__iexact=username, ip_address=ip_address).count() >= (
        settings.LOGIN_FAILURE_LIMIT
    ):
        return "pair"
    if ip_address and recent.filter(ip_address=ip_address).count() >= (
        settings.LOGIN_FAILURE_ADDRESS_LIMIT
    ):
        return "address"
    account = recent.filter(username__iexact=username)
    if account.count() >= settings.LOGIN_FAILURE_ACCOUNT_LIMIT:
        # Only addresses that have guessed wrong for this account are refused: a lock that
        # also refused clean addresses would let anyone lock the user out.
        if not account.filter(ip_address=ip_address).exists():
            return None
        known = (
            User.objects.filter(username__iexact=username)
            .values_list("last_login_address", flat=True)
            .first()
        )
        if not (ip_address and known == ip_address):
            return "account"
    return None


def login_blocked(*, username: str, ip_address: str | None) -> bool:
    return login_refusal(username=username, ip_address=ip_address) is not None


def login_refused(*, username: str, ip_address: str | None, reason: str, via: str) -> None:
    """Count a refusal on the address's one aggregate row of this window; audit only the first
    refusal per address per window, with the previous window's count. A new username per
    request therefore adds neither rows nor audit events."""
    refusals = LoginFailure.objects.filter(ip_address=ip_address, throttled=True)
    if refusals.filter(created_at__gte=_since()).update(
        attempts=F("attempts") + 1, username=username[:150]
    ):
        return
    previous = refusals.order_by("-created_at").first()
    LoginFailure.objects.create(username=username[:150], ip_address=ip_address, throttled=True)
    extra = {"reason": reason, "refusals_from_address": "1"}
    if previous is not None:
        extra["refusals_in_previous_window"] = str(previous.attempts)
    _audit("login.throttled", username, ip_address, via, **extra)


def login_failure_record(*, username: str, ip_address: str | None, via: str = "form") -> None:
    """Count a failure; audit the first one per (username, address) per window."""
    now = timezone.now()
    LoginFailure.objects.filter(
        created_at__lt=now - timedelta(seconds=2 * settings.LOGIN_FAILURE_WINDOW_S)
    ).delete()
    first = not LoginFailure.objects.filter(
        username__iexact=username, ip_address=ip_address, created_at__gte=_since(), throttled=False
    ).exists()
    LoginFailure.objects.create(username=username[:150], ip_address=ip_address)
    if first:
        _audit("login.failed", username, ip_address, via)


def login_succeeded(*, user: User, ip_address: str | None) -> None:
    """Clear this pair's failures and remember the address as the user's known one."""
    # The address's refusal aggregate stays: it is the address's, not this user's.
    LoginFailure.objects.filter(
        Q(username__iexact=user.username) & Q(ip_address=ip_address), throttled=False
    ).delete()
    if ip_address and user.last_login_address != ip_address:
        user.last_login_address = ip_address
        User.objects.filter(pk=user.pk).update(last_login_address=ip_address)


def login_failures_clear(*, username: str, ip_address: str | None) -> None:
    LoginFailure.objects.filter(
        username__iexact=username, ip_address=ip_address, throttled=False
    ).delete()


def _audit(action: str, username: str, ip_address: str | None, via: str, **extra: str) -> None:
    summary: dict[str, str] = {"username": username, "via": via, **extra}
    if ip_address:
        summary["address"] = ip_address
    if action == "login.failed":
        summary["note"] = "further failures in this window are counted, not logged"
    else:
        summary["note"] = "further refusals of this address in this window are counted, not logged"
    audit_record(
        actor=None,
        action=action,
        object_type="user",
        object_id=username[:40],  # the audit object id holds 40 characters
        outcome="refused",
        summary=summary,
    )


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
