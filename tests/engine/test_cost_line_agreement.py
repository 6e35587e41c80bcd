"""Each cost line is defined once: the point estimate, the Monte Carlo and the plan agree.

A11's mutation test, as a property test: hypothesis gives every price field of a candidate
and of the workload a random value (0 included), and each path is checked against the
line's arithmetic written out by hand here. Deleting any one term of a line from the engine
(the load balancer from the fixed network charge, the team's serving stack, the labour …)
fails ``test_point_estimate_lines_are_the_hand_sums`` (point),
``test_monte_carlo_at_fixed_inputs_equals_the_point_estimate`` (Monte Carlo) and
``test_one_offer_plan_carries_the_rows_vendor_charges`` (plan).
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import cost, montecarlo
from engine.plan.mixed_adapter import plan_offer
from engine.plan.mixed_single import single_plan
from engine.plan.mixed_types import PlanBucket, PlanDemand
from engine.types import ApiPricing, CandidateInput, Range, WorkloadInput
from tests.engine.builders import fixed

D = Decimal
CENT = D("0.01")
prices = st.decimals(min_value=0, max_value=5000, places=2, allow_nan=False, allow_infinity=False)
MODELS = ["on_demand", "spot", "reserved", "managed_endpoint", "api"]


def _workload(draw: st.DrawFn) -> WorkloadInput:
    return WorkloadInput(
        workload_class="batch_inference",
        monthly_accepted_outputs=fixed(1_000_000),
        acceptance_rate=fixed(0.9),
        failure_rate=fixed(0.02),
        utilisation=fixed(0.6),
        peak_to_average=fixed(2.0),
        input_tokens_per_request=1000,
        output_tokens_per_request=400,
        platform_labor_fte=draw(st.sampled_from([0.0, 0.25, 1.0])),
        vendor_management_fte=draw(st.sampled_from([0.0, 0.1])),
        loaded_monthly_cost_per_fte=draw(prices),
        storage_gb=draw(st.sampled_from([0, 250, 1000])),
        egress_gb_per_month=draw(st.sampled_from([0.0, 80.0, 1200.0])),
        serving_stack_per_month=draw(prices),
        observability_per_month=draw(prices),
    )


def _candidate(draw: st.DrawFn, model: str) -> CandidateInput:
    fees = {
        "storage_price_per_gb_month": draw(st.sampled_from([D(0), D("0.08"), D("0.23")])),
        "egress_price_per_gb": draw(st.sampled_from([D(0), D("0.05"), D("0.12")])),
        "public_ip_per_month": draw(prices),
        "load_balancer_per_month": draw(prices),
        "private_networking_per_month": draw(prices),
        "serving_stack_per_month": draw(prices),
    }
    if model == "api":
        return CandidateInput(
            id="c",
            label="c",
            kind="api",
            capacity_model="api",
            api_pricing=ApiPricing(D("0.50"), D("1.50")),
            **fees,  # type: ignore[arg-type]
        )
    return CandidateInput(
        id="c",
        label="c",
        kind="gpu",
        capacity_model=model,  # type: ignore[arg-type]
        price_per_gpu_hour=D("2.50"),
        throughput_per_replica=fixed(2000),
        gpus_per_replica=2,
        min_commitment_gpu_hours_per_month=draw(st.sampled_from([D(0), D(730), D(5000)])),
        overage_rate_per_gpu_hour=draw(st.sampled_from([None, D("3.10"), D("2.00")])),
        **fees,  # type: ignore[arg-type]
    )


@st.composite
def cases(draw: st.DrawFn) -> tuple[WorkloadInput, CandidateInput]:
    return _workload(draw), _candidate(draw, draw(st.sampled_from(MODELS)))


def _hand_lines(w: WorkloadInput, c: CandidateInput) -> dict[str, Decimal]:
    """The five common lines for one month, summed field by field."""
    fte = D(str(w.platform_labor_fte if c.self_managed else w.vendor_management_fte))
    team_stack = w.serving_stack_per_month if c.self_managed else D(0)
    network = (
        D(str(w.egress_gb_per_month)) * c.egress_price_per_gb
        + c.public_ip_per_month
        + c.load_balancer_per_month
        + c.private_networking_per_month
    )
    return {
        "storage": (D(w.storage_gb) * c.storage_price_per_gb_month).quantize(CENT),
        "network": network.quantize(CENT),
        "serving_stack": (c.serving_stack_per_month + team_stack).quantize(CENT),
        "observability": w.observability_per_month.quantize(CENT),
        "platform_labor": (fte * w.loaded_monthly_cost_per_fte).quantize(CENT),
    }


@settings(max_examples=80, deadline=None)
@given(cases())
def test_point_estimate_lines_are_the_hand_sums(case: tuple[WorkloadInput, CandidateInput]) -> None:
    w, c = case
    lines = cost.point_estimate(w, c).lines
    for name, amount in _hand_lines(w, c).items():
        assert lines[name] == amount, name


@settings(max_examples=80, deadline=None)
@given(cases())
def test_monte_carlo_at_fixed_inputs_equals_the_point_estimate(
    case: tuple[WorkloadInput, CandidateInput],
) -> None:
    """Zero-variance draws: every sample is the point estimate's unit cost (the simulation
    does not round lines to the cent, hence the relative tolerance)."""
    w, c = case
    est = cost.point_estimate(w, c)
    sims = montecarlo.sample_unit_costs(w, [c], seed=7, samples=4)
    assert sims[0, 0] == sims[0, 3]
    _, scale = cost.unit_label_and_scale(w)
    rounding = float(D("0.005") * len(est.lines) * scale / est.accepted_outputs)
    assert sims[0, 0] == pytest.approx(float(est.unit_cost_exact), rel=1e-9, abs=rounding)


@settings(max_examples=80, deadline=None)
@given(cases())
def test_one_offer_plan_carries_the_rows_vendor_charges(
    case: tuple[WorkloadInput, CandidateInput],
) -> None:
    """A plan of this offer alone costs its GPUs (or API bill) plus the vendor's monthly
    charges the row carries: fixed network and the offer's serving stack; the workload's own
    lines (egress, storage, the team's stack, observability, labour) are added back beside
    the rows (mixed_recommended)."""
    w, c = case
    offer = plan_offer(w, c)
    demand = PlanDemand(
        monthly_outputs=1_000_000, peak_to_average=2.0, buckets=(PlanBucket("all", 1.0),)
    )
    plan = single_plan(demand, offer, offer.configs[0])
    assert plan is not None
    vendor = (
        c.public_ip_per_month
        + c.load_balancer_per_month
        + c.private_networking_per_month
        + c.serving_stack_per_month
    )
    assert offer.fixed_monthly == vendor
    (line,) = plan.lines
    committed, billed = c.min_commitment_gpu_hours_per_month, line.billed_gpu_hours
    shortfall = overage = D(0)
    if not c.is_api:  # the commitment's unused hours at the price, the hours past it at overage
        shortfall = (max(D(0), committed - billed) * D("2.50")).quantize(CENT)
        if c.overage_rate_per_gpu_hour is not None and committed > 0 and billed > committed:
            overage = ((billed - committed) * (c.overage_rate_per_gpu_hour - D("2.50"))).quantize(
                CENT
            )
    assert plan.cost == line.monthly_cost + shortfall + overage + vendor
    # and its GPU-hours (or API bill), the commitment's unused hours and the overage are the
    # row's lines, to the rounding of a cent or two
    row = cost.point_estimate(w, c).lines
    gpu_lines = ("gpu_compute", "api_compute", "retry_waste", "idle_capacity", "overage")
    gpu_lines += ("interruption_rework", "term_beyond_horizon")
    plan_gpu = line.monthly_cost + shortfall + overage
    assert abs(plan_gpu - sum(row.get(n, D(0)) for n in gpu_lines)) <= D("0.02")


def test_fixed_network_line_by_hand() -> None:
    """One hand case: 2 GPUs reserved, 1,000 GB egress at 0.05 (50.00), public IP 3.65,
    load balancer 18.25, private networking 40.00 → network 111.90 a month; the Monte Carlo's
    monthly constant carries the same 61.90 of fixed charges, and so does the plan."""
    w = dataclasses.replace(
        WorkloadInput(
            workload_class="batch_inference",
            monthly_accepted_outputs=fixed(1_000_000),
            acceptance_rate=fixed(1.0),
            failure_rate=fixed(0.0),
            utilisation=fixed(1.0),
            peak_to_average=fixed(1.0),
            output_tokens_per_request=400,
            vendor_management_fte=0.0,
        ),
        egress_gb_per_month=1000.0,
    )
    c = CandidateInput(
        id="r",
        label="r",
        kind="gpu",
        capacity_model="reserved",
        price_per_gpu_hour=D("2.00"),
        throughput_per_replica=Range(2000, 2000, 2000),
        egress_price_per_gb=D("0.05"),
        public_ip_per_month=D("3.65"),
        load_balancer_per_month=D("18.25"),
        private_networking_per_month=D("40.00"),
    )
    assert cost.point_estimate(w, c).lines["network"] == D("111.90")
    consts = montecarlo.candidate_constants(w, c)
    assert consts.fixed_monthly == pytest.approx(61.90)
    assert plan_offer(w, c).fixed_monthly == D("61.90")
