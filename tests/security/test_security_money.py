"""S-13 money: JSON floats never become prices, the API sends Decimal strings, and every
computed row's cost lines add up to its total exactly."""

from __future__ import annotations

import importlib
from datetime import timedelta
from decimal import Decimal

import pytest
from django.apps import apps
from django.utils import timezone
from rest_framework.test import APIClient

from catalog.models import FxRate, ModelApiRoute, Quote
from checklist.models import ChecklistItem
from procurement.models import Comparison
from procurement.services.comparisons import comparison_create, comparison_run
from tests.factories import (
    AcceleratorFactory,
    ModelApiRouteFactory,
    QuoteFactory,
    WorkloadBriefFactory,
)

pytestmark = pytest.mark.django_db


def as_user(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def h100(db):
    return AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")


def quote_body(h100, price) -> dict:
    return {
        "accelerator": h100.slug,
        "provider": "provider-a",
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": price,
        "gpus_per_node": 8,
        "quoted_at": (timezone.now() - timedelta(days=1)).isoformat(),
        "source_url": "https://example.com/price-list",
    }


@pytest.mark.parametrize("price", [2.49, 0.1 + 0.2, 1e-7])
def test_a_json_float_price_is_refused_and_nothing_is_saved(lead, provider_a, h100, price):
    response = as_user(lead).post("/api/v1/quotes/", quote_body(h100, price), format="json")
    assert response.status_code == 400
    assert "price_per_gpu_hour" in response.json()["fields"]
    assert Quote.objects.count() == 0


def test_a_string_price_is_kept_exactly_and_sent_back_as_a_string(lead, provider_a, h100):
    response = as_user(lead).post("/api/v1/quotes/", quote_body(h100, "2.4900"), format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["price_per_gpu_hour"] == "2.4900"
    assert Quote.objects.get(pk=body["id"]).price_per_gpu_hour == Decimal("2.4900")
    listed = as_user(lead).get("/api/v1/quotes/").json()["results"][0]
    assert isinstance(listed["price_per_gpu_hour"], str)


def test_more_decimal_places_than_cents_allow_is_a_clear_400(lead, provider_a, h100):
    response = as_user(lead).post("/api/v1/quotes/", quote_body(h100, "2.123456"), format="json")
    assert response.status_code == 400
    assert Quote.objects.count() == 0


def test_api_route_and_fx_prices_refuse_floats_too(lead, finance, provider_a):
    route = {
        "provider": "provider-a",
        "model_name": "llama",
        "price_input_per_m_tokens": 0.6,
        "price_output_per_m_tokens": "0.80",
        "quoted_at": (timezone.now() - timedelta(days=1)).isoformat(),
    }
    assert as_user(lead).post("/api/v1/api-routes/", route, format="json").status_code == 400
    fx = {"currency": "EUR", "rate_to_base": 1.08, "as_of": timezone.now().date().isoformat()}
    assert as_user(finance).post("/api/v1/fx-rates/", fx, format="json").status_code == 400
    assert ModelApiRoute.objects.count() == 0
    assert FxRate.objects.count() == 0


@pytest.fixture
def computed(lead, provider_a, provider_b, h100):
    """A real comparison of two quotes and a model API route, computed in-process."""
    seed = importlib.import_module("checklist.migrations.0002_seed_items")
    if ChecklistItem.objects.count() != len(seed.ITEMS):
        seed.seed_items(apps, None)
    brief = WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000)
    quotes = [
        QuoteFactory(provider=provider_a, accelerator=h100, price_per_gpu_hour=Decimal("2.4917")),
        QuoteFactory(provider=provider_b, accelerator=h100, price_per_gpu_hour=Decimal("3.0333")),
    ]
    route = ModelApiRouteFactory(provider=provider_b, model_profile=brief.model)
    comparison = comparison_create(
        acting_user=lead,
        brief=brief,
        quote_ids=[q.pk for q in quotes],
        api_route_ids=[route.pk],
        seed=11,
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.READY, comparison.error
    return comparison


def test_cost_lines_sum_exactly_to_the_total_in_the_api(computed, finance):
    body = as_user(finance).get(f"/api/v1/comparisons/{computed.pk}/").json()
    priced = [row for row in body["candidates"] if row["total_usd"] is not None]
    assert len(priced) >= 2
    for row in priced:
        assert isinstance(row["total_usd"], str)
        assert isinstance(row["unit_cost_usd"], str)
        lines = [Decimal(value) for value in row["cost_lines"].values()]
        assert all(line == line.quantize(Decimal("0.01")) for line in lines), row["cost_lines"]
        assert sum(lines, Decimal(0)) == Decimal(row["total_usd"]), row["key"]
