"""Edge values the fuzzer found, pinned as plain tests so they never come back: absurd
pagination numbers, NUL bytes in lookups and filters, an over-long username at the token
endpoint. Each is a clear 4xx (or a clamped page), never a 500."""

from __future__ import annotations

import pytest

from tests.factories import AcceleratorFactory
from tests.reliability.conftest import domain_counts

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(api_client, admin_member):
    """Answers 500 instead of raising, so each test reports every failing URL at once."""
    api_client.raise_request_exception = False
    api_client.force_authenticate(admin_member)
    return api_client


LISTS = [
    "/api/v1/accelerators/",
    "/api/v1/models/",
    "/api/v1/providers/",
    "/api/v1/quotes/",
    "/api/v1/api-routes/",
    "/api/v1/fx-rates/",
    "/api/v1/rfqs/",
    "/api/v1/briefs/",
    "/api/v1/benchmark-results/",
    "/api/v1/comparisons/",
    "/api/v1/checklist/items/",
    "/api/v1/audit-events/",
]


@pytest.mark.parametrize(
    "query", ["limit=10" + "0" * 30, "offset=9" + "0" * 30, "limit=-5&offset=-9"]
)
def test_reliability_absurd_pagination_is_never_a_500(api, query):
    problems = []
    for url in LISTS:
        response = api.get(f"{url}?{query}")
        if response.status_code >= 500 or response.status_code not in (200, 400):
            problems.append(f"{url}?{query}: {response.status_code}")
    assert not problems, problems


def test_reliability_nul_bytes_in_lookups_and_filters_are_400(api):
    AcceleratorFactory(slug="h100-sxm-80gb")
    before = domain_counts()
    problems = []
    body = {
        "provider": "provider-\x00a",
        "accelerator": "h100\x00",
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": "2.49",
        "quoted_at": "2026-01-01T00:00:00Z",
    }
    for kind in ("json", "multipart"):
        response = api.post("/api/v1/quotes/", body, format=kind)
        if response.status_code != 400:
            problems.append(f"POST quotes ({kind}) with NUL: {response.status_code}")
    for url in [
        "/api/v1/quotes/?accelerator=h\x00",
        "/api/v1/accelerators/?vendor=A\x00",
        "/api/v1/benchmark-results/?accelerator=h\x00",
        "/api/v1/models/h\x00/",
    ]:
        response = api.get(url)
        if response.status_code >= 500:
            problems.append(f"GET {url!r}: {response.status_code}")
    assert not problems, problems
    assert domain_counts() == before


def test_reliability_an_overlong_username_at_the_token_endpoint_is_refused(api_client):
    api_client.raise_request_exception = False
    before = domain_counts()
    for username in ["u" * 150, "x" * 41, "ü" * 60]:
        response = api_client.post(
            "/api/v1/auth/token/", {"username": username, "password": "nope"}, format="json"
        )
        assert response.status_code in (400, 401), (len(username), response.status_code)
    _unchanged_but_login_failures(before)


def _unchanged_but_login_failures(before: dict[str, int]) -> None:
    """Refused logins are recorded (for throttling); nothing else changes."""
    counts, before = dict(domain_counts()), dict(before)
    assert counts.pop("accounts.loginfailure") >= before.pop("accounts.loginfailure")
    assert counts == before


def test_reliability_an_overlong_username_at_the_login_form_is_refused(client):
    client.raise_request_exception = False
    before = domain_counts()
    for username in ["u" * 150, "x" * 41, "y" * 1000]:
        response = client.post("/accounts/login/", {"username": username, "password": "nope"})
        assert response.status_code in (200, 400), (len(username), response.status_code)
    _unchanged_but_login_failures(before)
