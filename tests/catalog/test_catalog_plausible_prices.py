"""Issue 15, plausible prices: a price far from the market needs an explicit confirmation.

Far means above 5× or below 0.2× the median of the market's voices (one per vendor, each
public list price its own, all in the base currency), or outside the public list prices by
the same factors. The form shows a checkbox with the warning, the API wants
`confirm_unusual_price: true` (else a 400 saying why: public figures only to a vendor, the
median and ratio to staff); the confirmed quote keeps a flag.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.errors import UnusualPrice
from catalog.models import Quote
from catalog.plausibility import price_check, purchase_price_check
from catalog.services import quote_revise, quote_submit
from tests.factories import ProviderFactory, QuoteFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def market(h100):
    """Three current H100 on-demand offers: median 2.50 USD per GPU-hour."""
    return [
        QuoteFactory(accelerator=h100, provider=ProviderFactory(), price_per_gpu_hour=Decimal(p))
        for p in ("2.40", "2.50", "2.60")
    ]


def _payload(h100, price, **extra):
    return {
        "accelerator": h100.slug,
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": price,
        "gpus_per_node": 8,
        "quoted_at": (timezone.now() - timedelta(minutes=5)).isoformat(),
        **extra,
    }


@pytest.mark.parametrize(("price", "far"), [("0.01", True), ("0.49", True), ("0.5", False),
                                             ("12.5", False), ("12.51", True)])  # fmt: skip
def test_far_means_beyond_5x_or_0_2x_the_median(market, h100, price, far):
    check = price_check(
        accelerator_id=h100.pk, capacity_model="on_demand", currency="USD", price=Decimal(price)
    )
    assert (check is not None) is far
    if far:
        assert check["reference"]["median"] == "2.5000"
        assert check["reference"]["voices"] == 3


def test_one_offer_is_a_market_for_an_order_of_magnitude_only(h100):
    # Round 4 (R10, the lone rival): one offer used to be no market at all, so 0.01 passed.
    QuoteFactory(accelerator=h100, price_per_gpu_hour=Decimal("2.50"))

    def check(price: str):
        return price_check(
            accelerator_id=h100.pk, capacity_model="on_demand", currency="USD", price=Decimal(price)
        )

    assert check("0.01") is not None  # 0.004× the lone offer
    assert check("0.60") is None  # 0.24×: within ten times, and inside the H100 class
    assert check("20") is None  # 8×


def test_outside_the_public_list_prices_is_flagged(h100):
    QuoteFactory(accelerator=h100, price_per_gpu_hour=Decimal("2.00"), is_public_list_price=True)
    check = price_check(
        accelerator_id=h100.pk, capacity_model="on_demand", currency="USD", price=Decimal("15")
    )
    assert check is not None
    assert check["reference"]["list_range"] == ["2.0000", "2.0000"]
    assert "far from the public list prices for this accelerator (1 source)" in check["message"]
    assert "outside the public list prices (2–2 USD)" in check["reference"]["message"]


def test_api_refuses_an_unconfirmed_far_price_without_the_figures(api, vendor_a, market, h100):
    response = api(vendor_a).post("/api/v1/quotes/", _payload(h100, "0.01"), format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "unusual_price"
    assert "far from the other offers for this accelerator" in body["detail"]
    assert "2.5" not in body["detail"]
    assert "confirm_unusual_price" in body["fields"]
    assert not Quote.objects.filter(provider=vendor_a.provider).exists()


def test_staff_are_told_the_median_and_the_ratio(api, lead, market, h100):
    payload = _payload(h100, "0.01", provider="x", source_url="https://x.example")
    payload["provider"] = ProviderFactory().slug
    body = api(lead).post("/api/v1/quotes/", payload, format="json").json()
    assert body["code"] == "unusual_price"
    assert "0.004× the median of 3 voices (2.5 USD per GPU-hour" in body["detail"]


def test_api_keeps_a_confirmed_far_price_with_its_flag(api, vendor_a, market, h100):
    response = api(vendor_a).post(
        "/api/v1/quotes/", _payload(h100, "0.01", confirm_unusual_price=True), format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["price_far_from_market"] is True
    assert body["price_check"]["confirmed_by"] == "vendor"
    assert "reference" not in body["price_check"]  # the vendor's own view: no figures
    stored = Quote.objects.get(pk=body["id"]).price_check
    assert stored["reference"]["ratio"] == "0.004"


def test_a_revision_is_checked_too_and_a_plausible_one_clears_the_flag(lead, market, h100):
    own = quote_submit(
        acting_user=lead,
        provider=ProviderFactory(),
        data={
            **_payload(h100, Decimal("2.55")),
            "accelerator": h100,
            "quoted_at": timezone.now() - timedelta(minutes=5),
            "source_url": "https://x.example",
        },
    )
    with pytest.raises(UnusualPrice):
        quote_revise(acting_user=lead, quote=own, data={"price_per_gpu_hour": Decimal("40")})
    flagged = quote_revise(
        acting_user=lead,
        quote=own,
        data={"price_per_gpu_hour": Decimal("40")},
        confirm_unusual_price=True,
    )
    assert flagged.price_far_from_market
    assert flagged.price_check["confirmed_by"] == "staff"
    back = quote_revise(
        acting_user=lead, quote=flagged, data={"price_per_gpu_hour": Decimal("2.45")}
    )
    assert not back.price_far_from_market
    assert back.price_check == {}


def test_the_form_shows_the_checkbox_with_the_warning(login, vendor_a, rfq, market, h100):
    client = login(vendor_a)
    url = f"/vendor/rfqs/{rfq.pk}/quote/"
    assert "Confirm this unusual price" not in client.get(url).content.decode()
    form = {
        "accelerator": h100.pk,
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": "0.01",
        "gpus_per_node": "8",
        "quoted_at": timezone.now().strftime("%Y-%m-%dT%H:%M"),
    }
    refused = client.post(url, form)
    page = refused.content.decode()
    assert refused.status_code == 400
    assert "Confirm this unusual price" in page
    assert "far from the market" in page
    assert not Quote.objects.filter(rfq=rfq).exists()
    saved = client.post(url, {**form, "confirm_unusual_price": "on"})
    assert saved.status_code == 302
    assert Quote.objects.get(rfq=rfq).price_far_from_market


def test_the_quote_page_shows_the_flag(login, lead, vendor_a, market, h100):
    flagged = quote_submit(
        acting_user=vendor_a,
        data={
            **_payload(h100, Decimal("0.01")),
            "accelerator": h100,
            "quoted_at": timezone.now() - timedelta(minutes=5),
        },
        confirm_unusual_price=True,
    )
    page = login(lead).get(f"/catalog/quotes/{flagged.pk}/").content.decode()
    assert "Price far from the market" in page
    assert "Confirmed at entry by the vendor" in page


# --- Purchases: judged per GPU bought (issue 15, 6) ---------------------------------------------


def _purchase(h100, price_per_node, **extra):
    return {
        "accelerator": h100.slug,
        "capacity_model": "purchase",
        "currency": "USD",
        "price_per_node": price_per_node,
        "amortisation_months": 36,
        "gpus_per_node": 8,
        "quoted_at": (timezone.now() - timedelta(minutes=5)).isoformat(),
        **extra,
    }


@pytest.fixture
def purchase_market(h100):
    """Three current H100 purchase offers: median 30,000 USD per GPU bought (8 per node)."""
    return [
        QuoteFactory(
            accelerator=h100,
            provider=ProviderFactory(),
            capacity_model="purchase",
            price_per_gpu_hour=None,
            price_per_node=Decimal(p),
            amortisation_months=36,
        )
        for p in ("232000", "240000", "248000")
    ]


def test_a_one_dollar_purchase_is_outside_every_market(h100):
    check = purchase_price_check(
        accelerator_id=h100.pk, currency="USD", price_per_node=Decimal("1"), gpus_per_node=8
    )
    assert check is not None
    assert check["unit"] == "per GPU bought"
    assert "outside every market" in check["message"]


@pytest.mark.parametrize(("per_node", "far"), [("240000", False), ("2000000", True),
                                                ("40000", True), ("56000", False)])  # fmt: skip
def test_a_purchase_far_from_the_purchase_market_is_flagged(purchase_market, h100, per_node, far):
    check = purchase_price_check(
        accelerator_id=h100.pk, currency="USD", price_per_node=Decimal(per_node), gpus_per_node=8
    )
    assert (check is not None) is far
    if far:
        assert check["reference"]["median"] == "30000.0000"
        assert "the median of 3 voices (30000 USD per GPU bought" in check["reference"]["message"]


def test_api_refuses_an_unconfirmed_one_dollar_purchase_and_keeps_a_confirmed_one(
    api, vendor_a, h100
):
    response = api(vendor_a).post("/api/v1/quotes/", _purchase(h100, "1"), format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "unusual_price"
    assert "per GPU bought is far from the market" in body["detail"]
    assert "price_per_node" in body["fields"]
    assert not Quote.objects.filter(provider=vendor_a.provider).exists()
    response = api(vendor_a).post(
        "/api/v1/quotes/", _purchase(h100, "1", confirm_unusual_price=True), format="json"
    )
    assert response.status_code == 201, response.content
    assert response.json()["price_far_from_market"] is True


def test_a_plausible_purchase_needs_no_confirmation(api, vendor_a, purchase_market, h100):
    response = api(vendor_a).post("/api/v1/quotes/", _purchase(h100, "236000"), format="json")
    assert response.status_code == 201, response.content
    assert response.json()["price_far_from_market"] is False
