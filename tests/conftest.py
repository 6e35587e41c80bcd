"""The cast (Healthchecks' alice/bob): one user per role, two vendors in two providers."""

from __future__ import annotations

import pytest

from accounts.models import Role
from tests.factories import ProviderFactory, UserFactory


@pytest.fixture
def provider_a(db):
    return ProviderFactory(name="Provider A", slug="provider-a")


@pytest.fixture
def provider_b(db):
    return ProviderFactory(name="Provider B", slug="provider-b")


@pytest.fixture
def lead(db):
    return UserFactory(username="lead", role=Role.PROCUREMENT_LEAD)


@pytest.fixture
def lead_other(db):
    return UserFactory(username="lead2", role=Role.PROCUREMENT_LEAD)


@pytest.fixture
def engineer(db):
    return UserFactory(username="engineer", role=Role.PLATFORM_ENGINEER)


@pytest.fixture
def finance(db):
    return UserFactory(username="finance", role=Role.FINANCE_REVIEWER)


@pytest.fixture
def finance_other(db):
    return UserFactory(username="finance2", role=Role.FINANCE_REVIEWER)


@pytest.fixture
def security(db):
    return UserFactory(username="security", role=Role.SECURITY_REVIEWER)


@pytest.fixture
def vendor_a(db, provider_a):
    return UserFactory(username="vendor_a", role=Role.VENDOR, provider=provider_a)


@pytest.fixture
def vendor_b(db, provider_b):
    return UserFactory(username="vendor_b", role=Role.VENDOR, provider=provider_b)


@pytest.fixture
def admin_user(db):
    return UserFactory(username="admin", role=Role.ADMIN, is_staff=True, is_superuser=True)


@pytest.fixture
def anonymous():
    return None


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def login(client):
    """login(user) → the Django test client, logged in as that user (None = anonymous)."""

    def _login(user):
        client.logout()
        if user is not None:
            client.force_login(user)
        return client

    return _login
