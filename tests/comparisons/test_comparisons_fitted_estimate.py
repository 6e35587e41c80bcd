"""Estimated GPU rows on the fitted estimate (engine 1.7.0; issue 36, E13, P6, P7), by hand.

The decision audit's brief and H100 quote (tests/comparisons/sweep_world.py): Llama 3.1 8B in
BF16, concurrency 16, ITL p95 target 50 ms, no benchmark uploaded, so every GPU row is an
estimate. The figures are the fitted roofline written out from
engine/fitted/data/parameters.json (`fitted_tokens_per_s` has the arithmetic); the bands are
engine/fitted/data/bands.json's out-of-sample p10–p90 of measured ÷ estimate by regime.
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

THROUGHPUT_BOUND = [0.898, 1.6071]  # bands.json "throughput-bound" p10, p90
LATENCY_BOUND = [0.7861, 2.0753]  # bands.json "latency-bound" p10, p90


def test_e13_an_estimated_row_is_the_fitted_estimate_at_the_brief_mean_request(lead):
    """Mean prompt 500 tokens (p95 1,000), mean answer 200. At the mean request:
    decode step = (16e9 + 16 × 131,072 × (500 + 100)) / 3.35e12 + 2 × 8e9 × 16 / 989e12
                = 5.1518 + 0.2588 = 5.4106 ms;
    prefill = (2 × 8e9 × 500 + 2 × 32 × 500² × 4,096) / (989e12 × 0.433858) = 18.797 ms;
    per token 5.4106 + 16 × 18.797 / 200 = 6.91 ms ≤ 0.827939 × 50 ms: throughput-bound;
    16 × 200 / (16 × 0.018797 + 200 × 0.0054106) × 0.93238 = 2,314.0 × 0.93238 = 2,157.5 tok/s.
    The latencies stay the roofline's at the p95 request (TTFT 40.445 ms, ITL 9.108 ms)."""
    brief = audit_brief(lead, mean_input_tokens=500)
    quote = h100_quote(lead)
    perf = row(compare(lead, brief, [quote]), quote).performance
    assert fitted_tokens_per_s(16, 500, 200) == pytest.approx(2157.5, abs=0.1)
    assert perf["tokens_per_s"] == pytest.approx(fitted_tokens_per_s(16, 500, 200), abs=1e-2)
    assert perf["estimate"] == {
        "estimator": "fitted",
        "regime": "throughput-bound",
        "band": THROUGHPUT_BOUND,
        "error_group": "fitted:throughput-bound|hopper",
        "request": [500.0, 200.0],
    }
    # the unfitted roofline's figure stays beside it, read at the p95 request as before
    assert perf["roofline_tokens_per_s"] == pytest.approx(roofline_tokens_per_s(16), abs=1e-3)
    assert perf["ttft_p95_ms"] == pytest.approx(40.445, abs=1e-3)
    assert perf["itl_p95_ms"] == pytest.approx(9.108, abs=1e-3)


def test_p7_a_tight_itl_target_makes_the_row_latency_bound_with_its_wider_band(lead):
    """ITL target 10 ms (the roofline's 9.108 ms at the p95 request meets it, so the row keeps
    one GPU): the batch must keep step + its share of prefill within 0.827939 × 10 = 8.2794 ms.
    Per token = 4.77612 ms + B × (0.043038 + 0.016178 + 0.189498) ms (KV read and GEMMs per
    request, and 37.8995 ms of prefill over 200 tokens), so B = (8.27939 − 4.77612) /
    0.248714 = 14.0855 requests, below the 16 memory and the brief allow; step(14.0855) =
    4.77612 + 14.0855 × 0.059216 = 5.61022 ms and 14.0855 × 200 / (14.0855 × 0.0378995 +
    200 × 0.00561022) × 0.93238 = 1,701.3 × 0.93238 = 1,586.2 tok/s, with the latency-bound
    p10–p90 ×0.7861–×2.0753."""
    brief = audit_brief(lead, itl_p95_ms=10)
    quote = h100_quote(lead)
    perf = row(compare(lead, brief, [quote]), quote).performance
    assert perf["configuration"]["gpus_per_replica"] == 1
    assert perf["tokens_per_s"] == pytest.approx(1586.2, abs=0.1)
    assert perf["estimate"]["regime"] == "latency-bound"
    assert perf["estimate"]["band"] == LATENCY_BOUND
    assert perf["estimate"]["error_group"] == "fitted:latency-bound|hopper"


def test_p6_two_estimates_on_one_model_of_error_are_never_cheapest_in_100_percent(lead):
    """H100 SXM (3.35 TB/s) and H200 (4.8 TB/s) rows, both estimated, both Hopper. H200's step
    = (16e9 + 16 × 131,072 × 1,100) / 4.8e12 + 0.2588 ms = 4.0728 ms, so it serves
    3,200 / (16 × 0.037899 + 200 × 0.0040728) × 0.93238 = 2,099.7 tok/s against H100's 1,703.8.
    Priced at 2.50 and 2.50 × 2,099.7 / 1,703.8 = 3.08 USD per GPU-hour, their likely unit
    costs are within 0.1 % and their bands overlap: P(cheapest) splits between them, neither
    reads 100 % (finding P6), and both rows draw in the one estimator error group."""
    h100 = h100_quote(lead, price="2.50")
    h200_gpu = AcceleratorFactory(
        slug="h200-sxm-141gb", name="H200 SXM 141GB", memory_gb=141.0, memory_bandwidth_tbps=4.8
    )
    h200 = QuoteFactory(accelerator=h200_gpu, price_per_gpu_hour=Decimal("3.08"))
    answer_checklist(h200.provider, lead)
    comparison = compare(lead, audit_brief(lead), [h100, h200])
    a, b = row(comparison, h100), row(comparison, h200)
    assert a.performance["tokens_per_s"] == pytest.approx(1703.8, abs=0.1)
    assert b.performance["tokens_per_s"] == pytest.approx(2099.7, abs=0.1)
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
    assert new["performance"]["tokens_per_s"] == pytest.approx(1703.843, abs=1e-3)
    assert old["performance"]["tokens_per_s"] == pytest.approx(roofline_tokens_per_s(16), abs=1e-3)
    assert "estimate" not in old["performance"]
    assert "roofline_tokens_per_s" not in old["performance"]
    # a frozen snapshot of any version computes the same twice (ADR 0003)
    again = {r["key"]: r for r in compute(old_snapshot, seed=7, samples=200).rows}[key]
    assert again["unit_cost_usd"] == old["unit_cost_usd"]


def test_p6_a_cheaper_estimate_is_not_certain_while_the_bands_overlap(lead):
    """As above with H200 at 2.80 USD per GPU-hour: its likely unit cost is 2.80 / 2,099.7 ÷
    (2.50 / 1,703.8) = 0.909 of H100's, 9 % cheaper, well inside either row's ×0.898–×1.607
    band; it is the likelier cheapest, but not certainly (finding P6)."""
    h100 = h100_quote(lead, price="2.50")
    h200_gpu = AcceleratorFactory(
        slug="h200-sxm-141gb", name="H200 SXM 141GB", memory_gb=141.0, memory_bandwidth_tbps=4.8
    )
    h200 = QuoteFactory(accelerator=h200_gpu, price_per_gpu_hour=Decimal("2.80"))
    answer_checklist(h200.provider, lead)
    comparison = compare(lead, audit_brief(lead), [h100, h200])
    a, b = row(comparison, h100), row(comparison, h200)
    assert b.unit_cost_usd / a.unit_cost_usd == pytest.approx(
        Decimal("0.909"), abs=Decimal("0.002")
    )
    assert 0.5 < b.prob_cheapest < 0.95
    assert a.prob_cheapest > 0.05
