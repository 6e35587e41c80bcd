"""U14: the quote form opens with what the RFQ already says (accelerator, capacity model,
region, term, GPU count), for the vendor and for staff entering a quote against the RFQ."""

from __future__ import annotations

import re

import pytest

from tests.factories import AcceleratorFactory, RfqFactory

pytestmark = pytest.mark.django_db


def selected(html: str, name: str) -> str | None:
    select = re.search(rf'<select name="{name}".*?</select>', html, re.S)
    assert select, name
    match = re.search(r'<option value="([^"]*)"[^>]*selected', select.group(0))
    return match.group(1) if match else None


def value_of(html: str, name: str) -> str | None:
    match = re.search(rf'<input[^>]*name="{name}"[^>]*>', html)
    assert match, name
    value = re.search(r'value="([^"]*)"', match.group(0))
    return value.group(1) if value else None


@pytest.fixture
def rfq_eu_reserved(lead, provider_a, h100):
    rfq = RfqFactory(
        providers=[provider_a],
        created_by=lead,
        region="eu-west",
        term_months=12,
        gpus_needed=4,
        capacity_models=["reserved"],
    )
    rfq.accelerators.set([h100])
    return rfq


def test_u14_vendor_quote_form_is_prefilled_from_the_rfq(login, vendor_a, rfq_eu_reserved, h100):
    response = login(vendor_a).get(f"/vendor/rfqs/{rfq_eu_reserved.pk}/quote/")
    html = response.content.decode()
    assert response.status_code == 200
    assert selected(html, "accelerator") == str(h100.pk)
    assert selected(html, "capacity_model") == "reserved"
    assert selected(html, "region") == "eu-west"  # U1: one pick from the RFQ's regions
    assert value_of(html, "term_months") == "12"
    assert value_of(html, "min_commitment_gpus") == "4"
    assert 'id="prefilled-from-rfq"' in html


def test_u14_staff_quote_form_for_an_rfq_is_prefilled_too(login, lead, rfq_eu_reserved):
    html = login(lead).get(f"/catalog/quotes/new/?rfq={rfq_eu_reserved.pk}").content.decode()
    assert selected(html, "region") == "eu-west"
    assert value_of(html, "term_months") == "12"


def test_u14_an_ambiguous_or_elastic_rfq_prefills_only_what_it_fixes(
    login, vendor_a, lead, provider_a, h100
):
    rfq = RfqFactory(
        providers=[provider_a],
        created_by=lead,
        region="",
        term_months=None,
        gpus_needed=8,
        capacity_models=["on_demand", "spot"],
    )
    rfq.accelerators.set([h100, AcceleratorFactory()])
    html = login(vendor_a).get(f"/vendor/rfqs/{rfq.pk}/quote/").content.decode()
    assert selected(html, "accelerator") in (None, "")
    assert selected(html, "capacity_model") in (None, "")
    assert value_of(html, "min_commitment_gpus") in (None, "", "0")
