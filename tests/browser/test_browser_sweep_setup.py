"""Issue 24 in the browser: the brief asks for its serving engine, and a row says how the
prefix cache and the calibration ledger moved its throughput (N5, N10, N3)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from catalog.models import CalibrationEntry
from tests.comparisons.sweep_world import audit_brief, compare, h100_quote

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_n10_n3_a_row_states_its_prefix_cache_and_calibration(browser_page, checklist_items, lead):
    brief = audit_brief(lead, serving_engine="vLLM", serving_engine_version="0.6.3")
    quote = h100_quote(lead)
    CalibrationEntry.objects.create(
        accelerator=quote.accelerator,
        model_profile=brief.model,
        model_name=brief.model.name,
        shape="in 1,000 / out 200 / c16 / 1 GPU",
        gpus=1,
        precision="bf16",
        workload_class="realtime_inference",
        estimated_tokens_per_s=1000.0,
        measured_tokens_per_s=800.0,
        benchmark_result_id=99,
    )
    comparison = compare(lead, brief, [quote], cached_input_fraction=0.5)
    browser_page.login(lead.username)
    browser_page.goto(comparison.get_absolute_url())
    page = browser_page.page
    caching = page.locator(".prefix-caching").first
    expect(caching).to_contain_text("vLLM caches prefixes (automatic prefix caching)")
    expect(page.locator(".calibration-applied").first).to_contain_text(
        "1 benchmark result of Llama 3.1 8B at bf16 (Real-time inference)"
    )
    browser_page.shot("row-prefix-cache", element=page.locator("table").first)
    browser_page.goto(f"/briefs/{brief.pk}/revise/")
    fieldset = page.locator('fieldset[data-group="serving"]')
    expect(fieldset.locator("legend")).to_contain_text("Serving engine")
    expect(fieldset.locator("#id_serving_engine")).to_have_value("vLLM")
    browser_page.shot("brief-serving-engine", element=fieldset)
    browser_page.assert_no_console_errors()
