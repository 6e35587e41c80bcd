"""Security round 4 (issue 39): plausibility no currency, empty market or lone rival skips.

- R9: a price in a currency without an FX rate is held (flagged, never recommended) and judged
  again when a rate for it is entered, and on every later rate.
- R10: a first offer with no market is judged against the accelerator's datasheet class
  (`price_band` in catalog/data/accelerators.json).
- The 60× lone rival: one other vendor is a market for an order-of-magnitude check.
- V7/U16: a 10× slip in EUR (or GBP) is converted and refused.
- The absolute band fits GPUs: 0.05–100 per GPU-hour, not 0.01–500.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.errors import UnusualPrice
from catalog.models import Quote
from catalog.plausibility import BAND_BASE, accelerator_band, price_check
from catalog.services import fx_rate_create, quote_submit
from core.models import AuditEvent
from tests.factories import AcceleratorFactory, FxRateFactory, ProviderFactory, QuoteFactory

pytestmark = pytest.mark.django_db


def _submit(user, accelerator, price, currency="USD", **extra):
    data = {
        "accelerator": accelerator,
        "capacity_model": "on_demand",
        "currency": currency,
        "price_per_gpu_hour": Decimal(price),
        "gpus_per_node": 8,
        "region": "eu-west",
        "quoted_at": timezone.now() - timedelta(minutes=5),
    }
    return quote_submit(acting_user=user, data=data, **extra)


def _rate(user, currency, rate):
    return fx_rate_create(
        acting_user=user,
        data={"currency": currency, "rate_to_base": Decimal(rate), "as_of": timezone.now().date()},
    )


@pytest.fixture
def h100_list(h100):
    """The public H100 on-demand list prices of the demo (RunPod 2.69, Lambda 2.99, AWS 6.88)."""
    for price in ("2.69", "2.99", "6.88"):
        QuoteFactory(
            accelerator=h100,
            provider=ProviderFactory(),
            price_per_gpu_hour=Decimal(price),
            is_public_list_price=True,
        )
    return h100


@pytest.mark.parametrize("currency", ["CHF", "SEK", "NOK"])
def test_r9_a_price_without_an_fx_rate_is_held_not_plausible(vendor_a, h100_list, currency):
    quote = _submit(vendor_a, h100_list, "0.0100", currency)
    assert quote.price_far_from_market is True
    assert quote.price_check["held"] == "no_fx_rate"
    assert "confirmed_by" not in quote.price_check  # nobody vouched for it
    assert f"no {currency} FX rate" in quote.price_check["message"]


def test_r9_the_rate_arriving_judges_the_held_bait_far_and_a_fair_price_plausible(
    vendor_a, vendor_b, finance, h100_list
):
    bait = _submit(vendor_a, h100_list, "0.0100", "CHF")
    fair = _submit(vendor_b, h100_list, "2.4000", "CHF")
    _rate(finance, "CHF", "1.13")
    bait.refresh_from_db()
    fair.refresh_from_db()
    # 0.01 CHF × 1.13 = 0.0113 USD per GPU-hour: below the 0.05 floor of every market.
    assert bait.price_far_from_market is True
    assert "held" not in bait.price_check
    assert "confirmed_by" not in bait.price_check  # far, and nobody confirmed it: it blocks
    assert bait.price_check["reference"]["price"] == "0.0113"
    assert "outside every market" in bait.price_check["message"]
    # 2.40 CHF × 1.13 = 2.712 USD: between the list prices 2.69 and 6.88, plausible.
    assert fair.price_far_from_market is False
    assert fair.price_check == {}
    assert AuditEvent.objects.filter(action="quote.price_rejudged").count() == 2


def test_r9_a_later_rate_change_judges_the_currency_again(vendor_a, finance, h100_list):
    yesterday = timezone.now().date() - timedelta(days=1)
    FxRateFactory(currency="EUR", rate_to_base=Decimal("1.08"), as_of=yesterday)
    # 0.50 EUR × 1.08 = 0.54 USD: just above a fifth of the lowest list price (2.69 / 5 = 0.538).
    quote = _submit(vendor_a, h100_list, "0.5000", "EUR")
    assert quote.price_far_from_market is False
    _rate(finance, "EUR", "0.60")  # within the FX jump rule: now 0.30 USD, below 0.538
    quote.refresh_from_db()
    assert quote.price_far_from_market is True
    assert quote.price_check["reference"]["price"] == "0.3000"


@pytest.mark.parametrize(
    ("slug", "name"),
    [("b300-hgx-288gb", "B300"), ("gaudi-3-oam-128gb", "Gaudi 3"), ("mi355x-288gb", "MI355X")],
)
def test_r10_a_first_offer_with_no_market_is_judged_by_its_datasheet_class(vendor_a, slug, name):
    accelerator = AcceleratorFactory(slug=slug, name=name)
    with pytest.raises(UnusualPrice):  # the reproduction: 2 cents
        _submit(vendor_a, accelerator, "0.0200")
    # The next move: inside the absolute band, still far below the class (0.30 at the lowest).
    with pytest.raises(UnusualPrice) as refused:
        _submit(vendor_a, accelerator, "0.2000")
    assert "outside this accelerator's datasheet class" in refused.value.message
    (low, high), source = accelerator_band(slug, {"USD": Decimal(1)})
    assert source
    with pytest.raises(UnusualPrice):  # and above it
        _submit(vendor_a, accelerator, str(high * 2))
    # A price inside the class passes without a confirmation.
    assert _submit(vendor_a, accelerator, str(low * 4)).price_far_from_market is False


def test_every_catalog_accelerator_has_a_sourced_band_inside_the_absolute_one():
    import json

    from catalog.plausibility import ACCELERATORS_JSON

    for row in json.loads(ACCELERATORS_JSON.read_text(encoding="utf-8")):
        band = row["price_band"]
        low, high = (Decimal(v) for v in band["per_gpu_hour"])
        assert BAND_BASE[0] <= low < high <= BAND_BASE[1], row["slug"]
        assert band["currency"] == "USD", row["slug"]
        assert band["source"], row["slug"]


@pytest.mark.parametrize(("price", "far"), [("60.00", True), ("12.00", True), ("9.00", False),
                                             ("0.09", True), ("0.11", False)])  # fmt: skip
def test_60x_a_lone_rival_is_a_market_for_an_order_of_magnitude(vendor_a, price, far):
    unlisted = AcceleratorFactory(slug="new-gpu-no-band")  # no list price, no datasheet band
    QuoteFactory(
        accelerator=unlisted, provider=ProviderFactory(), price_per_gpu_hour=Decimal("1.00")
    )
    if far:
        with pytest.raises(UnusualPrice) as refused:
            _submit(vendor_a, unlisted, price)
        assert "order of magnitude" in refused.value.message
        assert "1.00" not in refused.value.message
        assert "1 USD" not in refused.value.message
    else:
        assert _submit(vendor_a, unlisted, price).price_far_from_market is False


def test_the_absolute_band_fits_gpus():
    assert (Decimal("0.05"), Decimal(100)) == BAND_BASE
    unlisted = AcceleratorFactory(slug="new-gpu-no-band-2")
    check = price_check(
        accelerator_id=unlisted.pk, capacity_model="on_demand", currency="USD", price="150"
    )
    assert check is not None
    assert "outside every market" in check["message"]


@pytest.fixture
def h200_list():
    """The demo's public H200 on-demand list prices: Nebius 3.50, CoreWeave 6.31, AWS 7.91."""
    h200 = AcceleratorFactory(slug="h200-sxm-141gb", name="H200 SXM 141GB")
    for price in ("3.50", "6.31", "7.91"):
        QuoteFactory(
            accelerator=h200,
            provider=ProviderFactory(),
            price_per_gpu_hour=Decimal(price),
            is_public_list_price=True,
        )
    FxRateFactory(currency="EUR", rate_to_base=Decimal("1.08"))
    FxRateFactory(currency="GBP", rate_to_base=Decimal("1.27"))
    return h200


@pytest.mark.parametrize(("currency", "price"), [("EUR", "29.50"), ("GBP", "25.00")])
def test_u16_a_tenfold_slip_in_another_currency_is_refused(vendor_b, h200_list, currency, price):
    # 29.50 EUR × 1.08 = 31.86 USD; 25.00 GBP × 1.27 = 31.75 USD: above the H200 class's 25.
    with pytest.raises(UnusualPrice) as refused:
        _submit(vendor_b, h200_list, price, currency)
    assert "datasheet class" in refused.value.message


def test_u16_the_meant_price_passes(vendor_b, h200_list):
    quote = _submit(vendor_b, h200_list, "2.95", "EUR")  # 3.186 USD
    assert quote.price_far_from_market is False
    assert Quote.objects.filter(pk=quote.pk, price_check={}).exists()


def test_r9_the_demo_holds_no_price():
    """The demo's GBP and EUR offers are judged, not held: its rates come first."""
    from accounts import demo as accounts_demo
    from catalog import demo

    accounts_demo.load()
    demo.load()
    held = Quote.objects.current().filter(price_check__has_key="held")
    assert list(held.values_list("currency", flat=True)) == []
    assert Quote.objects.current().filter(currency__in=["GBP", "EUR"]).exists()
