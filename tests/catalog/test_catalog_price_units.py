"""A quote states its price unit (per GPU-hour, node-hour or instance-hour with its GPUs);
the product converts it to a price per GPU-hour, keeps both, and checks that one."""

from __future__ import annotations

from decimal import Decimal

import pytest

from catalog.models import PriceUnit, Quote
from tests.catalog.test_catalog_api import _payload

pytestmark = pytest.mark.django_db


def test_n12_an_instance_hour_price_is_converted_per_gpu_and_both_are_kept(
    api, lead, provider_a, catalog
):
    body = _payload(
        provider="provider-a",
        price_per_gpu_hour=None,
        price_unit="instance_hour",
        price_as_quoted="9.96",
        gpus_per_priced_unit=4,
    )
    response = api(lead).post("/api/v1/quotes/", body, format="json")
    assert response.status_code == 201, response.json()
    data = response.json()
    assert Decimal(data["price_per_gpu_hour"]) == Decimal("2.49")
    assert Decimal(data["price_as_quoted"]) == Decimal("9.96")
    assert (data["price_unit"], data["gpus_per_priced_unit"]) == ("instance_hour", 4)
    # checked per GPU-hour: 2.49 for an H100 is the market, not four times it
    quote = Quote.objects.get(pk=data["id"])
    assert not quote.price_far_from_market


def test_n12_a_node_hour_price_divides_by_the_node_and_an_instance_needs_its_gpus(
    api, lead, provider_a, catalog
):
    body = _payload(
        provider="provider-a",
        price_per_gpu_hour=None,
        price_unit="node_hour",
        price_as_quoted="19.92",
        gpus_per_node=8,
    )
    response = api(lead).post("/api/v1/quotes/", body, format="json")
    assert response.status_code == 201, response.json()
    assert Decimal(response.json()["price_per_gpu_hour"]) == Decimal("2.49")
    assert response.json()["gpus_per_priced_unit"] == 8
    before = Quote.objects.count()
    body = _payload(
        provider="provider-a",
        price_per_gpu_hour=None,
        price_unit="instance_hour",
        price_as_quoted="9.96",
    )
    response = api(lead).post("/api/v1/quotes/", body, format="json")
    assert response.status_code == 400
    assert "GPUs in one instance" in response.json()["fields"]["gpus_per_priced_unit"][0]
    assert Quote.objects.count() == before


def test_n12_existing_quotes_keep_their_meaning_per_gpu_hour(api, lead, provider_a, catalog):
    response = api(lead).post("/api/v1/quotes/", _payload(provider="provider-a"), format="json")
    data = response.json()
    assert data["price_unit"] == PriceUnit.GPU_HOUR
    assert data["price_as_quoted"] is None  # the price per GPU-hour is the quoted one
    assert Decimal(data["price_per_gpu_hour"]) == Decimal("2.49")
