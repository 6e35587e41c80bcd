"""U10: the RFQ opened from a brief asks for every accelerator the brief fits, each with the
GPUs the brief needs on it at peak, not one "GPUs needed" figure from the most favourable."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from briefs.selectors import brief_fit_rows
from briefs.services import brief_volume
from catalog.models import Accelerator
from catalog.views.rfqs import rfq_initial
from tests.factories import WorkloadBriefFactory

pytestmark = pytest.mark.django_db


def test_u10_every_fitting_accelerator_is_asked_for_with_its_own_count(catalog, login, lead):
    brief = WorkloadBriefFactory(
        created_by=lead,
        monthly_accepted_outputs_likely=Decimal("20000000"),
        acceptance_rate_likely=1.0,
        mean_output_tokens=300,
        peak_to_average=2.0,
    )
    fitting = {row.slug: row for row in brief_fit_rows(brief) if row.status == "fits"}
    _, fleets = brief_volume(brief)
    smallest = fleets[0].gpus_peak
    considered = {f.accelerator_name for f in fleets if f.gpus_peak <= 4 * smallest}
    html = login(lead).get(f"/catalog/rfqs/new/?brief={brief.pk}").content.decode()
    ticked = set(re.findall(r'name="accelerators" value="(\d+)"[^>]*checked', html))
    asked = {s for s, row in fitting.items() if row.name in considered}
    assert "h100-sxm-80gb" in asked  # 24 GPUs at peak against 10 on a B200: asked too
    assert "t4-16gb" not in asked  # 288 T4s: named in the text, not ticked
    assert ticked == {str(a.pk) for a in Accelerator.objects.filter(slug__in=asked)}
    assert len(ticked) > 6  # no longer cut at the brief page's shortlist of six
    assert not re.search(r'name="gpus_needed" value="\d', html)
    text = rfq_initial(brief)["requirements"]
    # 20,000,000 answers ÷ (730 h × 3,600 s) = 7.61 requests/s, × 2.0 peak = 15.22,
    # × 300 output tokens = 4,566 output tokens/s at peak.
    assert "≈ 4,566 output tokens/s at peak" in text
    asked_text = text.split("output tokens/s at peak): ")[1].split(";")[0]
    counts = {
        name: int(gpus.replace(",", ""))
        for gpus, name in re.findall(r"([\d,]+) × ([^,]+)", asked_text)
    }
    assert counts[fitting["h100-sxm-80gb"].name] == 24  # 6 replicas × 4 GPUs (roofline)
    assert len(set(counts.values())) > 1  # the accelerators need different fleets
    assert "also fits with a fleet over 4× larger:" in text
    assert "T4 16GB" in text.split("also fits with a fleet over 4× larger:")[1]


def test_u10_an_rfq_without_one_count_says_where_the_counts_are(login, lead, vendor_a, provider_a):
    from tests.factories import RfqFactory

    brief = WorkloadBriefFactory(created_by=lead)
    rfq = RfqFactory(brief=brief, created_by=lead, providers=[provider_a], gpus_needed=None)
    for user, path in ((vendor_a, f"/vendor/rfqs/{rfq.pk}/"), (lead, f"/catalog/rfqs/{rfq.pk}/")):
        html = login(user).get(path).content.decode()
        assert "<dt>GPUs needed</dt><dd>per accelerator, in the requirements</dd>" in html
