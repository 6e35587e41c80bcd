"""M4 (security findings): vendors no longer self-certify eligibility.

Above the basic checklist level an item counts only once a reviewer accepted it, so a
committed offer whose answers are all the vendor's own word is ineligible, and its row says
which items await review (on the results page and the review page).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from checklist.models import ChecklistAnswer, ChecklistItem
from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from tests.factories import ProviderFactory, QuoteFactory

pytestmark = pytest.mark.django_db


def _self_attest(provider, vendor):
    ChecklistAnswer.objects.bulk_create(
        ChecklistAnswer(
            provider=provider,
            item=item,
            answer="Yes.",
            status="yes",
            evidence_url="https://vendor.example/any",
            answered_by=vendor,
        )
        for item in ChecklistItem.objects.all()
    )


def test_m4_self_attested_answers_leave_a_reserved_offer_ineligible_and_say_so(
    scenario, lead, login, vendor_a, finance
):
    provider = vendor_a.provider
    _self_attest(provider, vendor_a)
    reserved = QuoteFactory(
        provider=provider,
        accelerator=scenario["fast"].accelerator,
        capacity_model="reserved",
        term_months=12,
        price_per_gpu_hour=Decimal("1.10"),
        entered_by=vendor_a,
    )
    comparison = comparison_create(
        acting_user=lead, brief=scenario["brief"], quote_ids=[reserved.pk, scenario["fast"].pk]
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    row = CandidateResult.objects.get(comparison=comparison, quote=reserved)
    assert not row.eligible
    assert "CHECKLIST_BELOW_COMMITMENT" in {w["code"] for w in row.warnings}
    assert len(row.checklist["awaiting_review"]) == ChecklistItem.objects.count()
    assert comparison.recommended_key != row.key
    page = login(finance).get(f"/comparisons/{comparison.pk}/review/").content.decode()
    assert f"{ChecklistItem.objects.count()} await review" in page


def test_m4_accepted_answers_make_the_same_offer_eligible(scenario, lead, vendor_a):
    provider = ProviderFactory(name="Reviewed GPUs", slug="reviewed-gpus")
    _self_attest(provider, vendor_a)
    ChecklistAnswer.objects.filter(provider=provider).update(review_status="accepted")
    reserved = QuoteFactory(
        provider=provider,
        accelerator=scenario["fast"].accelerator,
        capacity_model="reserved",
        term_months=12,
        price_per_gpu_hour=Decimal("1.10"),
    )
    comparison = comparison_create(
        acting_user=lead, brief=scenario["brief"], quote_ids=[reserved.pk]
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    row = CandidateResult.objects.get(comparison=comparison, quote=reserved)
    assert row.eligible, row.reasons
    assert row.checklist["awaiting_review"] == []
