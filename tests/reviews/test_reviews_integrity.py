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


# --- Issue 15 (2): a checklist answer changed, or the RFQ reopened, after the compute ---------


def _freeze_checklist(comparison):
    """Copy the recommended quote's checklist summary into the snapshot, as the compute does."""
    import json

    from django.core.serializers.json import DjangoJSONEncoder

    from checklist.selectors import quote_checklist_summaries

    quote = _recommended_quote(comparison)
    summary = quote_checklist_summaries([quote])[quote.pk]
    comparison.snapshot = {
        **(comparison.snapshot or {}),
        "checklist": {str(quote.pk): json.loads(json.dumps(summary, cls=DjangoJSONEncoder))},
    }
    comparison.save(update_fields=["snapshot"])
    return quote


@pytest.fixture
def network_item(db):
    import importlib

    from django.apps import apps

    from checklist.models import ChecklistItem

    if not ChecklistItem.objects.filter(code="network-boundary").exists():
        # A transactional test elsewhere may have flushed the seeded items.
        importlib.import_module("checklist.migrations.0002_seed_items").seed_items(apps, None)
    return ChecklistItem.objects.get(code="network-boundary")


def test_a_new_checklist_answer_after_the_compute_refuses_the_approval(
    comparison, finance, network_item
):
    from tests.checklist.factories_checklist import AnswerFactory

    quote = _freeze_checklist(comparison)
    AnswerFactory(provider=quote.provider, quote=quote, item=network_item)
    with pytest.raises(Conflict, match=r"Checklist answers for quote #\d+ changed"):
        _approve(comparison, finance)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.READY
    assert not Review.objects.filter(comparison=comparison).exists()


def test_a_red_flag_raised_after_the_compute_refuses_the_approval(
    comparison, finance, security, network_item
):
    from checklist.services import answer_review
    from tests.checklist.factories_checklist import AnswerFactory

    quote = _recommended_quote(comparison)
    answer = AnswerFactory(provider=quote.provider, quote=quote, item=network_item)
    _freeze_checklist(comparison)
    answer_review(
        acting_user=security, answer=answer, decision="red_flag", comment="No private link."
    )
    with pytest.raises(Conflict, match=r"Checklist answers .* changed"):
        _approve(comparison, finance)
    assert not Review.objects.filter(comparison=comparison).exists()


def _reopened_after_compute(comparison, lead):
    from datetime import timedelta

    from django.utils import timezone

    from catalog.services.rfqs import rfq_reopen
    from tests.factories import RfqFactory

    quote = _recommended_quote(comparison)
    rfq = RfqFactory(created_by=lead, deadline=timezone.now() - timedelta(days=1))
    rfq.providers.set([quote.provider])
    type(quote).objects.filter(pk=quote.pk).update(rfq=rfq)
    Comparison.objects.filter(pk=comparison.pk).update(
        finished_at=timezone.now() - timedelta(hours=1)
    )
    comparison.refresh_from_db()
    rfq_reopen(acting_user=lead, rfq=rfq, deadline=timezone.now() + timedelta(days=3))
    return rfq


def test_an_rfq_reopened_after_the_compute_refuses_the_approval(comparison, finance, lead):
    _reopened_after_compute(comparison, lead)
    with pytest.raises(Conflict, match="reopened"):
        _approve(comparison, finance)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.READY
    assert not Review.objects.filter(comparison=comparison).exists()


def test_the_review_page_says_what_changed_before_anyone_approves(
    client, comparison, finance, lead
):
    _reopened_after_compute(comparison, lead)
    quote_withdraw(acting_user=lead, quote=_recommended_quote(comparison), reason="gone")
    client.force_login(finance)
    html = client.get(f"/comparisons/{comparison.pk}/review/").content.decode()
    changed = html.split('id="changed-since-compute"', 1)[1].split("</div>", 1)[0]
    assert "was withdrawn by its provider" in changed
    assert "was reopened after the comparison was computed" in changed
    assert "withdrawn (the comparison used v1)" in html  # the successor version is named so
    client.force_login(lead)
    html = client.get(f"/comparisons/{comparison.pk}/review/").content.decode()
    assert 'id="changed-since-compute"' in html
    assert "Recompute with the new evidence" in html
