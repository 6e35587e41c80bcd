"""U12 (round four): the checklist pages keep their headings in order (axe `heading-order`, a
moderate finding on the vendor's answer page and the reviewer's page) and the checklist index
fits 1,024 px (it was 1,278 px wide)."""

from __future__ import annotations

from typing import Any

import pytest

from checklist.models import ChecklistAnswer
from tests.browser.test_browser_ux import AXE
from tests.factories import QuoteFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HEADING_ORDER = """async () => {
    const r = await axe.run(document, {runOnly: ['heading-order']});
    return r.violations.map(v => v.nodes.map(n => n.target.join(' '))).flat();
}"""


def _heading_order(page: Any) -> list[str]:
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))  # evaluate is not subject to the CSP
    return page.evaluate(HEADING_ORDER)


def test_u12_checklist_headings_in_order_and_the_index_fits_1024(
    browser_page, checklist_items, provider_a, vendor_a, engineer
):
    if not AXE.exists():
        pytest.skip("axe-core is not installed (scripts/deps.sh)")
    quote = QuoteFactory(provider=provider_a, entered_by=vendor_a, capacity_model="on_demand")
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
    page = browser_page.page
    page.set_viewport_size({"width": 1024, "height": 800})

    browser_page.login("vendor_a")
    browser_page.goto(f"/checklist/quotes/{quote.pk}/answer/")
    assert _heading_order(page) == []
    browser_page.shot("u12-vendor-answer", full_page=False)

    browser_page.login("engineer")
    browser_page.goto(f"/checklist/quotes/{quote.pk}/")
    assert _heading_order(page) == []
    browser_page.goto("/checklist/")
    width = page.evaluate("document.documentElement.scrollWidth")
    browser_page.shot("u12-checklist-index-1024", full_page=False)
    assert width <= 1024, width
    browser_page.assert_no_console_errors()
