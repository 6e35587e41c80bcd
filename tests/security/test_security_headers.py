"""S-08 response headers on every kind of response; production mode (secure cookies, HSTS,
`__Host-` names); S-11 downloads (attachment, sanitised name, nosniff)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings

from tests.security.matrix import MATRIX
from tests.security.routes import call, url_for

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
SAFE_FILENAME = re.compile(r'^attachment; filename="[A-Za-z0-9._ ()-]+"$')


def directives(response: Any) -> dict[str, list[str]]:
    policy = response["Content-Security-Policy"]
    out = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


def assert_security_headers(response: Any) -> None:
    csp = directives(response)
    script_src = csp.get("script-src") or csp["default-src"]
    assert "'unsafe-inline'" not in script_src
    assert "'unsafe-eval'" not in script_src
    assert csp["object-src"] == ["'none'"]
    assert csp["base-uri"] == ["'none'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] in (
        "same-origin",
        "strict-origin-when-cross-origin",
        "no-referrer",
    )


# Each kind of response: (route, as whom, method, status). Downloads carry private files.
RESPONSES = [
    ("dashboard", "lead", 200),
    ("accounts:login", "anonymous", 200),
    ("quote-list", "lead", 200),
    ("quote-detail", "vendor_b", 404),
    ("catalog:quote-detail", "vendor_b", 404),
    ("api-audit-event-list", "lead", 403),
    ("briefs:brief-create", "engineer", 403),
    ("checklist:evidence", "vendor_a", 200),
    ("benchmarks:result-download", "engineer", 200),
    ("api-comparison-export-csv", "finance", 200),
    ("api-comparison-export-xlsx", "finance", 200),
    ("healthz", "anonymous", 200),
]


@pytest.mark.parametrize(("name", "role", "status"), RESPONSES)
def test_every_kind_of_response_carries_the_security_headers(world, name, role, status):
    response = call(world, role, "get", url_for(world, name), MATRIX[name])
    assert response.status_code == status
    assert_security_headers(response)


def test_an_unknown_url_404_page_carries_them_too(world):
    response = call(world, "lead", "get", "/no/such/page/", MATRIX["dashboard"])
    assert response.status_code == 404
    assert_security_headers(response)


def test_a_server_error_page_carries_them_too(world, monkeypatch):
    from procurement.views import dashboard

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(dashboard.selectors_dashboard, "dashboard_context", boom)
    client = Client(raise_request_exception=False)
    client.force_login(world.users["lead"])
    response = client.get("/")
    assert response.status_code == 500
    assert_security_headers(response)
    assert b"boom" not in response.content  # no traceback for users


# --- S-11: downloads -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "role", "content"),
    [
        ("checklist:evidence", "vendor_a", "answer"),
        ("checklist:evidence", "finance", "answer"),
        ("benchmarks:result-download", "engineer", "result"),
    ],
)
def test_downloads_are_attachments_with_a_sanitised_name(world, name, role, content):
    response = call(world, role, "get", url_for(world, name), MATRIX[name])
    assert response.status_code == 200
    disposition = response["Content-Disposition"]
    assert SAFE_FILENAME.match(disposition), disposition
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "no-store" in response["Cache-Control"]
    assert response["Content-Type"].split(";")[0] in ("application/pdf", "application/octet-stream")
    stored = world.objects[content]
    field = stored.evidence_file if content == "answer" else stored.raw_file
    field.open("rb")
    with field:
        assert response.body == field.read()


@pytest.mark.parametrize("name", ["api-comparison-export-csv", "api-comparison-export-xlsx"])
def test_exports_are_attachments(world, name):
    response = call(world, "finance", "get", url_for(world, name), MATRIX[name])
    assert SAFE_FILENAME.match(response["Content-Disposition"]), response["Content-Disposition"]
    assert response["X-Content-Type-Options"] == "nosniff"


# --- Production mode -------------------------------------------------------------------------

PRODUCTION_SETTINGS = [
    "DEBUG",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SESSION_COOKIE_NAME",
    "CSRF_COOKIE_NAME",
    "SESSION_COOKIE_HTTPONLY",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_SSL_REDIRECT",
    "SECURE_PROXY_SSL_HEADER",
    "SILENCED_SYSTEM_CHECKS",
    "ALLOWED_HOSTS",
]
SCRIPT = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    f"print(json.dumps({{n: getattr(s, n) for n in {PRODUCTION_SETTINGS!r}}}))"
)


@pytest.fixture(scope="module")
def production() -> dict[str, Any]:
    """The settings as production computes them (DEBUG off), read in a fresh interpreter."""
    env = {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": "a-long-production-like-secret-key-for-the-security-tests-0123456789",
        "ALLOWED_HOSTS": "testserver",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_production_settings_are_hardened(production):
    assert production["DEBUG"] is False
    assert production["SESSION_COOKIE_SECURE"] is True
    assert production["CSRF_COOKIE_SECURE"] is True
    assert production["SESSION_COOKIE_HTTPONLY"] is True
    assert production["SESSION_COOKIE_NAME"].startswith("__Host-")
    assert production["CSRF_COOKIE_NAME"].startswith("__Host-")
    assert production["SECURE_HSTS_SECONDS"] >= 31_536_000
    assert production["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert production["SECURE_SSL_REDIRECT"] is True
    assert production["SILENCED_SYSTEM_CHECKS"] == []


def _production_overrides(production: dict[str, Any]) -> dict[str, Any]:
    keys = [k for k in PRODUCTION_SETTINGS if k not in ("DEBUG", "SILENCED_SYSTEM_CHECKS")]
    values = {k: production[k] for k in keys}
    values["SECURE_PROXY_SSL_HEADER"] = tuple(values["SECURE_PROXY_SSL_HEADER"])
    return values


def test_production_responses_send_hsts_and_secure_host_cookies(production, lead):
    with override_settings(**_production_overrides(production)):
        client = Client(REMOTE_ADDR="192.0.2.10")
        plain = client.get("/accounts/login/")
        assert plain.status_code == 301  # http is redirected to https
        assert plain["Location"].startswith("https://")
        page = client.get("/accounts/login/", secure=True)
        assert page.status_code == 200
        assert_security_headers(page)
        hsts = page["Strict-Transport-Security"]
        max_age = int(re.search(r"max-age=(\d+)", hsts).group(1))
        assert max_age >= 31_536_000
        assert "includeSubDomains" in hsts
        response = client.post(
            "/accounts/login/", {"username": "lead", "password": "gpu-demo"}, secure=True
        )
        assert response.status_code == 302
    cookies = {**page.cookies, **response.cookies}
    for name in (production["SESSION_COOKIE_NAME"], production["CSRF_COOKIE_NAME"]):
        morsel = cookies[name]
        assert name.startswith("__Host-")
        assert morsel["secure"]
        assert morsel["path"] == "/"
        assert not morsel["domain"]  # __Host- cookies must not name a domain
        assert morsel["samesite"] == "Lax"
    assert cookies[production["SESSION_COOKIE_NAME"]]["httponly"]
