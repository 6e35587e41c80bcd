"""M10: the product's user page. Administrators change a user's role, provider and
activation there, each change audited; a deactivation ends the user's sessions and tokens."""

from __future__ import annotations

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from knox.models import AuthToken
from rest_framework.test import APIClient

from accounts.services.users import user_update
from core.errors import NotAllowed
from core.models import AuditEvent

pytestmark = pytest.mark.django_db

PASSWORD = "gpu-demo"


def manage_url(user) -> str:
    return f"/accounts/users/{user.pk}/"


def admin_client(admin_member) -> Client:
    client = Client()
    client.force_login(admin_member)
    return client


def signed_in(user) -> Client:
    client = Client()
    assert client.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
    assert client.get("/").status_code == 200
    return client


def token_for(user) -> str:
    response = APIClient().post(
        "/api/v1/auth/token/", {"username": user.username, "password": PASSWORD}, format="json"
    )
    assert response.status_code == 200
    return response.json()["token"]


def test_deactivating_a_user_ends_their_sessions_and_tokens_and_is_audited(admin_member, engineer):
    """Given engineer signed in with an API token, when an administrator deactivates them,
    then the session row and the token are gone at once and the change is in the chain."""
    session = signed_in(engineer)
    key = token_for(engineer)
    response = admin_client(admin_member).post(manage_url(engineer), {"role": "engineer"})
    assert response.status_code == 302
    engineer.refresh_from_db()
    assert not engineer.is_active
    assert not AuthToken.objects.filter(user=engineer).exists()
    assert not [
        s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(engineer.pk)
    ]
    assert session.get("/").status_code == 302
    assert APIClient(HTTP_AUTHORIZATION=f"Token {key}").get("/api/v1/quotes/").status_code == 401
    events = AuditEvent.objects.filter(object_id=str(engineer.pk), actor=admin_member)
    assert {"user.deactivated", "token.revoked", "user.sessions_ended"} <= set(
        events.values_list("action", flat=True)
    )


def test_reactivating_is_audited_and_old_tokens_stay_dead(admin_member, engineer):
    key = token_for(engineer)
    client = admin_client(admin_member)
    client.post(manage_url(engineer), {"role": "engineer"})
    client.post(manage_url(engineer), {"role": "engineer", "is_active": "on"})
    engineer.refresh_from_db()
    assert engineer.is_active
    assert AuditEvent.objects.filter(action="user.reactivated", actor=admin_member).exists()
    assert APIClient(HTTP_AUTHORIZATION=f"Token {key}").get("/api/v1/quotes/").status_code == 401


def test_a_role_change_is_audited_with_before_and_after(admin_member, engineer):
    response = admin_client(admin_member).post(
        manage_url(engineer), {"role": "finance", "is_active": "on"}
    )
    assert response.status_code == 302
    engineer.refresh_from_db()
    assert engineer.role == "finance"
    event = AuditEvent.objects.get(action="user.role_changed")
    assert event.actor == admin_member
    assert event.summary == {"before": "engineer", "after": "finance"}


def test_moving_a_vendor_to_another_provider_is_audited(admin_member, vendor_a, provider_b):
    admin_client(admin_member).post(
        manage_url(vendor_a), {"role": "vendor", "provider": provider_b.pk, "is_active": "on"}
    )
    vendor_a.refresh_from_db()
    assert vendor_a.provider == provider_b
    event = AuditEvent.objects.get(action="user.provider_changed")
    assert event.summary == {"before": "Provider A", "after": "Provider B"}


def test_a_vendor_without_a_provider_is_refused_and_nothing_changes(admin_member, engineer):
    response = admin_client(admin_member).post(
        manage_url(engineer), {"role": "vendor", "is_active": "on"}
    )
    assert response.status_code == 400
    assert "Choose the vendor&#x27;s provider." in response.content.decode()
    engineer.refresh_from_db()
    assert engineer.role == "engineer"
    assert not AuditEvent.objects.filter(action__startswith="user.").exists()


def test_an_unknown_role_is_a_clear_400(admin_member, engineer):
    response = admin_client(admin_member).post(manage_url(engineer), {"role": "overlord"})
    assert response.status_code == 400
    engineer.refresh_from_db()
    assert engineer.is_active
    assert engineer.role == "engineer"


@pytest.mark.parametrize("body", [{"role": "admin"}, {"role": "lead", "is_active": "on"}])
def test_an_administrator_cannot_lock_themselves_out(admin_member, body):
    response = admin_client(admin_member).post(manage_url(admin_member), body)
    assert response.status_code == 400
    assert "Another administrator must make this change." in response.content.decode()
    admin_member.refresh_from_db()
    assert admin_member.is_active
    assert admin_member.role == "admin"


@pytest.mark.parametrize("who", ["lead", "finance", "security", "vendor_a"])
def test_only_administrators_manage_users(request, who, engineer):
    """The page is 404 for everyone else, and the service refuses them too."""
    actor = request.getfixturevalue(who)
    client = Client()
    client.force_login(actor)
    assert client.get("/accounts/users/").status_code == 404
    assert client.post(manage_url(engineer), {"role": "admin"}).status_code == 404
    with pytest.raises(NotAllowed):
        user_update(acting_user=actor, user=engineer, role="admin", provider=None, is_active=True)
    engineer.refresh_from_db()
    assert engineer.role == "engineer"


def test_the_list_shows_every_user_to_an_administrator(admin_member, engineer, vendor_a):
    page = admin_client(admin_member).get("/accounts/users/").content.decode()
    assert manage_url(engineer) in page
    assert "Provider A" in page
