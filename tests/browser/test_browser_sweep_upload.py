"""V11: an engineer uploads the three files of one sweep at once.

The files (vLLM `--save-result` at concurrency 1, 8 and 32, written here) are chosen
together; before anything is sent each file's line says what it states and the form says the
precision will be asked; the quote is picked from options that show title, price, region and
version; the sweep name is typed once; each file goes with its own progress and outcome; the
result page names the serving engine with its version.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from benchmarks.models import BenchmarkResult
from tests.benchmarks.factories_benchmarks import vllm_serve_bytes
from tests.benchmarks.test_benchmarks_hosted_api import llmperf_summary
from tests.browser.test_browser_ux import page_report
from tests.factories import (
    AcceleratorFactory,
    ModelApiRouteFactory,
    ProviderFactory,
    QuoteFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SWEEP = "H100 chat knee"


def test_v11_three_files_of_one_sweep_at_once(browser_page, private_storage, engineer, tmp_path):
    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")
    northwind = ProviderFactory(name="Northwind GPU Cloud", slug="northwind")
    for version, price in ((1, "2.10"), (3, "2.49")):
        quote = QuoteFactory(
            provider=northwind,
            accelerator=h100,
            title="NW H100 8x eu-west on-demand",
            region="eu-west-1",
            version=version,
            price_per_gpu_hour=Decimal(price),
        )
    files = []
    for concurrency in (1, 8, 32):
        doc = json.loads(vllm_serve_bytes(30))
        doc["max_concurrency"] = concurrency
        path = tmp_path / f"vllm-c{concurrency}.json"
        path.write_text(json.dumps(doc))
        files.append(str(path))
    page = browser_page.page
    browser_page.login("engineer")
    browser_page.goto("/benchmarks/upload/")

    # Three files chosen at once: one line each, checked before anything is stored.
    page.set_input_files("#id_file", files)
    lines = page.locator("[data-file-list] li")
    expect(lines).to_have_count(3)
    for i in range(3):
        expect(lines.nth(i)).to_contain_text("precision not stated: asked")
    expect(lines.nth(2)).to_contain_text("concurrency 32")
    asked = page.locator("[data-asked]")
    expect(asked).to_contain_text("None of the 3 files states the precision measured")
    expect(page.locator("#id_precision")).to_have_class("bm-asked")
    assert not BenchmarkResult.objects.exists()

    # The quote picker: grouped by provider, two versions of one offer told apart.
    options = page.locator("#id_quote optgroup[label='Northwind GPU Cloud'] option")
    expect(options).to_have_count(2)
    expect(options.nth(0)).to_have_text(  # the newest version first
        "Northwind GPU Cloud · NW H100 8x eu-west on-demand · H100 SXM 80GB · "
        "2.49 USD per GPU-hour · eu-west-1 · v3"
    )
    page.fill("[data-filter-select=id_quote]", "v3")
    expect(options.nth(1)).to_be_hidden()
    page.select_option("#id_quote", str(quote.pk))
    page.fill("#id_gpu_count", "8")
    page.select_option("#id_precision", "bf16")
    expect(asked).to_be_visible()
    expect(page.locator("#id_precision")).not_to_have_class("bm-asked")
    page.fill("#id_sweep", SWEEP)
    page.fill("#id_serving_engine", "vLLM")
    page.fill("#id_engine_version", "0.9.1")
    browser_page.shot("1-three-files-checked")
    for width in (1440, 1024):  # no sideways scroll, no critical or serious axe violation
        page.set_viewport_size({"width": width, "height": 900})
        report = page_report(page, width)
        assert report["scroll_width"] <= width, report
        assert not report.get("axe"), report

    # One click: each file is sent on its own, with its own progress and outcome.
    page.click("[data-submit]")
    expect(page.locator("[data-file-list] .outcome-created")).to_have_count(3)
    expect(page.locator("[data-progress-text]")).to_contain_text("3 of 3 files stored")
    browser_page.shot("2-three-files-stored")
    assert not page_report(page, 1024).get("axe")
    results = list(BenchmarkResult.objects.order_by("concurrency"))
    assert [r.concurrency for r in results] == [1, 8, 32]
    assert {(r.sweep, r.quote_id, r.gpu_count, r.precision) for r in results} == {
        (SWEEP, quote.pk, 8, "bf16")
    }

    # The result page names the engine with its version.
    with page.expect_navigation():
        lines.nth(1).locator("a", has_text="open the result").click()
    facts = page.locator("#workload-shape dl")
    expect(facts).to_contain_text("vLLM 0.9.1")
    browser_page.shot("3-result-engine")
    browser_page.assert_no_console_errors()


def test_x11_hosted_api_run_uploads_without_gpus(browser_page, private_storage, engineer, tmp_path):
    """X11: choosing the hosted API hides the quote, accelerator, GPU count and precision;
    the LLMPerf run goes in attached to the route, and its page shows its latencies with no
    per-GPU figure."""
    fireworks = ProviderFactory(name="Fireworks", slug="fireworks")
    route = ModelApiRouteFactory(
        provider=fireworks, model_name="accounts/fireworks/models/llama-v3p1-70b-instruct"
    )
    path = tmp_path / "fireworks_summary.json"
    path.write_bytes(llmperf_summary())
    page = browser_page.page
    browser_page.login("engineer")
    browser_page.goto("/benchmarks/upload/")
    page.set_input_files("#id_file", str(path))
    expect(page.locator("[data-asked]")).to_contain_text("The file does not state the precision")
    page.select_option("#id_api_route", str(route.pk))
    expect(page.locator("#id_gpu_count")).to_be_hidden()
    expect(page.locator("#id_quote")).to_be_hidden()
    expect(page.locator("#id_precision")).to_be_hidden()
    expect(page.locator("[data-asked]")).to_be_hidden()
    browser_page.shot("1-hosted-api-chosen")
    page.click("[data-submit]")
    page.wait_for_url("**/benchmarks/results/*/")
    result = BenchmarkResult.objects.get()
    assert (result.api_route_id, result.gpu_count, result.accelerator_id) == (route.pk, None, None)
    expect(page.locator("main")).to_contain_text("hosted API")
    expect(page.locator("table.bm-percentiles")).to_contain_text("951.5")
    assert "per GPU" not in page.locator("main").inner_text()
    browser_page.shot("2-hosted-api-result")
    browser_page.assert_no_console_errors()
