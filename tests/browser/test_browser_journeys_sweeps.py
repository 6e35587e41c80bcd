"""Round three's sweep, chart and wizard journeys in Chromium, each page checked with axe-core
(0 critical, 0 serious) and screenshot into test-artifacts/:

- V12: the engineer opens one file of a three-file sweep, follows it to the sweep page (a table
  per load level, curves with the brief's target valued and the binding one named), then the
  compare page, where the sweep is one line labelled c8 / c32 / c64 against TTFT p95;
- V17: the lead reads a comparison whose winner has no sweep: it is on the cross-candidate
  chart as its single costed point, series are named by offer, the legend sits below the plot,
  and the measured sweep's boundary says which target binds;
- V13: the lead starts a comparison: filters first with the brief's region ticked, a quote
  outside the region listed unticked, accelerator and RFQ pickers, then the rows.
"""

from __future__ import annotations

import os
from decimal import Decimal
from typing import Any

import pytest
from playwright.sync_api import expect

from procurement.models import Comparison
from tests.browser.test_browser_ux import AXE, page_report
from tests.browser.worlds_browser import h200
from tests.comparisons.factories_comparisons import (
    answer_checklist,
    frozen,
    h100,
    l40s,
    scenario_quotes,
)
from tests.comparisons.factories_point_charts import sweep_result

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _axe_required() -> None:
    if os.environ.get("AXE_REQUIRED") == "1" and not AXE.exists():
        pytest.fail(f"axe-core is missing ({AXE}); run scripts/deps.sh")


def _check(browser_page: Any, label: str, report: dict[str, Any], *, full: bool = True) -> None:
    page = browser_page.page
    found = page_report(page, page.viewport_size["width"])
    report[label] = found.get("axe", [])
    assert found["scroll_width"] <= page.viewport_size["width"], f"{label} scrolls sideways"
    browser_page.shot(label, full_page=full)


def _clean(report: dict[str, Any], browser_page: Any) -> None:
    serious = {label: found for label, found in report.items() if found}
    assert not serious, f"axe critical/serious violations: {serious}"
    browser_page.assert_no_console_errors()


def _drawn(page: Any, figure_id: str) -> Any:
    chart = page.locator(f'[data-plotly="{figure_id}"]')
    expect(chart.locator(".main-svg").first).to_be_visible()
    return chart


def _labels_inside(chart: Any) -> None:
    """Every point label Plotly drew lies inside the chart's box (none clipped)."""
    boxes = chart.evaluate(
        """(el) => {
            const box = el.getBoundingClientRect();
            return [...el.querySelectorAll('.textpoint text')].map((t) => {
                const r = t.getBoundingClientRect();
                return {text: t.textContent, inside: r.left >= box.left && r.right <= box.right
                        && r.top >= box.top && r.bottom <= box.bottom};
            });
        }"""
    )
    assert boxes, "no point label drawn"
    assert all(b["inside"] for b in boxes), boxes


def test_v12_a_sweep_is_shown_as_a_sweep(
    browser_page, checklist_items, private_storage, lead, engineer
):
    from tests.benchmarks.factories_benchmarks import (
        BenchmarkResultFactory,
        audit_sweep,
        level_metrics,
    )
    from tests.factories import ProviderFactory, QuoteFactory, WorkloadBriefFactory

    _axe_required()
    brief = WorkloadBriefFactory(
        title="Support chat 70B", created_by=lead, ttft_p95_ms=800, itl_p95_ms=60, e2e_p99_ms=20_000
    )
    contoso = QuoteFactory(
        provider=ProviderFactory(name="Contoso Compute", slug="contoso"),
        accelerator=h200(),
        title="Contoso H200 8x eu-west on-demand",
    )
    c8, c32, _c64 = audit_sweep(quote=contoso, brief=brief, uploaded_by=engineer)
    c32.metrics["extra"] = {  # what a vLLM file keeps beside the normalised figures
        "mean_ttft_ms": 376.01893215417,
        "request_throughput": 7.999412837102,
        "total_input_tokens": 1_512_344,
        "backend": "vllm",
    }
    c32.save(update_fields=["metrics"])
    northwind = QuoteFactory(
        provider=ProviderFactory(name="Northwind GPU Cloud", slug="northwind"),
        accelerator=h100(),
        title="NW H100 8x eu-west on-demand",
    )
    BenchmarkResultFactory(
        quote=northwind,
        accelerator=northwind.accelerator,
        brief=brief,
        gpu_count=8,
        uploaded_by=engineer,
        original_name="nw-c16.json",
        metrics=level_metrics(16, 2600.0, 610.0, 33.0, 14_000.0),
    )
    page = browser_page.page
    page.set_viewport_size({"width": 1440, "height": 900})
    report: dict[str, Any] = {}
    browser_page.login("engineer")

    # The file's page says it is one level of a sweep and links to it.
    browser_page.goto(c32.get_absolute_url())
    notice = page.locator("#in-sweep")
    expect(notice).to_contain_text("one of the 3 files of a sweep of 3 load levels")
    figures = page.locator("#file-figures")
    expect(figures.locator("tr:has-text('Mean TTFT')")).to_contain_text("376")
    expect(figures.locator("tr:has-text('Mean TTFT')")).to_contain_text("ms")
    expect(figures).not_to_contain_text("376.01893215417")
    _check(browser_page, "1-result-in-sweep", report)
    with page.expect_navigation():
        notice.locator("a").click()
    assert page.url.endswith(f"/benchmarks/sweeps/{c8.pk}/")

    # The sweep page: one row per level, the binding target named, the curves drawn.
    expect(page.locator("h1")).to_contain_text("Sweep: h200 concurrency sweep")
    levels = page.locator("#sweep-levels tbody tr")
    expect(levels).to_have_count(3)
    expect(levels.nth(1)).to_contain_text("costed here")
    expect(levels.nth(2)).to_contain_text("TTFT p95 2,091 ms > 800 ms")
    expect(page.locator("#sweep-binding")).to_contain_text("TTFT p95 ≤ 800 ms")
    expect(page.locator("#sweep-targets")).to_contain_text("TTFT p95 ≤ 800 ms · binds")
    ttft = _drawn(page, "fig-sweep-ttft")
    expect(ttft.locator(".annotation-text").first).to_have_text("TTFT p95 ≤ 800 ms · binds")
    _drawn(page, "fig-sweep-itl")
    throughput = _drawn(page, "fig-sweep-throughput")
    _labels_inside(ttft)
    _labels_inside(throughput)
    _check(browser_page, "2-sweep-page", report)
    browser_page.shot("2b-sweep-ttft", element=ttft)

    # The compare page: the sweep is one line on the TTFT axis, every point labelled.
    browser_page.goto(f"/benchmarks/compare/?brief={brief.pk}")
    expect(page.locator("#compare-axis")).to_contain_text("TTFT p95 ≤ 800 ms")
    chart = _drawn(page, "fig-compare")
    expect(chart.locator(".annotation-text").first).to_have_text("brief: TTFT p95 ≤ 800 ms")
    expect(chart.locator(".textpoint text")).to_have_count(4)  # c8, c32, c64 and c16
    expect(chart.locator(".scatterlayer .js-line")).to_have_count(1)  # one joined sweep
    _labels_inside(chart)
    expect(page.locator("td.bm-load").first).to_contain_text("concurrency")
    _check(browser_page, "3-compare", report)
    browser_page.shot("3b-compare-chart", element=chart)
    page.set_viewport_size({"width": 1024, "height": 800})
    page.wait_for_function(
        """() => {
            const svg = document.querySelector('[data-plotly="fig-compare"] .main-svg');
            return svg.getBoundingClientRect().right <= document.documentElement.clientWidth;
        }"""
    )
    _labels_inside(chart)
    _check(browser_page, "4-compare-1024", report, full=False)
    _clean(report, browser_page)


def _priced_world(lead: Any) -> Comparison:
    """The cheap L40S and the fast H100 only estimated, a pricey H200 measured with a sweep;
    computed in-process. The winner has no sweep."""
    from procurement.services.comparisons import comparison_create, comparison_run
    from tests.factories import ProviderFactory, QuoteFactory, WorkloadBriefFactory

    cheap, fast = scenario_quotes(lead)
    pricey = QuoteFactory(
        provider=ProviderFactory(name="Pricey GPUs", slug="pricey-gpus"),
        accelerator=h200(),
        price_per_gpu_hour=Decimal("9.9900"),
        title="H200 premium",
        entered_by=lead,
    )
    answer_checklist(pricey.provider, lead)
    sweep_result(lead, pricey)
    brief = WorkloadBriefFactory(
        title="Support chat", created_by=lead, e2e_p99_ms=30_000, ttft_p95_ms=2000, itl_p95_ms=100
    )
    comparison = comparison_create(
        acting_user=lead,
        brief=brief,
        quote_ids=[cheap.pk, fast.pk, pricey.pk],
        seed=7,
        title="Support chat: three offers",
        enqueue=False,
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    return comparison


def test_v17_the_recommended_row_is_on_the_cross_candidate_chart_named_by_its_offer(
    browser_page, checklist_items, lead
):
    _axe_required()
    comparison = _priced_world(lead)
    assert comparison.status == Comparison.Status.READY
    page = browser_page.page
    page.set_viewport_size({"width": 1440, "height": 900})
    report: dict[str, Any] = {}
    browser_page.login("lead")
    browser_page.goto(comparison.get_absolute_url())
    across = _drawn(page, "fig-points")
    legend = across.locator(".legend")
    expect(legend).to_contain_text("recommended:")
    expect(legend).to_contain_text("no sweep: one costed point")
    expect(legend).to_contain_text("Pricey GPUs · H200 premium (on-demand)")
    expect(across).not_to_contain_text("#")
    # The legend sits below the plot, inside the card: it no longer takes its right half.
    geometry = across.evaluate(
        """(el) => {
            const box = el.getBoundingClientRect();
            const plot = el.querySelector('.nsewdrag').getBoundingClientRect();
            const key = el.querySelector('.legend').getBoundingClientRect();
            return {plotBottom: plot.bottom, plotWidth: plot.width, boxWidth: box.width,
                    keyTop: key.top, keyBottom: key.bottom, boxBottom: box.bottom};
        }"""
    )
    assert geometry["keyTop"] >= geometry["plotBottom"], geometry
    assert geometry["keyBottom"] <= geometry["boxBottom"], geometry
    assert geometry["plotWidth"] > 0.75 * geometry["boxWidth"], geometry
    _check(browser_page, "1-comparison", report, full=False)
    browser_page.shot("1b-across-chart", element=across)

    # The measured sweep's section says which target binds; its points carry their load.
    section = page.locator("details.operating-points").first
    expect(section.locator("summary .binding-target")).to_contain_text("≤")
    section.locator("summary").click()
    chart = _drawn(page, section.locator("[data-plotly]").get_attribute("data-plotly"))
    expect(chart.locator(".annotation-text").first).to_contain_text("service-level boundary:")
    expect(chart.locator(".textpoint text")).to_have_text(["c32", "c8", "c64"])  # by group
    _labels_inside(chart)
    _check(browser_page, "2-operating-points", report, full=False)
    browser_page.shot("2b-operating-points", element=section)
    _clean(report, browser_page)


def test_v13_the_wizard_is_filters_first_then_the_rows(browser_page, checklist_items, lead):
    from tests.factories import (
        ModelApiRouteFactory,
        ProviderFactory,
        QuoteFactory,
        RfqFactory,
        WorkloadBriefFactory,
    )

    _axe_required()
    northwind = ProviderFactory(name="Northwind GPU Cloud", slug="northwind")
    contoso = ProviderFactory(name="Contoso Compute", slug="contoso")
    brief = WorkloadBriefFactory(
        title="Support chat 70B", created_by=lead, allowed_regions=["eu-west"]
    )
    rfq = RfqFactory(title="Chat capacity Q3", brief=brief, created_by=lead, providers=[northwind])
    h100_gpu, l40s_gpu = h100(), l40s()
    answer = QuoteFactory(
        provider=northwind,
        accelerator=h100_gpu,
        rfq=rfq,
        title="NW H100 1x eu-west on-demand",
        price_per_gpu_hour=Decimal("5.1200"),
        gpus_per_node=1,
        region="eu-west",
        entered_by=lead,
    )
    spot = QuoteFactory(
        provider=contoso,
        accelerator=l40s_gpu,
        capacity_model="spot",
        title="Contoso L40S spot",
        price_per_gpu_hour=Decimal("0.7490"),
        region="eu-west-2",
        entered_by=lead,
    )
    far = QuoteFactory(
        provider=contoso,
        accelerator=h100_gpu,
        title="Contoso H100 us-east",
        price_per_gpu_hour=Decimal("2.2900"),
        region="us-east-1",
        entered_by=lead,
    )
    ModelApiRouteFactory(provider=ProviderFactory(name="Lambda API", slug="lambda"))
    page = browser_page.page
    page.set_viewport_size({"width": 1440, "height": 900})
    report: dict[str, Any] = {}
    browser_page.login("lead")
    browser_page.goto(f"/comparisons/new/?brief={brief.pk}")

    # Filters first: the brief's region ticked; the candidates below them.
    filters = page.locator("#candidate-filters")
    rows = page.locator(".candidate-list li")
    assert filters.bounding_box()["y"] < rows.first.bounding_box()["y"]
    expect(filters.locator('input[name=regions][value="eu-west"]')).to_be_checked()
    expect(filters.locator('input[name=regions][value="us-east-1"]')).not_to_be_checked()
    expect(page.locator(f'input[name=quotes][value="{far.pk}"]')).to_have_count(0)
    expect(page.locator(f'input[name=quotes][value="{answer.pk}"]')).to_be_checked()
    answer_row = page.locator(f'li:has(input[name=quotes][value="{answer.pk}"])')
    expect(answer_row).to_contain_text("USD 5.12 / GPU-hour")
    expect(answer_row).to_contain_text("1 GPU/node")
    _check(browser_page, "1-wizard-brief-regions", report)

    # Every region: the us-east quote is listed, never ticked.
    with page.expect_navigation():
        filters.locator('input[name=regions][value="eu-west"]').uncheck()
        filters.locator('input[name=regions][value="eu-west-2"]').uncheck()
        page.click("#apply-filters")
    far_box = page.locator(f'input[name=quotes][value="{far.pk}"]')
    expect(far_box).not_to_be_checked()
    expect(page.locator(f'li:has(input[name=quotes][value="{far.pk}"])')).to_contain_text(
        "outside the brief's regions"
    )
    _check(browser_page, "2-wizard-every-region", report, full=False)

    # Accelerator picked from a list: only the L40S rows stay (no API route either).
    with page.expect_navigation():
        filters.get_by_label("L40S 48GB").check()
        page.click("#apply-filters")
    expect(page.locator("input[name=quotes]")).to_have_count(1)
    expect(page.locator(f'input[name=quotes][value="{spot.pk}"]')).to_be_checked()
    expect(page.locator("input[name=api_routes]")).to_have_count(0)

    # Only the answers to the RFQ: Northwind's quote, then queue the comparison.
    with page.expect_navigation():
        filters.get_by_label("L40S 48GB").uncheck()
        filters.get_by_label(f"RFQ {rfq.pk}: Chat capacity Q3 (1 answer)").check()
        page.click("#apply-filters")
    expect(page.locator("input[name=quotes]")).to_have_count(1)
    expect(page.locator(f'input[name=quotes][value="{answer.pk}"]')).to_be_checked()
    _check(browser_page, "3-wizard-rfq-answers", report, full=False)
    with page.expect_navigation():
        page.click(".submit-bar button.primary")
    comparison = frozen(Comparison.objects.get())  # by the worker (L9)
    assert list(comparison.quotes.values_list("pk", flat=True)) == [answer.pk]
    assert comparison.snapshot["selection"]["filters"] == {"rfqs": [str(rfq.pk)]}
    _clean(report, browser_page)
