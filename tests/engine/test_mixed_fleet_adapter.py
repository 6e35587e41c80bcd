"""The mixed plan fed from the comparison's rows, and its spread over the Monte Carlo draws."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

from engine import cost, montecarlo
from engine.comparison import run_comparison
from engine.errors import EngineInputError
from engine.plan.mixed import optimise
from engine.plan.mixed_adapter import (
    api_price_per_accepted,
    plan_demand,
    plan_inputs,
    plan_offer,
    row_draws,
    sized_rates,
)
from engine.plan.mixed_buckets import brief_sizes
from engine.plan.mixed_types import MixedPlan, PlanConfig, PlanDemand, PlanOffer
from engine.plan.mixed_uncertainty import plan_cost_samples, plan_spread
from engine.types import (
    ApiPricing,
    CandidateInput,
    CandidateOutcome,
    ComparisonInput,
    Range,
    WorkloadInput,
)
from tests.engine.builders import fixed, gpu

# 10 replicas at 1 output/s carry 26,280,000 outputs a month (730 h × 3,600 s × 10)
VOLUME = 26_280_000.0


def workload(**kw: object) -> WorkloadInput:
    args: dict[str, object] = {
        "workload_class": "batch_inference",
        "monthly_accepted_outputs": fixed(VOLUME),
        "utilisation": fixed(0.5),
        "output_tokens_per_request": 100.0,
        "vendor_management_fte": 0.0,
    }
    args.update(kw)
    return WorkloadInput(**args)  # type: ignore[arg-type]


def reserved(cid: str, price: str) -> CandidateInput:
    return gpu(
        cid,
        capacity_model="reserved",
        price_per_gpu_hour=Decimal(price),
        throughput_per_replica=fixed(1.0),
        throughput_unit="outputs_per_s",
        term_months=12,
    )


def api_route() -> CandidateInput:
    return CandidateInput(
        id="api",
        label="api",
        kind="api",
        capacity_model="api",
        api_pricing=ApiPricing(price_per_output=Decimal("0.001")),
    )


def test_a_candidate_becomes_an_offer_at_its_costed_rate() -> None:
    wl = workload(acceptance_rate=fixed(0.8))
    offer = plan_offer(wl, reserved("r", "2"))
    assert offer.capacity == "fixed"
    assert offer.configs[0].outputs_per_hour == {"all": 3600 * 0.8}
    assert offer.term_months == 12
    # an API bills every completed attempt: 1 / 0.8 per accepted output
    assert api_price_per_accepted(wl, api_route()) == Decimal("0.00125")
    elastic = plan_offer(wl, gpu("od", throughput_unit="outputs_per_s"))
    assert elastic.capacity == "elastic"
    assert elastic.utilisation == 0.5


def test_the_single_offer_plan_matches_the_row() -> None:
    wl = workload()
    cands = [reserved("a", "2"), reserved("b", "3")]
    out = run_comparison(ComparisonInput(wl, tuple(cands)), seed=3, samples=200)
    plan = plan_for_comparison(cands, out.candidates, wl)
    assert plan is not None
    assert [(ln.offer_id, ln.replicas) for ln in plan.lines] == [("a", 10)]
    row = next(o for o in out.candidates if o.candidate_id == "a")
    assert plan.monthly_cost == row.gpu_spend == 10 * 730 * Decimal(2)
    assert plan.total_commitment == 10 * 730 * Decimal(2) * 12


def test_ineligible_rows_and_training_take_no_part() -> None:
    wl = workload()
    cands = [reserved("a", "2"), reserved("b", "3"), api_route()]
    out = run_comparison(ComparisonInput(wl, tuple(cands)), seed=3, samples=200)
    rows = [o if o.candidate_id != "a" else _ineligible(o) for o in out.candidates]
    plan = plan_for_comparison(cands, rows, wl)
    assert plan is not None
    assert {ln.offer_id for ln in plan.lines} <= {"b", "api"}
    assert plan_demand(wl).monthly_outputs == VOLUME


def _ineligible(row: CandidateOutcome) -> CandidateOutcome:
    return dataclasses.replace(row, eligible=False)


def _base_and_api() -> tuple[PlanDemand, list[PlanOffer]]:
    base = PlanOffer(
        "base", "fixed", (PlanConfig("1x", 1, {"all": 10.0}),), price_per_gpu_hour=Decimal(2)
    )
    api = PlanOffer(
        "api", "api", (PlanConfig("r", 0, api_price_per_output={"all": Decimal("0.5")}),)
    )
    return PlanDemand(73_000.0, peak_to_average=2.0), [base, api]


def test_the_spread_at_the_likely_values_is_the_plan_cost() -> None:
    demand, offers = _base_and_api()
    plan = optimise(demand, offers)
    assert plan.cost_per_accepted_output is not None
    values = plan_cost_samples(plan, demand, offers, np.full(5, 73_000.0), {})
    np.testing.assert_allclose(values, float(plan.cost_per_accepted_output), rtol=1e-7)


def test_slower_replicas_spill_more_to_the_api() -> None:
    demand, offers = _base_and_api()
    plan = optimise(demand, offers)
    volume = np.full(3, 73_000.0)
    slow = {"base/1x": np.array([0.8, 1.0, 1.2])}
    values = plan_cost_samples(plan, demand, offers, volume, slow)
    assert values[0] > values[1] > values[2]
    spread = plan_spread(plan, demand, offers, volume, slow)
    assert spread.p10 < spread.p50 < spread.p90


def test_the_spread_uses_the_rows_draws() -> None:
    wl = workload(monthly_accepted_outputs=fixed(VOLUME))
    cand = dataclasses.replace(reserved("a", "2"), throughput_per_replica=Range(0.8, 1.0, 1.1))
    samples, seed = 500, 11
    assert cand.throughput_per_replica is not None
    thr = montecarlo.draw(
        cand.throughput_per_replica,
        seed,
        montecarlo.candidate_stream_key(cand.id, "throughput_per_replica"),
        samples,
    )
    out = run_comparison(ComparisonInput(wl, (cand, api_route())), seed=seed, samples=samples)
    plan = plan_for_comparison([cand, api_route()], out.candidates, wl)
    assert plan is not None
    demand = plan_demand(wl)
    offers = [plan_offer(wl, cand), plan_offer(wl, api_route())]
    factor = thr / cand.throughput_per_replica.likely
    spread = plan_spread(plan, demand, offers, np.full(samples, VOLUME), {"a/config": factor})
    assert spread.p10 <= spread.p50 <= spread.p90
    assert plan.cost_per_accepted_output is not None
    assert cost.dec(spread.p10) <= plan.cost_per_accepted_output


def test_the_plan_goes_to_json() -> None:
    demand, offers = _base_and_api()
    data = optimise(demand, offers).to_dict()
    assert data["status"] == "optimal"
    assert isinstance(data["monthly_cost"], str)
    assert {v["offer_id"] for v in data["vendors"]} == {"base", "api"}


def test_short_and_long_buckets_from_the_brief() -> None:
    # mean prompt 1,000 tokens, p95 9,000, 100 out; 10 % long → short prompts 111.1…
    wl = workload(input_tokens_per_request=1000.0)
    small = dataclasses.replace(reserved("small", "1"), fits_at_p95_context=False)
    large = reserved("large", "3")
    sizes = brief_sizes(wl, long_share=0.1, p95_input_tokens=9000)
    mean = wl.input_tokens_per_request + wl.output_tokens_per_request
    buckets, rates = sized_rates(wl, [small, large], sizes, mean_request_tokens=mean)
    assert [(b.name, b.share) for b in buckets] == [("short", 0.9), ("long", 0.1)]
    assert set(rates["small"]) == {"short"}
    mean_rate = 3600.0
    long_rate = rates["large"]["long"]
    short_rate = rates["large"]["short"]
    assert long_rate == mean_rate * 1100 / 9100
    # the mix takes a replica as long as the mean did: a single row costs what it did
    assert 0.9 / short_rate + 0.1 / long_rate == pytest.approx(1 / mean_rate)
    out = run_comparison(ComparisonInput(wl, (small, large)), seed=3, samples=200)
    plan = plan_for_comparison(
        [small, large], out.candidates, wl, sizes=sizes, mean_request_tokens=mean
    )
    assert plan is not None
    by_offer = {ln.offer_id: ln for ln in plan.lines}
    assert by_offer["large"].bucket_shares["long"] == 1.0
    assert "long" not in by_offer["small"].bucket_shares
    assert plan.monthly_cost is not None
    assert plan.best_single_cost is not None
    assert plan.monthly_cost < plan.best_single_cost


def test_no_row_fits_the_long_requests() -> None:
    wl = workload(input_tokens_per_request=1000.0)
    small = dataclasses.replace(reserved("small", "1"), fits_at_p95_context=False)
    out = run_comparison(ComparisonInput(wl, (small,)), seed=3, samples=200)
    sizes = brief_sizes(wl, long_share=0.1, p95_input_tokens=9000)
    plan = plan_for_comparison([small], out.candidates, wl, sizes=sizes)
    assert plan is not None
    assert plan.reason == "no offer meets the long-request service level"


def test_the_quotes_capacity_caps_each_offer() -> None:
    # test (a) through the comparison: A (2.00) has 4 GPUs, B (3.00) is unlimited
    wl = workload()
    cands = [reserved("a", "2"), reserved("b", "3")]
    out = run_comparison(ComparisonInput(wl, tuple(cands)), seed=3, samples=200)
    rows = [_ineligible(o) if o.candidate_id == "a" else o for o in out.candidates]
    offered = [dataclasses.replace(cands[0], max_gpus_available=4), cands[1]]
    plan = plan_for_comparison(offered, rows, wl, capacity_limited={"a"})
    assert plan is not None
    assert [(ln.offer_id, ln.replicas) for ln in plan.lines] == [("a", 4), ("b", 6)]
    assert plan.monthly_cost == 4 * 730 * Decimal(2) + 6 * 730 * Decimal(3)
    assert plan.best_single_id == "b/config"


def test_a_one_row_plan_spreads_as_its_row() -> None:
    # the same draws as the row: volume, throughput and acceptance all ranged
    wl = workload(
        monthly_accepted_outputs=Range(0.8 * VOLUME, VOLUME, 1.3 * VOLUME),
        acceptance_rate=Range(0.7, 0.8, 0.95),
    )
    cand = gpu(
        "od",
        throughput_unit="outputs_per_s",
        throughput_per_replica=Range(0.7, 1.0, 1.2),
        evidence_key="bench-1",
    )
    samples, seed = 2000, 5
    out = run_comparison(ComparisonInput(wl, (cand,)), seed=seed, samples=samples)
    row = out.candidates[0]
    plan = plan_for_comparison([cand], out.candidates, wl)
    assert plan is not None
    volume, factors = row_draws(wl, [cand], seed=seed, samples=samples)
    spread = plan_spread(plan, plan_demand(wl), [plan_offer(wl, cand)], volume, factors)
    _, scale = cost.unit_label_and_scale(wl)
    assert row.p10 is not None
    assert row.p90 is not None
    assert spread.p10 * float(scale) == pytest.approx(row.p10, rel=1e-9)
    assert spread.p90 * float(scale) == pytest.approx(row.p90, rel=1e-9)


def test_an_infeasible_plan_has_no_spread() -> None:
    demand, offers = _base_and_api()
    plan = optimise(demand, [dataclasses.replace(offers[0], max_gpus=1)])
    assert not plan.feasible
    with pytest.raises(EngineInputError):
        plan_spread(plan, demand, offers, np.full(3, 73_000.0), {})


def plan_for_comparison(
    cands: Sequence[CandidateInput],
    outcomes: Sequence[CandidateOutcome],
    wl: WorkloadInput,
    **kwargs: Any,
) -> MixedPlan | None:
    """The comparison run's two steps: the plan's inputs from the rows, then the optimiser."""
    built = plan_inputs(cands, outcomes, wl, **kwargs)
    return None if built is None else optimise(*built)
