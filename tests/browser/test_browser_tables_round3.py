"""Round three's tables and formats, in Chromium at 1,440 and 1,024 px, every page checked with
axe-core (0 critical, 0 serious) and screenshot into test-artifacts/:

- V18: the quotes list's market column and the CSV of the whole filtered list;
- V19: the catalog's price column on screen, names on at most two lines, aria-sort on the
  default sort, a CSV of plain numbers;
- V20: the audit trail's objects linked and actions in words, its CSV;
- V21: the review page's CSV in words, the machine key last;
- V22: the results table and the side by side fit at 1,024 px, rows a few lines tall;
- V8: the RFQ opened from a brief carries its memory fit's GPUs and accelerators;
- V9: the vendor's checklist opens with what its quote said, confirmed with a status.
"""

from __future__ import annotations

import csv
import io
import os
import re
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.browser.test_browser_ux import AXE, page_report
from tests.browser.worlds_browser import catalog_world, decision_world
from tests.factories import AcceleratorFactory, ProviderFactory, QuoteFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (1440, 1024)


def _require_axe() -> None:
    if os.environ.get("AXE_REQUIRED") == "1" and not AXE.exists():
        pytest.fail(f"axe-core is missing ({AXE}); run scripts/deps.sh")


def check_page(browser_page: Any, label: str, report: dict[str, Any]) -> None:
    """Screenshot, page width (no sideways scroll) and axe at the current viewport."""
    page = browser_page.page
    width = page.viewport_size["width"]
    found = page_report(page, width)
    report[f"{label}-{width}"] = found.get("axe", [])
    assert found["scroll_width"] <= width, (label, width, found["scroll_width"])
    browser_page.shot(f"{label}-{width}", full_page=False)


def box_fit(page: Any, table: str) -> dict[str, float]:
    """The table's width against its scroll box, and its tallest visible row."""
    return page.evaluate(
        """(sel) => { const t = document.querySelector(sel); const box = t.parentElement;
            const rows = [...t.querySelectorAll('tbody tr')].filter(r => r.offsetParent);
            return {table: t.scrollWidth, box: box.clientWidth,
                    tallest: Math.max(0, ...rows.map(r => r.getBoundingClientRect().height))}; }""",
        table,
    )


def download_csv(page: Any, selector: str) -> list[dict[str, str]]:
    with page.expect_download() as download_info:
        page.click(selector)
    text = Path(download_info.value.path()).read_text(encoding="utf-8-sig")
    return list(csv.DictReader(io.StringIO(text)))


def market_world() -> None:
    """Three public H100 list prices (2.00, 2.60, 3.00) and a far offer, and the MI300X."""
    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")
    day = timezone.now() - timedelta(days=3)
    for i, price in enumerate(("2.00", "2.60", "3.00")):
        QuoteFactory(
            provider=ProviderFactory(slug=f"list-{i}", name=f"List cloud {i}"),
            accelerator=h100,
            price_per_gpu_hour=Decimal(price),
            is_public_list_price=True,
            quoted_at=day,
            title=f"list {price}",
        )
    QuoteFactory(
        provider=ProviderFactory(slug="bait", name="Bait cloud"),
        accelerator=h100,
        price_per_gpu_hour=Decimal("30.00"),
        title="far offer",
        price_far_from_market=True,
        price_check={"message": "30 USD per GPU-hour is far from the market."},
    )
    AcceleratorFactory(
        slug="mi300x-192gb",
        vendor="AMD",
        name="Instinct MI300X 192GB",
        memory_gb=192.0,
        memory_bandwidth_tbps=5.3,
        bf16_dense_tflops=1307.4,
        fp8_dense_tflops=2614.9,
        interconnect_gbps=896.0,
    )


def test_v18_v19_v20_v21_v22_tables_fit_and_export_what_they_show(
    browser_page, checklist_items, lead, vendor_a, provider_a, provider_b, admin_member, finance
):
    _require_axe()
    catalog_world(lead=lead, vendor_a=vendor_a, provider_a=provider_a, provider_b=provider_b)
    market_world()
    world = decision_world(lead=lead)
    comparison = world.comparison
    page = browser_page.page
    report: dict[str, Any] = {}

    browser_page.login("admin")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        # V19: the price column inside the table's box, short names on one or two lines.
        browser_page.goto("/catalog/")
        fit = box_fit(page, "#accelerators")
        assert fit["table"] <= fit["box"] + 1, ("catalog", width, fit)
        price_th = page.locator("#accelerators thead a[data-sort=price]")
        box_right = page.evaluate(
            "document.querySelector('#accelerators').parentElement.getBoundingClientRect().right"
        )
        assert price_th.bounding_box()["x"] + price_th.bounding_box()["width"] <= box_right + 1
        lines = page.evaluate(
            """() => [...document.querySelectorAll('#accelerators td.accelerator-name a')]
                .filter(a => a.textContent.includes('MI300X'))
                .map(a => a.getClientRects().length)"""
        )
        assert lines
        assert max(lines) <= 2, lines
        expect(page.locator("#accelerators th[aria-sort=ascending]")).to_contain_text("Vendor")
        check_page(browser_page, "v19-catalog", report)
        # V18: the market column on the quotes list, every column on screen.
        browser_page.goto("/catalog/quotes/")
        fit = box_fit(page, "table.quotes")
        assert fit["table"] <= fit["box"] + 1, ("quotes", width, fit)
        far = page.locator("tr", has_text="Bait cloud")
        expect(far.locator("td.market")).to_contain_text("above every list price")
        expect(far.locator(".far-from-market")).to_be_visible()
        check_page(browser_page, "v18-quotes", report)
        # V20: objects linked, actions in words.
        browser_page.goto("/audit/")
        expect(page.locator("table.audit a[href^='/comparisons/']").first).to_be_visible()
        expect(page.locator("table.audit")).to_contain_text("Comparison computed")
        check_page(browser_page, "v20-audit", report)

    # V19: the catalog's CSV writes plain numbers.
    browser_page.goto("/catalog/?vendor=AMD")
    rows = download_csv(page, "#catalog-csv")
    assert (rows[0]["memory_gb"], rows[0]["bf16_dense_tflops"]) == ("192", "1307.4")
    # V18: the quotes CSV holds the whole filtered list in its order, with the market column.
    browser_page.goto("/catalog/quotes/?accelerator=h100-sxm-80gb&sort=-price")
    shown = page.locator("table.quotes tbody tr").count()
    rows = download_csv(page, "#quotes-csv")
    assert len(rows) == shown
    assert rows[0]["Offer"] == "far offer"
    assert rows[0]["Far from market"] == "yes"
    assert rows[0]["Market position"] == "above every list price"
    # V20: the audit CSV.
    browser_page.goto("/audit/?action=comparison.computed")
    rows = download_csv(page, "#audit-csv")
    assert [r["action"] for r in rows] == ["Comparison computed"]

    browser_page.login("finance")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        # V22: the results table fits its box, the eligibility column on screen, rows short.
        browser_page.goto(f"/comparisons/{comparison.pk}/")
        fit = box_fit(page, "#results")
        assert fit["table"] <= fit["box"] + 1, ("results", width, fit)
        assert fit["tallest"] < 250, ("results", width, fit)
        check_page(browser_page, "v22-results", report)
        browser_page.shot(f"v22-results-table-{width}", element=page.locator("#results"))
        # V22 and U28: the side by side fits, with its B − A column.
        browser_page.goto(f"/comparisons/{comparison.pk}/side-by-side/")
        expect(page.locator("table.sbs thead")).to_contain_text("B − A")
        expect(page.locator("table.sbs")).to_contain_text("GPUs")
        check_page(browser_page, "v22-side-by-side", report)
        browser_page.goto(f"/comparisons/{comparison.pk}/review/")
        check_page(browser_page, "v21-review", report)

    # V21: the review page's CSV in words, the machine key last.
    rows = download_csv(page, "a[download] >> text=Export CSV")
    assert list(rows[0])[-1] == "Key"
    rows = [r for r in rows if r["Kind"] != "mixed plan"]
    assert {r["Capacity model"] for r in rows} == {"On-demand"}
    assert not any("#None" in r["Benchmark evidence (as computed)"] for r in rows)
    assert not [r["Warnings"] for r in rows if re.search(r"\b[A-Z]+_[A-Z_]+\b", r["Warnings"])]

    serious = {label: found for label, found in report.items() if found}
    assert not serious, f"axe critical/serious violations: {serious}"
    browser_page.assert_no_console_errors()


def test_v8_v9_facts_flow_from_the_brief_to_the_rfq_and_from_the_quote_to_the_checklist(
    browser_page, checklist_items, lead, vendor_a, provider_a, provider_b
):
    _require_axe()
    from briefs.selectors import brief_rfq_sizing
    from catalog.models import Rfq
    from checklist.models import ChecklistAnswer

    world = catalog_world(
        lead=lead, vendor_a=vendor_a, provider_a=provider_a, provider_b=provider_b
    )
    brief = decision_world(lead=lead).brief
    sizing = brief_rfq_sizing(brief)
    assert sizing is not None
    page = browser_page.page
    page.set_viewport_size({"width": 1440, "height": 900})
    report: dict[str, Any] = {}

    # V8: from the brief, Send RFQ opens the form sized by the brief's memory fit.
    browser_page.login("lead")
    browser_page.goto(f"/briefs/{brief.pk}/")
    with page.expect_navigation():
        page.click("#brief-send-rfq")
    # U10: empty when the asked accelerators need different counts (the text gives each)
    expect(page.locator("input[name=gpus_needed]")).to_have_value(
        "" if sizing.gpus_needed is None else str(sizing.gpus_needed)
    )
    checked = page.locator("input[name=accelerators]:checked")
    expect(checked).to_have_count(len(sizing.accelerator_ids))
    expect(page.locator("textarea[name=requirements]")).to_contain_text("a replica needs")
    check_page(browser_page, "v8-rfq-form", report)
    page.check(f"input[name=providers][value='{provider_a.pk}']")
    page.fill(
        "input[name=deadline]", (timezone.now() + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")
    )
    with page.expect_navigation():
        page.click("button[type=submit] >> text=Send the RFQ")
    rfq = Rfq.objects.filter(brief=brief).get()
    assert rfq.gpus_needed == sizing.gpus_needed
    assert sorted(rfq.accelerators.values_list("pk", flat=True)) == sorted(sizing.accelerator_ids)

    # V9: the vendor's checklist opens with what its quote said; a status confirms it.
    quote = world.fresh
    type(quote).objects.filter(pk=quote.pk).update(
        intra_node_interconnect="NVLink 4 / NVSwitch",
        inter_node_fabric="InfiniBand NDR",
        vcpu_per_node=208,
        ram_gb_per_node=2048,
    )
    browser_page.login("vendor_a")
    browser_page.goto(f"/checklist/quotes/{quote.pk}/answer/")
    interconnect = page.locator("#id_interconnect-answer")
    expect(interconnect).to_have_value(
        f"From our quote (version {quote.version}): inside the node NVLink 4 / NVSwitch; "
        "between nodes InfiniBand NDR."
    )
    expect(page.locator("#draft-node-resources")).to_be_visible()
    check_page(browser_page, "v9-checklist-drafts", report)
    browser_page.shot("v9-interconnect-draft", element=page.locator("#item-interconnect"))
    page.select_option("#id_interconnect-status", "yes")
    page.fill("#id_interconnect-evidence_url", "https://example.com/topology.pdf")
    with page.expect_navigation():
        page.click("#save-answers")
    expect(page.locator(".messages")).to_contain_text("Saved 1 answer")
    saved = ChecklistAnswer.objects.get(quote=quote, item__code="interconnect")
    assert saved.answer.startswith(f"From our quote (version {quote.version}):")
    assert not ChecklistAnswer.objects.filter(
        provider=provider_a, item__code="node-resources"
    ).exists()
    expect(page.locator("#draft-node-resources")).to_be_visible()
    check_page(browser_page, "v9-checklist-saved", report)

    serious = {label: found for label, found in report.items() if found}
    assert not serious, f"axe critical/serious violations: {serious}"
    browser_page.assert_no_console_errors()
