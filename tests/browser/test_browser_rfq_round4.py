"""The RFQ seams of round 4 in Chromium: the vendor picks one of the RFQ's regions (U1), the
lead sees the answers a comparison would exclude and the decision that closed the RFQ (U1,
U19), and the brief form warns about a volume while typing (U11)."""

from __future__ import annotations

import pytest
from django.core import mail
from playwright.sync_api import expect

from catalog.models import ModelProfile, Quote
from catalog.services.seed_data import catalog_load
from core.roles import Role
from procurement.selectors.reviews.acknowledge import CODES as TICKS
from procurement.services.reviews import review_submit
from tests.factories import QuoteFactory, RfqFactory, UserFactory, WorkloadBriefFactory
from tests.reviews.factories_reviews import ready_comparison

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_u1_u19_vendor_picks_a_region_and_the_lead_sees_exclusions_and_the_decision(
    browser_page, lead, finance, provider_a, vendor_a
):
    page = browser_page.page
    page.set_viewport_size({"width": 1440, "height": 900})
    comparison = ready_comparison(created_by=lead)
    answer = Quote.objects.get(comparisons=comparison, title="H100 on-demand")
    brief = WorkloadBriefFactory(created_by=lead, allowed_regions=["eu-west", "eu-central"])
    rfq = RfqFactory(
        title="Support chat capacity",
        brief=brief,
        created_by=lead,
        providers=[provider_a, answer.provider],
        region="eu-west, eu-central",
        capacity_models=["on_demand", "reserved"],
        term_months=12,
        gpus_needed=4,
    )
    rfq.accelerators.set([answer.accelerator])
    Quote.objects.filter(pk=answer.pk).update(rfq=rfq, region="eu-west")
    UserFactory(username="vendor-nw", role=Role.VENDOR, provider=answer.provider)
    provider_a.contact_email = "sales@provider-a.example"
    provider_a.save()
    QuoteFactory(
        provider=provider_a,
        accelerator=answer.accelerator,
        rfq=rfq,
        entered_by=vendor_a,
        region="eu-west, eu-central",  # saved before the rule
    )

    browser_page.login("vendor_a")
    browser_page.goto(f"/vendor/rfqs/{rfq.pk}/quote/")
    region = page.locator("select[name=region]")
    expect(region).to_have_value("")
    expect(region.locator("option")).to_have_text(
        ["choose one of the RFQ's regions", "eu-west", "eu-central"]
    )
    expect(page.locator("input[name=term_months]")).to_have_value("0")  # not the RFQ's 12
    browser_page.shot("1-vendor-region-select", element=region.locator("xpath=ancestor::fieldset"))

    browser_page.login("lead")
    browser_page.goto(f"/catalog/rfqs/{rfq.pk}/")
    excluded = page.locator("#rfq-excluded")
    expect(excluded).to_contain_text("1 answer a comparison would exclude")
    expect(excluded).to_contain_text("not in the region vocabulary")
    ask = excluded.locator("a", has_text="Ask the vendor").get_attribute("href")
    assert ask.startswith("mailto:sales@provider-a.example?subject=Support%20chat%20capacity")
    assert "body=outside%20the%20brief%27s%20regions" in ask  # quoted once, not HTML-escaped
    browser_page.shot("2-rfq-excluded", full_page=False)
    browser_page.goto(f"/comparisons/new/?brief={brief.pk}")
    wizard = page.locator("#excluded-answers")
    expect(wizard).to_contain_text("1 answer to this brief's RFQs would be excluded")
    expect(wizard).to_contain_text("answer to Support chat capacity")
    browser_page.shot("2b-wizard-excluded", element=wizard)

    review_submit(
        acting_user=finance,
        comparison=comparison,
        decision="approve",
        comment="Go.",
        acknowledged=TICKS,
    )
    browser_page.goto(f"/catalog/rfqs/{rfq.pk}/")
    expect(page.locator("#rfq-decisions")).to_contain_text(f"Closed by {comparison.title}")
    expect(page.locator("h1 .badge")).to_have_text("closed")
    browser_page.shot("3-rfq-closed-by-decision", full_page=False)
    subjects = sorted(m.subject for m in mail.outbox)
    assert "Not selected: your answer to Support chat capacity" in subjects
    assert "Selected: your answer to Support chat capacity" in subjects
    browser_page.assert_no_console_errors()


def test_u11_the_brief_form_warns_about_the_volume_while_typing(browser_page, lead):
    catalog_load()
    page = browser_page.page
    page.set_viewport_size({"width": 1440, "height": 900})
    browser_page.login("lead")
    browser_page.goto("/briefs/new/")
    page.select_option("#id_workload_class", "realtime_inference")
    model = ModelProfile.objects.get(slug="llama-3-1-70b")
    page.select_option("#id_model", str(model.pk))
    for name, value in {
        "p95_input_tokens": "3000",
        "p95_output_tokens": "500",
        "mean_output_tokens": "250",
        "concurrency": "32",
        "peak_to_average": "2",
        "monthly_accepted_outputs_likely": "2000000",
    }.items():
        page.fill(f"#id_{name}", value)
    live = page.locator("#volume-live")
    expect(live).to_contain_text("2,000,000 answers")
    expect(live).to_contain_text("likely about")
    expect(page.locator("#volume-warning")).to_have_count(0)
    page.fill("#id_monthly_accepted_outputs_likely", "400000000")
    expect(page.locator("#volume-warning")).to_contain_text("Check the unit")
    expect(page.locator("#id_confirm_volume_live")).to_be_visible()
    browser_page.shot("4-brief-volume-warning", element=live)
    browser_page.assert_no_console_errors()
