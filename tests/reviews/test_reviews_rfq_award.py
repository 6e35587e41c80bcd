"""U19: approving a comparison whose quotes answer an RFQ closes the RFQ, names the decision on
the RFQ page, and tells the selected vendor it was selected and the others that they were not."""

from __future__ import annotations

import pytest
from django.core import mail

from accounts.models import User
from catalog.models import Quote, Rfq
from core.roles import Role
from procurement.services.reviews import review_submit
from tests.factories import ProviderFactory, RfqFactory, UserFactory
from tests.reviews.factories_reviews import ready_comparison

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(lead):
    """A ready comparison whose H100 (recommended, Northwind) and H200 (Contoso) rows answer
    one open RFQ; the L40S row (Fabrikam) is a catalog quote outside it."""
    comparison = ready_comparison(created_by=lead)
    q_h100 = Quote.objects.get(comparisons=comparison, title="H100 on-demand")
    q_h200 = Quote.objects.get(comparisons=comparison, title="H200 reserved")
    q_l40s = Quote.objects.get(comparisons=comparison, title="L40S spot")
    quiet = ProviderFactory(name="Quiet Cloud", slug="quiet-cloud")  # invited, never answers
    rfq = RfqFactory(
        title="Support chat capacity",
        created_by=lead,
        providers=[q_h100.provider, q_h200.provider, quiet],
    )
    UserFactory(username="vendor-qc", role=Role.VENDOR, provider=quiet)
    Quote.objects.filter(pk__in=[q_h100.pk, q_h200.pk]).update(rfq=rfq)
    for quote, name in ((q_h100, "nw"), (q_h200, "ct"), (q_l40s, "fb")):
        UserFactory(username=f"vendor-{name}", role=Role.VENDOR, provider=quote.provider)
    return comparison, rfq


def _mails() -> dict[str, str]:
    return {message.to[0]: message.subject for message in mail.outbox}


def test_u19_approval_closes_the_rfq_and_tells_each_vendor(
    answered, finance, login, lead, django_capture_on_commit_callbacks
):
    comparison, rfq = answered
    with django_capture_on_commit_callbacks(execute=True):
        review = review_submit(
            acting_user=finance, comparison=comparison, decision="approve", comment="Go."
        )
    assert review.candidate.key == "q-h100"
    rfq.refresh_from_db()
    assert rfq.status == Rfq.Status.CLOSED
    assert not rfq.is_open_for_answers()
    mails = _mails()
    assert mails["vendor-nw@example.com"] == "Selected: your answer to Support chat capacity"
    assert mails["vendor-ct@example.com"] == "Not selected: your answer to Support chat capacity"
    assert mails["vendor-qc@example.com"] == "Closed: Support chat capacity"
    assert "vendor-fb@example.com" not in mails  # its quote answered no RFQ
    assert mails["lead@example.com"].startswith("Approved:")
    html = login(lead).get(f"/catalog/rfqs/{rfq.pk}/").content.decode()
    assert 'id="rfq-decisions"' in html
    assert f'href="/comparisons/{comparison.pk}/"' in html
    assert f'Closed by <a href="/comparisons/{comparison.pk}/">{comparison.title}</a>' in html
    # Each vendor's RFQ page says its outcome, not the buyer's decision record.
    for username, outcome in (
        ("vendor-nw", "selected your offer"),
        ("vendor-ct", "did not select your offer"),
        ("vendor-qc", "The buyer has made its decision; the RFQ is closed."),
    ):
        vendor = User.objects.get(username=username)
        page = login(vendor).get(f"/vendor/rfqs/{rfq.pk}/").content.decode()
        assert outcome in page
        assert f"/comparisons/{comparison.pk}/" not in page


def test_u19_a_rejection_leaves_the_rfq_open_and_vendors_unmailed(
    answered, finance, django_capture_on_commit_callbacks
):
    comparison, rfq = answered
    with django_capture_on_commit_callbacks(execute=True):
        review_submit(
            acting_user=finance, comparison=comparison, decision="reject", comment="Too dear."
        )
    rfq.refresh_from_db()
    assert rfq.status == Rfq.Status.OPEN
    assert list(_mails()) == ["lead@example.com"]
