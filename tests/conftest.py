"""The cast (Healthchecks' alice/bob): one user per role, two vendors in two providers."""

from __future__ import annotations

from typing import Any

import pytest

# Django-dependent imports live inside the fixtures, so the pure engine and parser suites
# also run without Django (`pytest tests/engine -p no:django`).


def _user(**kwargs: Any) -> Any:
    from tests.factories import UserFactory

    return UserFactory(**kwargs)


def _provider(**kwargs: Any) -> Any:
    from tests.factories import ProviderFactory

    return ProviderFactory(**kwargs)


def _role(name: str) -> str:
    from core.roles import Role

    return str(Role[name])


@pytest.fixture
def provider_a(db):
    return _provider(name="Provider A", slug="provider-a")


@pytest.fixture
def provider_b(db):
    return _provider(name="Provider B", slug="provider-b")


@pytest.fixture
def lead(db):
    return _user(username="lead", role=_role("PROCUREMENT_LEAD"))


@pytest.fixture
def lead_other(db):
    return _user(username="lead2", role=_role("PROCUREMENT_LEAD"))


@pytest.fixture
def engineer(db):
    return _user(username="engineer", role=_role("PLATFORM_ENGINEER"))


@pytest.fixture
def finance(db):
    return _user(username="finance", role=_role("FINANCE_REVIEWER"))


@pytest.fixture
def finance_other(db):
    return _user(username="finance2", role=_role("FINANCE_REVIEWER"))


@pytest.fixture
def security(db):
    return _user(username="security", role=_role("SECURITY_REVIEWER"))


@pytest.fixture
def vendor_a(db, provider_a):
    return _user(username="vendor_a", role=_role("VENDOR"), provider=provider_a)


@pytest.fixture
def vendor_b(db, provider_b):
    return _user(username="vendor_b", role=_role("VENDOR"), provider=provider_b)


@pytest.fixture
def admin_user(db):
    return _user(username="admin", role=_role("ADMIN"), is_staff=True, is_superuser=True)


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
