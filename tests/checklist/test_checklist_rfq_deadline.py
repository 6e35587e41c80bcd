"""M5 (security findings): the RFQ deadline closes checklist answers and late offers.

After the deadline (or once the lead closes the RFQ), a vendor's answer for one of the RFQ's
quotes is refused (409 in the API, a form error in HTML), a provider default given afterwards
does not count for the RFQ's quotes, and an unsolicited quote for the same offer is refused,
until the lead reopens the RFQ.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.services.rfqs import rfq_close, rfq_reopen
from checklist import services
from checklist.models import ChecklistAnswer
from checklist.selectors import quote_checklist_summary
from checklist.services import AnswerEntry
from tests.factories import QuoteFactory, RfqFactory

pytestmark = pytest.mark.django_db
ITEM = "iam-audit"


@pytest.fixture
def rfq(provider_a, lead, quote_a):
    found = RfqFactory(title="32 H100s reserved", providers=[provider_a], created_by=lead)
    found.accelerators.set([quote_a.accelerator])
    return found


@pytest.fixture
def rfq_quote(rfq, provider_a, vendor_a, quote_a, items):
    return QuoteFactory(
        provider=provider_a,
        accelerator=quote_a.accelerator,
        rfq=rfq,
        capacity_model="on_demand",
        entered_by=vendor_a,
    )


def _payload(scope="quote", answer="SSO with SCIM"):
    return {
        "item": ITEM,
        "answer": answer,
        "status": "yes",
        "scope": scope,
        "evidence_url": "https://example.com/iam",
    }


def _missing(quote):
    return [m["code"] for m in quote_checklist_summary(quote)["missing_items"]]


def _unanswered(quote):
    missing = quote_checklist_summary(quote)["missing_items"]
    return [m["code"] for m in missing if m["reason"] == "unanswered"]


def test_m5_rfq_deadline_closes_answers_in_the_api(api_client, vendor_a, lead, rfq, rfq_quote):
    rfq_close(acting_user=lead, rfq=rfq)
    api_client.force_authenticate(vendor_a)
    for scope in ("quote", "provider"):
        response = api_client.post(
            f"/api/v1/quotes/{rfq_quote.pk}/checklist/answers/", _payload(scope), format="json"
        )
        assert response.status_code == 409, response.content
        body = response.json()
        assert body["code"] == "rfq_closed"
        assert "reopen" in body["detail"]
        assert rfq.title in body["detail"]
    assert not ChecklistAnswer.objects.exists()


def test_m5_rfq_deadline_closes_answers_in_the_html_form(login, vendor_a, rfq, rfq_quote, items):
    rfq.deadline = timezone.now() - timedelta(minutes=1)
    rfq.save(update_fields=["deadline"])
    response = login(vendor_a).post(
        f"/checklist/quotes/{rfq_quote.pk}/answer/",
        {f"{ITEM}-answer": "SSO", f"{ITEM}-status": "yes", f"{ITEM}-scope": "quote"},
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "closed on" in page
    assert "Nothing was saved." in page
    assert not ChecklistAnswer.objects.exists()


def test_m5_a_late_provider_default_does_not_count_for_the_closed_rfqs_quotes(
    vendor_a, lead, rfq, rfq_quote, quote_a, items
):
    item = next(i for i in items if i.code == ITEM)
    rfq_close(acting_user=lead, rfq=rfq)
    services.answer_submit(  # the defaults page: no quote, the provider's scope
        acting_user=vendor_a,
        provider=quote_a.provider,
        quote=None,
        entry=AnswerEntry(
            item=item,
            answer="SSO",
            status="yes",
            scope="provider",
            evidence_url="https://example.com/iam",
        ),
    )
    assert ITEM in _unanswered(rfq_quote)  # frozen at the deadline
    assert ITEM not in _unanswered(quote_a)  # an unrelated quote takes the new default
    rfq_reopen(acting_user=lead, rfq=rfq, deadline=timezone.now() + timedelta(days=2))
    assert ITEM not in _missing(rfq_quote)


def test_m5_unsolicited_quote_for_a_closed_rfq_is_refused_until_reopened(
    api_client, vendor_a, lead, rfq, rfq_quote
):
    rfq_close(acting_user=lead, rfq=rfq)
    api_client.force_authenticate(vendor_a)
    payload = {
        "accelerator": rfq_quote.accelerator.slug,
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": "1.99",
        "gpus_per_node": 8,
        "quoted_at": (timezone.now() - timedelta(minutes=5)).isoformat(),
    }
    before = rfq_quote.provider.quotes.count()
    late = api_client.post("/api/v1/quotes/", payload, format="json")
    assert late.status_code == 409, late.content
    assert late.json()["code"] == "rfq_closed"
    assert rfq.title in late.json()["detail"]
    assert rfq_quote.provider.quotes.count() == before
    rfq_reopen(acting_user=lead, rfq=rfq, deadline=timezone.now() + timedelta(days=2))
    reopened = api_client.post("/api/v1/quotes/", payload, format="json")
    assert reopened.status_code == 201, reopened.content
    assert Decimal(reopened.json()["price_per_gpu_hour"]) == Decimal("1.99")


def test_closing_early_moves_the_deadline_to_the_closing_time(lead, rfq):
    rfq_close(acting_user=lead, rfq=rfq)
    rfq.refresh_from_db()
    assert rfq.deadline <= timezone.now()
    assert not rfq.is_open_for_answers()
