"""One login attempt from start to end, known devices, and the one-time sign-in link (C3).

`login_attempt` is the one door for the product's login form, the admin's login and the token
endpoint: it takes the locks, asks the throttle (`accounts.services.login`), checks the
password, and counts. A stepped-up attempt with the right password logs nobody in; it asks
for a sign-in link, mailed by a worker to the account's address.

- **Known device**: a signed cookie (``KNOWN_DEVICE_COOKIE``, HttpOnly, ``__Host-`` in
  production) holding a random device id and the accounts that logged in from that browser,
  valid ``KNOWN_DEVICE_DAYS``. It is set on every successful login (`user_logged_in`).
- **Sign-in link**: a signed token with the account's id and a digest of its password hash and
  last login, valid ``LOGIN_LINK_TTL_S``; using it logs in, which changes the last login, so it
  works once. The page it opens asks for a click (a POST), so a mail scanner that follows the
  link signs nobody in.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.mail import send_mail
from django.db import transaction
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import salted_hmac

from accounts.models import LoginLinkRequest, User
from accounts.services.login import (
    account_for,
    attempt_lock,
    client_ip,
    login_failure_record,
    login_refused,
    login_succeeded,
    login_verdict,
    throttle_key,
)
from core import jobs
from core.audit import audit_record

DEVICE_SALT = "accounts.known-device"
LINK_SALT = "accounts.login-link"
MAX_ACCOUNTS_PER_DEVICE = 8  # a shared browser remembers a few accounts, not a directory
LINK_MAIL_TASK = "accounts.tasks.login_link_mail_send_task"
REQUEST_DEVICE_ATTR = "known_device_cookie"


def _device_data(request: HttpRequest | None) -> dict[str, Any] | None:
    raw = request.COOKIES.get(settings.KNOWN_DEVICE_COOKIE) if request is not None else None
    if not raw:
        return None
    try:
        data = signing.loads(raw, salt=DEVICE_SALT, max_age=settings.KNOWN_DEVICE_DAYS * 86400)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), list):
        return None
    return data


def known_device(request: HttpRequest | None, user: User | None) -> str:
    """The device id when this browser logged in to `user` before; "" otherwise."""
    data = _device_data(request)
    if user is None or data is None or user.pk not in data["u"]:
        return ""
    return str(data.get("d") or "")[:32]


def device_remember(request: HttpRequest, user: User) -> None:
    """`user_logged_in` receiver: the response will carry a cookie naming this account
    (set by `accounts.middleware.KnownDeviceMiddleware`)."""
    data = _device_data(request) or {"d": secrets.token_hex(16), "u": []}
    accounts = [pk for pk in data["u"] if pk != user.pk][-(MAX_ACCOUNTS_PER_DEVICE - 1) :]
    value = signing.dumps({"d": data["d"], "u": [*accounts, user.pk]}, salt=DEVICE_SALT)
    setattr(request, REQUEST_DEVICE_ATTR, value)


@dataclass(frozen=True, slots=True)
class Attempt:
    """How a login attempt ended: `user` logged in, or not; `stepped_up` when a limit applied
    (the same answer whether the password was right or not)."""

    user: User | None
    stepped_up: bool


def login_attempt(
    *,
    request: HttpRequest | None,
    username: str,
    via: str,
    check: Callable[[], User | None],
) -> Attempt:
    """Run `check` (the password check: the user, or None) under the throttle's locks."""
    key = throttle_key(username)
    ip = client_ip(request)
    device = known_device(request, account_for(key))
    with transaction.atomic():
        attempt_lock(key=key, ip_address=ip)
        reason = login_verdict(key=key, ip_address=ip, device=device)
        user = check()  # the password is checked either way: the answer never tells
        if reason is not None:
            login_refused(username=key, ip_address=ip, reason=reason, via=via)
            if user is not None and request is not None:
                _link_requested(request=request, user=user, ip_address=ip)
            return Attempt(None, True)
        if user is None:
            login_failure_record(username=key, ip_address=ip, via=via, device=device)
            return Attempt(None, False)
        login_succeeded(user=user, ip_address=ip, device=device)
        return Attempt(user, False)


def _link_requested(*, request: HttpRequest, user: User, ip_address: str | None) -> None:
    """Queue a sign-in link for `user` after commit, at most LOGIN_LINK_MAIL_LIMIT a window."""
    if not user.is_active or not user.email:
        return
    window = timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_S)
    now = timezone.now()
    LoginLinkRequest.objects.filter(created_at__lt=now - 2 * window).delete()
    sent = LoginLinkRequest.objects.filter(user=user, created_at__gte=now - window).count()
    if sent >= settings.LOGIN_LINK_MAIL_LIMIT:
        return
    row = LoginLinkRequest.objects.create(user=user, ip_address=ip_address)
    audit_record(
        actor=None,
        action="login.link_requested",
        obj=user,
        outcome="refused",
        summary={"address": ip_address or "", "note": "a one-time sign-in link is mailed"},
    )
    args = (row.pk, request.get_host(), request.is_secure())
    transaction.on_commit(partial(jobs.send_safely, LINK_MAIL_TASK, args))


def _state(user: User) -> str:
    last = user.last_login.isoformat() if user.last_login else ""
    return salted_hmac(LINK_SALT, f"{user.pk}|{user.password}|{last}").hexdigest()[:32]


def login_link_token(user: User) -> str:
    return signing.dumps({"u": user.pk, "s": _state(user)}, salt=LINK_SALT)


def login_link_user(token: str) -> User | None:
    """The active user a sign-in link is for, while it is fresh and unused; else None."""
    try:
        data = signing.loads(token, salt=LINK_SALT, max_age=settings.LOGIN_LINK_TTL_S)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int):
        return None
    user = User.objects.filter(pk=int(data["u"]), is_active=True).first()
    if user is None or not hmac.compare_digest(str(data.get("s")), _state(user)):
        return None
    return user


def login_link_mail_send(*, request_id: int, domain: str, use_https: bool) -> bool:
    """Mail the sign-in link of one request; False when it is gone or the user cannot log in."""
    row = LoginLinkRequest.objects.select_related("user").filter(pk=request_id).first()
    if row is None or not row.user.is_active or not row.user.email:
        return False
    path = reverse("accounts:login-link", kwargs={"token": login_link_token(row.user)})
    context = {
        "user": row.user,
        "address": row.ip_address or "an unknown address",
        "url": f"{'https' if use_https else 'http'}://{domain}{path}",
        "minutes": settings.LOGIN_LINK_TTL_S // 60,
    }
    send_mail(
        render_to_string("emails/login_link_subject.txt", context).strip(),
        render_to_string("emails/login_link.txt", context),
        None,
        [row.user.email],
    )
    return True
