"""Access cases the route × role matrix does not express, folded in from the per-app access
matrices (catalog, checklist, benchmarks) so that one place holds every access rule.

URL variants with query strings, what each role's quote list holds, filters that must not
reveal another vendor's rows (and provably match the owner's), token authentication, the
methods no route serves, and attacks with a crafted body or through another provider's URL.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from knox.models import AuthToken

from catalog.models import Quote, Rfq
from checklist.models import ChecklistAnswer, ChecklistItem, ChecklistReview
from tests.factories import AcceleratorFactory, QuoteFactory, RfqFactory
from tests.security.factories_security import ROLES, _seed_checklist_items
from tests.security.matrix import LOGIN, MATRIX, Route, html
from tests.security.routes import call, outcome

pytestmark = pytest.mark.django_db

L = LOGIN
QUOTES_API = "/api/v1/quotes/"

# fmt: off
# Routes of the matrix reached with a query string (forms pre-filled from the query).
#                                                          anon  vA   vB  lead  eng  fin  sec  adm
VARIANTS = {
    "/catalog/quotes/new/?rfq={rfq}":                     (L, 404, 404, 200, 404, 404, 404, 200),
    "/benchmarks/compare/?brief={brief}":                 (L, 404, 404, 200, 200, 200, 200, 200),
    "/benchmarks/plans/new/?quote={quote}&brief={brief}": (L, 404, 404, 200, 200, 404, 404, 200),
}
# fmt: on


@pytest.mark.parametrize("template", sorted(VARIANTS))
def test_query_string_variants_keep_the_role_gate(world, template):
    url = template.format(**world.ids)
    got = tuple(outcome(call(world, role, "get", url, html(VARIANTS[template]))) for role in ROLES)
    assert got == VARIANTS[template], url


def _ids(response) -> list[int]:
    body = response.json()
    assert isinstance(body.get("results"), list), body  # a list page, not an error
    return [row["id"] for row in body["results"]]


@pytest.mark.parametrize("role", [r for r in ROLES if r != "anonymous"])
def test_api_quote_list_holds_only_what_the_user_may_see(world, role):
    response = call(world, role, "get", QUOTES_API, MATRIX["quote-list"])
    assert response.status_code == 200
    assert _ids(response) == ([] if role == "vendor_b" else [world.ids["quote"]])


# A filter naming A's object (provider by slug), and the same filter naming nothing.
FILTERS = [
    ("?provider=provider-a", "?provider=no-such-provider"),
    ("?rfq={rfq}", "?rfq=987654321"),
    ("?search=ZQXA", "?search=no-such-text"),
]


@pytest.mark.parametrize(("query", "nothing"), FILTERS)
def test_api_filters_never_reveal_other_vendors(world, query, nothing):
    """The filter matches A's quote (vendor A gets it: the check cannot pass vacuously). To
    vendor B the same filter answers exactly as one naming nothing: a list page without A's
    quote, or the same refusal as for a value that does not exist."""
    url = QUOTES_API + query.format(**world.ids)
    mine = call(world, "vendor_a", "get", url, MATRIX["quote-list"])
    assert mine.status_code == 200
    assert world.ids["quote"] in _ids(mine), url
    theirs = call(world, "vendor_b", "get", url, MATRIX["quote-list"])
    missing = call(world, "vendor_b", "get", QUOTES_API + nothing, MATRIX["quote-list"])
    assert (theirs.status_code, theirs.body) == (missing.status_code, missing.body), url
    assert theirs.status_code in (200, 400), url
    if theirs.status_code == 200:
        assert world.ids["quote"] not in _ids(theirs), url


API_GETS = sorted(
    name
    for name, route in MATRIX.items()
    if route.api and route.get[1] != 405 and name != "api-token"
)


@pytest.mark.parametrize("name", API_GETS)
def test_token_authentication_answers_like_the_session(world, name):
    """Every API read, authenticated by token instead of session: the same status per role,
    and every refusal in the API's error shape ({"detail", "code"})."""
    from tests.security.routes import url_for

    url = url_for(world, name)
    for role, expected in zip(ROLES[1:], MATRIX[name].get[1:], strict=True):
        _, key = AuthToken.objects.create(user=world.users[role])
        response = Client(headers={"authorization": f"Token {key}"}).get(url)
        assert response.status_code == expected, (role, response.content[:300])
        if response.status_code >= 400:
            assert {"detail", "code"} <= set(response.json()), (role, response.content[:300])


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
@pytest.mark.parametrize("name", ["api-benchmark-results", "api-benchmark-result-detail"])
def test_benchmark_results_api_serves_no_put_patch_or_delete(world, name, method):
    """405 for staff; for a vendor A's result is 404 (its existence is not confirmed)."""
    from tests.security.routes import url_for

    url = url_for(world, name)
    assert getattr(world.clients["engineer"], method)(url).status_code == 405
    expected = 404 if MATRIX[name].kwargs else 405
    assert getattr(world.clients["vendor_b"], method)(url).status_code in (expected, 404)


def test_the_fingerprint_sees_a_write(world):
    """The matrix's "a refused POST changes nothing" check bites: an accepted write shows."""
    route = MATRIX["quote-withdraw"]
    url = f"/api/v1/quotes/{world.ids['quote']}/withdraw/"
    response = call(world, "vendor_a", "post", url, route)
    assert response.status_code == 201
    assert response.changed


def test_vendor_b_cannot_answer_through_a_quote_of_a_with_provider_scope(world):
    """A provider-wide answer posted through A's quote id: 404, and nothing is written."""
    body = {"item": "iam-audit", "answer": "x", "status": "yes", "scope": "provider"}
    route = Route(get=MATRIX["api-quote-checklist-answers"].get, api=True, body=lambda w: body)
    url = f"/api/v1/quotes/{world.ids['quote']}/checklist/answers/"
    response = call(world, "vendor_b", "post", url, route)
    assert response.status_code == 404
    assert not response.changed


# Cases that need objects the shared world does not hold (a second provider's quote, an RFQ
# to both providers, a closed RFQ): built per test from the cast fixtures.


def _api(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_an_rfq_to_both_providers_is_readable_by_both_vendors(
    provider_a, provider_b, lead, vendor_a, vendor_b, engineer
):
    both = RfqFactory(title="Both", providers=[provider_a, provider_b], created_by=lead)
    only_a = RfqFactory(title="A only", providers=[provider_a], created_by=lead)
    for user in (vendor_a, vendor_b, lead, engineer):
        assert _api(user).get(f"/api/v1/rfqs/{both.pk}/").status_code == 200, user
    assert _api(vendor_b).get(f"/api/v1/rfqs/{only_a.pk}/").status_code == 404


def test_a_vendor_cannot_quote_against_an_rfq_addressed_to_another(provider_a, lead, vendor_b):
    accelerator = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")
    rfq_a = RfqFactory(title="A only", providers=[provider_a], created_by=lead)
    payload = {
        "accelerator": accelerator.slug,
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": "2.00",
        "gpus_per_node": 8,
        "rfq": rfq_a.pk,
        "quoted_at": timezone.now().isoformat(),
    }
    before = Quote.objects.count()
    response = _api(vendor_b).post(QUOTES_API, payload, content_type="application/json")
    assert response.status_code == 404
    assert Quote.objects.count() == before


def test_a_closed_rfq_is_reopened_by_procurement(provider_a, lead):
    rfq = RfqFactory(title="A only", providers=[provider_a], created_by=lead)
    Rfq.objects.filter(pk=rfq.pk).update(deadline=timezone.now() - timedelta(days=1))
    new_deadline = (timezone.now() + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")
    response = _api(lead).post(f"/catalog/rfqs/{rfq.pk}/reopen/", {"deadline": new_deadline})
    assert response.status_code == 302
    assert Rfq.objects.get(pk=rfq.pk).is_open_for_answers()


def test_reviewing_an_answer_through_another_providers_quote_is_404(
    provider_a, provider_b, vendor_a, vendor_b, engineer
):
    _seed_checklist_items()
    item = ChecklistItem.objects.order_by("order").first()
    quote_a = QuoteFactory(provider=provider_a, entered_by=vendor_a)
    quote_b = QuoteFactory(provider=provider_b, entered_by=vendor_b)
    answer_a = ChecklistAnswer.objects.create(
        provider=provider_a,
        quote=quote_a,
        item=item,
        answer="8x H100 SXM 80 GB per node",
        status="yes",
        evidence_url="https://example.com/a-spec",
        answered_by=vendor_a,
    )
    before = ChecklistReview.objects.count()
    response = _api(engineer).post(
        f"/checklist/quotes/{quote_b.pk}/answers/{answer_a.pk}/review/",
        {f"{item.code}-decision": "accepted"},
    )
    assert response.status_code == 404
    assert ChecklistReview.objects.count() == before
