"""The cast (Healthchecks' alice/bob) as fixtures: one user per role, two vendors in two
providers. Who they are, and why each exists: `tests/support/cast.py` (docs/testing.md)."""

from __future__ import annotations

import pytest

from tests.support.cast import build_member, build_provider

pytest_plugins = ["tests.support.schedule"]

# Django-dependent imports live inside the fixtures, so the pure engine and parser suites
# also run without Django (`pytest tests/engine -p no:django`).


@pytest.fixture
def provider_a(db):
    return build_provider("provider_a")


@pytest.fixture
def provider_b(db):
    return build_provider("provider_b")


@pytest.fixture
def lead(db):
    return build_member("lead")


@pytest.fixture
def lead_other(db):
    return build_member("lead_other")


@pytest.fixture
def engineer(db):
    return build_member("engineer")


@pytest.fixture
def finance(db):
    return build_member("finance")


@pytest.fixture
def finance_other(db):
    return build_member("finance_other")


@pytest.fixture
def security(db):
    return build_member("security")


@pytest.fixture
def vendor_a(db, provider_a):
    return build_member("vendor_a", provider_a=provider_a)


@pytest.fixture
def vendor_b(db, provider_b):
    return build_member("vendor_b", provider_b=provider_b)


@pytest.fixture
def admin_member(db):
    return build_member("admin_member")


def pytest_collection_modifyitems(config, items):
    """The cast's admin is `admin_member`; pytest-django's `admin_user` has no role."""
    misused = [item.nodeid for item in items if "admin_user" in getattr(item, "fixturenames", ())]
    if misused:
        raise pytest.UsageError(
            "use the cast's `admin_member` (role ADMIN), not pytest-django's `admin_user`: "
            + ", ".join(misused[:5])
        )


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


@pytest.fixture(autouse=True)
def _services_tests_start_on_the_test_broker(request):
    """A worker-subprocess test starts on this process's own broker with fresh pools: an
    earlier test on the same pytest-xdist worker may have pointed the app at a private Redis
    and closed its pools. It leaves them fresh too: a plain test that publishes from an
    on-commit callback afterwards (a price change's assessment) found them closed ("Acquire
    on closed pool") when it ran after a services test on the same worker."""
    services = request.node.get_closest_marker("services") is not None
    if services:
        from tests.support import worker

        worker.reset_broker()
    yield
    if services:
        worker.reset_broker()
