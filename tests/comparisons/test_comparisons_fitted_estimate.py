"""Estimated GPU rows on the fitted estimate (engine 1.9.0; issue 36, E13, P6, P7), by hand.

The decision audit's brief and H100 quote (tests/comparisons/sweep_world.py): Llama 3.1 8B in
BF16, concurrency 16, ITL p95 target 50 ms, no benchmark uploaded, so every GPU row is an
estimate. The figures are the fitted roofline written out from
engine/fitted/data/1.9.0/parameters.json (`fitted_tokens_per_s` has the arithmetic); the bands
are engine/fitted/data/1.9.0/bands.json's out-of-sample p10–p90 of measured ÷ estimate by
regime. A snapshot frozen by engine 1.8.0 keeps 1.8.0's parameters and bands.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from procurement.services.comparisons.compute import compute
from tests.comparisons.factories_comparisons import answer_checklist
from tests.comparisons.sweep_world import (
    audit_brief,
    compare,
    fitted_tokens_per_s,
    h100_quote,
    roofline_tokens_per_s,
    row,
)
from tests.factories import AcceleratorFactory, QuoteFactory

pytestmark = pytest.mark.django_db

THROUGHPUT_BOUND = [0.9011, 1.2847]  # 1.9.0/bands.json "throughput-bound" p10, p90
LATENCY_BOUND = [0.8535, 1.4076]  # 1.9.0/bands.json "latency-bound" p10, p90


def test_e13_an_estimated_row_is_the_fitted_estimate_at_the_brief_mean_request(lead):
    """Mean prompt 500 tokens (p95 1,000), mean answer 200. At the mean request (the power
    factor 0.933439 and the η's as in `fitted_tokens_per_s`):
    decode step = (16e9 + 16 × 131,072 × (500 + 100)) / (3.35e12 × 0.9)
                  + 2 × 8e9 × 16 / (989e12 × 0.933439 × 0.9) = 5.7241 + 0.3081 = 6.0323 ms;
    prefill = (2 × 8e9 × 500 + 2 × 32 × 500² × 4,096) / (989e12 × 0.933439 × 0.487328)
            = 17.928 ms;
    per token 6.0323 + 16 × 17.928 / 200 = 7.47 ms ≤ 0.646025 × 50 ms: throughput-bound;
    16 × 200 / (16 × 0.017928 + 200 × 0.0060323) × 0.934702 = 2,142.9 × 0.934702 = 2,003.0.
    The latencies stay the roofline's at the p95 request (TTFT 40.445 ms, ITL 9.108 ms)."""
    brief = audit_brief(lead, mean_input_tokens=500)
    quote = h100_quote(lead)
    perf = row(compare(lead, brief, [quote]), quote).performance
    assert fitted_tokens_per_s(16, 500, 200) == pytest.approx(2003.0, abs=0.1)
    assert perf["tokens_per_s"] == pytest.approx(fitted_tokens_per_s(16, 500, 200), abs=1e-2)
    assert perf["estimate"] == {
        "estimator": "fitted",
        "regime": "throughput-bound",
        "band": THROUGHPUT_BOUND,
        "error_group": "fitted 1.9.0:throughput-bound|hopper",
        "request": [500.0, 200.0],
    }
    # the unfitted roofline's figure stays beside it, read at the p95 request as before
    assert perf["roofline_tokens_per_s"] == pytest.approx(roofline_tokens_per_s(16), abs=1e-3)
    assert perf["ttft_p95_ms"] == pytest.approx(40.445, abs=1e-3)
    assert perf["itl_p95_ms"] == pytest.approx(9.108, abs=1e-3)


def test_p7_a_tight_itl_target_makes_the_row_latency_bound_with_its_wider_band(lead):
    """ITL target 12 ms (the roofline's 9.108 ms at the p95 request meets it, and one GPU
    costs less than two): the batch must keep step + its share of prefill within 0.646025 ×
    12 = 7.7523 ms. Per token = 5.30680 ms + B × (0.047821 + 0.019257 + 0.180736) ms (KV read
    and GEMMs per request, and 36.1472 ms of prefill over 200 tokens), so B = (7.7523 −
    5.30680) / 0.247814 = 9.8683 requests, below the 16 memory and the brief allow;
    step(9.8683) = 5.30680 + 9.8683 × 0.067078 = 5.96874 ms and 9.8683 × 200 / (9.8683 ×
    0.0361472 + 200 × 0.00596874) × 0.934702 = 1,272.96 × 0.934702 = 1,189.8 tok/s, with the
    latency-bound p10–p90 ×0.8535–×1.4076."""
    brief = audit_brief(lead, itl_p95_ms=12)
    quote = h100_quote(lead)
    perf = row(compare(lead, brief, [quote]), quote).performance
    assert perf["configuration"]["gpus_per_replica"] == 1
    assert perf["tokens_per_s"] == pytest.approx(1189.8, abs=0.1)
    assert perf["estimate"]["regime"] == "latency-bound"
    assert perf["estimate"]["band"] == LATENCY_BOUND
    assert perf["estimate"]["error_group"] == "fitted 1.9.0:latency-bound|hopper"


def test_p6_two_estimates_on_one_model_of_error_are_never_cheapest_in_100_percent(lead):
    """H100 SXM (3.35 TB/s) and H200 (4.8 TB/s) rows, both estimated, both Hopper. H200's step
    = (16e9 + 16 × 131,072 × 1,100) / (4.8e12 × 0.9) + 0.3081 ms = 4.5458 ms, so it serves
    3,200 / (16 × 0.0361472 + 200 × 0.0045458) × 0.934702 = 2,010.8 tok/s against H100's
    1,613.0. Priced at 2.50 and 2.50 × 2,010.8 / 1,613.0 = 3.12 USD per GPU-hour, their likely unit
    costs are within 0.1 % and their bands overlap: P(cheapest) splits between them, neither
    reads 100 % (finding P6), and both rows draw in the one estimator error group."""
    h100 = h100_quote(lead, price="2.50")
    h200_gpu = AcceleratorFactory(
        slug="h200-sxm-141gb", name="H200 SXM 141GB", memory_gb=141.0, memory_bandwidth_tbps=4.8
    )
    h200 = QuoteFactory(accelerator=h200_gpu, price_per_gpu_hour=Decimal("3.12"))
    answer_checklist(h200.provider, lead)
    comparison = compare(lead, audit_brief(lead), [h100, h200])
    a, b = row(comparison, h100), row(comparison, h200)
    assert a.performance["tokens_per_s"] == pytest.approx(1613.0, abs=0.1)
    assert b.performance["tokens_per_s"] == pytest.approx(2010.8, abs=0.1)
    assert a.performance["estimate"]["error_group"] == b.performance["estimate"]["error_group"]
    assert a.eligible
    assert b.eligible
    assert a.prob_cheapest + b.prob_cheapest == pytest.approx(1.0, abs=1e-9)
    assert 0.1 < a.prob_cheapest < 0.9
    assert 0.1 < b.prob_cheapest < 0.9


def test_a_snapshot_frozen_before_engine_1_7_0_recomputes_on_the_unfitted_roofline(lead):
    """The same snapshot read as frozen by engine 1.6.0 costs its estimated row as 1.6.0 did:
    the roofline at the p95 request (1,296.2 tok/s), the ×0.75–×1.10 band, no error group."""
    brief = audit_brief(lead)
    quote = h100_quote(lead)
    comparison = compare(lead, brief, [quote])
    key = f"quote:{quote.pk}"
    new = {r["key"]: r for r in compute(comparison.snapshot, seed=7, samples=200).rows}[key]
    old_snapshot = {**comparison.snapshot, "engine_version": "1.6.0"}
    old = {r["key"]: r for r in compute(old_snapshot, seed=7, samples=200).rows}[key]
    assert new["performance"]["tokens_per_s"] == pytest.approx(1612.977, abs=1e-3)
    assert old["performance"]["tokens_per_s"] == pytest.approx(roofline_tokens_per_s(16), abs=1e-3)
    assert "estimate" not in old["performance"]
    assert "roofline_tokens_per_s" not in old["performance"]
    # a frozen snapshot of any version computes the same twice (ADR 0003)
    again = {r["key"]: r for r in compute(old_snapshot, seed=7, samples=200).rows}[key]
    assert again["unit_cost_usd"] == old["unit_cost_usd"]


def test_p6_a_cheaper_estimate_is_not_certain_while_the_bands_overlap(lead):
    """As above with H200 at 2.83 USD per GPU-hour: its likely unit cost is 2.83 / 2,010.8 ÷
    (2.50 / 1,613.0) = 0.908 of H100's, 9 % cheaper, well inside either row's ×0.901–×1.285
    band; it is the likelier cheapest, but not certainly (finding P6)."""
    h100 = h100_quote(lead, price="2.50")
    h200_gpu = AcceleratorFactory(
        slug="h200-sxm-141gb", name="H200 SXM 141GB", memory_gb=141.0, memory_bandwidth_tbps=4.8
    )
    h200 = QuoteFactory(accelerator=h200_gpu, price_per_gpu_hour=Decimal("2.83"))
    answer_checklist(h200.provider, lead)
    comparison = compare(lead, audit_brief(lead), [h100, h200])
    a, b = row(comparison, h100), row(comparison, h200)
    assert b.unit_cost_usd / a.unit_cost_usd == pytest.approx(
        Decimal("0.908"), abs=Decimal("0.002")
    )
    assert 0.5 < b.prob_cheapest < 0.95
    assert a.prob_cheapest > 0.05


def test_a_snapshot_frozen_by_engine_1_8_0_keeps_its_parameters_bands_and_error_group(lead):
    """The same snapshot read as frozen by engine 1.8.0 costs its estimated row on
    engine/fitted/data/1.8.0 (η_memory 1.0, η_compute 1.0, η_prefill 0.433858, κ 0.827939,
    σ 0.93238, power by TDP: 700 W, factor 1):
    step = (16e9 + 16 × 131,072 × 1,100) / 3.35e12 + 2 × 8e9 × 16 / 989e12 = 5.7236 ms,
    prefill = (2 × 8e9 × 1,000 + 2 × 32 × 1,000² × 4,096) / (989e12 × 0.433858) = 37.899 ms,
    16 × 200 / (16 × 0.037899 + 200 × 0.0057236) × 0.93238 = 1,703.8 tok/s, with 1.8.0's
    throughput-bound band ×0.898–×1.6071 and its error group as it was frozen."""
    comparison = compare(lead, audit_brief(lead), [quote := h100_quote(lead)])
    old_snapshot = {**comparison.snapshot, "engine_version": "1.8.0"}
    old = {r["key"]: r for r in compute(old_snapshot, seed=7, samples=200).rows}
    perf = old[f"quote:{quote.pk}"]["performance"]
    assert perf["tokens_per_s"] == pytest.approx(1703.8, abs=0.1)
    assert perf["estimate"]["band"] == [0.898, 1.6071]
    assert perf["estimate"]["error_group"] == "fitted:throughput-bound|hopper"
