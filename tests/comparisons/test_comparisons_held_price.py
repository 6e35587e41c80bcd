"""Security round 4, R9 end to end: a vendor's bait price in a currency with no FX rate was
judged by nothing; once finance entered the rate it was the recommended row with no flag.
Now the price is held at entry, judged when the rate comes, and its row is blocked and named
on the comparison and on the quote page."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.services import fx_rate_create, quote_submit
from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from tests.factories import ProviderFactory, QuoteFactory

pytestmark = pytest.mark.django_db


def _compare(lead, scenario, *quotes):
    comparison = comparison_create(
        acting_user=lead,
        brief=scenario["brief"],
        quote_ids=[scenario["cheap"].pk, scenario["fast"].pk, *(q.pk for q in quotes)],
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    return comparison


@pytest.mark.parametrize("currency", ["CHF", "SEK"])
def test_r9_bait_in_a_currency_without_a_rate_is_never_recommended(
    scenario, vendor_a, finance, lead, login, currency
):
    h100 = scenario["fast"].accelerator
    for price in ("2.69", "2.99", "6.88"):  # public H100 list prices
        QuoteFactory(
            accelerator=h100,
            provider=ProviderFactory(),
            price_per_gpu_hour=Decimal(price),
            is_public_list_price=True,
        )
    bait = quote_submit(
        acting_user=vendor_a,
        data={
            "accelerator": h100,
            "capacity_model": "on_demand",
            "currency": currency,
            "price_per_gpu_hour": Decimal("0.0100"),
            "gpus_per_node": 8,
            "region": "eu-west",
            "quoted_at": timezone.now() - timedelta(minutes=5),
        },
    )
    page = login(lead).get(f"/catalog/quotes/{bait.pk}/").content.decode()
    assert "Price held" in page
    assert f"no {currency} FX rate" in page
    fx_rate_create(
        acting_user=finance,
        data={
            "currency": currency,
            "rate_to_base": Decimal("1.13"),
            "as_of": timezone.now().date(),
        },
    )
    comparison = _compare(lead, scenario, bait)
    row = CandidateResult.objects.get(comparison=comparison, quote=bait)
    assert not row.eligible
    warning = next(w for w in row.warnings if w["code"] == "PRICE_FAR_FROM_MARKET")
    assert warning["severity"] == "block"
    assert "outside every market" in warning["detail"]
    assert comparison.recommended_key != row.key
    page = login(lead).get(f"/catalog/quotes/{bait.pk}/").content.decode()
    assert "Nobody confirmed it" in page
