"""API v1 catalog endpoints: shapes, filters, writes through the services, clear 400s."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Provider
from catalog.models import FxRate, ModelApiRoute, Quote, Rfq
from tests.factories import QuoteFactory

pytestmark = pytest.mark.django_db


def _payload(**overrides):
    data = {
        "accelerator": "h100-sxm-80gb",
        "capacity_model": "on_demand",
        "currency": "usd",
        "price_per_gpu_hour": "2.49",
        "gpus_per_node": 8,
        "region": "eu-west",
        "quoted_at": (timezone.now() - timedelta(hours=2)).isoformat(),
        "source_url": "https://example.com/p",
    }
    data.update(overrides)
    return data


def test_accelerator_list_filters_by_vendor_and_min_memory(api, engineer, catalog):
    client = api(engineer)
    everything = client.get("/api/v1/accelerators/?limit=100").json()
    assert everything["count"] >= 18
    amd = client.get("/api/v1/accelerators/?vendor=amd").json()["results"]
    assert {a["vendor"] for a in amd} == {"AMD"}
    big = client.get("/api/v1/accelerators/?min_memory_gb=180").json()["results"]
    assert big
    assert all(a["memory_gb"] >= 180 for a in big)
    h100 = client.get("/api/v1/accelerators/h100-sxm-80gb/").json()
    assert (h100["memory_gb"], h100["memory_bandwidth_tbps"]) == (80, 3.35)
    assert h100["source_url"].startswith("https://")


def test_models_by_slug(api, vendor_a, catalog):
    body = api(vendor_a).get("/api/v1/models/llama-3-1-70b/").json()
    assert (body["layers"], body["kv_heads"], body["head_dim"]) == (80, 8, 128)


def test_providers_vendor_sees_own_only_and_only_lead_creates(api, vendor_a, provider_b, lead):
    assert [p["slug"] for p in api(vendor_a).get("/api/v1/providers/").json()["results"]] == [
        "provider-a"
    ]
    refused = api(vendor_a).post("/api/v1/providers/", {"name": "Mine"}, format="json")
    assert refused.status_code == 404
    created = api(lead).post("/api/v1/providers/", {"name": "Crusoe Cloud"}, format="json")
    assert created.status_code == 201
    assert created.json()["slug"] == "crusoe-cloud"
    dupe = api(lead).post("/api/v1/providers/", {"name": "crusoe cloud"}, format="json")
    assert dupe.status_code == 400
    assert "exists" in dupe.json()["fields"]["name"][0]


def test_staff_post_quote(api, lead, provider_a, h100):
    response = api(lead).post("/api/v1/quotes/", _payload(provider="provider-a"), format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["provider"], body["version"], body["currency"]) == ("provider-a", 1, "USD")
    assert body["price_per_gpu_hour"] == "2.4900"
    assert body["entered_by"] == "lead"
    assert "checklist" in body


def test_vendor_post_cannot_write_provider_or_history_fields(api, vendor_a, provider_b, h100, rfq):
    payload = _payload(
        provider="provider-b",
        rfq=rfq.pk,
        version=7,
        status="withdrawn",
        supersedes=1,
        entered_by="lead",
        is_public_list_price=True,
    )
    response = api(vendor_a).post("/api/v1/quotes/", payload, format="json")
    assert response.status_code == 201, response.json()
    quote = Quote.objects.get(pk=response.json()["id"])
    assert quote.provider == vendor_a.provider
    assert (quote.version, quote.status, quote.supersedes_id) == (1, "submitted", None)
    assert quote.entered_by == vendor_a
    assert quote.is_public_list_price is False


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"price_per_gpu_hour": "0"}, "price_per_gpu_hour"),
        ({"price_per_gpu_hour": 2.49}, "price_per_gpu_hour"),
        ({"currency": "EURO"}, "currency"),
        ({"currency": "ABC"}, "currency"),
        ({"quoted_at": (timezone.now() + timedelta(days=3)).isoformat()}, "quoted_at"),
        ({"valid_until": (timezone.now() - timedelta(days=3)).isoformat()}, "valid_until"),
        ({"gpus_per_node": 9}, "gpus_per_node"),
        ({"accelerator": "nope"}, "accelerator"),
        ({"capacity_model": "purchase", "price_per_gpu_hour": None}, "price_per_node"),
    ],
)
def test_bad_quote_input_is_a_clear_400_and_saves_nothing(
    api, lead, provider_a, h100, overrides, field
):
    response = api(lead).post(
        "/api/v1/quotes/", _payload(provider="provider-a", **overrides), format="json"
    )
    assert response.status_code == 400
    body = response.json()
    assert field in body["fields"], body
    assert body["detail"]
    assert Quote.objects.count() == 0


def test_revise_and_withdraw_through_the_api(api, vendor_a, quote_a):
    client = api(vendor_a)
    revised = client.post(
        f"/api/v1/quotes/{quote_a.pk}/revise/", {"price_per_gpu_hour": "1.99"}, format="json"
    )
    assert revised.status_code == 201, revised.json()
    body = revised.json()
    assert (body["version"], body["supersedes"], body["price_per_gpu_hour"]) == (
        2,
        quote_a.pk,
        "1.9900",
    )
    old = client.get(f"/api/v1/quotes/{quote_a.pk}/").json()
    assert (old["superseded_by"], old["is_current"]) == (body["id"], False)
    again = client.post(f"/api/v1/quotes/{quote_a.pk}/revise/", {}, format="json")
    assert again.status_code == 409
    assert again.json()["code"] == "quote_not_current"
    withdrawn = client.post(
        f"/api/v1/quotes/{body['id']}/withdraw/", {"reason": "sold"}, format="json"
    )
    assert withdrawn.status_code == 201
    assert withdrawn.json()["status"] == "withdrawn"


def test_vendor_revision_after_deadline_is_409(api, vendor_a, quote_a):
    Rfq.objects.filter(pk=quote_a.rfq_id).update(deadline=timezone.now() - timedelta(minutes=1))
    response = api(vendor_a).post(f"/api/v1/quotes/{quote_a.pk}/revise/", {}, format="json")
    assert response.status_code == 409
    assert response.json()["code"] == "rfq_closed"
    assert Quote.objects.count() == 1


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_no_put_patch_delete_on_quotes(api, lead, quote_a, method):
    response = getattr(api(lead), method)(f"/api/v1/quotes/{quote_a.pk}/", {}, format="json")
    assert response.status_code == 405
    assert Quote.objects.filter(pk=quote_a.pk).exists()


def test_engineer_cannot_write_quotes(api, engineer, provider_a, h100):
    response = api(engineer).post("/api/v1/quotes/", _payload(provider="provider-a"), format="json")
    assert response.status_code == 403
    assert Quote.objects.count() == 0


def test_quote_filters_stale_current_and_capacity(api, lead, provider_a, h100):
    fresh = QuoteFactory(provider=provider_a, accelerator=h100)
    old = QuoteFactory(
        provider=provider_a,
        accelerator=h100,
        capacity_model="spot",
        quoted_at=timezone.now() - timedelta(days=90),
        valid_until=None,
    )
    client = api(lead)

    def ids(query):
        return {r["id"] for r in client.get("/api/v1/quotes/" + query).json()["results"]}

    assert ids("?stale=true") == {old.pk}
    assert ids("?stale=false") == {fresh.pk}
    assert ids("?capacity_model=spot") == {old.pk}
    assert ids("?accelerator=h100-sxm-80gb&provider=provider-a") == {fresh.pk, old.pk}
    stale_row = client.get(f"/api/v1/quotes/{old.pk}/").json()
    assert stale_row["is_stale"] is True


def test_quote_list_query_count_does_not_grow(
    api, lead, provider_a, h100, django_assert_max_num_queries
):
    client = api(lead)
    QuoteFactory.create_batch(3, provider=provider_a, accelerator=h100)
    with django_assert_max_num_queries(30) as few:
        client.get("/api/v1/quotes/")
    QuoteFactory.create_batch(30, provider=provider_a, accelerator=h100)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert client.get("/api/v1/quotes/").json()["count"] == 33


def test_fx_rates_finance_only(api, finance, lead):
    payload = {"currency": "eur", "rate_to_base": "1.0850", "as_of": str(timezone.now().date())}
    assert api(lead).post("/api/v1/fx-rates/", payload, format="json").status_code == 403
    created = api(finance).post("/api/v1/fx-rates/", payload, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["currency"] == "EUR"
    dupe = api(finance).post("/api/v1/fx-rates/", payload, format="json")
    assert dupe.status_code == 400
    assert "exists" in dupe.json()["fields"]["as_of"][0]
    base = api(finance).post("/api/v1/fx-rates/", {**payload, "currency": "USD"}, format="json")
    assert base.status_code == 400
    assert FxRate.objects.count() == 1


def test_api_routes_create_and_validate(api, lead, provider_a):
    payload = {
        "provider": "provider-a",
        "model_name": "llama-3.3-70b",
        "currency": "USD",
        "price_input_per_m_tokens": "0.88",
        "price_output_per_m_tokens": "0.88",
        "quoted_at": timezone.now().isoformat(),
    }
    assert api(lead).post("/api/v1/api-routes/", payload, format="json").status_code == 201
    bad = api(lead).post(
        "/api/v1/api-routes/", {**payload, "price_output_per_m_tokens": "0"}, format="json"
    )
    assert bad.status_code == 400
    assert "price_output_per_m_tokens" in bad.json()["fields"]
    assert ModelApiRoute.objects.count() == 1


def test_rfq_create_reopen_and_vendor_view(api, lead, vendor_a, provider_a, provider_b, h100):
    payload = {
        "title": "Need GPUs",
        "providers": ["provider-a", "provider-b"],
        "accelerators": ["h100-sxm-80gb"],
        "capacity_models": ["reserved"],
        "deadline": (timezone.now() + timedelta(days=5)).isoformat(),
    }
    created = api(lead).post("/api/v1/rfqs/", payload, format="json")
    assert created.status_code == 201, created.json()
    rfq_id = created.json()["id"]
    vendor_view = api(vendor_a).get(f"/api/v1/rfqs/{rfq_id}/").json()
    assert "providers" not in vendor_view
    assert "brief" not in vendor_view
    early = api(lead).post(
        f"/api/v1/rfqs/{rfq_id}/reopen/", {"deadline": "2099-01-01T00:00:00Z"}, format="json"
    )
    assert early.status_code == 409
    Rfq.objects.filter(pk=rfq_id).update(deadline=timezone.now() - timedelta(days=1))
    reopened = api(lead).post(
        f"/api/v1/rfqs/{rfq_id}/reopen/", {"deadline": "2099-01-01T00:00:00Z"}, format="json"
    )
    assert reopened.status_code == 200
    assert reopened.json()["is_open"] is True
    bad = api(lead).post(
        "/api/v1/rfqs/",
        {**payload, "capacity_models": ["weekly"], "deadline": "2000-01-01T00:00:00Z"},
        format="json",
    )
    assert bad.status_code == 400
    assert {"capacity_models", "deadline"} <= set(bad.json()["fields"])
    assert Provider.objects.count() == 2


@pytest.mark.parametrize(
    "body",
    [b"[" * 100_000 + b"]" * 100_000, b'{"price_per_gpu_hour": NaN}', b'{"cut": "off', b"[1]"],
)
def test_junk_json_bodies_are_clear_400s(api, lead, provider_a, body):
    response = api(lead).generic("POST", "/api/v1/quotes/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["detail"]
    assert Quote.objects.count() == 0
