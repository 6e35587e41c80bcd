"""The comparison's stored plan (engine/plan/mixed_comparison.py): pure, no database."""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal

from engine.comparison import run_comparison
from engine.plan import mixed_comparison
from engine.plan.mixed_comparison import capacity_limited, comparison_plan
from engine.types import ComparisonInput
from tests.engine.test_mixed_fleet_adapter import reserved, workload


def test_a_capped_cheap_row_serves_up_to_its_capacity_and_the_answer_is_json() -> None:
    wl = workload()
    cands = (dataclasses.replace(reserved("a", "2"), max_gpus_available=4), reserved("b", "3"))
    inp = ComparisonInput(wl, cands)
    out = run_comparison(inp, seed=3, samples=200)
    assert capacity_limited(inp, out) == {"a"}
    plan = comparison_plan(inp, out, seed=3, samples=200)
    json.dumps(plan)  # stored as is in the comparison's result
    assert plan["status"] == "optimal"
    assert [(ln["offer_id"], ln["replicas"]) for ln in plan["lines"]] == [("a", 4), ("b", 6)]
    # 4 × 730 × 2 + 6 × 730 × 3, against 10 × 730 × 3 for b alone
    assert Decimal(plan["monthly_cost"]) == Decimal("18980.00")
    assert Decimal(plan["saving_vs_single"]) == Decimal("2920.00")
    assert plan["saving_pct"] == "13.3"
    assert plan["best_single_label"] == "b"
    assert "solve_seconds" not in plan  # wall clock: not in a reproducible result
    # fixed throughput and volume: every sample costs the same, 18,980 / 26,280,000
    unit = Decimal("18980") / Decimal("26280000")
    assert Decimal(plan["cost_per_accepted_output"]) == unit.quantize(Decimal("1E-10"))
    assert plan["p10"] == plan["p90"] == format(unit.quantize(Decimal("1E-8")), "f")


def test_no_eligible_row_means_no_plan_with_the_reason() -> None:
    wl = workload()
    inp = ComparisonInput(wl, (reserved("a", "2"),))
    out = run_comparison(inp, seed=3, samples=200)
    refused = dataclasses.replace(
        out, candidates=tuple(dataclasses.replace(r, eligible=False) for r in out.candidates)
    )
    plan = comparison_plan(inp, refused, seed=3, samples=200)
    assert plan == mixed_comparison._none("no eligible row can be costed per replica or per output")
