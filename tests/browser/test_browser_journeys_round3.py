"""Round three's journeys between people, in Chromium, each page checked with axe-core (0
critical, 0 serious) and screenshot into test-artifacts/:

- V4: finance entered the FX rate a comparison converts with; the queue and the decision bar
  say "reject or request changes" from the start, Approve is disabled with the reason;
- V5: after finance2's approval the bar reads "You approved on … · waiting for a platform or
  security reviewer", with no form;
- V6: the lead revises the approved price; the lead's dashboard says the impact is being
  computed (no Acknowledge yet) until the worker's run, then it, the comparison, review and
  record pages carry the % change, the row's new unit cost and rank, and Recompute;
- V15/V16: the review page folds the ineligible rows behind a visible toggle;
- V23: the lead's dashboard has a New brief button.
"""

from __future__ import annotations

import os
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from catalog.models import FxRate
from procurement.models import Comparison, PriceChange
from tests.browser.test_browser_ux import AXE, page_report
from tests.comparisons.factories_comparisons import scenario_quotes
from tests.factories import QuoteFactory, WorkloadBriefFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COMMENT = "Cost lines, evidence and the FX rate checked."


def dual_world(lead: Any, finance: Any) -> Comparison:
    """Three quotes, one in EUR at a rate finance entered, one of them ineligible (us-east
    while the brief allows eu-west only), computed in-process; two approvals needed."""
    from procurement.services.comparisons import comparison_create, comparison_run

    brief = WorkloadBriefFactory(title="Support chat assistant", created_by=lead, e2e_p99_ms=30_000)
    cheap, fast = scenario_quotes(lead)
    FxRate.objects.create(
        currency="EUR",
        rate_to_base=Decimal("1.0850"),
        as_of=timezone.now().date(),
        entered_by=finance,
    )
    euro = QuoteFactory(
        provider=fast.provider,
        accelerator=fast.accelerator,
        currency="EUR",
        price_per_gpu_hour=Decimal("2.7000"),
        title="H100 EUR offer",
        region="us-east",
        entered_by=lead,
    )
    comparison = comparison_create(
        acting_user=lead,
        brief=brief,
        quote_ids=[cheap.pk, fast.pk, euro.pk],
        seed=7,
        title="Support chat: three offers",
        enqueue=False,
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    return comparison


def axe_clean(browser_page: Any, label: str, report: dict[str, Any]) -> None:
    page = browser_page.page
    found = page_report(page, page.viewport_size["width"])
    report[label] = found.get("axe", [])
    browser_page.shot(label, full_page=False)


def test_v4_v5_v6_v15_v16_v23_reviewers_know_what_they_may_do_and_changes_carry_impact(
    browser_page, checklist_items, settings, lead, finance, finance_other, security
):
    if os.environ.get("AXE_REQUIRED") == "1" and not AXE.exists():
        pytest.fail(f"axe-core is missing ({AXE}); run scripts/deps.sh")
    settings.DUAL_APPROVAL_THRESHOLD_USD = 1
    settings.PRICE_CHANGE_TOLERANCE_PCT = 5
    comparison = dual_world(lead, finance)
    assert comparison.status == Comparison.Status.READY
    assert comparison.required_approvals == 2
    review = f"/comparisons/{comparison.pk}/review/"
    page = browser_page.page
    page.set_viewport_size({"width": 1440, "height": 900})
    report: dict[str, Any] = {}

    # V4: finance sees in the queue and the bar, before acting, that it may not approve.
    browser_page.login("finance")
    queue = page.locator("#awaiting-decision")
    expect(queue).to_contain_text("Reject or request changes only")
    expect(queue).to_contain_text("You entered the FX rate")
    axe_clean(browser_page, "1-finance-queue", report)
    with page.expect_navigation():
        queue.locator("a.button >> text=Decide").first.click()
    bar = page.locator(".decision-bar")
    expect(bar.locator("h2")).to_have_text("You may reject or request changes")
    expect(bar.locator("#approve-closed")).to_contain_text("finance2")
    expect(bar.locator("input[value=approve]")).to_be_disabled()
    expect(bar.locator("input[value=reject]")).to_be_enabled()
    # V16: the ineligible row starts folded behind a toggle people can see (V15).
    toggle = page.locator("button[data-toggle-rows=review-ineligible-rows]")
    expect(toggle).to_have_text("Show 1 ineligible")
    expect(page.locator("#review-ineligible-rows")).to_be_hidden()
    axe_clean(browser_page, "2-finance-bar-approve-closed", report)
    toggle.click()
    expect(page.locator("#review-ineligible-rows > tr")).to_have_count(1)
    expect(toggle).to_have_text("Hide 1 ineligible")

    # V5: finance2 approves; the bar then says so, and what it waits for, with no form.
    browser_page.login("finance2")
    browser_page.goto(review)
    expect(page.locator(".decision-bar h2")).to_have_text("Your decision is needed")
    page.check("input[value=approve]")
    page.fill("textarea[name=comment]", COMMENT)
    for box in page.locator("input[name=acknowledge]").all():  # U8: one tick per warning
        box.check()
    with page.expect_navigation():
        page.click(".decision-bar button[type=submit]")
    bar = page.locator(".decision-bar")
    expect(bar.locator("h2")).to_contain_text("You approved on")
    expect(bar).to_contain_text("Waiting for a platform or security reviewer")
    expect(bar.locator("form")).to_have_count(0)
    axe_clean(browser_page, "3-finance2-approved-waiting", report)

    browser_page.login("security")
    browser_page.goto(review)
    page.check("input[value=approve]")
    page.fill("textarea[name=comment]", "Private endpoint and data boundary checked.")
    for box in page.locator("input[name=acknowledge]").all():  # U8: one tick per warning
        box.check()
    with page.expect_navigation():
        page.click(".decision-bar button[type=submit]")
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED

    # V6: the approved row's price rises 50 %; the lead is told with the impact.
    from catalog.services.quotes import quote_revise
    from procurement.services.price_change_delivery import price_change_assess_and_notify

    row = comparison.candidates.get(key=comparison.recommended_key)
    quote_revise(
        acting_user=lead,
        quote=row.quote,
        data={"price_per_gpu_hour": row.quote.price_per_gpu_hour * Decimal("1.5")},
    )
    flag = PriceChange.objects.get(comparison=comparison)
    # The save did not wait for the impact: a worker computes it after the commit.
    browser_page.login("lead")
    expect(page.locator("#new-brief")).to_be_visible()  # V23
    notice = page.locator("#price-changes")
    expect(notice).to_contain_text("Impact being computed — refresh in a moment.")
    expect(notice).to_contain_text("Acknowledge is offered once the impact is known")
    expect(notice.locator("button >> text=Acknowledge")).to_have_count(0)
    browser_page.shot("4-lead-dashboard-impact-pending-notice", element=notice)
    axe_clean(browser_page, "4-lead-dashboard-impact-pending", report)
    price_change_assess_and_notify(flag_id=flag.pk)  # what the worker does with the message
    flag.refresh_from_db()
    pct = flag.impact["pct_change"]
    page.reload()
    notice = page.locator("#price-changes")
    expect(notice).not_to_contain_text("Impact being computed")
    expect(notice).to_contain_text(f"+{pct} %")
    expect(notice).to_contain_text("Re-approval needed")
    expect(notice.locator("button >> text=Recompute")).to_be_visible()
    axe_clean(browser_page, "4-lead-dashboard-price-change", report)
    for label, path in (
        ("5-comparison", f"/comparisons/{comparison.pk}/"),
        ("6-review", review),
        ("7-record", f"/comparisons/{comparison.pk}/record/"),
    ):
        browser_page.goto(path)
        notice = page.locator("#price-changes")
        expect(notice).to_contain_text(f"+{pct} %")
        expect(notice).to_contain_text("unit cost")
        notice.scroll_into_view_if_needed()
        browser_page.shot(f"{label}-notice", element=notice)
        axe_clean(browser_page, label, report)
    with page.expect_navigation():
        page.locator("#price-changes button >> text=Recompute").click()
    assert Comparison.objects.filter(supersedes=comparison).exists()

    serious = {label: found for label, found in report.items() if found}
    assert not serious, f"axe critical/serious violations: {serious}"
    browser_page.assert_no_console_errors()
