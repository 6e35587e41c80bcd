"""Round three's vendor and reviewer journeys in Chromium, each page axe-checked (0 critical,
0 serious) and screenshot into test-artifacts/:

- V8/V14: the lead's RFQ page tracks each invited vendor; the vendor opens the RFQ (seen on the
  lead's page) and the quote form comes pre-filled with the private endpoint the brief needs;
- V9: the vendor answers the checklist and reads that its part is done, waiting for reviewers;
- V10: the engineer finds the quote under "Awaiting my review" and accepts the hardware
  section at once.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from playwright.sync_api import expect

from checklist.models import ChecklistAnswer
from tests.browser.test_browser_ux import AXE, page_report
from tests.factories import QuoteFactory, RfqFactory, WorkloadBriefFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def check(browser_page: Any, label: str, report: dict[str, Any]) -> None:
    page = browser_page.page
    report[label] = page_report(page, page.viewport_size["width"]).get("axe", [])
    browser_page.shot(label, full_page=False)


def test_v8_v9_v10_v14_vendors_answer_and_reviewers_accept_by_section(
    browser_page, checklist_items, lead, vendor_a, provider_a, provider_b, engineer
):
    if os.environ.get("AXE_REQUIRED") == "1" and not AXE.exists():
        pytest.fail(f"axe-core is missing ({AXE}); run scripts/deps.sh")
    brief = WorkloadBriefFactory(
        title="EU chat",
        created_by=lead,
        allowed_regions=["eu-west"],
        private_endpoint_required=True,
    )
    rfq = RfqFactory(
        title="EU chat capacity",
        brief=brief,
        providers=[provider_a, provider_b],
        created_by=lead,
        region="eu-west",
    )
    page = browser_page.page
    page.set_viewport_size({"width": 1440, "height": 900})
    report: dict[str, Any] = {}

    # V14: nobody has seen the RFQ yet.
    browser_page.login("lead")
    browser_page.goto(f"/catalog/rfqs/{rfq.pk}/")
    vendors = page.locator("#rfq-vendors")
    expect(vendors.locator(f"tr[data-provider={provider_a.slug}]")).to_contain_text("not yet")
    expect(page.locator("#rfq-countdown")).to_contain_text("left")
    check(browser_page, "1-rfq-invited", report)

    # V8: the vendor opens the RFQ; the quote form states the private endpoint already.
    browser_page.login("vendor_a")
    browser_page.goto(f"/vendor/rfqs/{rfq.pk}/quote/")
    expect(page.locator("select[name=private_endpoint]")).to_have_value("yes")
    expect(page.locator("select[name=region]")).to_have_value("eu-west")  # U1: a pick
    check(browser_page, "2-vendor-quote-form", report)
    quote = QuoteFactory(
        provider=provider_a,
        rfq=rfq,
        entered_by=vendor_a,
        capacity_model="on_demand",
        private_endpoint="yes",
    )

    # V9: the vendor answers the basic items with evidence and reads that its part is done.
    browser_page.goto(f"/checklist/quotes/{quote.pk}/answer/")
    expect(page.locator("#vendor-status")).to_contain_text("still need")
    for item in checklist_items:
        ChecklistAnswer.objects.create(
            provider=provider_a,
            quote=quote,
            item=item,
            answer="Documented.",
            status="yes",
            evidence_url="https://example.com/doc",
            answered_by=vendor_a,
        )
    browser_page.goto(f"/checklist/quotes/{quote.pk}/answer/")
    status = page.locator("#vendor-status")
    expect(status).to_contain_text("Your answers are complete")
    expect(status).to_contain_text("waiting for the buyer's reviewers (20 answers to accept)")
    check(browser_page, "3-vendor-checklist-done", report)

    # V14: the lead now sees the vendor viewed and answered, and may compare the answers.
    browser_page.login("lead")
    browser_page.goto(f"/catalog/rfqs/{rfq.pk}/")
    row = page.locator(f"#rfq-vendors tr[data-provider={provider_a.slug}]")
    expect(row).to_contain_text("viewed")
    expect(row).to_contain_text("answered")
    expect(row).to_contain_text("version 1")
    expect(page.locator("#compare-answers")).to_be_visible()
    check(browser_page, "4-rfq-answered", report)

    # V10: the engineer's queue, then Accept all in the hardware section.
    browser_page.login("engineer")
    browser_page.goto("/checklist/")
    queue = page.locator("#my-review-queue")
    expect(queue).to_contain_text("await your review")
    check(browser_page, "5-engineer-queue", report)
    with page.expect_navigation():
        page.click("#filter-mine")
    expect(page.locator(f"#quote-{quote.pk}")).to_be_visible()
    with page.expect_navigation():
        page.locator(f"#quote-{quote.pk} a.button").click()
    section = page.locator("#section-hardware")
    expect(section).to_contain_text("reviewed by platform engineers")
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation():
        section.locator("button >> text=Accept all in this section").click()
    expect(page.locator(".messages")).to_contain_text("each recorded in the audit trail")
    expect(page.locator("#section-hardware button >> text=Accept all")).to_have_count(0)
    check(browser_page, "6-section-accepted", report)
    pending = ChecklistAnswer.objects.filter(quote=quote, item__section="hardware")
    assert set(pending.values_list("review_status", flat=True)) == {"accepted"}

    serious = {label: found for label, found in report.items() if found}
    assert not serious, f"axe critical/serious violations: {serious}"
    browser_page.assert_no_console_errors()
