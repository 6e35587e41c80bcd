"""Prefix caching on GPU rows and cache writes on API routes (issue 24, N10), by hand.

The audit's brief and quote (tests/comparisons/sweep_world.py); the comparison states a
cached share of input tokens (``cached_input_fraction``) of 50 %. Before, that share lowered
only the API routes' prices; a GPU row served by vLLM (automatic prefix caching) or SGLang
(RadixAttention) prefilled every prompt in full.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.comparisons.sweep_world import (
    audit_brief,
    compare,
    fitted_tokens_per_s,
    h100_quote,
    roofline_tokens_per_s,
    row,
    upload,
    vllm_file,
)
from tests.factories import ModelApiRouteFactory

pytestmark = pytest.mark.django_db


def _hand_total(tokens_per_s: float) -> Decimal:
    """1.25e6 requests × 200 tokens / tok/s / 3,600 = GPU-hours; / 0.5 utilisation; × $2.50."""
    hours = Decimal(1_250_000 * 200) / Decimal(str(tokens_per_s)) / 3600
    return (hours / Decimal("0.5") * Decimal("2.50")).quantize(Decimal("0.01"))


def test_n10_prefix_caching_lowers_prefill_on_a_measured_gpu_row(api_client, lead, engineer):
    """vLLM brief, files at c8 and c16 (2,500 tok/s, the point costed), half the input
    cached. At the brief's shape the roofline spends TTFT 40.445 ms of prefill a request
    (2 × 8e9 × 1,000 / 3.956e14) and an ITL of 9.108 ms a decode step ((16e9 + 16 × 144.2e6)
    / 2.01e12); 16 requests of 200 tokens take 16 × 40.445 + 200 × 9.108 ms of GPU time.
    Caching half the prompt halves the prefill: throughput × (0.6471 + 1.8216) / (0.3236 +
    1.8216) = × 1.1508, so 2,500 → 2,877.1 tok/s and the total falls from 138.89 to 120.69
    USD."""
    brief = audit_brief(lead, serving_engine="vLLM", serving_engine_version="0.6.3")
    quote = h100_quote(lead)
    api_client.force_authenticate(engineer)
    for concurrency, tokens in ((8, 1500), (16, 2500)):  # a sweep: the row charts its points
        upload(
            api_client,
            quote,
            brief,
            vllm_file(concurrency, tokens),
            serving_engine="vLLM",
            engine_version="0.6.3",
        )
    factor = roofline_tokens_per_s(16, cached=0.5) / roofline_tokens_per_s(16)
    assert factor == pytest.approx(1.1508, abs=1e-4)
    got = row(compare(lead, brief, [quote], cached_input_fraction=0.5), quote)
    perf = got.performance
    assert perf["evidence"]["kind"] == "measured"
    assert perf["tokens_per_s"] == pytest.approx(2500 * factor, abs=1e-3)
    assert got.total_usd == _hand_total(round(2500 * factor, 3))
    assert _hand_total(2500 * factor) == Decimal("120.69")
    assert perf["prefix_caching"].startswith(
        "vLLM caches prefixes (automatic prefix caching): 50 % of input tokens found in the "
        "prefix cache, prefill computed on the other 50 %; measured throughput ×1.151"
    )
    # the chart's points are scaled like the row: the chosen one costs what the row does
    (c16,) = [p for p in got.detail["operating_points"] if p["chosen"]]
    assert Decimal(c16["unit_cost"]) == got.unit_cost_usd
    # without a cached share the same row is the audit's 138.89
    plain = row(compare(lead, brief, [quote]), quote)
    assert plain.total_usd == Decimal("138.89")
    assert "prefix_caching" not in plain.performance


def test_n10_an_estimated_gpu_row_prefills_only_the_uncached_input(lead):
    """No benchmark: the roofline itself prefills 500 of the 1,000 input tokens,
    16 × 200 / (16 × 0.020222 + 200 × 0.009108) = 1,491.7 tok/s instead of 1,296.2. The row
    is costed on the fitted estimate (1,613.0 tok/s, `fitted_tokens_per_s`; SGLang is a
    serving software the fit has not seen: factor 1) with that same saving, × 1,491.7455 /
    1,296.2297 = × 1.1508: 1,856.3 tok/s."""
    brief = audit_brief(lead, serving_engine="SGLang")
    quote = h100_quote(lead)
    got = row(compare(lead, brief, [quote], cached_input_fraction=0.5), quote)
    perf = got.performance
    assert perf["evidence"]["kind"] == "estimated"
    assert perf["roofline_tokens_per_s"] == pytest.approx(
        roofline_tokens_per_s(16, cached=0.5), abs=1e-3
    )
    factor = roofline_tokens_per_s(16, cached=0.5) / roofline_tokens_per_s(16)
    assert fitted_tokens_per_s() == pytest.approx(1613.0, abs=0.1)
    assert perf["tokens_per_s"] == pytest.approx(fitted_tokens_per_s() * factor, abs=1e-2)
    assert perf["tokens_per_s"] == pytest.approx(1856.3, abs=0.1)
    assert roofline_tokens_per_s(16, cached=0.5) == pytest.approx(1491.7, abs=0.1)
    assert roofline_tokens_per_s(16) == pytest.approx(1296.2, abs=0.1)
    assert perf["prefix_caching"].startswith("SGLang caches prefixes (RadixAttention)")


def test_n10_no_prefix_caching_where_no_engine_that_caches_is_stated(api_client, lead, engineer):
    """A brief naming no engine, a file naming none: the row says why the cached share does
    not lower its prefill, and costs 138.89 as without it; an engine not known to cache
    prefixes (llama.cpp) says so too."""
    brief, quote = audit_brief(lead), h100_quote(lead)
    api_client.force_authenticate(engineer)
    upload(api_client, quote, brief, vllm_file(16, 2500))
    got = row(compare(lead, brief, [quote], cached_input_fraction=0.5), quote)
    assert got.total_usd == Decimal("138.89")
    assert got.performance["prefix_caching"] == (
        "not applied: no serving engine is stated (brief or benchmark), so the cached share "
        "of input tokens (50 %) lowers model-API prices only"
    )
    other = audit_brief(lead, serving_engine="llama.cpp")
    estimated = row(compare(lead, other, [quote], cached_input_fraction=0.5), quote)
    assert estimated.performance["prefix_caching"].startswith(
        "not applied: llama.cpp is not known to cache prefixes"
    )
    assert estimated.performance["roofline_tokens_per_s"] == pytest.approx(
        roofline_tokens_per_s(16), abs=1e-3
    )
    # the upload above put a measured ÷ roofline pair in the calibration ledger: the ledger
    # moves the figure its ratios were taken against, the unfitted roofline's
    assert estimated.performance["calibration_applied"]
    assert estimated.performance["tokens_per_s"] == pytest.approx(
        roofline_tokens_per_s(16), abs=1e-3
    )


def test_n10_cache_writes_are_charged_at_the_routes_cache_write_price(lead):
    """A route at $3.00 input, $0.30 cached input, $3.75 cache write and $15.00 output per
    1M tokens; half the input read from the cache and a tenth written to it. One request:
    1,000 × (0.4 × 3.00 + 0.5 × 0.30 + 0.1 × 3.75) + 200 × 15.00 = 4,725 per 1M, so
    $0.004725; 1,000,000 accepted answers cost $4,725.00 of API compute (before: the write
    was billed as ordinary input, 1,000 × (0.5 × 3.00 + 0.5 × 0.30) + 3,000 = 4,650)."""
    brief = audit_brief(lead)
    prices = {
        "price_input_per_m_tokens": Decimal("3.00"),
        "price_cached_input_per_m_tokens": Decimal("0.30"),
        "price_output_per_m_tokens": Decimal("15.00"),
    }
    writes = ModelApiRouteFactory(
        model_profile=brief.model, price_cache_write_per_m_tokens=Decimal("3.75"), **prices
    )
    plain = ModelApiRouteFactory(model_profile=brief.model, **prices)
    comparison = compare(
        lead,
        brief,
        [],
        route_ids=[writes.pk, plain.pk],
        cached_input_fraction=0.5,
        cache_write_fraction=0.1,
    )
    assert comparison.status == "ready", comparison.error
    lines = {
        route.pk: comparison.candidates.get(key=f"api:{route.pk}").cost_lines
        for route in (writes, plain)
    }
    assert Decimal(lines[writes.pk]["api_compute"]) == Decimal("4725.00")
    # a route that does not price writes bills the written tenth as ordinary input
    assert Decimal(lines[plain.pk]["api_compute"]) == Decimal("4650.00")
    applied = {(a["name"], a["candidate_id"]): a for a in comparison.result["assumptions_applied"]}
    assert applied[("cache_write_fraction", "")]["value"] == 0.1
    assert applied[("cache_write_fraction", "")]["source"] == "override"


def test_n10_n3_the_results_page_states_prefix_caching_and_calibration(lead, login):
    """The row says why its throughput is what it is: the prefix cache, and (N3) the ledger's
    calibration when one applies."""
    from catalog.models import CalibrationEntry

    brief = audit_brief(lead, serving_engine="vLLM")
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
    html = login(lead).get(f"/comparisons/{comparison.pk}/").content.decode()
    assert "prefix caching: vLLM caches prefixes (automatic prefix caching)" in html
    assert "throughput: default spread widened to the observed measured/estimate ratios" in html
    assert "1 benchmark result of Llama 3.1 8B at bf16 (Real-time inference)" in html
