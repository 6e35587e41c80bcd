"""The foundation: login everywhere, health, token auth, production settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from core.models import AuditEvent

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/catalog/", "/briefs/", "/comparisons/", "/api/docs/"])
def test_anonymous_pages_redirect_to_login(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


@pytest.mark.django_db
def test_login_page_and_healthz_are_public(client):
    assert client.get("/accounts/login/").status_code == 200
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["database"]["ok"] is True
    assert body["broker"]["ok"] is True


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/", "/api/v1/quotes/", "/api/v1/comparisons/"])
def test_anonymous_api_gets_401_or_403(api_client, path):
    assert api_client.get(path).status_code in (401, 403)


@pytest.mark.django_db
def test_token_auth_round_trip(api_client, lead):
    response = api_client.post(
        "/api/v1/auth/token/", {"username": "lead", "password": "gpu-demo"}, format="json"
    )
    assert response.status_code == 200
    token = response.json()["token"]
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api_client.get("/api/v1/").status_code == 200


@pytest.mark.django_db
def test_token_with_bad_password_is_a_clear_400(api_client, lead):
    response = api_client.post(
        "/api/v1/auth/token/", {"username": "lead", "password": "nope"}, format="json"
    )
    assert response.status_code == 400
    assert "credentials" in response.json()["detail"]


@pytest.mark.django_db
def test_login_page_logs_in_and_dashboard_renders(client, lead):
    response = client.post("/accounts/login/", {"username": "lead", "password": "gpu-demo"})
    assert response.status_code == 302
    page = client.get("/")
    assert page.status_code == 200
    assert b"Dashboard" in page.content
    assert AuditEvent.objects.filter(action="login.ok", actor=lead).count() == 1


@pytest.mark.django_db
def test_login_throttle_blocks_the_pair_not_other_users(client, lead, engineer):
    for _ in range(5):
        client.post("/accounts/login/", {"username": "lead", "password": "wrong"})
    blocked = client.post("/accounts/login/", {"username": "lead", "password": "gpu-demo"})
    assert blocked.status_code == 200
    assert b"Too many failed attempts" in blocked.content
    other = Client().post("/accounts/login/", {"username": "engineer", "password": "gpu-demo"})
    assert other.status_code == 302


@pytest.mark.django_db
def test_csrf_enforced_for_session_posts(lead):
    client = Client(enforce_csrf_checks=True)
    client.force_login(lead)
    assert client.post("/accounts/logout/").status_code == 403
    assert (
        client.post("/api/v1/memory-fit/", {}, content_type="application/json").status_code == 403
    )


@pytest.mark.django_db
def test_csp_header_has_no_inline_scripts(client, lead):
    client.force_login(lead)
    csp = client.get("/")["Content-Security-Policy"]
    script_src = next(p for p in csp.split(";") if p.strip().startswith("script-src"))
    assert "unsafe-inline" not in script_src
    assert "object-src 'none'" in csp
    assert "frame-ancestors 'none'" in csp


@pytest.mark.django_db
def test_plotly_and_htmx_are_served_locally(client, lead):
    client.force_login(lead)
    html = client.get("/").content.decode()
    assert "/static/vendor/htmx.min.js" in html
    assert "cdn" not in html.lower()
    from django.contrib.staticfiles import finders

    assert finders.find("vendor/plotly/plotly.min.js")
    assert finders.find("vendor/htmx.min.js")


def test_check_deploy_passes_with_production_settings(tmp_path):
    # The browser tests need DJANGO_ALLOW_ASYNC_UNSAFE in the test process; a deployment
    # never sets it (and check --deploy rightly reports async.E001 when it is set).
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DEBUG": "false",
        "SECRET_KEY": "a-long-production-like-secret-key-for-the-deploy-check-0123456789",
        "ALLOWED_HOSTS": "workbench.example.com",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        # R7: a deployment anchors its audit trail outside the database (check --deploy
        # refuses one that does not: core.E001, tested in tests/security).
        "AUDIT_ANCHOR_FILE": str(tmp_path / "audit-anchor.jsonl"),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_refuses_to_start_without_secret_key():
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env.update({"DEBUG": "false", "DJANGO_SETTINGS_MODULE": "config.settings"})
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


@pytest.mark.django_db
def test_audit_rows_cannot_be_changed_or_deleted(lead):
    from django.db import connection, transaction

    from core.audit import audit_record

    event = audit_record(actor=lead, action="test.event", object_type="x", object_id="1")
    with pytest.raises(PermissionError):
        event.save()
    with pytest.raises(PermissionError):
        AuditEvent.objects.all().delete()
    with (
        pytest.raises(Exception, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cur,
    ):
        cur.execute("UPDATE procurement_auditevent SET action='x'")
