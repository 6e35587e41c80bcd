"""A13: the vendor's overage rate is costed. GPU-hours billed past a committed offer's monthly
minimum cost the overage rate, not the committed price: the GPU lines price every billed
hour at the price, and the `overage` line adds the difference, in the point estimate, the
Monte Carlo and the plan alike."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest

from engine import cost, montecarlo
from engine.plan.mixed_adapter import plan_offer
from engine.plan.mixed_single import single_plan
from engine.plan.mixed_types import PlanBucket, PlanDemand
from engine.types import CandidateInput, WorkloadInput
from tests.engine.builders import fixed
from tests.engine.test_montecarlo import training_workload

D = Decimal
# 438,000 outputs of 3,600 tokens at 100 tokens/s: 36 GPU-s each, 4,380 GPU-hours a month,
# 6 GPUs all month (flat load, no headroom)
W = WorkloadInput(
    workload_class="batch_inference",
    monthly_accepted_outputs=fixed(438_000),
    acceptance_rate=fixed(1.0),
    failure_rate=fixed(0.0),
    utilisation=fixed(1.0),
    peak_to_average=fixed(1.0),
    output_tokens_per_request=3600,
    fixed_peak_headroom=0.0,
    vendor_management_fte=0.0,
)


def reserved(**kw: object) -> CandidateInput:
    """Reserved at 2.00, 4 GPUs committed (2,920 GPU-hours a month), overage 3.00."""
    base: dict[str, object] = {
        "id": "rs",
        "label": "rs",
        "kind": "gpu",
        "capacity_model": "reserved",
        "price_per_gpu_hour": D("2.00"),
        "throughput_per_replica": fixed(100),
        "min_commitment_gpu_hours_per_month": D(4 * 730),
        "overage_rate_per_gpu_hour": D("3.00"),
    }
    base.update(kw)
    return CandidateInput(**base)  # type: ignore[arg-type]


def test_hours_past_the_commitment_cost_the_overage_rate() -> None:
    """6 GPUs held, 4 committed: 2,920 h × 2.00 + 1,460 h × 3.00 = 5,840.00 + 4,380.00 =
    10,220.00 a month; the GPU lines 4,380 h × 2.00 = 8,760.00, overage 1,460 × 1.00."""
    est = cost.point_estimate(W, reserved())
    assert est.billed_gpu_hours == D(4380)
    gpu = sum(est.lines[n] for n in ("gpu_compute", "retry_waste", "idle_capacity"))
    assert gpu == D("8760.00")
    assert est.lines["overage"] == D("1460.00")
    assert est.total == D("10220.00")


def test_no_overage_line_within_the_commitment_or_without_a_rate() -> None:
    """8 GPUs committed (5,840 h) cover the 4,380 h; no stated rate: every hour at 2.00."""
    within = cost.point_estimate(W, reserved(min_commitment_gpu_hours_per_month=D(8 * 730)))
    assert "overage" not in within.lines
    assert within.total == D("11680.00")  # the 5,840 committed hours × 2.00
    no_rate = cost.point_estimate(W, reserved(overage_rate_per_gpu_hour=None))
    assert "overage" not in no_rate.lines
    assert no_rate.total == D("8760.00")
    no_commitment = reserved(min_commitment_gpu_hours_per_month=D(0))
    assert "overage" not in cost.point_estimate(W, no_commitment).lines


def test_elastic_hours_past_the_commitment() -> None:
    """On demand at 2.00 with 1,000 GPU-hours a month committed and overage 2.50: 4,380 h
    billed → 1,000 × 2.00 + 3,380 × 2.50 = 10,450.00 (overage line 3,380 × 0.50 = 1,690.00)."""
    od = reserved(
        capacity_model="on_demand",
        min_commitment_gpu_hours_per_month=D(1000),
        overage_rate_per_gpu_hour=D("2.50"),
    )
    est = cost.point_estimate(W, od)
    assert est.lines["overage"] == D("1690.00")
    assert est.total == D("10450.00")


@pytest.mark.parametrize("model", ["reserved", "on_demand"])
def test_the_monte_carlo_at_fixed_inputs_carries_the_overage(model: str) -> None:
    cand = reserved(capacity_model=model)
    est = cost.point_estimate(W, cand)
    sims = montecarlo.sample_unit_costs(W, [cand], seed=3, samples=3)
    assert sims[0, 0] == pytest.approx(float(est.unit_cost_exact), rel=1e-12)


def test_the_plan_of_this_offer_alone_carries_the_overage() -> None:
    """The reserved offer alone in the plan: 6 replicas, 8,760.00 of GPU-hours at the
    price and 1,460.00 of overage: 10,220.00, as on the row."""
    offer = plan_offer(W, reserved())
    demand = PlanDemand(
        monthly_outputs=438_000, peak_to_average=1.0, buckets=(PlanBucket("all", 1.0),)
    )
    plan = single_plan(demand, offer, offer.configs[0])
    assert plan is not None
    assert plan.cost == D("10220.00")


def test_training_hours_past_the_commitment() -> None:
    """Training holds its GPUs for the run: 8 GPUs with 4 committed per month pay the other
    4 at the overage rate; the Monte Carlo's per-hour cost carries the same premium."""
    w = dataclasses.replace(training_workload(), utilisation=fixed(1.0))
    cand = reserved(
        gpus_per_replica=8, peak_dense_tflops_per_gpu=989.0, throughput_per_replica=None
    )
    est = cost.point_estimate(w, cand)
    assert est.billed_gpu_hours is not None
    months = est.billed_gpu_hours / 8 / 730
    assert est.lines["overage"] == (4 * 730 * months * D("1.00")).quantize(D("0.01"))
    with_rate = montecarlo.candidate_constants(w, cand).per_wall_hour
    at_price = montecarlo.candidate_constants(
        w, dataclasses.replace(cand, overage_rate_per_gpu_hour=None)
    ).per_wall_hour
    assert with_rate - at_price == pytest.approx(4 * 1.00)  # 4 GPUs past the commitment
