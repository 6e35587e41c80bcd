"""U19 for a plan across offers: approving the plan closes the RFQ its parts answer and tells
every vendor of a part it was selected, and any other answering vendor that it was not."""

from __future__ import annotations

import pytest
from django.core import mail

from catalog.models import Quote, Rfq
from core.roles import Role
from tests.factories import QuoteFactory, RfqFactory, UserFactory

pytestmark = pytest.mark.django_db


def _mails() -> dict[str, str]:
    return {message.to[0]: message.subject for message in mail.outbox}


def test_u19_an_approved_plan_selects_every_vendor_of_its_parts(
    lead, finance, checklist_items, api_client, django_capture_on_commit_callbacks, settings
):
    settings.DUAL_APPROVAL_THRESHOLD_USD = 10**9  # one approval decides here
    from tests.comparisons.plan_world import computed, contoso_on_demand, fabrikam, plan_brief

    cheap = fabrikam(lead)
    dear = contoso_on_demand(lead, evidenced=True)
    rfq = RfqFactory(title="Batch capacity", created_by=lead, providers=[])
    other = QuoteFactory(rfq=rfq)  # a third vendor's answer the plan leaves out
    rfq.providers.set([cheap.provider, dear.provider, other.provider])
    Quote.objects.filter(pk__in=[cheap.pk, dear.pk]).update(rfq=rfq)
    for quote, name in ((cheap, "fb"), (dear, "ct"), (other, "xx")):
        UserFactory(username=f"vendor-{name}", role=Role.VENDOR, provider=quote.provider)
    comparison, _ = computed(lead, plan_brief(lead, horizon_months=1), [cheap, dear])
    api_client.force_authenticate(finance)
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post(
            f"/api/v1/comparisons/{comparison.pk}/reviews/",
            {
                "decision": "approve",
                "comment": "Both parts checked.",
                "candidate": "plan",
                "justification": "Two vendors cost less a month.",
            },
            format="json",
        )
    assert response.status_code == 201, response.json()
    assert response.json()["comparison_status"] == "approved"
    rfq.refresh_from_db()
    assert rfq.status == Rfq.Status.CLOSED
    mails = _mails()
    assert mails["vendor-fb@example.com"] == "Selected: your answer to Batch capacity"
    assert mails["vendor-ct@example.com"] == "Selected: your answer to Batch capacity"
    assert mails["vendor-xx@example.com"] == "Not selected: your answer to Batch capacity"
