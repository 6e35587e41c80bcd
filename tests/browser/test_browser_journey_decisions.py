"""Issue 40's journeys in Chromium, from the vendor to FinOps, once for a single row and once for
a plan across offers: the vendor reads its offer in the portal, the lead reads the comparison,
two approvers decide from the decision line and bar (ticking the named warnings, U8), and
finance takes the decision into FinOps: the FOCUS commitments, a month's bill, the accepted
outputs and the month reconciled (U18, P9 for the plan, per vendor). Every page is checked with
axe-core (0 critical, 0 serious) and screenshot into test-artifacts/.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from playwright.sync_api import expect

from core.roles import Role
from finops.models import BillingImport
from finops.tasks import billing_import_run_task
from procurement.models import Comparison
from tests.browser.test_browser_ux import AXE, page_report
from tests.browser.worlds_browser import decision_world
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HEADER = (
    "BillingAccountId,BillingCurrency,BillingPeriodStart,ChargePeriodStart,EffectiveCost,"
    "ServiceProviderName,SkuId,ConsumedQuantity,ConsumedUnit\n"
)


def _bill(rows: list[tuple[str, str, str]]) -> bytes:
    """This month's bill: (provider, cost, GPU-hours) rows charged on its second day."""
    month = datetime.now(UTC).strftime("%Y-%m")
    return (
        HEADER
        + "".join(
            f"acct-1,USD,{month}-01T00:00:00Z,{month}-02T00:00:00Z,{cost},{provider},sku-1,"
            f"{hours},GPU-Hours\n"
            for provider, cost, hours in rows
        )
    ).encode()


# Waits, frame by frame (at most 2 s at 60 Hz), until the page fits the width: the charts
# redraw on the resize event a moment after the viewport changes.
SETTLED = """async (width) => {
    for (let frame = 0; frame < 120; frame++) {
        if (document.documentElement.scrollWidth <= width) return true;
        await new Promise((done) => requestAnimationFrame(done));
    }
    return false;
}"""


def check(browser_page: Any, label: str, *, full: bool = False) -> None:
    """axe at the page's width (0 critical, 0 serious), no sideways scroll, a screenshot (the
    first screen, or the whole page)."""
    page = browser_page.page
    width = page.viewport_size["width"]
    report = page_report(page, width)
    assert not report.get("axe"), (label, report)
    assert report["scroll_width"] <= width, (label, report)
    browser_page.shot(label, full_page=full)


def _approve(browser_page: Any, comparison: Comparison, user: str, *, plan: bool) -> None:
    browser_page.login(user)
    browser_page.goto(f"/comparisons/{comparison.pk}/review/")
    page = browser_page.page
    bar = page.locator("section.decision-bar")
    page.check("input[name=decision][value=approve]")
    if plan:
        bar.locator("select[name=candidate]").select_option("plan")
        if user == "finance":  # the first approver: the line said the recommended row
            # the line says the plan's vendors and parts as soon as it is chosen (U18)
            chosen = page.locator('#decision-line [data-summary-for="plan"]')
            expect(chosen).to_be_visible()
            expect(chosen).to_contain_text(" + ")
            expect(page.locator("#decision-summary")).to_be_hidden()
        # asked up front, not after a refusal (U18)
        expect(bar.locator("details.decision-justification")).to_have_attribute("open", "")
        page.fill("textarea[name=justification]", "Two vendors serve the long prompts.")
    page.fill("textarea[name=comment]", f"{user}: cost lines, evidence and parts checked.")
    for box in page.locator("input[name=acknowledge]").all():  # U8: the ticks shown
        box.check()
    with page.expect_navigation():
        bar.locator("button[type=submit]").click()
    if not page.locator(".messages").count():
        # Refused: the plan's own warnings are asked now, each named (U8).
        ticks = page.locator("input[name=acknowledge]")
        assert ticks.count(), page.locator("section.decision-bar").inner_text()
        for box in ticks.all():
            box.check()
        with page.expect_navigation():
            bar.locator("button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text("recorded")


def _finops(browser_page: Any, comparison: Comparison, bill: bytes, providers: str) -> None:
    """Finance in FinOps: the commitment, a bill imported (read here, as the imports worker
    would), the month's accepted outputs, and the reconciled month."""
    page = browser_page.page
    browser_page.goto("/finops/")
    expect(page.locator("#finops-decisions")).to_contain_text(comparison.title)
    check(browser_page, "6-finops-list")
    browser_page.goto(f"/finops/decisions/{comparison.pk}/")
    expect(page.locator("#not-approved")).to_have_count(0)
    with page.expect_download() as download:
        page.locator("#commitment a", has_text="CSV").first.click()
    assert download.value.suggested_filename.startswith("focus-")
    form = page.locator("#import-bill form")
    form.locator("input[name=month]").fill(datetime.now(UTC).strftime("%Y-%m"))
    if providers:
        form.locator("input[name=provider_names]").fill(providers)
    form.locator("input[type=file]").set_input_files(
        {"name": "bill.csv", "mimeType": "text/csv", "buffer": bill}
    )
    with page.expect_navigation():
        form.locator("button[type=submit]").click()
    job = BillingImport.objects.get(comparison=comparison)
    billing_import_run_task(job.pk)
    job.refresh_from_db()
    assert job.status == BillingImport.Status.DONE, job.error
    count = page.locator("#count-outputs form").first
    count.locator("input[name=month]").fill(datetime.now(UTC).strftime("%Y-%m"))
    accepted = comparison.candidates.exclude(accepted_outputs=None).first().accepted_outputs
    count.locator("input[name=accepted_outputs]").fill(str(int(accepted)))
    count.locator("input[name=acceptance_share]").fill("0.9")
    with page.expect_navigation():
        count.locator("button[type=submit]").click()
    expect(page.locator("#reconciliation-table")).to_be_visible()


def test_a_single_row_from_the_vendor_to_finops(
    browser_page, checklist_items, private_storage, lead, finance, engineer, settings
):
    if os.environ.get("AXE_REQUIRED") == "1" and not AXE.exists():
        pytest.fail(f"axe-core is missing ({AXE}); run scripts/deps.sh")
    settings.DUAL_APPROVAL_THRESHOLD_USD = 1000  # two approvers decide
    world = decision_world(lead=lead)
    comparison = world.comparison
    assert comparison.required_approvals == 2
    best = comparison.candidates.get(key=comparison.recommended_key)
    UserFactory(username="vendor-best", role=Role.VENDOR, provider=best.quote.provider)
    page = browser_page.page
    page.set_viewport_size({"width": 1440, "height": 900})

    browser_page.login("vendor-best")
    browser_page.goto(f"/vendor/quotes/{best.quote.pk}/")
    expect(page.locator("main")).to_contain_text(best.quote.title)
    check(browser_page, "1-vendor-portal")

    browser_page.login("lead")
    browser_page.goto(f"/comparisons/{comparison.pk}/")
    check(browser_page, "2-lead-comparison")

    browser_page.login("finance")
    browser_page.goto(f"/comparisons/{comparison.pk}/review/")
    line = page.locator("#decision-line")
    expect(line).to_contain_text(best.provider_name)
    expect(line).to_contain_text("/ month (vendor)")
    expect(line).to_contain_text("p10–p90")
    check(browser_page, "3-finance-review")
    # Another candidate: its justification is asked at once, and the ticks shown for the
    # recommended row are put away (they never count for another row, U8).
    runner = comparison.candidates.filter(eligible=True).exclude(key=best.key).get()
    bar = page.locator("section.decision-bar")
    ticks = page.locator("#acknowledge")
    expect(ticks).to_be_visible()
    bar.locator("select[name=candidate]").select_option(runner.key)
    expect(ticks).to_be_hidden()
    expect(bar.locator("details.decision-justification")).to_have_attribute("open", "")
    expect(bar.locator("[data-acknowledge-later]")).to_be_visible()
    bar.locator("select[name=candidate]").select_option(best.key)
    expect(ticks).to_be_visible()
    _approve(browser_page, comparison, "finance", plan=False)
    _approve(browser_page, comparison, "engineer", plan=False)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    expect(page.locator("#decision-line")).not_to_have_class("decision-line sticky")
    check(browser_page, "4-approved-review")

    browser_page.login("finance")
    _finops(browser_page, comparison, _bill([(best.provider_name, "5000.00", "2000")]), "")
    expect(page.locator("#commitment-lines tbody tr")).to_have_count(1)
    check(browser_page, "7-finops-reconciled", full=True)
    browser_page.assert_no_console_errors()


def test_a_plan_across_offers_from_the_vendors_to_finops_per_vendor(
    browser_page, checklist_items, private_storage, lead, finance, engineer, settings
):
    from tests.comparisons.plan_world import computed, contoso_on_demand, fabrikam, plan_brief

    if os.environ.get("AXE_REQUIRED") == "1" and not AXE.exists():
        pytest.fail(f"axe-core is missing ({AXE}); run scripts/deps.sh")
    settings.DUAL_APPROVAL_THRESHOLD_USD = 1000  # the plan's total needs two approvers
    cheap, dear = fabrikam(lead), contoso_on_demand(lead, evidenced=True)
    comparison, _ = computed(lead, plan_brief(lead, horizon_months=1), [cheap, dear])
    UserFactory(username="vendor-fab", role=Role.VENDOR, provider=cheap.provider)
    page = browser_page.page
    page.set_viewport_size({"width": 1440, "height": 900})

    browser_page.login("vendor-fab")
    browser_page.goto(f"/vendor/quotes/{cheap.pk}/")
    expect(page.locator("main")).to_contain_text(cheap.title)
    check(browser_page, "1-vendor-portal")

    browser_page.login("lead")
    browser_page.goto(f"/comparisons/{comparison.pk}/")
    check(browser_page, "2-lead-comparison")

    _approve(browser_page, comparison, "finance", plan=True)
    check(browser_page, "3-finance-approved-plan-1-of-2")
    _approve(browser_page, comparison, "engineer", plan=True)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    line = page.locator("#decision-line")
    expect(line).to_contain_text("Fabrikam + Contoso")
    expect(page.locator("#why-h")).to_contain_text("was the recommended row")
    expect(page.locator("#plan-chosen")).to_contain_text("Approved instead")
    expect(line).not_to_contain_text("0 replicas")
    expect(page.locator("#decision-plan")).not_to_contain_text("0 replicas")
    check(browser_page, "4-plan-approved")

    browser_page.login("finance")
    # each vendor bills its part's month, Contoso 5 % over it
    parts = {v["label"].split(":")[0]: v for v in comparison.result["plan"]["vendors"]}
    bill = _bill(
        [
            ("Fabrikam", parts["Fabrikam"]["monthly_cost"], "11680"),
            ("Contoso", str(Decimal(parts["Contoso"]["monthly_cost"]) * Decimal("1.05")), "3000"),
        ]
    )
    _finops(browser_page, comparison, bill, "Fabrikam, Contoso")
    expect(page.locator("#plan-lines")).to_be_visible()
    expect(page.locator("#commitment-lines tbody tr")).to_have_count(2)
    vendors = page.locator("#vendor-months tr.vendor-month")
    expect(vendors).to_have_count(2)
    expect(vendors.first).to_contain_text("Fabrikam")
    check(browser_page, "7-finops-plan-reconciled-per-vendor", full=True)
    page.set_viewport_size({"width": 1024, "height": 800})
    # the chart redraws at the new width on the resize event, a moment later
    assert page.evaluate(SETTLED, 1024)
    check(browser_page, "8-finops-plan-1024", full=True)
    browser_page.assert_no_console_errors()
