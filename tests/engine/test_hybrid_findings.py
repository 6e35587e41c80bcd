"""Hybrid plan and break-even: D5, D6, D7 (decision audit)."""

from __future__ import annotations

from decimal import Decimal

from engine import cost
from engine.comparison import run_comparison
from engine.plan.breakeven import breakeven, hybrid_plan
from engine.types import (
    CandidateInput,
    ComparisonInput,
    PointEstimate,
    WorkloadInput,
)
from tests.engine.builders import fixed

D = Decimal


def workload(volume: float, peak: float = 1.0) -> WorkloadInput:
    # 100 tokens/s, 3,600 tokens per output: 36 GPU-s; one replica carries 73,000 a month
    return WorkloadInput(
        workload_class="batch_inference",
        monthly_accepted_outputs=fixed(volume),
        utilisation=fixed(1.0),
        peak_to_average=fixed(peak),
        output_tokens_per_request=3600,
    )


def gpu(cid: str, model: str, price: str) -> CandidateInput:
    return CandidateInput(
        id=cid,
        label=cid,
        kind="gpu",
        capacity_model=model,  # type: ignore[arg-type]
        accelerator="h100",
        price_per_gpu_hour=D(price),
        throughput_per_replica=fixed(100),
        perf_source="measured",
        has_acceptance_data=True,
    )


def estimates(w: WorkloadInput, cands: list[CandidateInput]) -> dict[str, PointEstimate]:
    return {c.id: cost.point_estimate(w, c) for c in cands}


def test_d5_the_overflow_is_only_what_exceeds_the_whole_replicas_paid_for() -> None:
    """D5: at f = 0.05 the plan paid for a whole replica and still sent most load elsewhere."""
    # peak 2 × 7,300 outputs needs 0.2 of one replica: any f > 0 buys that one replica,
    # which carries everything.
    w = workload(7300, peak=2.0)
    cands = [gpu("od", "on_demand", "4.00"), gpu("rs", "reserved", "2.00")]
    plan = hybrid_plan(w, cands, estimates(w, cands))
    assert plan is not None
    curve = dict(plan.split_curve)
    assert curve[0.05] == curve[1.0]
    assert all(curve[f] == curve[1.0] for f in curve if f > 0)


def test_d6_all_elastic_and_all_fixed_are_grid_points_and_a_losing_plan_says_so() -> None:
    """D6: f = 0 was not in the grid and a plan 6× dearer was shown as "the" plan."""
    # 1,000 outputs: on-demand 1,000 × 36 s × 4.00 / 3,600 = 40.00; a reserved replica 1,460
    w = workload(1000, peak=2.0)
    cands = [gpu("od", "on_demand", "4.00"), gpu("rs", "reserved", "2.00")]
    out = run_comparison(ComparisonInput(w, tuple(cands)), seed=1, samples=100)
    assert out.recommended_candidate_id == "od"
    plan = out.hybrid
    assert plan is not None
    assert plan.split_curve[0][0] == 0.0
    assert plan.split_curve[-1][0] == 1.0
    assert plan.split_curve[0][1] == out.outcome("od").unit_cost  # f = 0: on-demand alone
    assert plan.beats_recommendation is False
    assert plan.recommended_unit_cost == out.outcome("od").unit_cost
    assert "no hybrid split is cheaper than the recommendation" in plan.note


def test_d7_a_fixed_capacity_step_is_the_crossing_not_an_interpolation() -> None:
    """D7: break-even interpolated across the step where reserved needs a second replica."""
    w = workload(60_000)
    rs = gpu("rs", "reserved", "2.00")
    od = gpu("od", "on_demand", "2.40")  # 0.024 per output
    # reserved 1 replica (≤ 73,000): 1,460 → on-demand dearer above 60,833.3 (continuous)
    # past 73,000: reserved 2,920 vs on-demand 1,752 → on-demand cheaper AT the step
    # 2 replicas (≤ 146,000): on-demand dearer again above 121,666.7 (continuous)
    # past 146,000: reserved 4,380 vs 3,504 → on-demand cheaper at the step, and so on.
    cands = [od, rs]
    result = breakeven(w, cands, estimates(w, cands), accelerator="h100")
    assert result is not None
    found = [
        (round(c.monthly_accepted_outputs, 1), c.cheaper_above, c.at_step) for c in result.crossings
    ]
    # 6 significant digits: 60,833.3 and 121,667
    assert found[:5] == [
        (60833.3, "reserved", False),
        (73000.0, "on_demand", True),
        (121667.0, "reserved", False),
        (146000.0, "on_demand", True),
        (182500.0, "reserved", False),
    ]
    assert (219000.0, "on_demand", True) in found
