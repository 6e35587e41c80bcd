"""P16: a 4-GPU instance price typed per GPU is 2–4× the market, inside the 5× band, and was
accepted without confirmation. A price over twice the median public list price of its capacity
model and dearer than every other ask now asks for it."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.errors import UnusualPrice
from catalog.services import quote_submit
from tests.factories import ProviderFactory, QuoteFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def h100_list(h100):
    """The audit's H100 on-demand list prices: RunPod 2.69, Lambda 2.99, CoreWeave 6.16 and
    AWS 6.88; median (2.99 + 6.16) / 2 = 4.575, twice that 9.15."""
    for price in ("2.69", "2.99", "6.16", "6.88"):
        QuoteFactory(
            accelerator=h100,
            provider=ProviderFactory(),
            price_per_gpu_hour=Decimal(price),
            is_public_list_price=True,
        )
    return h100


def _submit(user, accelerator, price, terms=(), **extra):
    data = {
        "accelerator": accelerator,
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": Decimal(price),
        "gpus_per_node": 8,
        "region": "eu-west",
        "quoted_at": timezone.now() - timedelta(minutes=5),
        "source_url": "https://example.com/offer",
        **dict(terms),
    }
    return quote_submit(acting_user=user, data=data, **extra)


def test_the_audits_11_a_gpu_hour_asks_for_confirmation(vendor_a, h100_list):
    """11.00 / 4.575 = 2.40×: under the 5× band, over twice the median and above 6.88."""
    with pytest.raises(UnusualPrice) as refused:
        _submit(vendor_a, h100_list, "11.00")
    assert "more than twice the median public list price" in refused.value.message
    assert "(4 sources)" in refused.value.message
    quote = _submit(vendor_a, h100_list, "11.00", confirm_unusual_price=True)
    assert quote.price_far_from_market is True
    assert "4.575" in quote.price_check["reference"]["message"]  # staff see the median


@pytest.mark.parametrize(
    ("price", "asked"),
    [
        ("9.00", False),  # 1.97× the median: not twice it
        ("9.20", True),  # 2.01× and above 6.88
        ("6.88", False),  # AWS's own price: not dearer than every ask
    ],
)
def test_twice_the_median_and_dearer_than_every_ask(vendor_a, h100_list, price, asked):
    if asked:
        with pytest.raises(UnusualPrice):
            _submit(vendor_a, h100_list, price)
    else:
        assert _submit(vendor_a, h100_list, price).price_far_from_market is False


def test_procurement_counts_the_vendors_asks_a_vendor_only_the_list(
    lead, vendor_a, vendor_b, h100_list
):
    """A vendor asking 10.00 (not public) is an ask procurement's 9.50 is not dearer than; a
    vendor is judged by the public list only, so its 9.50 (2.08×, above 6.88) is asked."""
    _submit(vendor_b, h100_list, "10.00", confirm_unusual_price=True)
    staff_entry = _submit(lead, h100_list, "9.50", provider=ProviderFactory())
    assert staff_entry.price_far_from_market is False
    with pytest.raises(UnusualPrice):
        _submit(vendor_a, h100_list, "9.50")


def test_a_price_judged_by_another_capacity_models_list_keeps_the_5x_band(vendor_a, h100_list):
    """A reserved price has no reserved list here: it is judged by the on-demand list within
    5× (34.40 at most), never by twice another model's median."""
    reserved = {"capacity_model": "reserved", "term_months": 12}
    assert _submit(vendor_a, h100_list, "11.00", reserved).price_far_from_market is False
