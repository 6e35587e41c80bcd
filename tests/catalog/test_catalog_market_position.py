"""Market position of a quote among the public list prices current on its quoted date."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.market import market_position, quote_market_position
from tests.factories import AcceleratorFactory, ProviderFactory, QuoteFactory

pytestmark = pytest.mark.django_db


def test_percentile_counts_ties_half_and_flags_outliers():
    peers = [Decimal(p) for p in ("2.00", "2.10", "2.20", "2.30", "2.40")]
    assert market_position(Decimal("2.20"), peers)["percentile"] == 50.0
    assert market_position(Decimal("1.00"), peers)["outlier"] == "low"
    assert market_position(Decimal("9.00"), peers)["outlier"] == "high"
    assert market_position(Decimal("2.25"), peers)["outlier"] is None
    assert market_position(Decimal("1.00"), peers[:3])["outlier"] is None  # too few
    assert market_position(Decimal("1.00"), [])["percentile"] is None


@pytest.fixture
def market(db, lead):
    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")
    other = AcceleratorFactory(slug="l4-24gb", name="L4")
    day = timezone.now() - timedelta(days=3)
    public = [
        QuoteFactory(
            provider=ProviderFactory(slug=f"cloud-{i}", name=f"Cloud {i}"),
            accelerator=h100,
            price_per_gpu_hour=Decimal(price),
            is_public_list_price=True,
            quoted_at=day,
        )
        for i, price in enumerate(("2.00", "2.20", "2.40", "2.60", "2.80"))
    ]
    QuoteFactory(accelerator=other, price_per_gpu_hour=Decimal("0.10"), is_public_list_price=True)
    QuoteFactory(accelerator=h100, price_per_gpu_hour=Decimal("0.10"), capacity_model="spot")
    later = QuoteFactory(
        accelerator=h100,
        price_per_gpu_hour=Decimal("0.50"),
        is_public_list_price=True,
        quoted_at=day + timedelta(days=2),
    )
    negotiated = QuoteFactory(accelerator=h100, price_per_gpu_hour=Decimal("1.20"), quoted_at=day)
    return {"public": public, "later": later, "negotiated": negotiated}


def test_quote_position_among_same_accelerator_capacity_and_date(market):
    position = quote_market_position(market["negotiated"])
    # Same accelerator and capacity model, quoted by that day: the five list prices only.
    assert position["peers"] == 5
    assert position["percentile"] == 0.0
    assert position["outlier"] == "low"
    assert "on-demand public list prices" in position["basis"]
    middle = quote_market_position(market["public"][2])
    assert (middle["peers"], middle["percentile"], middle["outlier"]) == (4, 50.0, None)


def test_market_position_on_the_quote_page_and_api(market, login, lead, api_client):
    quote = market["negotiated"]
    html = login(lead).get(f"/catalog/quotes/{quote.pk}/").content.decode()
    assert "Market position" in html
    assert "low outlier" in html
    api_client.force_authenticate(user=lead)
    body = api_client.get(f"/api/v1/quotes/{quote.pk}/").json()
    assert body["market_position"]["percentile"] == 0.0
    assert body["market_position"]["outlier"] == "low"
    listed = api_client.get("/api/v1/quotes/").json()
    assert listed["results"][0]["market_position"] is None


def test_the_median_of_an_even_number_of_peers_is_the_mean_of_the_middle_two():
    """Four public prices 1.00, 2.00, 3.00, 4.00: the median is 2.50, not 3.00 (the browser
    walk found the upper middle price shown as the market median)."""
    peers = [Decimal("4.00"), Decimal("1.00"), Decimal("3.00"), Decimal("2.00")]
    assert market_position(Decimal("2.50"), peers)["median"] == "2.50"
    assert market_position(Decimal("2.50"), peers[:3])["median"] == "3.00"
