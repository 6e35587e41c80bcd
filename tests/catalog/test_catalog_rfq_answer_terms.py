"""U1: a vendor answers an RFQ line in the RFQ's terms (one region from its list, the capacity
model's own term and minimum), and the lead sees on the RFQ page any answer a comparison of the
brief would exclude, with the reason."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from catalog.models import Quote
from tests.factories import QuoteFactory, RfqFactory, WorkloadBriefFactory

pytestmark = pytest.mark.django_db

NOW_FMT = "%Y-%m-%dT%H:%M"


@pytest.fixture
def brief(lead):
    return WorkloadBriefFactory(created_by=lead, allowed_regions=["eu-west", "eu-central"])


@pytest.fixture
def rfq_two_regions(brief, lead, provider_a, h100):
    rfq = RfqFactory(
        brief=brief,
        providers=[provider_a],
        created_by=lead,
        region="eu-west, eu-central",
        term_months=12,
        gpus_needed=4,
        capacity_models=["reserved", "on_demand"],
    )
    rfq.accelerators.set([h100])
    return rfq


def _post(h100, **overrides):
    data = {
        "accelerator": h100.pk,
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": "2.49",
        "gpus_per_node": "8",
        "quoted_at": (timezone.now() - timedelta(hours=1)).strftime(NOW_FMT),
        "region": "eu-west",
    }
    data.update(overrides)
    return data


def test_u1_the_region_is_one_pick_from_the_rfq_list_never_the_list(
    login, vendor_a, rfq_two_regions
):
    html = login(vendor_a).get(f"/vendor/rfqs/{rfq_two_regions.pk}/quote/").content.decode()
    select = re.search(r'<select name="region".*?</select>', html, re.S)
    assert select, "the region is a choice among the RFQ's regions"
    options = re.findall(r'<option value="([^"]*)"', select.group(0))
    assert options == ["", "eu-west", "eu-central"]
    assert "selected" not in select.group(0).split("</option>", 1)[1]  # nothing pre-picked
    assert "eu-west, eu-central" not in select.group(0)


def test_u1_an_on_demand_answer_does_not_inherit_the_rfq_term_and_minimum(
    login, vendor_a, rfq_two_regions, h100
):
    html = login(vendor_a).get(f"/vendor/rfqs/{rfq_two_regions.pk}/quote/").content.decode()
    for name in ("term_months", "min_commitment_gpus"):
        field = re.search(rf'<input[^>]*name="{name}"[^>]*>', html).group(0)
        assert not re.search(r'value="(12|4)"', field), field
    response = login(vendor_a).post(
        f"/vendor/rfqs/{rfq_two_regions.pk}/quote/", _post(h100, region="eu-central")
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    quote = Quote.objects.get(rfq=rfq_two_regions)
    assert (quote.region, quote.term_months, quote.min_commitment_gpus) == ("eu-central", 0, 0)


def test_u1_a_single_committed_rfq_still_prefills_its_term_and_minimum(
    login, vendor_a, lead, provider_a, h100
):
    rfq = RfqFactory(
        providers=[provider_a],
        created_by=lead,
        region="eu-west",
        term_months=12,
        gpus_needed=4,
        capacity_models=["reserved"],
    )
    html = login(vendor_a).get(f"/vendor/rfqs/{rfq.pk}/quote/").content.decode()
    assert re.search(r'name="term_months"[^>]*value="12"', html)
    assert re.search(r'name="min_commitment_gpus"[^>]*value="4"', html)


@pytest.mark.parametrize(
    ("region", "reason"),
    [
        ("eu-west, eu-central", "one region per answer"),
        ("narnia-1", "not in the region vocabulary"),
        ("us-east", "This RFQ asks for eu-west, eu-central"),
        ("", "one of eu-west, eu-central"),
    ],
)
def test_u1_the_service_refuses_a_region_the_comparison_could_not_place(
    api, vendor_a, rfq_two_regions, quote_data, region, reason
):
    from catalog import services
    from catalog.errors import CatalogInvalid

    with pytest.raises(CatalogInvalid) as caught:
        services.quote_submit(
            acting_user=vendor_a, data={**quote_data, "region": region}, rfq=rfq_two_regions
        )
    assert any(reason in m for m in caught.value.fields["region"]), caught.value.fields
    assert not Quote.objects.filter(rfq=rfq_two_regions).exists()


def test_u1_the_rfq_page_lists_the_answers_a_comparison_would_exclude(
    login, lead, rfq_two_regions, provider_a, vendor_a, h100
):
    provider_a.contact_email = "sales@provider-a.example"
    provider_a.save()
    # Saved before this rule existed: the whole list as one region.
    bad = QuoteFactory(
        provider=provider_a,
        accelerator=h100,
        rfq=rfq_two_regions,
        entered_by=vendor_a,
        region="eu-west, eu-central",
    )
    good = QuoteFactory(
        provider=provider_a,
        accelerator=h100,
        rfq=rfq_two_regions,
        entered_by=vendor_a,
        region="eu-west",
    )
    html = login(lead).get(f"/catalog/rfqs/{rfq_two_regions.pk}/").content.decode()
    section = re.search(r'<section[^>]*id="rfq-excluded".*?</section>', html, re.S).group(0)
    assert "1 answer a comparison would exclude" in section
    assert f'data-quote="{bad.pk}"' in section
    assert f'data-quote="{good.pk}"' not in section
    assert "region eu-west, eu-central is not in the region vocabulary" in section
    assert "mailto:sales@provider-a.example" in section


def test_u1_the_comparison_wizard_names_the_excluded_answer_too(
    login, lead, rfq_two_regions, provider_a, vendor_a, h100
):
    bad = QuoteFactory(
        provider=provider_a,
        accelerator=h100,
        rfq=rfq_two_regions,
        entered_by=vendor_a,
        region="eu-west, eu-central",
    )
    brief = rfq_two_regions.brief
    html = login(lead).get(f"/comparisons/new/?brief={brief.pk}").content.decode()
    notice = re.search(r'<div class="notice warn" id="excluded-answers">.*?</div>', html, re.S)
    assert notice, "the wizard warns about the RFQ answer it would exclude"
    assert "1 answer to this brief's RFQs would be excluded" in notice.group(0)
    assert f'data-quote="{bad.pk}"' in notice.group(0)
    assert f'answer to <a href="/catalog/rfqs/{rfq_two_regions.pk}/">' in notice.group(0)


def test_u1_an_rfq_cannot_ask_for_a_region_no_answer_could_name(login, lead, provider_a):
    from catalog.models import Rfq

    deadline = (timezone.now() + timedelta(days=7)).strftime(NOW_FMT)
    body = {"title": "EU capacity", "deadline": deadline, "providers": [provider_a.pk]}
    response = login(lead).post("/catalog/rfqs/new/", {**body, "region": "eu-west, narnia"})
    assert response.status_code == 400
    assert "Not in the region vocabulary: narnia" in response.content.decode()
    assert not Rfq.objects.exists()
    ok = login(lead).post("/catalog/rfqs/new/", {**body, "region": "eu-west, eu-central"})
    assert ok.status_code == 302
    assert Rfq.objects.get().region_list() == ["eu-west", "eu-central"]
