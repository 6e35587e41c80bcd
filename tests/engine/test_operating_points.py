"""Issue 17: the cost is read at the operating point that meets the brief's service level."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine import cost
from engine.operating_points import (
    Latency,
    MeasuredPoint,
    ServiceLevel,
    choose_point,
    slo_attainment,
)
from engine.types import CandidateInput, Range, WorkloadInput

SWEEP = [
    MeasuredPoint("c1", concurrency=1, output_tokens_per_s=120, ttft_ms=Latency(p95=90)),
    MeasuredPoint("c10", concurrency=10, output_tokens_per_s=900, ttft_ms=Latency(p95=310)),
    MeasuredPoint("c50", concurrency=50, output_tokens_per_s=3100, ttft_ms=Latency(p95=835)),
    MeasuredPoint("c100", concurrency=100, output_tokens_per_s=4200, ttft_ms=Latency(p95=2600)),
    MeasuredPoint("c200", concurrency=200, output_tokens_per_s=4700, ttft_ms=Latency(p95=7900)),
]
SLO = ServiceLevel(ttft_p95_ms=2000)


def test_issue17_picks_the_highest_concurrency_meeting_the_target_not_the_peak():
    choice = choose_point(SWEEP, SLO)
    assert choice is not None
    assert choice.label == "c50"
    assert choice.meets is True
    assert choice.statement == "concurrency 50, TTFT p95 835 ms"


def _unit_cost(tokens_per_s: float, price: str = "2.50", gpus: int = 4) -> Decimal:
    workload = WorkloadInput(
        workload_class="realtime_inference",
        monthly_accepted_outputs=Range.fixed(1e6),
        utilisation=Range.fixed(1.0),
        output_tokens_per_request=300,
        input_tokens_per_request=1000,
    )
    cand = CandidateInput(
        id="q",
        label="q",
        kind="gpu",
        capacity_model="on_demand",
        price_per_gpu_hour=Decimal(price),
        gpus_per_replica=gpus,
        throughput_per_replica=Range.fixed(tokens_per_s),
    )
    return cost.point_estimate(workload, cand).unit_cost


def test_issue17_unit_cost_at_the_point_is_the_hand_formula():
    """utilisation 1, acceptance 1, failure 0, no labour: price × GPUs / (tokens/s × 3600) × 1e6
    = 2.50 × 4 / (3100 × 3600) × 1e6 = 0.896057… per 1M output tokens."""
    choice = choose_point(SWEEP, SLO)
    unit = _unit_cost(choice.output_tokens_per_s)
    expected = Decimal("2.50") * 4 / (Decimal(3100) * 3600) * Decimal(10**6)
    # cost lines are rounded to the cent: 268.817… → 268.82 over 3e8 tokens moves the unit
    # cost by at most 0.005 / 300 (≈ 0.0000167) per 1M tokens
    assert abs(unit - expected) <= Decimal("0.00002")


def test_issue17_a_point_past_the_service_level_never_lowers_the_cost():
    base = _unit_cost(choose_point(SWEEP, SLO).output_tokens_per_s)
    faster = MeasuredPoint(
        "c400", concurrency=400, output_tokens_per_s=9000, ttft_ms=Latency(p95=9e4)
    )
    again = choose_point([*SWEEP, faster], SLO)
    assert _unit_cost(again.output_tokens_per_s) == base


def test_issue17_goodput_from_request_samples_and_none_meeting_says_closest():
    point = MeasuredPoint(
        "x",
        concurrency=8,
        output_tokens_per_s=100,
        ttft_ms=Latency(p95=400),
        request_samples=((300, 10, 900, True), (450, 10, 900, True), (100, 10, 900, False)),
    )
    assert slo_attainment(point, ServiceLevel(ttft_p95_ms=400)) == 1 / 3
    none = choose_point(SWEEP[2:], ServiceLevel(ttft_p95_ms=500))
    assert none.meets is False
    assert none.label == "c50"
    assert "closest" in none.statement


def test_issue17_batch_takes_the_cheapest_point_and_says_so():
    choice = choose_point(SWEEP, ServiceLevel(), realtime=False)
    assert choice.label == "c200"
    assert "batch" in choice.statement


def _point(c: float, tps: float, ttft: float, samples=()) -> dict:
    return {
        "label": f"c{c:g}",
        "concurrency": c,
        "output_tokens_per_s": tps,
        "ttft_ms": {"p50": None, "p95": ttft, "p99": None, "mean": None},
        "request_samples": [list(s) for s in samples],
    }


def test_issue17_the_row_is_costed_and_labelled_at_the_point_meeting_the_brief():
    """The snapshot adapter reads a sweep at the brief's TTFT p95 ≤ 2 s, not at its peak."""
    from procurement.snapshot import thaw
    from tests.engine.snapshot_world import quote, result, snapshot

    sweep = [_point(8, 1200, 300), _point(32, 2400, 835), _point(64, 3000, 2600)]
    res = result(5, "meta-llama/Llama-3.1-70B-Instruct", operating_points=sweep)
    thawed = thaw(snapshot([quote(1, "2.50")], [res], ttft_p95_ms=2000, concurrency=32))
    perf = thawed.facts["quote:1"]["performance"]
    assert perf["tokens_per_s"] == 2400.0
    assert perf["evidence"]["operating_point"] == "concurrency 32, TTFT p95 835 ms"
    assert "at concurrency 32, TTFT p95 835 ms" in thawed.input.candidates[0].evidence_detail


def test_n6_slo_attainment_is_shown_and_never_multiplies_the_acceptance():
    """The slow request a p95 target allows was served: acceptance stays the measured 0.8,
    and the attainment 3 of 4 is shown beside the point."""
    from procurement.snapshot import thaw
    from tests.engine.snapshot_world import quote, result, snapshot

    samples = [(500, 10, 900, True)] * 3 + [(2500, 10, 900, True)]  # 3 of 4 meet TTFT 2 s
    sweep = [_point(32, 2400, 1900, samples)]
    res = result(
        5, "meta-llama/Llama-3.1-70B-Instruct", operating_points=sweep, acceptance_rate=0.8
    )
    thawed = thaw(snapshot([quote(1, "2.50")], [res], ttft_p95_ms=2000, concurrency=32))
    cand = thawed.input.candidates[0]
    assert cand.acceptance_rate is not None
    assert cand.acceptance_rate.likely == pytest.approx(0.8)
    evidence = thawed.facts["quote:1"]["performance"]["evidence"]
    assert evidence["goodput"] == evidence["slo_attainment"] == 0.75


BOTH_TARGETS = ServiceLevel(ttft_p95_ms=2000, e2e_p99_ms=20000)


def test_issue17_a_target_the_file_cannot_check_does_not_send_the_row_to_the_lowest_load():
    """vLLM's default output has no E2E percentiles. With TTFT p95 ≤ 2 s and E2E p99 ≤ 20 s,
    c50 fails no target the file can check: it is chosen (not c1 as 'closest'), with its
    verdict left open and the unchecked target named."""
    choice = choose_point(SWEEP, BOTH_TARGETS)
    assert choice is not None
    assert choice.label == "c50"
    assert choice.meets is None
    assert choice.unchecked == ("E2E p99",)
    assert "E2E p99 not in the file, so not checked" in choice.statement
    assert "closest" not in choice.statement


def test_issue17_an_unchecked_point_past_a_failing_one_is_not_trusted():
    """Latency rises with load: a point with no latency figures beyond the first point that
    fails a target is never chosen over the last one that failed none."""
    blind = MeasuredPoint("c400", concurrency=400, output_tokens_per_s=9000)
    choice = choose_point([*SWEEP, blind], BOTH_TARGETS)
    assert choice is not None
    assert choice.label == "c50"


def test_issue17_when_every_point_fails_a_checkable_target_the_closest_is_still_said():
    late = [p for p in SWEEP if p.label in {"c100", "c200"}]
    choice = choose_point(late, BOTH_TARGETS)
    assert choice is not None
    assert choice.meets is False
    assert choice.label == "c100"
    assert "closest" in choice.statement


def test_issue17_the_row_is_costed_at_the_point_failing_no_checkable_target():
    """The snapshot adapter and the engine: a vLLM sweep without E2E figures on a brief with
    TTFT p95 ≤ 2 s and E2E p99 ≤ 20 s is costed at c50 (3,100 tok/s), not c1 (120 tok/s);
    the row says E2E was not checked and never reads 'meets'."""
    from engine.comparison import run_comparison
    from procurement.snapshot import thaw
    from tests.engine.snapshot_world import quote, result, snapshot

    model = "meta-llama/Llama-3.1-70B-Instruct"
    sweep = [_point(1, 120, 90), _point(50, 3100, 835), _point(100, 4200, 2600)]
    headline = {"ttft_p95_ms": 2600.0, "e2e_p99_ms": None}
    targets = {"ttft_p95_ms": 2000, "e2e_p99_ms": 20000}
    swept = thaw(
        snapshot(
            [quote(1, "2.50")], [result(5, model, operating_points=sweep, **headline)], **targets
        )
    )
    perf = swept.facts["quote:1"]["performance"]
    assert perf["tokens_per_s"] == 3100.0
    assert perf["evidence"]["operating_point"].startswith("concurrency 50, TTFT p95 835 ms")
    assert "E2E p99 not in the file" in swept.input.candidates[0].evidence_detail

    # the same row measured at c50 alone costs the same: the sweep is read at c50
    alone = thaw(
        snapshot(
            [quote(1, "2.50")],
            [result(5, model, operating_points=[sweep[1]], **headline)],
            **targets,
        )
    )
    row = run_comparison(swept.input, seed=7, samples=200).candidates[0]
    reference = run_comparison(alone.input, seed=7, samples=200).candidates[0]
    assert row.unit_cost == reference.unit_cost
    codes = {w.code: w.detail for w in row.warnings}
    assert "LATENCY_TARGET_UNMET" not in codes
    assert "E2E p99" in codes["LATENCY_UNMEASURED"]
    assert not row.latency_verdict.startswith("meets")
    assert row.eligible
