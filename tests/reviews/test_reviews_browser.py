"""In a real browser: finance approves a ready comparison, the creator sees the decision, the
audit page shows it; no console errors anywhere (strict CSP, no inline scripts)."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from core.models import AuditEvent
from core.roles import Role
from procurement.models import Comparison
from tests.factories import UserFactory
from tests.reviews.factories_reviews import ready_comparison

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_finance_approves_creator_sees_it_audit_shows_it(browser_page, transactional_db):
    lead = UserFactory(username="lead", role=Role.PROCUREMENT_LEAD)
    UserFactory(username="finance", role=Role.FINANCE_REVIEWER)
    comparison = ready_comparison(created_by=lead, title="Support chat on H100 or H200")
    review_path = f"/comparisons/{comparison.pk}/review/"
    page = browser_page.page

    # Finance opens the ready comparison: one screen says why the recommended row wins.
    browser_page.login("finance")
    browser_page.goto(review_path)
    assert page.locator("#why-h").inner_text().startswith("Why Northwind")
    assert page.locator("tr.recommended").count() == 1
    browser_page.shot("1-review")

    # htmx filter: eligible rows only, without a page load; the URL follows.
    page.check("input[name=eligible]")
    expect(page.locator("#candidate-rows tr[data-key]")).to_have_count(2)  # no eval: strict CSP
    assert "eligible=on" in page.url

    # Approve with a comment.
    page.check("input[name=decision][value=approve]")
    page.fill("textarea[name=comment]", "Cost lines, evidence and checklist checked.")
    for box in page.locator("input[name=acknowledge]").all():  # U8: one tick per warning
        box.check()
    with page.expect_navigation():
        page.click("form.review-form button[type=submit]")
    assert "Decision recorded" in page.locator(".messages").inner_text()
    assert page.locator("#comparison-status").inner_text() == "Approved"
    browser_page.shot("2-approved")
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED

    # The creator sees the decision and cannot review (frozen, four-eyes).
    browser_page.login("lead")
    browser_page.goto(review_path)
    assert page.locator("#comparison-status").inner_text() == "Approved"
    reviews = page.locator(".review-list").inner_text()
    assert "finance" in reviews
    assert "Cost lines, evidence and checklist checked." in reviews
    assert page.locator("textarea[name=comment]").count() == 0
    browser_page.shot("3-creator-sees-decision")

    # The decision record prints the same story.
    browser_page.goto(f"/comparisons/{comparison.pk}/record/")
    assert "Approved row" in page.locator(".record-head").inner_text()
    browser_page.shot("4-record")

    # The audit page shows the decision, and the chain verifies.
    browser_page.login("finance")
    browser_page.goto("/audit/?action=comparison.decided")
    table = page.locator("table.audit").inner_text()
    assert "comparison.decided" in table
    assert "status=approved" in table
    assert "Hash chain verified" in page.locator(".chain").inner_text()
    browser_page.shot("5-audit")

    assert AuditEvent.objects.filter(action="comparison.decided").count() == 1
    browser_page.assert_no_console_errors()


def test_side_by_side_renders_without_errors(browser_page, transactional_db):
    lead = UserFactory(username="lead", role=Role.PROCUREMENT_LEAD)
    UserFactory(username="finance", role=Role.FINANCE_REVIEWER)
    comparison = ready_comparison(created_by=lead)
    browser_page.login("finance")
    browser_page.goto(f"/comparisons/{comparison.pk}/side-by-side/")
    page = browser_page.page
    assert page.locator("tr.differs").count() > 0
    page.select_option("select[name=b]", "q-l40s")  # data-autosubmit reloads the pair
    page.wait_for_url("**b=q-l40s**")
    assert "weights do not fit in 48 GB" in page.locator("table.sbs").inner_text()
    browser_page.shot("side-by-side")
    browser_page.assert_no_console_errors()
