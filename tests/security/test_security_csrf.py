"""S-07: a session-authenticated write without the CSRF token is refused (403) on one route
of every area, in every transport (form, htmx, DRF JSON, multipart upload), and the same
request with the token gets past the check. Token-authenticated API writes need none."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from knox.models import AuthToken
from rest_framework.test import APIClient

from tests.security.matrix import MATRIX
from tests.security.routes import url_for

pytestmark = pytest.mark.django_db

Body = Callable[[Any], dict[str, Any]]


def empty(world: Any) -> dict[str, Any]:
    return {}


def route_body(name: str) -> Body:
    body = MATRIX[name].body
    return body if body is not None else empty


def credentials(world: Any) -> dict[str, Any]:
    return {"username": "lead", "password": "gpu-demo"}


def answer_body(world: Any) -> dict[str, Any]:
    code = world.objects["answer"].item.code
    return {f"{code}-answer": "Updated", f"{code}-status": "yes", f"{code}-scope": "quote"}


# (route, as whom, transport, body, status with the token). Without it: 403 every time.
CASES = [
    ("accounts:login", "anonymous", "form", credentials, 302),
    ("accounts:logout", "lead", "form", empty, 302),
    ("worker-probe", "admin_member", "form", empty, 302),
    ("catalog:rfq-close", "lead", "form", empty, 302),
    ("vendor:quote-withdraw", "vendor_a", "form", empty, 302),
    ("checklist:answer-review", "engineer", "htmx", route_body("checklist:answer-review"), 200),
    ("checklist:quote-answer", "vendor_a", "multipart", answer_body, 302),
    ("benchmarks:result-upload", "engineer", "multipart", empty, 400),
    (
        "benchmarks:plan-step-check",
        "engineer",
        "htmx",
        route_body("benchmarks:plan-step-check"),
        302,
    ),
    ("briefs:brief-create", "lead", "form", route_body("briefs:brief-create"), 400),
    ("procurement:comparison-recompute", "lead", "form", empty, 302),
    (
        "procurement:comparison-review",
        "engineer",
        "form",
        route_body("procurement:comparison-review"),
        302,
    ),
    ("api-memory-fit", "lead", "json", empty, 400),
    ("quote-list", "vendor_a", "json", empty, 400),
    ("api-brief-list", "lead", "json", empty, 400),
    ("api-quote-checklist-answers", "vendor_a", "multipart", empty, 400),
    ("api-benchmark-results", "engineer", "multipart", empty, 400),
    ("api-comparison-reviews", "engineer", "json", route_body("api-comparison-reviews"), 201),
]


def csrf_client(world: Any, role: str) -> tuple[Client, str]:
    """A client that enforces CSRF like a browser, and the token a page would give it."""
    client = Client(enforce_csrf_checks=True)
    if role == "anonymous":
        client.get("/accounts/login/")
    else:
        client.force_login(world.users[role])
        client.get("/")
    return client, client.cookies["csrftoken"].value


def post(client: Client, url: str, transport: str, body: dict[str, Any], token: str | None):
    headers: dict[str, str] = {}
    if token and transport in ("htmx", "json"):
        headers["X-CSRFToken"] = token
    elif token:
        body = {**body, "csrfmiddlewaretoken": token}
    if transport == "htmx":
        headers["HX-Request"] = "true"
    with transaction.atomic():
        if transport == "json":
            response = client.post(url, body, content_type="application/json", headers=headers)
        else:
            response = client.post(url, body, headers=headers)
        transaction.set_rollback(True)
    return response


@pytest.mark.parametrize(("name", "role", "transport", "body", "expected"), CASES)
def test_a_write_without_the_csrf_token_is_refused(world, name, role, transport, body, expected):
    client, _ = csrf_client(world, role)
    response = post(client, url_for(world, name), transport, body(world), token=None)
    assert response.status_code == 403
    assert b"CSRF" in response.content


@pytest.mark.parametrize(("name", "role", "transport", "body", "expected"), CASES)
def test_the_same_write_with_the_token_gets_past_the_check(
    world, name, role, transport, body, expected
):
    client, token = csrf_client(world, role)
    response = post(client, url_for(world, name), transport, body(world), token=token)
    assert response.status_code == expected, response.content[:300]


def test_a_token_from_another_session_is_refused(world):
    _, foreign = csrf_client(world, "finance")
    client, _ = csrf_client(world, "lead")
    response = post(client, url_for(world, "api-memory-fit"), "json", {}, token=foreign[::-1])
    assert response.status_code == 403


@pytest.mark.parametrize(
    ("name", "transport", "expected"),
    [("api-memory-fit", "json", 400), ("api-benchmark-results", "multipart", 400)],
)
def test_token_authenticated_api_writes_need_no_csrf_token(world, name, transport, expected):
    client = APIClient(enforce_csrf_checks=True)
    _, key = AuthToken.objects.create(user=world.users["engineer"])
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    url = url_for(world, name)
    with transaction.atomic():
        response = client.post(url, {}, format=transport)
        transaction.set_rollback(True)
    assert response.status_code == expected
