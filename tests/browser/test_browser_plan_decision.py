"""Issue 26 in the browser: finance sees what approving the cheapest plan across offers
commits (each vendor's part, total, term, approvals, checklist level) before approving it,
approves it from the decision bar, a platform engineer gives the second approval, and the
decision bar and the record then show each vendor's part of the approved plan.

The world: tests/comparisons/plan_world.py (Fabrikam 2 nodes on a 12-month term, Contoso 13
on a 1-month term, a 6-month horizon; the plan commits 280,320.00 + (227,760.00 + 11.50 of
storage) × 6 = 1,646,949.00 against a 1,600,000.00 threshold, each part below it)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from procurement.models import Comparison
from tests.browser.test_browser_ux import page_report
from tests.comparisons.plan_world import computed, contoso_reserved, fabrikam, plan_brief

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _approve_plan(browser_page, comparison, username: str, comment: str) -> None:
    browser_page.login(username)
    browser_page.goto(f"/comparisons/{comparison.pk}/review/")
    page = browser_page.page
    bar = page.locator("section.decision-bar")
    page.check("input[name=decision][value=approve]")
    bar.locator("select[name=candidate]").select_option("plan")
    page.fill("textarea[name=comment]", comment)
    for box in page.locator("input[name=acknowledge]").all():  # U8: one tick per warning
        box.check()
    # choosing the plan opens the justification at once (U18)
    expect(bar.locator("details.decision-justification")).to_have_attribute("open", "")
    page.fill("textarea[name=justification]", "Two vendors cost 11,680.00 less a month.")
    with page.expect_navigation():
        bar.locator("button[type=submit]").click()


def test_finance_sees_and_approves_the_plan_and_the_record_shows_each_vendors_part(
    browser_page, checklist_items, lead, finance, engineer, settings
):
    settings.DUAL_APPROVAL_THRESHOLD_USD = 1_600_000
    cheap, dear = fabrikam(lead), contoso_reserved(lead, term_months=1)
    comparison, rows = computed(lead, plan_brief(lead, horizon_months=6), [cheap, dear])
    page = browser_page.page

    browser_page.login(finance.username)
    browser_page.goto(f"/comparisons/{comparison.pk}/review/")
    bar = page.locator("section.decision-bar")
    expect(bar.locator("#decision-plan")).to_contain_text(
        "Or the cheapest plan across offers: 2 vendor offers · commitment USD 1,646,949.00 · "
        "2 approvals · full checklist"
    )
    panel = page.locator("#plan-decision")
    expect(panel).to_contain_text("Approving this plan")
    for row in (rows[cheap.pk], rows[dear.pk]):
        expect(panel.locator("tr", has_text=row.label)).to_contain_text(
            row.detail["configuration"]["words"]
        )
    expect(panel.locator("tr", has_text=rows[cheap.pk].label)).to_contain_text("12-month term")
    expect(panel.locator("tr", has_text=rows[dear.pk].label)).to_contain_text("1,366,629.00")
    expect(panel.locator("#plan-approvals")).to_contain_text("though each part is below it")
    panel.scroll_into_view_if_needed()
    browser_page.shot("plan-before-approval", element=page.locator("section.mixed-plan"))
    browser_page.shot("plan-decision-bar", element=bar)
    report = page_report(page, 1440)
    assert report["scroll_width"] <= 1440, report
    assert not report.get("axe"), report

    _approve_plan(browser_page, comparison, finance.username, "Checked both vendors' parts.")
    expect(page.locator(".messages")).to_contain_text("Approval recorded: 1 of 2 approvals")
    expect(page.locator("#dual-row")).to_contain_text("The cheapest plan across offers")

    _approve_plan(browser_page, comparison, engineer.username, "Both configurations measured.")
    expect(page.locator("#comparison-status")).to_have_text("Approved")
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    bar = page.locator("section.decision-bar")
    expect(bar.locator("#decision-plan")).to_contain_text(
        "Approved: the cheapest plan across offers · commitment USD 1,646,949.00"
    )
    expect(bar.locator("#decision-plan")).to_contain_text(rows[dear.pk].label)
    browser_page.shot("plan-approved-decision-bar", element=bar)

    browser_page.goto(f"/comparisons/{comparison.pk}/record/")
    approved = page.locator("#plan-decision")
    expect(approved).to_contain_text("Approved: the cheapest plan across offers")
    expect(approved.locator("tfoot")).to_contain_text("1,646,949.00")
    approved.scroll_into_view_if_needed()
    browser_page.shot("plan-record", element=approved)
    page.set_viewport_size({"width": 1024, "height": 900})
    report = page_report(page, 1024)
    assert report["scroll_width"] <= 1024, report
    browser_page.assert_no_console_errors()
