"""M3 (security findings) / issue "Money that binds": an approval rests on what was computed.

Finance could approve a comparison after its recommended quote was withdrawn or revised, or
approve a revision that a newer one superseded. Each such approval is refused (409) with what
changed; rejecting stays possible.
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from catalog.services.quotes import quote_revise, quote_withdraw
from core.errors import Conflict
from procurement.models import Comparison, Review
from procurement.services.reviews import review_submit
from tests.factories import ComparisonFactory

pytestmark = pytest.mark.django_db


def _recommended_quote(comparison):
    return comparison.candidates.get(key=comparison.recommended_key).quote


def _approve(comparison, finance):
    return review_submit(
        acting_user=finance, comparison=comparison, decision="approve", comment="Checked."
    )


def test_m3_approval_after_the_recommended_quote_was_withdrawn_is_refused(
    comparison, finance, lead
):
    quote_withdraw(acting_user=lead, quote=_recommended_quote(comparison), reason="bait")
    with pytest.raises(Conflict, match="withdrawn"):
        _approve(comparison, finance)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.READY
    assert not Review.objects.filter(comparison=comparison).exists()


def test_m3_approval_after_the_price_was_revised_names_the_new_price(comparison, finance, lead):
    quote_revise(
        acting_user=lead, quote=_recommended_quote(comparison), data={"price_per_gpu_hour": "9.99"}
    )
    with pytest.raises(Conflict, match=r"revised.*9\.99"):
        _approve(comparison, finance)
    assert not Review.objects.filter(comparison=comparison).exists()


def test_m3_a_superseded_revision_cannot_be_approved(comparison, finance, lead):
    ComparisonFactory(brief=comparison.brief, supersedes=comparison, created_by=lead)
    with pytest.raises(Conflict, match="newer revision"):
        _approve(comparison, finance)


def test_m3_rejecting_a_comparison_whose_quote_was_withdrawn_still_works(comparison, finance, lead):
    quote_withdraw(acting_user=lead, quote=_recommended_quote(comparison))
    review = review_submit(
        acting_user=finance, comparison=comparison, decision="reject", comment="Quote gone."
    )
    assert review.decision == "reject"


def test_m3_the_api_answers_409_with_what_changed(comparison, finance, lead):
    quote_withdraw(acting_user=lead, quote=_recommended_quote(comparison))
    client = APIClient()
    client.force_authenticate(finance)
    response = client.post(
        f"/api/v1/comparisons/{comparison.pk}/reviews/",
        {"decision": "approve", "comment": "ok"},
        format="json",
    )
    assert response.status_code == 409
    assert "withdrawn" in response.json()["detail"]


def test_m3_an_unchanged_comparison_is_approved(comparison, finance):
    review = _approve(comparison, finance)
    comparison.refresh_from_db()
    assert review.decision == "approve"
    assert comparison.status == Comparison.Status.APPROVED
