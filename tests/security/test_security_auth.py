"""S-10 login throttling (form and token endpoint), S-15 token auth, S-09 deactivation."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from knox.models import AuthToken
from rest_framework.test import APIClient

from accounts.models import LoginFailure
from core.models import AuditEvent

pytestmark = pytest.mark.django_db

LOGIN_URL = "/accounts/login/"
TOKEN_URL = "/api/v1/auth/token/"
PASSWORD = "gpu-demo"
IP = "203.0.113.7"
OTHER_IP = "198.51.100.9"


def form_login(username: str, password: str, ip: str = IP) -> tuple[Client, int]:
    client = Client(REMOTE_ADDR=ip)
    response = client.post(LOGIN_URL, {"username": username, "password": password})
    return client, response.status_code


def logged_in(client: Client) -> bool:
    return client.get("/").status_code == 200


def fail_until_blocked(username: str, ip: str = IP) -> None:
    for _ in range(settings.LOGIN_FAILURE_LIMIT):
        _, status = form_login(username, "wrong-password", ip)
        assert status == 200  # the form again, with an error


def age_failures(seconds: int) -> None:
    """Move every failure back in time (instead of sleeping through the window)."""
    for failure in LoginFailure.objects.all():
        LoginFailure.objects.filter(pk=failure.pk).update(
            created_at=failure.created_at - timedelta(seconds=seconds)
        )


# --- S-10: the login form -----------------------------------------------------------------------


def test_after_n_failures_the_right_password_is_refused(lead):
    fail_until_blocked("lead")
    client = Client(REMOTE_ADDR=IP)
    response = client.post(LOGIN_URL, {"username": "lead", "password": PASSWORD})
    assert response.status_code == 200
    assert b"Too many failed attempts" in response.content
    assert not logged_in(client)


def test_one_failure_short_of_the_limit_still_logs_in(lead):
    for _ in range(settings.LOGIN_FAILURE_LIMIT - 1):
        form_login("lead", "wrong-password")
    client, status = form_login("lead", PASSWORD)
    assert status == 302
    assert logged_in(client)
    assert LoginFailure.objects.filter(username="lead").count() == 0  # cleared on success


def test_the_block_is_per_username_and_address(lead, engineer):
    fail_until_blocked("lead")
    other_user, status = form_login("engineer", PASSWORD)  # same address, other account
    assert status == 302
    assert logged_in(other_user)
    other_ip, status = form_login("lead", PASSWORD, ip=OTHER_IP)  # same account, elsewhere
    assert status == 302
    assert logged_in(other_ip)


def test_username_case_does_not_dodge_the_block(lead):
    fail_until_blocked("lead")
    client, status = form_login("LEAD", PASSWORD)
    assert status == 200
    assert not logged_in(client)


def test_after_the_window_login_works_again(lead):
    fail_until_blocked("lead")
    assert form_login("lead", PASSWORD)[1] == 200
    age_failures(settings.LOGIN_FAILURE_WINDOW_S + 1)
    client, status = form_login("lead", PASSWORD)
    assert status == 302
    assert logged_in(client)


def test_a_shorter_window_setting_is_honoured(lead, settings):
    settings.LOGIN_FAILURE_WINDOW_S = 60
    fail_until_blocked("lead")
    age_failures(61)
    assert form_login("lead", PASSWORD)[1] == 302


def test_every_failure_and_refusal_is_audited_without_the_password(lead):
    """M7 changed the count: one event per (username, address) per window, not per attempt."""
    fail_until_blocked("lead")
    form_login("lead", PASSWORD)
    form_login("lead", PASSWORD)
    failed = AuditEvent.objects.filter(action="login.failed", object_id="lead")
    assert failed.count() == 1
    assert set(failed.values_list("outcome", flat=True)) == {"refused"}
    assert AuditEvent.objects.filter(action="login.throttled", object_id="lead").count() == 1
    for event in AuditEvent.objects.all():
        assert "wrong-password" not in str(event.summary) + event.object_repr
        assert PASSWORD not in str(event.summary) + event.object_repr


def test_unknown_usernames_are_throttled_too(db):
    fail_until_blocked("nobody")
    assert LoginFailure.objects.filter(username="nobody").count() == settings.LOGIN_FAILURE_LIMIT
    # M7: the failures are counted in full, audited once per (username, address) per window.
    assert AuditEvent.objects.filter(action="login.failed", object_id="nobody").count() == 1


# --- S-10: the token endpoint is throttled the same way ------------------------------------------


def token_attempt(username: str, password: str, ip: str = IP):
    return APIClient(REMOTE_ADDR=ip).post(
        TOKEN_URL, {"username": username, "password": password}, format="json"
    )


def test_token_endpoint_blocks_after_n_failures_and_audits_each(engineer):
    for _ in range(settings.LOGIN_FAILURE_LIMIT):
        assert token_attempt("engineer", "wrong-password").status_code == 400
    blocked = token_attempt("engineer", PASSWORD)
    assert blocked.status_code == 403
    assert "Too many failed attempts" in blocked.json()["detail"]
    assert "token" not in blocked.json()
    assert token_attempt("engineer", PASSWORD, ip=OTHER_IP).status_code == 200
    failed = AuditEvent.objects.filter(action="login.failed", object_id="engineer")
    assert failed.count() == 1  # M7: once per (username, address) per window
    assert AuditEvent.objects.filter(action="login.throttled", object_id="engineer").count() == 1


def test_form_and_token_failures_count_together(engineer):
    """One budget per (username, address): alternating surfaces does not double it."""
    for i in range(settings.LOGIN_FAILURE_LIMIT):
        if i % 2:
            token_attempt("engineer", "wrong-password")
        else:
            form_login("engineer", "wrong-password")
    assert token_attempt("engineer", PASSWORD).status_code == 403
    assert form_login("engineer", PASSWORD)[1] == 200


def test_token_endpoint_works_again_after_the_window(engineer):
    for _ in range(settings.LOGIN_FAILURE_LIMIT):
        token_attempt("engineer", "wrong-password")
    age_failures(settings.LOGIN_FAILURE_WINDOW_S + 1)
    response = token_attempt("engineer", PASSWORD)
    assert response.status_code == 200
    assert AuditEvent.objects.filter(action="token.created", actor=engineer).count() == 1
    assert response.json()["token"] not in str(list(AuditEvent.objects.values("summary")))


# --- S-15: token auth ----------------------------------------------------------------------------


@pytest.fixture
def token(engineer) -> str:
    return AuthToken.objects.create(user=engineer)[1]


def test_a_token_in_the_header_works(token):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/v1/quotes/").status_code == 200


@pytest.mark.parametrize("param", ["token", "auth_token", "access_token", "key", "api_key"])
def test_a_token_in_the_query_string_is_refused(token, param):
    response = APIClient().get(f"/api/v1/quotes/?{param}={token}")
    assert response.status_code in (401, 403)
    assert "results" not in response.json()


def test_a_deactivated_users_token_gets_401(token, engineer):
    engineer.is_active = False
    engineer.save(update_fields=["is_active"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.get("/api/v1/quotes/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Token")
    upload = client.post("/api/v1/benchmark-results/", {}, format="multipart")
    assert upload.status_code == 401


def test_an_unknown_or_revoked_token_gets_401(token):
    AuthToken.objects.filter(token_key=token[:15]).delete()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/v1/quotes/").status_code == 401


def test_a_deactivated_user_cannot_get_a_new_token(engineer):
    engineer.is_active = False
    engineer.save(update_fields=["is_active"])
    assert token_attempt("engineer", PASSWORD).status_code == 400


# --- S-09: deactivation ends the session at the next request ----------------------------------


def test_deactivating_a_user_ends_their_session(engineer):
    client = Client()
    client.force_login(engineer)
    assert client.get("/benchmarks/").status_code == 200
    engineer.is_active = False
    engineer.save(update_fields=["is_active"])
    page = client.get("/benchmarks/")
    assert page.status_code == 302
    assert page["Location"].startswith(LOGIN_URL)
    assert client.get("/api/v1/quotes/").status_code in (401, 403)


def test_login_rotates_the_session_key(lead):
    client = Client(REMOTE_ADDR=IP)
    client.get(LOGIN_URL)
    client.session.save()
    before = client.session.session_key
    client.post(LOGIN_URL, {"username": "lead", "password": PASSWORD})
    assert client.session.session_key != before
