"""M2, L9, M11: login throttling per account and per address, trusted proxies, passwords,
and login-session lifetimes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.test import Client

from accounts.models import LoginFailure

pytestmark = pytest.mark.django_db

LOGIN_URL = "/accounts/login/"
PASSWORD = "gpu-demo"


def attempt(username: str, password: str, ip: str, **headers: str) -> Client:
    client = Client(REMOTE_ADDR=ip, **headers)
    client.post(LOGIN_URL, {"username": username, "password": password})
    return client


def logged_in(client: Client) -> bool:
    return client.get("/").status_code == 200


def test_rotating_addresses_hits_the_per_account_limit(finance):
    """M2, C3: wrong passwords for one account from many addresses are limited as a whole:
    past the limit an unknown browser needs more than the password, from a fresh address too
    (the mailed sign-in link); a browser that logged in before still logs in."""
    known = attempt("finance", PASSWORD, "203.0.113.99")
    assert logged_in(known)
    known.post("/accounts/logout/")  # the session ends, the browser keeps its cookie
    for i in range(settings.LOGIN_FAILURE_ACCOUNT_LIMIT):
        attempt("finance", "wrong", f"198.51.100.{i + 1}")
    assert not logged_in(attempt("finance", PASSWORD, "198.51.100.1"))
    assert not logged_in(attempt("finance", PASSWORD, "198.51.100.250"))
    known.post(LOGIN_URL, {"username": "finance", "password": PASSWORD}, REMOTE_ADDR="192.0.2.5")
    assert logged_in(known)


def test_the_account_limit_never_locks_the_user_out_of_their_known_address(finance):
    """M2: an attacker's guesses do not lock the user out of where they last logged in."""
    assert logged_in(attempt("finance", PASSWORD, "203.0.113.10"))
    for i in range(settings.LOGIN_FAILURE_ACCOUNT_LIMIT):
        attempt("finance", "wrong", f"198.51.100.{i + 1}")
    assert logged_in(attempt("finance", PASSWORD, "203.0.113.10"))


def test_spraying_from_one_address_is_limited(lead, engineer, finance):
    """M2: few guesses each for many accounts from one address hit the per-address limit."""
    names = [f"user{i}" for i in range(settings.LOGIN_FAILURE_ADDRESS_LIMIT)]
    for name in names:
        attempt(name, "wrong", "192.0.2.66")
    assert not logged_in(attempt("engineer", PASSWORD, "192.0.2.66"))
    assert logged_in(attempt("engineer", PASSWORD, "192.0.2.67"))


def test_x_forwarded_for_counts_only_from_a_trusted_proxy(settings, engineer, lead):
    """M2: behind a configured proxy, clients are told apart by X-Forwarded-For, so one client
    cannot lock out everyone behind the proxy; from anyone else the header is ignored."""
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    for _ in range(settings.LOGIN_FAILURE_LIMIT):
        attempt("engineer", "wrong", "10.0.0.5", HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert set(LoginFailure.objects.values_list("ip_address", flat=True)) == {"198.51.100.7"}
    other = attempt("engineer", PASSWORD, "10.0.0.5", HTTP_X_FORWARDED_FOR="198.51.100.8")
    assert logged_in(other)
    LoginFailure.objects.all().delete()
    attempt("lead", "wrong", "192.0.2.9", HTTP_X_FORWARDED_FOR="198.51.100.99")
    assert set(LoginFailure.objects.values_list("ip_address", flat=True)) == {"192.0.2.9"}


def test_failure_rows_for_unknown_users_are_purged(db):
    """M7: failure rows older than two windows go, so unknown usernames cannot grow them."""
    attempt("ghost", "wrong", "192.0.2.1")
    LoginFailure.objects.update(
        created_at=LoginFailure.objects.get().created_at
        - timedelta(seconds=3 * settings.LOGIN_FAILURE_WINDOW_S)
    )
    attempt("ghost2", "wrong", "192.0.2.1")
    assert list(LoginFailure.objects.values_list("username", flat=True)) == ["ghost2"]


@pytest.mark.parametrize("password", ["Budget2026", "short-pw1", "123456789012345"])
def test_passwords_need_twelve_characters_and_not_only_digits(password):
    """L9: Django's validators with a 12-character minimum."""
    with pytest.raises(ValidationError):
        validate_password(password)
    validate_password("correct horse battery staple")


def _session_ages(client: Client, *, seen: float, started: float) -> None:
    import time

    session = client.session
    now = time.time()
    session["seen_at"] = now - seen
    session["auth_at"] = now - started
    session.save()


def test_an_idle_login_session_ends_after_the_idle_timeout(finance):
    """M11: 30 minutes (SESSION_IDLE_TIMEOUT_S) without a request ends the login session."""
    client = attempt("finance", PASSWORD, "203.0.113.20")
    assert logged_in(client)
    assert settings.SESSION_IDLE_TIMEOUT_S == 30 * 60
    _session_ages(client, seen=settings.SESSION_IDLE_TIMEOUT_S - 5, started=3600)
    assert logged_in(client)  # just under the timeout, and the request refreshes it
    _session_ages(client, seen=settings.SESSION_IDLE_TIMEOUT_S + 1, started=3600)
    assert not logged_in(client)
    assert client.get("/api/v1/quotes/").status_code == 403


def test_a_login_session_ends_after_its_absolute_lifetime(finance):
    """M11: however active, a login session ends SESSION_ABSOLUTE_S after the login."""
    client = attempt("finance", PASSWORD, "203.0.113.21")
    _session_ages(client, seen=10, started=settings.SESSION_ABSOLUTE_S + 1)
    assert not logged_in(client)


def test_users_change_their_own_password_and_their_tokens_go(engineer):
    """L9/M1: /accounts/password/ with Django's validators; the session stays, tokens go."""
    from knox.models import AuthToken

    from core.models import AuditEvent

    AuthToken.objects.create(user=engineer)
    client = attempt("engineer", PASSWORD, "203.0.113.22")
    weak = client.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": "Budget2026", "new_password2": "Budget2026"},
    )
    assert weak.status_code == 200
    assert b"at least 12 characters" in weak.content
    new = "a long and unusual passphrase"
    response = client.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert response.status_code == 302
    assert logged_in(client)
    engineer.refresh_from_db()
    assert engineer.check_password(new)
    assert not AuthToken.objects.filter(user=engineer).exists()
    assert AuditEvent.objects.filter(action="password.changed", actor=engineer).exists()
