"""Round three, the market reference (S1, S4, V7, and S11's empty market).

The reference is one voice per vendor plus each public list price, in the base currency; a
vendor is judged against the public list prices and told public figures only.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from catalog.errors import UnusualPrice
from catalog.models import Quote
from catalog.services import quote_submit
from tests.factories import AcceleratorFactory, FxRateFactory, ProviderFactory, QuoteFactory

pytestmark = pytest.mark.django_db


def _api(user):
    client = APIClient()
    client.force_authenticate(user=user)
    return client


@pytest.fixture
def h100():
    return AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB", max_gpus_per_node=8)


@pytest.fixture
def h100_market(h100, provider_a, vendor_a):
    """As found: H100 SXM on-demand USD, 7 current offers, median 2.99; public list prices
    2.69–9.8; vendor A's honest offer at 2.99."""
    for price in ("2.69", "2.99", "9.80"):
        QuoteFactory(
            accelerator=h100,
            provider=ProviderFactory(),
            price_per_gpu_hour=Decimal(price),
            is_public_list_price=True,
            region="us-east",
        )
    for price in ("2.79", "3.10", "3.49"):
        QuoteFactory(
            accelerator=h100, provider=ProviderFactory(), price_per_gpu_hour=Decimal(price)
        )
    return QuoteFactory(
        accelerator=h100,
        provider=provider_a,
        entered_by=vendor_a,
        price_per_gpu_hour=Decimal("2.99"),
        region="us-east",
    )


def _flood_quote(h100, i, price="14.0000", **extra):
    return {
        "accelerator": h100.slug,
        "capacity_model": "on_demand",
        "currency": "USD",
        "region": "us-east",
        "gpus_per_node": 8,
        "title": f"Contoso H100 burst {i}",
        "price_per_gpu_hour": price,
        "source_url": "https://contoso.example/p",
        "quoted_at": (timezone.now() - timedelta(hours=1)).isoformat(),
        **extra,
    }


def test_s1_a_flood_of_unsolicited_quotes_cannot_make_a_competitors_price_far(
    h100, h100_market, vendor_a, vendor_b, lead
):
    """S1 as found: vendor B posted 7 H100 quotes at $14 (under the 5× threshold of the old
    median), the median became $14, and vendor A's honest revision to $2.59 was "far from the
    market". Now vendor B is one voice: the revision passes without any confirmation. ($14 is
    over twice the list median and above every list price, so B confirms it: P16.)"""
    for i in range(7):
        flood = _flood_quote(h100, i, confirm_unusual_price=True)
        posted = _api(vendor_b).post("/api/v1/quotes/", flood, format="json")
        assert posted.status_code == 201, posted.content
    revised = _api(vendor_a).post(
        f"/api/v1/quotes/{h100_market.pk}/revise/",
        {"price_per_gpu_hour": "2.5900"},
        format="json",
    )
    assert revised.status_code == 201, revised.content
    assert revised.json()["price_far_from_market"] is False
    # Nor can the flood flag the same price when procurement enters it (all voices count).
    staff = _api(lead).post(
        "/api/v1/quotes/",
        _flood_quote(h100, "staff", "2.5900", provider=ProviderFactory().slug),
        format="json",
    )
    assert staff.status_code == 201, staff.content
    assert staff.json()["price_far_from_market"] is False
    # Repeating the flood ratchets nothing: still one voice.
    for i in range(7, 14):
        flood = _flood_quote(h100, i, "60.0000", confirm_unusual_price=True)
        _api(vendor_b).post("/api/v1/quotes/", flood, format="json")
    again = _api(vendor_a).post(
        f"/api/v1/quotes/{revised.json()['id']}/revise/",
        {"price_per_gpu_hour": "2.5500"},
        format="json",
    )
    assert again.status_code == 201, again.content
    assert again.json()["price_far_from_market"] is False


def test_s4_a_refusal_tells_a_vendor_public_figures_only(h100, h100_market, vendor_b, lead):
    """S4 as found: the refusal gave the median and the count of every current offer, so six
    confirmed dummies at 0.60 read Northwind's private $2.59 bid exactly. Now the refusal
    names the public list prices and their number only, and dummies change nothing."""
    QuoteFactory(
        accelerator=h100,
        provider=ProviderFactory(name="Northwind"),
        price_per_gpu_hour=Decimal("2.59"),
        price_far_from_market=True,
    )
    said = []
    for dummies in (0, 2, 4, 6):
        while Quote.objects.filter(provider=vendor_b.provider).count() < dummies:
            made = _api(vendor_b).post(
                "/api/v1/quotes/",
                _flood_quote(h100, "d", "0.6000", confirm_unusual_price=True),
                format="json",
            )
            assert made.status_code == 201, made.content
            assert "reference" not in made.json()["price_check"]
            # the quote's own figures, not its timestamps ("…:32.5912" holds "2.59" by chance)
            figures = {k: v for k, v in made.json().items() if not k.endswith("_at")}
            assert "2.59" not in str(figures)
        probe = _api(vendor_b).post("/api/v1/quotes/", _flood_quote(h100, "p", "0.0200"))
        assert probe.status_code == 400
        body = probe.json()
        assert body["code"] == "unusual_price"
        said.append(str(body))
    assert len(set(said)) == 1  # the dummies moved nothing the vendor can read
    text = said[0]
    assert "far from the public list prices for this accelerator (3 sources)" in text
    for secret in ("2.59", "2.99", "median", "offers", "voices"):
        assert secret not in text
    # Staff see the full picture.
    staff = _api(lead).post(
        "/api/v1/quotes/",
        _flood_quote(h100, "s", "0.0200", provider=ProviderFactory().slug),
        format="json",
    )
    assert "the median of" in staff.json()["detail"]
    assert "outside the public list prices (2.69–9.8 USD)" in staff.json()["detail"]


def test_v7_a_ten_times_slip_in_eur_is_compared_with_the_whole_market(vendor_b):
    """V7: "EUR 29,50" per H200-hour (a 10× slip of 2.95) was saved silently: the H200 market
    is in USD and there were fewer than 3 EUR offers. Prices are now compared in the base
    currency across currencies; the slip needs a confirmation, the right price does not."""
    h200 = AcceleratorFactory(slug="h200", name="H200", max_gpus_per_node=8)
    FxRateFactory(currency="EUR", rate_to_base=Decimal("1.08"))
    for price in ("3.10", "3.49", "6.31", "7.90"):
        QuoteFactory(
            accelerator=h200, provider=ProviderFactory(), price_per_gpu_hour=Decimal(price)
        )
    QuoteFactory(accelerator=h200, currency="EUR", price_per_gpu_hour=Decimal("2.90"))
    data = {
        "accelerator": h200,
        "capacity_model": "on_demand",
        "currency": "EUR",
        "price_per_gpu_hour": Decimal("29.50"),
        "gpus_per_node": 8,
        "region": "eu-west",
        "quoted_at": timezone.now() - timedelta(minutes=5),
    }
    before = Quote.objects.count()
    with pytest.raises(UnusualPrice) as refused:
        quote_submit(acting_user=vendor_b, data=data)
    assert "29.5 EUR per GPU-hour is far from the market" in refused.value.message
    assert Quote.objects.count() == before
    kept = quote_submit(acting_user=vendor_b, data={**data, "price_per_gpu_hour": Decimal("2.95")})
    assert not kept.price_far_from_market


def test_s11_a_first_price_in_an_empty_market_is_checked_against_public_list_prices(vendor_b):
    """S11 (the price half): vendor B's unsolicited H200 reserved at $0.02/GPU-h, the first
    reserved H200 offer, passed without confirmation (inside the 0.01–500 band). With no
    reserved market the accelerator's other public list prices are the reference."""
    h200 = AcceleratorFactory(slug="h200", name="H200", max_gpus_per_node=8)
    for price in ("3.10", "3.80"):
        QuoteFactory(accelerator=h200, price_per_gpu_hour=Decimal(price), is_public_list_price=True)
    data = {
        "accelerator": h200,
        "capacity_model": "reserved",
        "currency": "USD",
        "price_per_gpu_hour": Decimal("0.02"),
        "gpus_per_node": 8,
        "region": "us-east",
        "term_months": 12,
        "quoted_at": timezone.now() - timedelta(minutes=5),
    }
    with pytest.raises(UnusualPrice) as refused:
        quote_submit(acting_user=vendor_b, data=data)
    assert "public list prices for this accelerator (other capacity models)" in (
        refused.value.message
    )
    assert not Quote.objects.filter(provider=vendor_b.provider).exists()
    fair = quote_submit(acting_user=vendor_b, data={**data, "price_per_gpu_hour": Decimal("2.2")})
    assert not fair.price_far_from_market


def test_s4_the_quote_page_shows_staff_the_reference_and_the_vendor_only_public_words(
    h100, h100_market, vendor_b, lead
):
    made = _api(vendor_b).post(
        "/api/v1/quotes/",
        _flood_quote(h100, "d", "0.0200", confirm_unusual_price=True),
        format="json",
    )
    assert made.json()["price_far_from_market"] is True
    quote_id = made.json()["id"]
    staff = Client()
    staff.force_login(lead)
    staff_page = staff.get(f"/catalog/quotes/{quote_id}/").content.decode()
    assert "Market reference (staff only)" in staff_page
    assert "the median of" in staff_page
    vendor = Client()
    vendor.force_login(vendor_b)
    vendor_page = vendor.get(f"/vendor/quotes/{quote_id}/").content.decode()
    assert "far from the public list prices" in vendor_page
    assert "Market reference" not in vendor_page
    assert "median" not in vendor_page
