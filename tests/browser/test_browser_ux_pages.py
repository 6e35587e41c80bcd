"""Issue 18 after the merge of seven branches: the decision bar's candidate select shows its
whole text at 1,024 px, and the pages the merged work added to (decision record with its
price-changed flag and "new since" section, the approver's dashboard, the review page after
the decision, the quote form, the password reset page) fit 1,024 px with no critical or
serious axe-core violation, screenshot at 1,440 and 1,024 px."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from playwright.sync_api import expect

from catalog.services.quotes import quote_revise
from procurement.models import Comparison, PriceChange
from procurement.selectors.reviews.acknowledge import CODES as TICKS
from procurement.services.reviews import review_submit
from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory
from tests.browser.test_browser_ux import AXE, AXE_REQUIRED, WIDTHS, page_report
from tests.browser.worlds_browser import decision_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The selected option's text against the room the select gives it, in the select's own font
# (a <select> clips its text without any overflow a scrollWidth would show).
SELECT_FIT = """(select) => {
    const style = getComputedStyle(select);
    const context = document.createElement('canvas').getContext('2d');
    context.font = style.font;
    const text = select.options[select.selectedIndex].text;
    const room = select.clientWidth - parseFloat(style.paddingLeft)
        - parseFloat(style.paddingRight);
    return {text: text, text_px: context.measureText(text).width, room_px: room};
}"""
# Chromium draws the drop-down arrow inside the select's content box.
ARROW_PX = 20


def test_decision_bar_fits_1024_and_its_candidate_select_shows_its_text(
    browser_page, checklist_items, lead, finance
):
    """The sticky bar at 1,024 px: no horizontal scrolling, in the bar or the page, and the
    candidate select shows the whole label of the recommended row."""
    world = decision_world(lead=lead)
    page = browser_page.page
    page.set_viewport_size({"width": 1024, "height": 768})
    browser_page.login("finance")
    browser_page.goto(f"/comparisons/{world.comparison.pk}/review/")
    bar = page.locator(".decision-bar")
    select = bar.locator("select[name=candidate]")
    expect(select).to_be_visible()
    label = select.locator("option:checked").inner_text()
    assert label.endswith("(recommended)"), label
    browser_page.shot("decision-bar-1024", element=bar)
    fit = select.evaluate(SELECT_FIT)
    assert fit["text_px"] + ARROW_PX <= fit["room_px"], fit
    widths = bar.evaluate("(b) => ({scroll: b.scrollWidth, client: b.clientWidth})")
    assert widths["scroll"] <= widths["client"], widths
    box = bar.bounding_box()
    assert box is not None
    assert box["x"] >= 0, box
    assert box["x"] + box["width"] <= 1024, box
    assert page.evaluate("document.documentElement.scrollWidth") <= 1024
    browser_page.assert_no_console_errors()


def test_decision_record_dashboard_quote_form_and_password_reset_at_1440_and_1024(
    browser_page, checklist_items, private_storage, lead, finance, engineer
):
    """After an approval whose quote was then revised: the approver's dashboard and the
    decision record show the price-changed flag; those pages, the review page after the
    decision, the quote form and the password reset page fit 1,024 px, axe-clean."""
    world = decision_world(lead=lead)
    comparison = world.comparison
    review_submit(
        acting_user=finance,
        comparison=comparison,
        decision="approve",
        comment="OK.",
        acknowledged=TICKS,
    )
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    approved = comparison.candidates.get(key=comparison.recommended_key).quote
    quote_revise(acting_user=lead, quote=approved, data={"price_per_gpu_hour": Decimal("3.10")})
    assert PriceChange.objects.filter(comparison=comparison).count() == 1
    # A parsed file that names no model: its page asks for the model in the workload card.
    nameless = BenchmarkResultFactory(uploaded_by=engineer, model_name="", gpu_count=2)
    if AXE_REQUIRED and not AXE.exists():
        pytest.fail(f"axe-core is missing ({AXE}); run scripts/deps.sh")
    tours: dict[str | None, list[tuple[str, str]]] = {
        "finance": [
            ("dashboard", "/"),
            ("decision-record", f"/comparisons/{comparison.pk}/record/"),
        ],
        "lead": [
            ("review-decided", f"/comparisons/{comparison.pk}/review/"),
            ("quote-form", "/catalog/quotes/new/"),
        ],
        "engineer": [("benchmark-model-asked", nameless.get_absolute_url())],
        None: [("password-reset", "/accounts/password/reset/")],
    }
    page = browser_page.page
    report: dict[str, Any] = {}
    for user, paths in tours.items():
        if user is None:
            browser_page.logout()
        else:
            browser_page.login(user)
        for slug, path in paths:
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": 900})
                response = browser_page.goto(path)
                assert response is not None
                assert response.status == 200, (user, path, response.status)
                browser_page.shot(f"{user or 'anonymous'}-{slug}-{width}")
                report[f"{user} {path} {width}"] = page_report(page, width)
            if slug == "benchmark-model-asked":
                expect(page.locator("#workload-shape select[name=model_profile]")).to_be_visible()
            if slug in ("dashboard", "decision-record"):
                expect(page.locator(".price-changes")).to_contain_text(
                    "Price changed since approval"
                )
    too_wide = [k for k, r in report.items() if r["width"] == 1024 and r["scroll_width"] > 1024]
    assert not too_wide, json.dumps({k: report[k] for k in too_wide}, indent=1)
    serious = {key: r["axe"] for key, r in report.items() if r.get("axe")}
    assert not serious, json.dumps(serious, indent=1)
    browser_page.assert_no_console_errors()
