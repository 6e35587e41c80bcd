"""Issue 17 in the browser: a candidate's operating points open into a drawn chart.

The chart sits in a closed <details>; it is drawn when the section opens (at its real
width), and the across-candidates chart is drawn with the page's other charts.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from procurement.services.comparisons import comparison_create, comparison_run
from tests.comparisons.factories_comparisons import scenario_quotes
from tests.comparisons.factories_point_charts import sweep_result as _sweep_result
from tests.factories import WorkloadBriefFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_issue17_operating_point_chart_draws_when_its_section_opens(
    browser_page, checklist_items, lead
):
    _cheap, fast = scenario_quotes(lead)
    _sweep_result(lead, fast)
    brief = WorkloadBriefFactory(
        created_by=lead, e2e_p99_ms=30_000, ttft_p95_ms=2000, itl_p95_ms=100
    )
    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[fast.pk], seed=7
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    browser_page.login(lead.username)
    browser_page.goto(comparison.get_absolute_url())
    page = browser_page.page
    expect(page.locator('[data-plotly="fig-points"] .main-svg').first).to_be_visible()
    browser_page.shot("operating-points-across", element=page.locator('[data-plotly="fig-points"]'))
    section = page.locator("details.operating-points").first
    chart = section.locator('[data-plotly="fig-points-0"]')
    assert chart.get_attribute("data-rendered") is None  # closed: not drawn yet
    section.locator("summary").click()
    expect(chart.locator(".main-svg").first).to_be_visible()
    box = chart.bounding_box()
    assert box is not None
    assert box["width"] > 400  # drawn at the section's width, not a hidden guess
    expect(section.locator("table.operating-point-table tbody tr")).to_have_count(3)
    browser_page.shot("operating-points", element=section)
    # At 1,024 px the table's last column, the unit cost, shows without sideways scrolling.
    page.set_viewport_size({"width": 1024, "height": 900})
    # Plotly's responsive redraw follows the resize: the chart fits the narrower section.
    page.wait_for_function(
        """() => {
            const svg = document.querySelector('[data-plotly="fig-points-0"] .main-svg');
            return svg.getBoundingClientRect().right <= document.documentElement.clientWidth;
        }"""
    )
    scroller = section.locator(".table-scroll").first
    widths = scroller.evaluate("(s) => ({scroll: s.scrollWidth, client: s.clientWidth})")
    assert widths["scroll"] <= widths["client"], widths
    # The legend stays inside the chart's border at 1,024 px.
    page.wait_for_function(
        """() => {
            const chart = document.querySelector('[data-plotly="fig-points-0"]');
            const legend = chart.querySelector('.legend');
            const box = chart.getBoundingClientRect(), key = legend.getBoundingClientRect();
            return key.bottom <= box.bottom && key.right <= box.right && key.left >= box.left;
        }"""
    )
    # The legend stays inside the chart's border at 1,024 px.
    page.wait_for_function(
        """() => {
            const chart = document.querySelector('[data-plotly="fig-points-0"]');
            const legend = chart.querySelector('.legend');
            const box = chart.getBoundingClientRect(), key = legend.getBoundingClientRect();
            return key.bottom <= box.bottom && key.right <= box.right && key.left >= box.left;
        }"""
    )
    browser_page.shot("operating-points-1024", element=section)
    browser_page.assert_no_console_errors()
