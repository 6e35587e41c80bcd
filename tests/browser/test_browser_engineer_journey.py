"""Journey 2 (PRODUCT.md): a platform engineer drops a vLLM result file and sees the
percentiles and the charts at once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from benchmarks.models import BenchmarkResult
from tests.factories import AcceleratorFactory, ProviderFactory, QuoteFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FIXTURES = Path(__file__).resolve().parents[1] / "parsers" / "fixtures"
VLLM_SAMPLE = (
    FIXTURES / "vllm-serve" / "llmd_exp7_H100_vllm-2replicas_benchmark_2025-05-13_04-55-27.json"
)


def test_engineer_uploads_vllm_result_and_sees_percentiles_and_charts(
    browser_page, private_storage, engineer
):
    summary = json.loads(VLLM_SAMPLE.read_text())
    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")
    quote = QuoteFactory(
        provider=ProviderFactory(name="Northwind", slug="northwind"), accelerator=h100
    )
    page = browser_page.page

    browser_page.login("engineer")
    page.click("nav.mainnav >> text=Benchmarks")
    with page.expect_navigation():
        page.click("nav.bm-tabs >> text=Upload")
    expect(page.locator("[data-dropzone]")).to_be_visible()
    expect(page.locator("[data-progress]")).to_be_hidden()

    # Drop the file (the drop zone fills the same input), say what ran it.
    page.set_input_files("#id_file", str(VLLM_SAMPLE))
    expect(page.locator("[data-file-name]")).to_contain_text(VLLM_SAMPLE.name)
    page.select_option("#id_quote", str(quote.pk))
    page.fill("#id_gpu_count", "2")
    page.select_option("#id_precision", "bf16")  # the file does not state it (issue 14)
    page.fill("#id_serving_engine", "vLLM 0.8.5")
    page.fill("#id_parallelism", "TP=1, 2 replicas")
    browser_page.shot("1-upload-form")

    # The upload shows its progress (latency added so the short upload can be seen).
    browser_page.slow_network(latency_ms=1500)
    page.click("[data-submit]")
    expect(page.locator("[data-progress]")).to_be_visible()
    expect(page.locator("[data-progress-text]")).to_contain_text("…")
    expect(page.locator("[data-submit]")).to_be_disabled()
    browser_page.shot("2-upload-progress")
    page.wait_for_url("**/benchmarks/results/*/")
    browser_page.slow_network(latency_ms=0)
    page.wait_for_load_state("load")

    # The result: parsed, the percentile table with the file's p99, the charts drawn.
    result = BenchmarkResult.objects.get()
    assert result.status == BenchmarkResult.Status.PARSED
    assert result.gpu_count == 2
    expect(page.locator("#result-status")).to_contain_text("Parsed")
    table = page.locator("table.bm-percentiles")
    ttft = table.locator("tbody tr", has_text="Time to first token").locator("td")
    expect(ttft).to_have_text(  # p50, p95, p99, mean, as the file states them
        [
            f"{summary[k]:.1f}"
            for k in ("median_ttft_ms", "p95_ttft_ms", "p99_ttft_ms", "mean_ttft_ms")
        ]
    )
    assert ttft.nth(2).inner_text() == "261.7"
    itl = table.locator("tbody tr", has_text="Inter-token").locator("td")
    expect(itl.nth(2)).to_have_text(f"{summary['p99_itl_ms']:.1f}")
    charts = page.locator(".chart[data-plotly]")
    assert charts.count() >= 1
    for i in range(charts.count()):
        expect(charts.nth(i).locator("svg.main-svg").first).to_be_visible()
    assert page.locator(".js-plotly-plot").count() == charts.count()
    browser_page.shot("3-result")

    # The list shows it too.
    page.click("nav.mainnav >> text=Benchmarks")
    expect(page.locator("main table").first).to_contain_text(VLLM_SAMPLE.name[:20])
    browser_page.assert_no_console_errors()


AIPERF_SAMPLE = FIXTURES / "aiperf" / "aiperf_examples_run1_profile_export.jsonl"


def test_u18_upload_asks_for_the_model_and_keeps_the_chosen_file(
    browser_page, private_storage, engineer
):
    """A per-request export that does not name its model: the form asks for it, the file
    stays chosen, and only the model has to be picked before sending again."""
    from tests.factories import ModelProfileFactory

    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")
    quote = QuoteFactory(
        provider=ProviderFactory(name="Northwind", slug="northwind"), accelerator=h100
    )
    profile = ModelProfileFactory(slug="gpt-oss-20b", name="gpt-oss-20b")
    page = browser_page.page
    browser_page.login("engineer")
    browser_page.goto("/benchmarks/upload/")
    page.set_input_files("#id_file", str(AIPERF_SAMPLE))
    page.select_option("#id_quote", str(quote.pk))
    page.fill("#id_gpu_count", "1")
    page.select_option("#id_precision", "fp4")  # asked too when missing (issue 14)
    page.click("[data-submit]")

    expect(page.locator("#id_model_profile")).to_be_visible()
    expect(page.locator("#upload-panel .bm-errors")).to_contain_text("choose its model profile")
    expect(page.locator("[data-file-name]")).to_contain_text(AIPERF_SAMPLE.name)
    assert not BenchmarkResult.objects.exists()
    browser_page.shot("model-asked")

    page.select_option("#id_model_profile", profile.slug)
    page.click("[data-submit]")
    page.wait_for_url("**/benchmarks/results/*/")
    result = BenchmarkResult.objects.get()
    assert (result.model_profile_id, result.model_name) == (profile.pk, "gpt-oss-20b")
    # the only console error is the expected answer asking for the model
    assert all("status of 400" in e and "/benchmarks/upload/" in e for e in browser_page.errors)
