"""Facts flow forward from the brief to the RFQ and the vendor's quote form, and the RFQ page
tracks each invited vendor (invited, viewed, answered, version) with a countdown and a way to
compare the answers."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.views.rfqs import rfq_initial
from tests.factories import QuoteFactory, RfqFactory, WorkloadBriefFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def brief(lead):
    return WorkloadBriefFactory(
        created_by=lead,
        allowed_regions=["eu-west"],
        private_endpoint_required=True,
        horizon_months=12,
        monthly_accepted_outputs_likely=Decimal("400000000"),
    )


def test_v8_the_rfq_text_carries_every_brief_requirement(brief):
    text = rfq_initial(brief)["requirements"]
    assert "data stays in eu-west" in text
    assert "a private endpoint is required" in text
    assert "a 12-month term" in text
    assert "prices per GPU-hour" in text
    assert "about 400,000,000 accepted answers (requests) a month" in text
    assert "400,000,000.0" not in text


def test_v8_the_vendor_quote_form_is_pre_filled_with_the_private_endpoint(
    login, brief, vendor_a, provider_a, lead
):
    rfq = RfqFactory(
        brief=brief, providers=[provider_a], created_by=lead, region="eu-west", term_months=12
    )
    html = login(vendor_a).get(f"/vendor/rfqs/{rfq.pk}/quote/").content.decode()
    select = re.search(r'<select name="private_endpoint".*?</select>', html, re.S).group(0)
    assert re.search(r'<option value="yes"[^>]*selected', select)
    assert re.search(r'name="region"[^>]*value="eu-west"', html)
    # A brief that does not require one leaves the vendor to state it.
    other = RfqFactory(providers=[provider_a], created_by=lead)
    html = login(vendor_a).get(f"/vendor/rfqs/{other.pk}/quote/").content.decode()
    select = re.search(r'<select name="private_endpoint".*?</select>', html, re.S).group(0)
    assert not re.search(r'<option value="yes"[^>]*selected', select)


def test_v14_the_rfq_page_tracks_each_invited_vendor(
    login, brief, lead, vendor_a, provider_a, provider_b, h100
):
    rfq = RfqFactory(
        brief=brief,
        providers=[provider_a, provider_b],
        created_by=lead,
        deadline=timezone.now() + timedelta(days=3, hours=2),
    )
    page = login(lead).get(f"/catalog/rfqs/{rfq.pk}/").content.decode()
    table = page[page.index('id="rfq-vendors"') :]
    assert table.count("not yet") == 2
    assert table.count("no answer yet") == 2
    assert "3 days left" in page
    assert f'href="{brief.get_absolute_url()}"' in page
    assert 'id="compare-answers"' not in page, "nothing to compare yet"

    login(vendor_a).get(f"/vendor/rfqs/{rfq.pk}/")
    login(vendor_a).get(f"/vendor/rfqs/{rfq.pk}/")  # a second view records nothing new
    QuoteFactory(provider=provider_a, accelerator=h100, rfq=rfq, entered_by=vendor_a, version=1)
    page = login(lead).get(f"/catalog/rfqs/{rfq.pk}/").content.decode()
    rows = re.findall(r'<tr data-provider="([^"]+)">(.*?)</tr>', page, re.S)
    by_provider = dict(rows)
    answered = by_provider[provider_a.slug]
    assert "viewed" in answered
    assert "answered" in answered
    assert "version 1" in answered
    assert "not yet" in by_provider[provider_b.slug]
    from core.models import AuditEvent

    assert AuditEvent.objects.filter(action="rfq.viewed").count() == 1
    assert f'href="/comparisons/new/?brief={brief.pk}"' in page
    assert "Compare these answers" in page
