"""Every quote-related route × every role: vendors of provider B get 404 (never 403) for
anything of provider A, in HTML and in the API, and nothing changes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from catalog.models import Quote, Rfq
from tests.factories import ModelApiRouteFactory, QuoteFactory, RfqFactory

pytestmark = pytest.mark.django_db

ROLES = ["lead", "engineer", "finance", "security", "admin_member", "vendor_a", "vendor_b"]
STAFF = {"lead", "engineer", "finance", "security", "admin_member"}
WRITERS = {"lead", "admin_member"}


@pytest.fixture
def world(provider_a, provider_b, h100, lead, vendor_a):
    rfq_a = RfqFactory(title="A only", providers=[provider_a], created_by=lead)
    rfq_both = RfqFactory(title="Both", providers=[provider_a, provider_b], created_by=lead)
    quote = QuoteFactory(
        provider=provider_a,
        accelerator=h100,
        rfq=rfq_both,
        entered_by=vendor_a,
        source_document="offer-a.pdf",
    )
    route = ModelApiRouteFactory(provider=provider_a)
    return {
        "qa": quote.pk,
        "rfq_a": rfq_a.pk,
        "rfq_both": rfq_both.pk,
        "route_a": route.pk,
        "prov_a": provider_a.pk,
    }


def expected_html(who: str, kind: str) -> int:
    if kind == "staff":
        return 200 if who in STAFF else 404
    if kind == "writer":
        return 200 if who in WRITERS else 404
    if kind == "vendor_a":  # the vendor portal, for provider A's objects
        return 200 if who == "vendor_a" else 404
    if kind == "fx_writer":
        return 200 if who in {"finance", "admin_member"} else 404
    if kind == "model_writer":
        return 200 if who in {"lead", "engineer", "admin_member"} else 404
    if kind == "vendor_any":
        return 200 if who in {"vendor_a", "vendor_b"} else 404
    raise AssertionError(kind)


HTML_GET = [
    ("/catalog/quotes/", "staff"),
    ("/catalog/quotes/{qa}/", "staff"),
    ("/catalog/quotes/{qa}/revise/", "writer"),
    ("/catalog/quotes/{qa}/withdraw/", "writer"),
    ("/catalog/quotes/new/", "writer"),
    ("/catalog/quotes/new/?rfq={rfq_a}", "writer"),
    ("/catalog/rfqs/", "staff"),
    ("/catalog/rfqs/{rfq_a}/", "staff"),
    ("/catalog/rfqs/{rfq_a}/reopen/", "writer"),
    ("/catalog/import/", "writer"),
    ("/catalog/import/template.csv", "writer"),
    ("/catalog/api-routes/", "staff"),
    ("/catalog/providers/", "staff"),
    ("/catalog/providers/new/", "writer"),
    ("/catalog/api-routes/new/", "writer"),
    ("/catalog/fx/", "staff"),
    ("/catalog/fx/new/", "fx_writer"),
    ("/catalog/", "staff"),
    ("/catalog/compare/", "staff"),
    ("/catalog/accelerators/h100-sxm-80gb/", "staff"),
    ("/catalog/models/", "staff"),
    ("/catalog/models/new/", "model_writer"),
    ("/vendor/", "vendor_any"),
    ("/vendor/rfqs/{rfq_a}/", "vendor_a"),
    ("/vendor/rfqs/{rfq_a}/quote/", "vendor_a"),
    ("/vendor/quotes/{qa}/", "vendor_a"),
    ("/vendor/quotes/{qa}/revise/", "vendor_a"),
    ("/vendor/quotes/{qa}/withdraw/", "vendor_a"),
]


@pytest.mark.parametrize("who", ROLES)
@pytest.mark.parametrize(("url", "kind"), HTML_GET)
def test_html_get_matrix(request, login, world, who, url, kind):
    client = login(request.getfixturevalue(who))
    response = client.get(url.format(**world))
    assert response.status_code == expected_html(who, kind), response.content[:300]


HTML_POST = [
    "/catalog/quotes/{qa}/revise/",
    "/catalog/quotes/{qa}/withdraw/",
    "/catalog/rfqs/{rfq_a}/close/",
    "/catalog/rfqs/{rfq_a}/reopen/",
    "/vendor/quotes/{qa}/revise/",
    "/vendor/quotes/{qa}/withdraw/",
    "/vendor/rfqs/{rfq_a}/quote/",
]


@pytest.mark.parametrize("url", HTML_POST)
def test_html_post_by_other_vendor_is_404_and_changes_nothing(login, world, vendor_b, url):
    before = (Quote.objects.count(), list(Rfq.objects.values_list("status", "deadline")))
    response = login(vendor_b).post(url.format(**world), {"price_per_gpu_hour": "0.10"})
    assert response.status_code == 404
    assert (Quote.objects.count(), list(Rfq.objects.values_list("status", "deadline"))) == before


API_GET = [
    ("/api/v1/quotes/{qa}/", {"vendor_a"} | STAFF),
    ("/api/v1/rfqs/{rfq_a}/", {"vendor_a"} | STAFF),
    ("/api/v1/rfqs/{rfq_both}/", {"vendor_a", "vendor_b"} | STAFF),
    ("/api/v1/providers/{prov_a}/", {"vendor_a"} | STAFF),
    ("/api/v1/api-routes/{route_a}/", {"vendor_a"} | STAFF),
    ("/api/v1/fx-rates/", STAFF),
]


@pytest.mark.parametrize("who", ROLES)
@pytest.mark.parametrize(("url", "allowed"), API_GET)
def test_api_get_matrix(request, api, world, who, url, allowed):
    response = api(request.getfixturevalue(who)).get(url.format(**world))
    assert response.status_code == (200 if who in allowed else 404)


@pytest.mark.parametrize("who", ROLES)
def test_api_quote_list_holds_only_what_the_user_may_see(request, api, world, who):
    rows = api(request.getfixturevalue(who)).get("/api/v1/quotes/").json()["results"]
    assert [r["id"] for r in rows] == ([] if who == "vendor_b" else [world["qa"]])


@pytest.mark.parametrize("query", ["?provider=provider-a", "?rfq={rfq_both}", "?search=a"])
def test_api_filters_never_reveal_other_vendors(api, world, vendor_b, query):
    response = api(vendor_b).get("/api/v1/quotes/" + query.format(**world))
    assert world["qa"] not in [r["id"] for r in response.json().get("results", [])]
    assert response.status_code in (200, 400)


@pytest.mark.parametrize(
    ("url", "payload"),
    [
        ("/api/v1/quotes/{qa}/revise/", {"price_per_gpu_hour": "1.00"}),
        ("/api/v1/quotes/{qa}/withdraw/", {"reason": "mine now"}),
        ("/api/v1/rfqs/{rfq_a}/reopen/", {"deadline": "2099-01-01T00:00:00Z"}),
    ],
)
def test_api_post_by_other_vendor_is_404_and_changes_nothing(api, world, vendor_b, url, payload):
    before = Quote.objects.count()
    response = api(vendor_b).post(url.format(**world), payload, format="json")
    assert response.status_code == 404
    assert Quote.objects.count() == before


def test_api_vendor_cannot_answer_an_rfq_addressed_to_another(api, world, vendor_b, h100):
    payload = {
        "accelerator": h100.slug,
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": "2.00",
        "gpus_per_node": 8,
        "rfq": world["rfq_a"],
        "quoted_at": timezone.now().isoformat(),
    }
    response = api(vendor_b).post("/api/v1/quotes/", payload, format="json")
    assert response.status_code == 404
    assert Quote.objects.count() == 1


@pytest.mark.parametrize("who", ["vendor_a", "vendor_b"])
def test_vendors_get_404_on_every_staff_catalog_page(login, world, request, who):
    client = login(request.getfixturevalue(who))
    for url in (
        "/catalog/",
        "/catalog/compare/",
        "/catalog/models/",
        "/catalog/fx/",
        "/catalog/accelerators/h100-sxm-80gb/",
        "/catalog/rfqs/new/",
    ):
        assert client.get(url).status_code == 404, url


def test_missing_and_forbidden_quotes_look_the_same(api, world, vendor_b):
    missing = api(vendor_b).get("/api/v1/quotes/999999/")
    forbidden = api(vendor_b).get(f"/api/v1/quotes/{world['qa']}/")
    assert missing.status_code == forbidden.status_code == 404
    assert missing.json() == forbidden.json()


def test_closed_rfq_is_reopenable_only_by_procurement(login, world, lead):
    Rfq.objects.filter(pk=world["rfq_a"]).update(deadline=timezone.now() - timedelta(days=1))
    new_deadline = (timezone.now() + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")
    response = login(lead).post(
        f"/catalog/rfqs/{world['rfq_a']}/reopen/", {"deadline": new_deadline}
    )
    assert response.status_code == 302
    assert Rfq.objects.get(pk=world["rfq_a"]).is_open_for_answers()
