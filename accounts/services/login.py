"""Login throttling and the client address behind a trusted proxy.

One rule for the product's login form, the admin's login and the token endpoint, so none of
them is a separate password oracle (docs/security.md, "Login throttling"):

- **One key per account.** Attempts are counted under the username as authentication reads
  it: NFKC-normalised and case-folded (`throttle_key`), so ``ｓecurity`` (fullwidth) and
  ``SECURITY`` count for ``security``.
- **Atomic.** The check, the password and the count run in one transaction holding a lock on
  the account's key and then on the address (PostgreSQL advisory locks; on SQLite the
  transaction itself takes the write lock), so parallel guesses are counted one by one.
- **Known devices.** A successful login sets a signed cookie naming the accounts that logged
  in from that browser (`accounts.services.devices`). A known device is limited on its own:
  ``LOGIN_FAILURE_LIMIT`` failures per (account, device); no other limit applies to it, so an
  attacker's guesses never lock the user's own browser out.
- **Unknown devices** need more than the password past any of: ``LOGIN_FAILURE_LIMIT``
  failures for (account, address); ``LOGIN_FAILURE_ADDRESS_LIMIT`` failures from the address
  across accounts (spraying); ``LOGIN_FAILURE_ACCOUNT_LIMIT`` failures for the account across
  addresses, unless the address is the one the user last logged in from. Such an attempt is
  *stepped up*: the password is still checked, nobody is logged in, and when it was right a
  one-time sign-in link is mailed to the account. The answer is the same either way, so a
  guesser learns nothing from it, and the user is never locked out: the mailed link, or a
  browser that logged in before, still works.

Failure rows are bounded: an attempt is stored as a row only while no limit applies (so at
most ``LOGIN_FAILURE_ADDRESS_LIMIT`` unknown-device rows per address per window, and
``LOGIN_FAILURE_LIMIT`` per known device); stepped-up attempts go to one aggregate row per
address per window (``attempts``). Rows older than two windows are purged. The audit
trail gets the first failure per (account, address) per window and the first refusal per
address per window, with the previous window's refusal count.
"""

from __future__ import annotations

import hashlib
import ipaddress
import unicodedata
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.db.models import F, Q
from django.http import HttpRequest
from django.utils import timezone

from accounts.models import LoginFailure, User
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


def throttle_key(username: str) -> str:
    """The account a typed username means: Django's NFKC normalisation (the login form's
    `UsernameField`, `AbstractBaseUser.normalize_username`) and case folding."""
    return unicodedata.normalize("NFKC", username or "").strip().casefold()[:150]


def account_for(key: str) -> User | None:
    """The user whose username has this throttle key, if any."""
    for user in User.objects.filter(username__iexact=key):
        if throttle_key(user.username) == key:
            return user
    return None


def _since() -> datetime:
    return timezone.now() - timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_S)


def _lock(name: str) -> None:
    """A transaction-scoped lock on `name` (PostgreSQL). SQLite serialises the transaction
    itself (it begins IMMEDIATE, see the database settings)."""
    if connection.vendor != "postgresql":
        return
    digest = hashlib.blake2b(name.encode(), digest_size=8).digest()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s)", [int.from_bytes(digest, "big", signed=True)]
        )


def attempt_lock(*, key: str, ip_address: str | None) -> None:
    """Serialise attempts on this account, then this address (always in that order, so two
    attempts never wait on each other in a circle). Call inside `transaction.atomic()`."""
    _lock(f"login-account:{key}")
    _lock(f"login-address:{ip_address or '-'}")


def login_verdict(*, key: str, ip_address: str | None, device: str = "") -> str | None:
    """Why the throttle steps up an attempt on account `key` from `ip_address` ("pair",
    "device", "address", "account"), before the password is checked; None: the password
    decides. `device` is the known-device id when the browser's cookie names this account."""
    recent = LoginFailure.objects.filter(created_at__gte=_since(), throttled=False)
    limit = settings.LOGIN_FAILURE_LIMIT
    if device:
        if recent.filter(username=key, device=device).count() >= limit:
            return "device"
        return None
    unknown = recent.filter(device="")
    if unknown.filter(username=key, ip_address=ip_address).count() >= limit:
        return "pair"
    if ip_address and unknown.filter(ip_address=ip_address).count() >= (
        settings.LOGIN_FAILURE_ADDRESS_LIMIT
    ):
        return "address"
    if recent.filter(username=key).count() >= settings.LOGIN_FAILURE_ACCOUNT_LIMIT:
        known = (
            User.objects.filter(username__iexact=key)
            .values_list("last_login_address", flat=True)
            .first()
        )
        if not (ip_address and known == ip_address):
            return "account"
    return None


def login_refused(*, username: str, ip_address: str | None, reason: str, via: str) -> None:
    """Count a stepped-up attempt on the address's one aggregate row of this window; audit
    only the first per address per window, with the previous window's count. A new
    username per request therefore adds neither rows nor audit events."""
    key = throttle_key(username)
    refusals = LoginFailure.objects.filter(ip_address=ip_address, throttled=True)
    if refusals.filter(created_at__gte=_since()).update(attempts=F("attempts") + 1, username=key):
        return
    previous = refusals.order_by("-created_at").first()
    LoginFailure.objects.create(username=key, ip_address=ip_address, throttled=True)
    extra = {"reason": reason, "refusals_from_address": "1"}
    if previous is not None:
        extra["refusals_in_previous_window"] = str(previous.attempts)
    _audit("login.throttled", key, ip_address, via, **extra)


def login_failure_record(
    *, username: str, ip_address: str | None, via: str = "form", device: str = ""
) -> None:
    """Count a failure; audit the first one per (account, address) per window."""
    key = throttle_key(username)
    now = timezone.now()
    LoginFailure.objects.filter(
        created_at__lt=now - timedelta(seconds=2 * settings.LOGIN_FAILURE_WINDOW_S)
    ).delete()
    first = not LoginFailure.objects.filter(
        username=key, ip_address=ip_address, created_at__gte=_since(), throttled=False
    ).exists()
    LoginFailure.objects.create(username=key, ip_address=ip_address, device=device)
    if first:
        _audit("login.failed", key, ip_address, via)


def login_succeeded(*, user: User, ip_address: str | None, device: str = "") -> None:
    """Clear this pair's (and this device's) failures and remember the address."""
    # The address's refusal aggregate stays: it is the address's, not this user's.
    key = throttle_key(user.username)
    mine = Q(ip_address=ip_address, device="") | (Q(device=device) if device else Q(pk__in=[]))
    LoginFailure.objects.filter(mine, username=key, throttled=False).delete()
    if ip_address and user.last_login_address != ip_address:
        user.last_login_address = ip_address
        User.objects.filter(pk=user.pk).update(last_login_address=ip_address)


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
