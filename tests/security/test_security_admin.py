"""H1, H2, M10: the Django admin is no password oracle, shows no token, and edits nothing."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.conf import settings
from django.test import Client

from accounts.models import LoginFailure
from core.models import AuditEvent
from tests.factories import AcceleratorFactory, ModelApiRouteFactory, ModelProfileFactory

pytestmark = pytest.mark.django_db

PASSWORD = "gpu-demo"
IP = "203.0.113.50"


def admin_login(client: Client, username: str, password: str) -> int:
    response = client.post(
        "/admin/login/", {"username": username, "password": password, "next": "/admin/"}
    )
    return response.status_code


def test_admin_login_failures_are_counted_throttled_and_audited(admin_member):
    """H1: wrong passwords on /admin/login/ count like the product's login; after the limit the
    right password is refused too, and the failures are in the audit trail."""
    client = Client(REMOTE_ADDR=IP)
    for i in range(settings.LOGIN_FAILURE_LIMIT):
        assert admin_login(client, admin_member.username, f"wrong{i}") == 200
    assert LoginFailure.objects.filter(username=admin_member.username).count() == (
        settings.LOGIN_FAILURE_LIMIT
    )
    response = client.post(
        "/admin/login/", {"username": admin_member.username, "password": PASSWORD}
    )
    assert response.status_code == 200
    assert b"Too many failed attempts" in response.content
    assert client.get("/admin/").status_code == 302  # still not logged in
    events = AuditEvent.objects.filter(object_id=admin_member.username)
    assert events.filter(action="login.failed").exists()
    assert events.filter(action="login.throttled").exists()


def test_admin_login_success_is_audited(admin_member):
    """H1: a successful admin login is in the trail, marked as via the admin."""
    client = Client(REMOTE_ADDR=IP)
    assert admin_login(client, admin_member.username, PASSWORD) == 302
    event = AuditEvent.objects.get(action="login.ok", actor=admin_member)
    assert event.summary == {"via": "admin"}


def test_admin_never_lists_api_tokens(admin_member, finance):
    """H2: no admin page shows a usable API token, and the admin cannot mint one for someone."""
    from accounts.tokens import token_issue

    key = token_issue(finance, via="test")
    client = Client()
    client.force_login(admin_member)
    index = client.get("/admin/").content.decode()
    for url in set(re.findall(r'href="(/admin/[a-z_]+/[a-z_]+/)"', index)):
        assert key not in client.get(url).content.decode(), url
    assert client.get("/admin/authtoken/tokenproxy/").status_code == 404
    assert client.get("/admin/knox/authtoken/add/").status_code == 403


@pytest.mark.parametrize(
    ("url", "factory", "field", "value"),
    [
        ("catalog/modelapiroute", ModelApiRouteFactory, "price_output_per_m_tokens", "0.0001"),
        ("catalog/accelerator", AcceleratorFactory, "memory_gb", "1"),
        ("catalog/modelprofile", ModelProfileFactory, "layers", "1"),
    ],
)
def test_admin_cannot_edit_prices_or_specs(admin_member, url, factory, field, value):
    """M10: priced and reference models are read-only in the admin (no unaudited edit)."""
    obj = factory()
    before = getattr(obj, field)
    client = Client()
    client.force_login(admin_member)
    response = client.post(f"/admin/{url}/{obj.pk}/change/", {field: value})
    assert response.status_code == 403
    obj.refresh_from_db()
    assert getattr(obj, field) == before
    assert client.get(f"/admin/{url}/add/").status_code == 403
    assert Decimal(str(before)) != Decimal(value)


def test_admin_cannot_change_roles_providers_or_activation(admin_member, vendor_a, provider_b):
    """M10: a user's role, provider and is_active do not change in the admin (unaudited)."""
    client = Client()
    client.force_login(admin_member)
    response = client.post(
        f"/admin/accounts/user/{vendor_a.pk}/change/",
        {"username": vendor_a.username, "role": "finance", "provider": provider_b.pk},
    )
    assert response.status_code == 403
    vendor_a.refresh_from_db()
    assert vendor_a.role == "vendor"
    assert client.post(f"/admin/accounts/provider/{provider_b.pk}/change/", {}).status_code == 403
    assert client.get(f"/admin/accounts/user/{vendor_a.pk}/change/").status_code == 200  # view
