"""A fixed base with elastic overflow, in the one plan engine, and break-even: A16, D5, D6,
D7."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from engine import cost
from engine.comparison import run_comparison
from engine.plan.breakeven import breakeven
from engine.plan.mixed_comparison import comparison_plan
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


def _plan(w: WorkloadInput, cands: list[CandidateInput]) -> dict[str, Any]:
    inp = ComparisonInput(w, tuple(cands))
    return comparison_plan(inp, run_comparison(inp, seed=1, samples=100), seed=1, samples=100)


def test_a16_a_committed_base_with_elastic_overflow_is_the_plan_across_offers() -> None:
    """A16: the hybrid split is the plan across offers' case of one fixed and one elastic
    offer, solved by the one plan engine.

    730,000 outputs × 36 GPU-s = 7,300 GPU-hours, 10 replicas on average, 40 at the peak
    (peak-to-average 4). Reserved alone: 40 × 730 × 1.50 = 43,800.00; on demand alone:
    7,300 × 4.00 = 29,200.00. The plan holds 8 reserved replicas (8 × 730 × 1.50 =
    8,760.00), a fifth of the peak; the rest of the month's load is overflow(0.2, 4) =
    1 − 0.2^(4/3) − 0.8 × (1 − 0.2^(1/3)) = 0.550882 of it: 7,300 × 0.550882 = 4,021.44
    GPU-hours on demand × 4.00 = 16,085.76. Total 24,845.76 a month."""
    w = workload(730_000, peak=4.0)
    plan = _plan(w, [gpu("od", "on_demand", "4.00"), gpu("rs", "reserved", "1.50")])
    lines = {line["offer_id"]: line for line in plan["lines"]}
    assert lines["rs"]["role"] == "base"
    assert lines["rs"]["replicas"] == 8
    assert D(lines["rs"]["monthly_cost"]) == D("8760.00")
    assert lines["od"]["role"] == "overflow"
    assert D(lines["od"]["monthly_cost"]) == D("16085.76")
    assert D(plan["monthly_cost"]) == D("24845.76")
    assert D(plan["vs_recommended_usd"]) == D("29200.00") - D("24845.76")


def test_d5_the_overflow_is_only_what_exceeds_the_whole_replicas_paid_for() -> None:
    """D5: a split paid for a whole replica and still sent load elsewhere. Peak 2 × 7,300
    outputs needs 0.2 of one replica: the reserved replica (730 × 2.00 = 1,460.00) carries
    everything, and on demand (7,300 × 36 s × 4.00 = 292.00) is cheaper still: the plan is
    that row alone, with no overflow line."""
    w = workload(7300, peak=2.0)
    plan = _plan(w, [gpu("od", "on_demand", "4.00"), gpu("rs", "reserved", "2.00")])
    assert plan["status"] == "single"
    assert [line["offer_id"] for line in plan["lines"]] == ["od"]
    assert D(plan["monthly_cost"]) == D("292.00")


def test_d6_a_split_dearer_than_the_recommendation_is_not_the_plan() -> None:
    """D6: a plan 6× dearer was shown as "the" plan. 1,000 outputs: on demand 1,000 × 36 s
    × 4.00 / 3,600 = 40.00; a reserved replica 1,460.00: the plan is the recommended row."""
    w = workload(1000, peak=2.0)
    plan = _plan(w, [gpu("od", "on_demand", "4.00"), gpu("rs", "reserved", "2.00")])
    assert plan["status"] == "single"
    assert plan["recommended_id"] == "od"
    assert D(plan["monthly_cost"]) == D("40.00")
    assert "recommended row" in plan["outcome"]


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


def test_u6_elastic_gpus_at_the_peak_are_whole_replicas_of_the_configuration() -> None:
    """U6: an 8-GPU configuration read "up to 1 GPU at peak". 73,000 outputs a month, flat:
    100 an hour; one 8-GPU replica serves 1,000 an hour, so the peak needs 0.1 of a replica:
    8 GPUs (whole replicas × 8), not ceil(0.8) = 1. Its hours: 73,000 × 8 / 1,000 = 584 GPU-h
    at 2.00 = 1,168.00."""
    from engine.plan.mixed_single import single_plan
    from engine.plan.mixed_types import PlanBucket, PlanConfig, PlanDemand, PlanOffer

    offer = PlanOffer(
        "od",
        "elastic",
        (PlanConfig("tp8", 8, {"all": 1000.0}),),
        price_per_gpu_hour=D("2.00"),
    )
    demand = PlanDemand(
        monthly_outputs=73_000, peak_to_average=1.0, buckets=(PlanBucket("all", 1.0),)
    )
    plan = single_plan(demand, offer, offer.configs[0])
    assert plan is not None
    (line,) = plan.lines
    assert line.gpus == 8
    assert line.monthly_cost == D("1168.00")
