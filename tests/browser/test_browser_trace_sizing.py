"""Issue 42 in the browser: the brief page shows its traffic trace's arrivals, and the results
page the rows sized from it, with the chart of replicas a minute drawn."""

from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from procurement.services.comparisons import comparison_create, comparison_run
from tests.comparisons.test_comparisons_trace_sizing import traced_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_trace_and_the_rows_sized_from_it_are_drawn(
    browser_page, checklist_items, lead, private_storage
):
    brief, quotes, _ = traced_world(lead, price_per_gpu_hour=Decimal("3.20"))
    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[q.pk for q in quotes], seed=3
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    browser_page.login(lead.username)
    browser_page.goto(brief.get_absolute_url())
    page = browser_page.page
    expect(page.locator('[data-plotly="fig-brief-arrivals"] .main-svg').first).to_be_visible()
    browser_page.shot("brief-trace", element=page.locator("#traffic"))
    browser_page.goto(comparison.get_absolute_url())
    expect(page.locator("#trace-sizing-table tbody tr")).to_have_count(2)
    expect(page.locator('[data-plotly="fig-trace"] .main-svg').first).to_be_visible()
    browser_page.shot("results-trace", element=page.locator("#trace-sizing"))
    browser_page.shot("results-trace-chart", element=page.locator('[data-plotly="fig-trace"]'))
    browser_page.assert_no_console_errors()
