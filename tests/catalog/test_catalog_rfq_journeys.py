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
    assert re.search(r'<option value="eu-west"[^>]*selected', html)  # U1: a pick, not text
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


def test_v8_the_rfq_gpus_and_accelerators_come_from_the_memory_fit(login, lead, brief):
    """The RFQ opened from a brief ticks the accelerators the brief page shortlists (fitting
    with room to spare, fewest GPUs per replica first) and asks for the GPUs the brief needs
    at peak; its text says the sizing. Llama 3.1 70B in BF16 is 141 GB of weights: one 141 GB
    card cannot hold them with its KV cache, so no accelerator here fits on one GPU."""
    from briefs.selectors import brief_fit_rows
    from briefs.services import brief_volume
    from catalog.models import Accelerator
    from tests.factories import AcceleratorFactory

    AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB", memory_gb=80.0)
    AcceleratorFactory(slug="h200-sxm-141gb", name="H200 SXM 141GB", memory_gb=141.0)
    AcceleratorFactory(slug="l4-24gb", name="L4 24GB", memory_gb=24.0, memory_bandwidth_tbps=0.3)
    AcceleratorFactory(slug="t4-16gb", name="T4 16GB", memory_gb=16.0, max_gpus_per_node=1)
    fit = {row.slug: row for row in brief_fit_rows(brief)}
    fitting = [s for s, row in fit.items() if row.status == "fits"]
    assert fitting
    assert "t4-16gb" not in fitting  # one 16 GB GPU per node holds no 70B model
    assert all(fit[s].result.gpus_required >= 2 for s in fitting)
    html = login(lead).get(f"/catalog/rfqs/new/?brief={brief.pk}").content.decode()
    ticked = set(re.findall(r'name="accelerators" value="(\d+)"[^>]*checked', html))
    # U10: the accelerators need different fleets, so no single "GPUs needed" figure (it came
    # from the most favourable one); the text gives each accelerator's own count instead, for
    # those within 4× the smallest fleet (the others are named, not ticked).
    _, fleets = brief_volume(brief)  # the roofline fleet on each accelerator the brief fits
    peaks = {f.accelerator_name: f.gpus_peak for f in fleets}
    fitting = [s for s in fitting if peaks[fit[s].name] <= 4 * fleets[0].gpus_peak]
    expected = {str(a.pk) for a in Accelerator.objects.filter(slug__in=fitting)}
    assert ticked == expected
    asked_peaks = {peaks[fit[s].name] for s in fitting}
    prefilled = re.search(r'name="gpus_needed" value="(\d+)"', html)
    if len(asked_peaks) == 1:  # one figure only when every asked accelerator needs it
        assert int(prefilled.group(1)) == asked_peaks.pop()
    else:
        assert prefilled is None
    text = rfq_initial(brief)["requirements"]
    best = min(fitting, key=lambda s: fit[s].result.gpus_required)
    assert f"a replica needs {fit[best].result.gpus_required} × {fit[best].name}" in text
    for slug in fitting:
        assert f"{peaks[fit[slug].name]:,} × {fit[slug].name}" in text


def test_v8_a_brief_without_a_model_pre_fills_no_gpus(login, lead):
    brief = WorkloadBriefFactory(created_by=lead, model=None, workload_class="media")
    initial = rfq_initial(brief)
    assert "gpus_needed" not in initial
    assert "accelerators" not in initial
