"""Reviewer queues on /checklist/: "awaiting my review" with counts per role and a filter,
"Accept all in this section" with each answer still reviewed and audited one by one, and
sections named by the roles that review them."""

from __future__ import annotations

import pytest

from checklist.models import ChecklistAnswer, ChecklistReview
from core.models import AuditEvent
from tests.factories import QuoteFactory

pytestmark = pytest.mark.django_db


def answer(quote, vendor, item, **kw):
    return ChecklistAnswer.objects.create(
        provider=quote.provider,
        quote=quote,
        item=item,
        answer="Stated.",
        status="yes",
        evidence_url="https://example.com/doc",
        answered_by=vendor,
        **kw,
    )


@pytest.fixture
def answered(quote_a, quote_b, vendor_a, vendor_b, items):
    """Quote A: two hardware answers and one commercial answer pending, one hardware accepted;
    quote B: nothing pending."""
    hardware = [i for i in items if i.section == "hardware"]
    commercial = [i for i in items if i.section == "commercial"]
    answer(quote_a, vendor_a, hardware[0])
    answer(quote_a, vendor_a, hardware[1])
    answer(quote_a, vendor_a, hardware[2], review_status="accepted")
    answer(quote_a, vendor_a, commercial[0])
    answer(quote_b, vendor_b, hardware[0], review_status="accepted")
    return hardware, commercial


def test_v10_the_index_counts_what_awaits_my_review_per_role(
    login, answered, quote_a, quote_b, engineer, finance, security
):
    html = login(engineer).get("/checklist/").content.decode()
    queue = html[html.index('id="my-review-queue"') :]
    assert "2 answers over 1 quote await your review" in queue
    assert "Hardware and topology" in queue
    row = html[html.index(f'id="quote-{quote_a.pk}"') :]
    assert "2 · Hardware and topology" in row.split("</tr>")[0]
    html = login(finance).get("/checklist/").content.decode()
    assert "1 answer over 1 quote awaits your review" in html
    html = login(security).get("/checklist/").content.decode()
    assert "Nothing awaits your review" in html
    # The filter keeps only the quotes waiting for me.
    html = login(engineer).get("/checklist/?mine=1").content.decode()
    assert f'id="quote-{quote_a.pk}"' in html
    assert f'id="quote-{quote_b.pk}"' not in html
    assert "Show every quote" in html


def test_v10_accept_all_in_a_section_reviews_and_audits_each_answer(
    login, answered, quote_a, engineer
):
    client = login(engineer)
    page = client.get(f"/checklist/quotes/{quote_a.pk}/").content.decode()
    assert "Accept all in this section (2)" in page
    assert "reviewed by platform engineers" in page
    assert "finance reviewers or procurement leads" in page
    assert "commercial model reviewers" not in page
    response = client.post(f"/checklist/quotes/{quote_a.pk}/sections/hardware/accept/", follow=True)
    assert "Accepted 2 answers in Hardware and topology, each recorded in the audit trail" in (
        response.content.decode()
    )
    hardware = ChecklistAnswer.objects.filter(quote=quote_a, item__section="hardware")
    assert set(hardware.values_list("review_status", flat=True)) == {"accepted"}
    assert ChecklistReview.objects.filter(reviewer=engineer).count() == 2
    assert AuditEvent.objects.filter(action="checklist.review", actor=engineer).count() == 2
    # The commercial answer is not the engineer's to accept.
    client.post(f"/checklist/quotes/{quote_a.pk}/sections/commercial/accept/")
    commercial = ChecklistAnswer.objects.get(quote=quote_a, item__section="commercial")
    assert commercial.review_status == "pending"
    assert (
        "Accept all in this section"
        not in client.get(f"/checklist/quotes/{quote_a.pk}/")
        .content.decode()
        .split('id="section-commercial"')[1]
        .split("</section>")[0]
    )


def test_v10_vendors_and_other_providers_cannot_bulk_accept(
    login, answered, quote_a, vendor_a, vendor_b, provider_b, items
):
    other = QuoteFactory(provider=provider_b)
    for who in (vendor_a, vendor_b):
        response = login(who).post(f"/checklist/quotes/{quote_a.pk}/sections/hardware/accept/")
        assert response.status_code == 404
    assert not ChecklistReview.objects.exists()
    assert other.pk


def test_v9_the_vendor_is_told_when_its_part_is_done(login, quote_a, vendor_a, items):
    """A reserved quote needs every item with evidence, accepted: once every item is answered
    with evidence the vendor reads that its answers are complete, waiting for reviewers."""
    url = f"/checklist/quotes/{quote_a.pk}/answer/"
    client = login(vendor_a)
    html = client.get(url).content.decode()
    assert "20 items still need you" in html
    for item in items:
        answer(quote_a, vendor_a, item)
    html = client.get(url).content.decode()
    status = html[html.index('id="vendor-status"') :].split("</section>")[0]
    assert "Your answers are complete" in status
    assert "waiting for the buyer's reviewers (20 answers to accept)" in status
    ChecklistAnswer.objects.update(review_status="accepted")
    html = client.get(url).content.decode()
    assert "complete and reviewed: nothing more is needed from you" in html


def test_v9_a_save_lands_on_what_is_left_to_do(login, quote_a, vendor_a, items):
    item = items[0]
    response = login(vendor_a).post(
        f"/checklist/quotes/{quote_a.pk}/answer/",
        {
            f"{item.code}-answer": "8x H100 SXM 80 GB",
            f"{item.code}-status": "yes",
            f"{item.code}-evidence_url": "https://example.com/spec",
            f"{item.code}-scope": "quote",
        },
    )
    assert response.status_code == 302
    assert response["Location"].endswith("#vendor-status")
