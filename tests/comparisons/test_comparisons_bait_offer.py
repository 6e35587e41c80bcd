"""Issue 15: a $0.01/GPU-h unsolicited offer with self-attested answers can no longer become
the recommended row (security M4 + M5 + plausible prices, together).

- The price is far from the market: refused unless confirmed; once confirmed only by the
  vendor, its row carries PRICE_FAR_FROM_MARKET as a block (procurement must verify it).
- A committed variant also waits for a reviewer to accept its checklist (M4).
- After the deadline of an RFQ that asked for the same offer, it is refused outright (M5).
A price staff confirmed keeps the warning but may compete.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.errors import RfqClosed, UnusualPrice
from catalog.services import quote_submit
from catalog.services.rfqs import rfq_close
from checklist.models import ChecklistAnswer, ChecklistItem
from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from tests.factories import ProviderFactory, QuoteFactory, RfqFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def market(scenario):
    """Three more current H100 on-demand offers: median about 2.50 USD per GPU-hour."""
    h100 = scenario["fast"].accelerator
    for price in ("2.40", "2.50", "2.60"):
        QuoteFactory(
            accelerator=h100, provider=ProviderFactory(), price_per_gpu_hour=Decimal(price)
        )
    return h100


@pytest.fixture
def self_attested(vendor_a):
    ChecklistAnswer.objects.bulk_create(
        ChecklistAnswer(
            provider=vendor_a.provider,
            item=item,
            answer="Yes.",
            status="yes",
            evidence_url="https://bait.example/any",
            answered_by=vendor_a,
        )
        for item in ChecklistItem.objects.all()
    )


def _bait(vendor, h100, capacity_model="on_demand", **kwargs):
    data = {
        "accelerator": h100,
        "capacity_model": capacity_model,
        "currency": "USD",
        "price_per_gpu_hour": Decimal("0.01"),
        "gpus_per_node": 8,
        "region": "eu-west",
        "term_months": 12 if capacity_model == "reserved" else 0,
        "quoted_at": timezone.now() - timedelta(minutes=5),
    }
    return quote_submit(acting_user=vendor, data=data, **kwargs)


def _compare(lead, scenario, *quotes):
    comparison = comparison_create(
        acting_user=lead,
        brief=scenario["brief"],
        quote_ids=[scenario["cheap"].pk, scenario["fast"].pk, *(q.pk for q in quotes)],
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    return comparison


def _warning(row, code):
    return next((w for w in row.warnings if w["code"] == code), None)


def test_bait_offer_needs_a_confirmation_and_then_cannot_be_recommended(
    scenario, market, self_attested, vendor_a, lead
):
    with pytest.raises(UnusualPrice) as refused:
        _bait(vendor_a, market)
    assert "far from the other offers for this accelerator" in refused.value.message
    on_demand = _bait(vendor_a, market, confirm_unusual_price=True)
    reserved = _bait(vendor_a, market, "reserved", confirm_unusual_price=True)
    comparison = _compare(lead, scenario, on_demand, reserved)
    rows = {r.quote_id: r for r in CandidateResult.objects.filter(comparison=comparison)}
    row = rows[on_demand.pk]
    assert not row.eligible
    warning = _warning(row, "PRICE_FAR_FROM_MARKET")
    assert warning is not None
    assert warning["severity"] == "block"
    assert "Only the vendor confirmed it" in warning["detail"]
    # No reserved market to compare with: the committed variant is stopped by M4 instead.
    committed = rows[reserved.pk]
    assert not committed.eligible
    assert _warning(committed, "CHECKLIST_BELOW_COMMITMENT") is not None
    assert committed.checklist["awaiting_review"]
    assert comparison.recommended_key not in {row.key, committed.key}
    assert comparison.recommended_key in {
        rows[scenario["cheap"].pk].key,
        rows[scenario["fast"].pk].key,
    }


def test_bait_offer_after_the_rfq_deadline_is_refused(scenario, market, vendor_a, lead):
    rfq = RfqFactory(title="H100 capacity", providers=[vendor_a.provider], created_by=lead)
    rfq.accelerators.set([market])
    rfq_close(acting_user=lead, rfq=rfq)
    with pytest.raises(RfqClosed):
        _bait(vendor_a, market, confirm_unusual_price=True)


def test_a_price_staff_confirmed_keeps_the_warning_but_may_compete(scenario, market, lead):
    verified = quote_submit(
        acting_user=lead,
        provider=ProviderFactory(name="Verified deal", slug="verified-deal"),
        data={
            "accelerator": market,
            "capacity_model": "on_demand",
            "currency": "USD",
            "price_per_gpu_hour": Decimal("0.40"),
            "gpus_per_node": 8,
            "region": "eu-west",
            "quoted_at": timezone.now() - timedelta(minutes=5),
            "source_url": "https://deal.example/offer.pdf",
        },
        confirm_unusual_price=True,
    )
    comparison = _compare(lead, scenario, verified)
    row = CandidateResult.objects.get(comparison=comparison, quote=verified)
    warning = _warning(row, "PRICE_FAR_FROM_MARKET")
    assert warning is not None
    assert warning["severity"] == "warn"
    assert "Confirmed by procurement" in warning["detail"]
    assert warning["detail"] not in row.reasons  # a warning, not a reason to exclude the row
