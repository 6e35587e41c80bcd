"""P15: a vendor's spend is what that vendor bills, the same on the row, the plan and FinOps.

A plan part's expected spend left out the storage its row counts (brief A: 177,990.48 vs
178,542.48, 46 × 12), and a model API route's commitment counted the team's own object
storage, which the API vendor does not bill (brief B: 937.80 instead of 799.80).
"""

from __future__ import annotations

from decimal import Decimal

from engine.comparison import run_comparison
from engine.plan.mixed_comparison import comparison_plan
from engine.types import ComparisonInput
from tests.engine.builders import fixed, gpu, outcome
from tests.engine.test_contracts_as_bought import api_route
from tests.engine.test_mixed_fleet_adapter import workload

D = Decimal


def test_p15_a_one_offer_plan_spends_what_its_row_spends_storage_included() -> None:
    """1 output/s per replica, 26,280,000 outputs a month at 50 % utilisation: 10 replicas
    × 730 h × 2.00 = 14,600 of compute and 14,600 idle; storage 2,000 GB × 0.023 = 46.00.
    Vendor spend 29,246.00 a month, × 12 = 350,952.00 on the row and the plan's part (the
    part said 29,200 × 12 = 350,400.00)."""
    on_demand = gpu(
        "od",
        capacity_model="on_demand",
        price_per_gpu_hour=D("2.00"),
        throughput_per_replica=fixed(1.0),
        throughput_unit="outputs_per_s",
        storage_price_per_gb_month=D("0.023"),
    )
    inp = ComparisonInput(workload(storage_gb=2000, horizon_months=12), (on_demand,))
    out = run_comparison(inp, seed=3, samples=200)
    row = outcome(out, "od")
    assert row.cost_lines["storage"] == D("46.00")
    assert row.commitment is not None
    assert row.commitment.expected_spend_usd == row.commitment_usd == D("350952.00")
    part = comparison_plan(inp, out, seed=3, samples=200)["vendors"][0]
    assert part["monthly_cost"] == "29200.00"  # the optimiser's own lines
    assert part["monthly_billed_usd"] == "29246.00"
    assert part["expected_spend_usd"] == part["commitment_usd"] == "350952.00"


def test_p15_an_api_routes_commitment_leaves_out_the_storage_its_vendor_does_not_bill() -> None:
    """1,000,000 answers of 100 + 100 tokens: 1e8 × 0.23 / 1e6 + 1e8 × 0.40 / 1e6 = 63.00 a
    month billed by the route; storage 500 GB × 0.023 = 11.50 is the team's own. The row
    still costs 74.50 a month, and commits 63.00 × 12 = 756.00 (not 74.50 × 12 = 894.00)."""
    brief = workload(
        storage_gb=500,
        horizon_months=12,
        monthly_accepted_outputs=fixed(1_000_000),
        input_tokens_per_request=100,
        platform_labor_fte=0.0,
    )
    row = run_comparison(ComparisonInput(brief, (api_route("deepinfra"),)), seed=1, samples=200)
    found = outcome(row, "deepinfra")
    assert found.cost_lines["api_compute"] == D("63.00")
    assert found.cost_lines["storage"] == D("11.50")
    assert found.total == D("74.50")
    assert found.commitment_usd == D("756.00")
    # the plan's part for the same route carries no storage either
    plan = comparison_plan(
        ComparisonInput(brief, (api_route("deepinfra"),)), row, seed=1, samples=200
    )
    assert plan["vendors"][0]["expected_spend_usd"] == "756.00"
