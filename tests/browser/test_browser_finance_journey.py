"""Journey 3 (PRODUCT.md): a comparison of 200+ candidates computed by a REAL Celery worker
(subprocess, Redis); the lead watches it progress in the browser and sees the table and the
charts; finance approves the recommended row with a comment; the creator sees the decision;
the admin finds the approval in the audit trail.

The worker is started only once the page shows the comparison waiting in the queue, so the
progress state is seen for sure; it then polls (htmx) and reloads itself with the results.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from playwright.sync_api import expect

from core.models import AuditEvent
from procurement.models import CandidateResult, Comparison, Review
from tests.comparisons.factories_comparisons import many_quotes, scenario_quotes
from tests.factories import WorkloadBriefFactory
from tests.support import worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BULK_CANDIDATES = 200
COMMENT = "Cost lines, uncertainty, warnings and checklist evidence checked."


@pytest.fixture
def redis_queue():
    import redis

    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()  # our own Redis db only


def test_comparison_computed_by_worker_then_approved_by_finance(
    browser_page,
    checklist_items,
    redis_queue,
    monkeypatch,
    tmp_path,
    lead,
    finance,
    admin_member,
):
    brief = WorkloadBriefFactory(title="Support chat assistant", created_by=lead, e2e_p99_ms=30_000)
    scenario_quotes(lead)  # a cheap-per-hour L40S and an H100 of two more providers
    many_quotes(BULK_CANDIDATES, lead, providers=4)
    # One finance approval decides, whatever the commitment (dual approval has its own tests).
    monkeypatch.setenv("DUAL_APPROVAL_THRESHOLD_USD", str(10**12))
    page = browser_page.page

    # The lead picks the brief; past the 200 the page lists to tick, every current quote is
    # compared by the filters, and the worker freezes them (L8, L9).
    browser_page.login("lead")
    page.click("nav.mainnav >> text=Comparisons")
    with page.expect_navigation():
        page.click("a >> text=New comparison")
    page.select_option("#brief-choice", str(brief.pk))
    with page.expect_navigation():
        page.click("button >> text=Choose candidates")
    expect(page.locator("#by-filter")).to_contain_text(
        f"{BULK_CANDIDATES + 2} candidates are compared by these filters"
    )
    expect(page.locator("input[name=quotes]")).to_have_count(0)
    page.fill("#id_title", "Support chat: 202 offers")
    page.fill("#id_seed", "2024")
    browser_page.shot("1-new-comparison", full_page=False)
    with page.expect_navigation():
        page.click("button >> text=Queue the comparison")

    # Queued: the progress bar shows, and keeps polling while no worker runs.
    comparison = Comparison.objects.get()
    assert comparison.status == Comparison.Status.QUEUED
    expect(page.locator(".messages")).to_contain_text("Comparison queued")
    expect(page.locator("#status progress")).to_be_visible()
    expect(page.locator("#status")).to_contain_text("Queued")
    expect(page.locator("#results")).to_have_count(0)
    browser_page.shot("2-queued")

    log = tmp_path / "worker.log"
    proc = worker.start_worker(log)
    try:

        def finished() -> bool:
            status = Comparison.objects.values_list("status", flat=True).get(pk=comparison.pk)
            assert status != Comparison.Status.FAILED, log.read_text()[-3000:]
            return status == Comparison.Status.READY

        assert worker.wait_until(finished, 240), log.read_text()[-3000:]
    finally:
        worker.stop_worker(proc)

    # The page reloads by itself (htmx: 286 + HX-Refresh) with the table and the charts.
    # R11: candidates are paged, eligible first: a full first page, and the count of them all.
    rows = page.locator("#results tbody tr")
    expect(rows).to_have_count(50, timeout=60_000)
    expect(page.locator(".card.stat").filter(has_text="Eligible")).to_contain_text(
        f"/ {BULK_CANDIDATES + 2}"
    )
    expect(page.locator("#status")).to_contain_text("Computed")
    recommended = page.locator("#results tr.recommended")
    expect(recommended).to_have_count(1)
    charts = page.locator(".charts .chart[data-plotly]")
    assert charts.count() >= 2
    for i in range(charts.count()):
        expect(charts.nth(i).locator("svg.main-svg").first).to_be_visible()
    browser_page.shot("3-results-top", full_page=False)  # 202 rows: a long page
    browser_page.shot("3-results-charts", element=page.locator(".charts"))
    comparison.refresh_from_db()
    assert CandidateResult.objects.filter(comparison=comparison).count() == BULK_CANDIDATES + 2
    assert comparison.required_approvals == 1
    best = CandidateResult.objects.get(comparison=comparison, key=comparison.recommended_key)

    # Finance opens the review page: why the recommended row wins, then approves it.
    browser_page.login("finance")
    browser_page.goto(f"/comparisons/{comparison.pk}/review/")
    expect(page.locator("#why-h")).to_contain_text(f"Why {best.label} is recommended")
    expect(page.locator(".lines-table")).to_be_visible()
    page.check("input[name=decision][value=approve]")
    expect(page.locator("#id_candidate")).to_have_value(best.key)
    page.fill("textarea[name=comment]", COMMENT)
    for box in page.locator("input[name=acknowledge]").all():  # U8: one tick per warning
        box.check()
    browser_page.shot("4-review", full_page=False)
    with page.expect_navigation():
        page.click("form.review-form button[type=submit]")
    expect(page.locator(".messages")).to_contain_text("Decision recorded")
    expect(page.locator("#comparison-status")).to_have_text("Approved")
    browser_page.shot("5-approved", full_page=False)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    review = Review.objects.get(comparison=comparison)
    assert (review.reviewer, review.comment) == (finance, COMMENT)

    # The creator sees the decision, with the comment, and can no longer review.
    browser_page.login("lead")
    browser_page.goto(f"/comparisons/{comparison.pk}/")
    expect(page.locator("#status")).to_contain_text("Approved")
    browser_page.goto(f"/comparisons/{comparison.pk}/review/")
    expect(page.locator("#comparison-status")).to_have_text("Approved")
    expect(page.locator(".review-list")).to_contain_text(COMMENT)
    expect(page.locator("form.review-form")).to_have_count(0)
    browser_page.shot("6-creator-sees-decision", full_page=False)

    # The admin finds the approval in the audit trail.
    browser_page.login("admin")
    page.click("nav.mainnav >> text=Audit")
    audit = page.locator("table.audit")
    expect(audit).to_contain_text("comparison.decided")
    expect(audit.locator("tr", has_text="comparison.decided")).to_contain_text("approved")
    expect(page.locator(".chain")).to_contain_text("Hash chain verified")
    browser_page.shot("7-audit")
    assert AuditEvent.objects.filter(action="comparison.decided").count() == 1
    browser_page.assert_no_console_errors()
