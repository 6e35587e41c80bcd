"""run_comparison end to end: ranks, warnings, uncertainty, reproducibility, JSON output."""

from __future__ import annotations

import ast
import json
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from engine.comparison import ENGINE_VERSION, run_comparison
from engine.errors import EngineInputError
from engine.types import (
    ApiPricing,
    CandidateInput,
    ComparisonInput,
    ComparisonOutput,
    MediaSpec,
    Range,
    TrainingSpec,
    WorkloadInput,
)
from tests.engine.builders import outcome

D = Decimal
ENGINE_DIR = Path(__file__).resolve().parents[2] / "engine"


def workload(**kw: object) -> WorkloadInput:
    base: dict[str, object] = {
        "workload_class": "batch_inference",
        "monthly_accepted_outputs": Range(2e5, 5e5, 1e6),
        "acceptance_rate": Range(0.85, 0.92, 0.97),
        "failure_rate": Range(0.0, 0.01, 0.03),
        "utilisation": Range(0.5, 0.7, 0.85),
        "peak_to_average": Range(1.5, 2.0, 3.0),
        "input_tokens_per_request": 1200,
        "output_tokens_per_request": 600,
        "platform_labor_fte": 0.25,
        "loaded_monthly_cost_per_fte": D(16000),
        "storage_gb": 400,
        "egress_gb_per_month": 50,
        "observability_per_month": D(200),
    }
    base.update(kw)
    return WorkloadInput(**base)  # type: ignore[arg-type]


def offer(cid: str, price: str, tps: float, **kw: object) -> CandidateInput:
    base: dict[str, object] = {
        "id": cid,
        "label": cid.upper(),
        "kind": "gpu",
        "capacity_model": "on_demand",
        "accelerator": cid.split("-")[0],
        "price_per_gpu_hour": D(price),
        "throughput_per_replica": Range(tps * 0.9, tps, tps * 1.05),
        "perf_source": "measured",
        "has_acceptance_data": True,
        "storage_price_per_gb_month": D("0.08"),
        "egress_price_per_gb": D("0.05"),
    }
    base.update(kw)
    return CandidateInput(**base)  # type: ignore[arg-type]


def api_route(cid: str = "api-frontier", out_price: str = "10") -> CandidateInput:
    return CandidateInput(
        id=cid,
        label="Frontier API",
        kind="api",
        capacity_model="api",
        api_pricing=ApiPricing(D("2.5"), D(out_price), D("1.25")),
        has_acceptance_data=True,
    )


def scenario() -> ComparisonInput:
    return ComparisonInput(
        workload=workload(),
        candidates=(
            offer("l40s-cheap", "0.90", 300),  # cheapest hourly, slow
            offer("h100-fast", "2.50", 1500),  # dearer hourly, cheapest per output
            offer("h100-reserved", "1.90", 1500, capacity_model="reserved", term_months=12),
            offer("a100-oom", "0.50", 800, fits=False),  # cheapest of all, but does not fit
            api_route(),
        ),
    )


@pytest.fixture(scope="module")
def result() -> ComparisonOutput:
    return run_comparison(scenario(), seed=20240601, samples=4000)


def test_cheapest_hourly_is_not_cheapest_per_accepted_output(result: ComparisonOutput) -> None:
    cheap = outcome(result, "l40s-cheap")
    fast = outcome(result, "h100-fast")
    assert cheap.rank_by_hourly_price == 1
    assert cheap.rank_by_unit_cost is not None
    assert cheap.rank_by_unit_cost > 1
    assert fast.rank_by_unit_cost is not None
    assert fast.rank_by_unit_cost < cheap.rank_by_unit_cost
    assert fast.rank_by_hourly_price is not None
    assert fast.rank_by_hourly_price > cheap.rank_by_hourly_price
    assert cheap.unit_cost is not None
    assert fast.unit_cost is not None
    assert fast.unit_cost < cheap.unit_cost
    flagged = [w for w in cheap.warnings if w.code == "CHEAPEST_HOURLY_NOT_CHEAPEST_OUTPUT"]
    assert len(flagged) == 1
    assert flagged[0].candidate_id == "l40s-cheap"
    winner = next(r for r in result.candidates if r.candidate_id == result.recommended_candidate_id)
    assert f"{winner.label} is cheapest per accepted output" in flagged[0].detail  # in words
    others = [w for r in result.candidates if r.candidate_id != "l40s-cheap" for w in r.warnings]
    assert all(w.code != "CHEAPEST_HOURLY_NOT_CHEAPEST_OUTPUT" for w in others)


def test_recommended_is_rank_one_and_ranks_are_contiguous(result: ComparisonOutput) -> None:
    ranked = sorted(
        (r for r in result.candidates if r.eligible), key=lambda r: r.rank_by_unit_cost or 0
    )
    assert [r.rank_by_unit_cost for r in ranked] == list(range(1, len(ranked) + 1))
    assert ranked[0].candidate_id == result.recommended_candidate_id
    costs = [r.unit_cost for r in ranked]
    assert costs == sorted(costs)  # type: ignore[type-var]
    hourly = [r for r in result.candidates if r.rank_by_hourly_price is not None]
    assert {r.candidate_id for r in hourly} == {"l40s-cheap", "h100-fast", "h100-reserved"}


def test_ineligible_candidate_stays_with_reasons_and_no_rank(result: ComparisonOutput) -> None:
    oom = outcome(result, "a100-oom")
    assert oom.eligible is False
    assert oom.reasons
    assert oom.rank_by_unit_cost is None
    assert oom.rank_by_hourly_price is None
    assert oom.p50 is None
    assert oom.prob_cheapest is None
    assert any(w.code == "MEMORY_DOES_NOT_FIT" and w.severity == "block" for w in oom.warnings)
    assert oom.total is not None  # still costed, for the record


def test_money_is_decimal_and_lines_sum_to_total(result: ComparisonOutput) -> None:
    for row in result.candidates:
        assert row.total == sum(row.cost_lines.values())
        assert all(isinstance(v, Decimal) for v in row.cost_lines.values())
        assert isinstance(row.unit_cost, Decimal)
        assert row.unit_label == "per 1M accepted output tokens"
    api = outcome(result, "api-frontier")
    assert "api_compute" in api.cost_lines
    assert "idle_capacity" not in api.cost_lines
    gpu = outcome(result, "h100-fast")
    assert gpu.total is not None
    assert gpu.horizon_total == gpu.total * 12  # the brief's default 12-month horizon
    assert gpu.gpu_spend == sum(
        gpu.cost_lines[k] for k in ("gpu_compute", "retry_waste", "idle_capacity")
    )


def test_uncertainty_fields(result: ComparisonOutput) -> None:
    eligible = [r for r in result.candidates if r.eligible]
    assert sum(r.prob_cheapest or 0 for r in eligible) == pytest.approx(1.0)
    for r in eligible:
        assert r.p10 is not None
        assert r.p50 is not None
        assert r.p90 is not None
        assert r.p10 <= r.p50 <= r.p90
    assert result.tornado is not None
    assert result.tornado.candidate_id == result.recommended_candidate_id
    swings = [e.swing for e in result.tornado.entries]
    assert swings == sorted(swings, reverse=True)
    assert swings[0] > 0


def test_same_seed_same_output_any_chunk_size() -> None:
    a = run_comparison(scenario(), seed=7, samples=3000)
    b = run_comparison(scenario(), seed=7, samples=3000, chunk_candidates=1)
    c = run_comparison(scenario(), seed=8, samples=3000)
    assert a.to_dict() == b.to_dict()
    assert [(r.p10, r.p50, r.p90, r.prob_cheapest) for r in a.candidates] == [
        (r.p10, r.p50, r.p90, r.prob_cheapest) for r in b.candidates
    ]
    assert [r.p50 for r in a.candidates] != [r.p50 for r in c.candidates]
    assert a.seed == 7
    assert a.samples == 3000
    assert a.engine_version == ENGINE_VERSION == "1.9.0"


def test_to_dict_is_json_ready(result: ComparisonOutput) -> None:
    data = result.to_dict()
    text = json.dumps(data, allow_nan=False)
    again = json.loads(text)
    assert again == data
    row = next(r for r in data["candidates"] if r["candidate_id"] == "h100-fast")
    assert isinstance(row["total"], str)
    assert Decimal(row["total"]) == outcome(result, "h100-fast").total
    assert all(isinstance(v, str) for v in row["cost_lines"].values())
    assert data["recommended_candidate_id"] == result.recommended_candidate_id
    assert data["assumptions"]["hours_per_month"] == "730"


def test_progress_reports_from_zero_to_one() -> None:
    seen: list[float] = []
    run_comparison(scenario(), seed=1, samples=500, progress=seen.append)
    assert seen[0] == 0.0
    assert seen[-1] == 1.0
    assert seen == sorted(seen)


def test_breakeven_is_reported_and_the_split_is_left_to_the_plan(
    result: ComparisonOutput,
) -> None:
    """A fixed base with overflow is the plan across offers' to cost (mixed_comparison), not
    a second plan in the engine's output (A16)."""
    assert result.breakeven is not None
    assert result.breakeven.accelerator == "h100"
    options = {c.option for c in result.breakeven.curves}
    assert {"on_demand", "reserved", "api"} <= options
    assert "hybrid" not in result.to_dict()


def test_no_eligible_candidate() -> None:
    inp = ComparisonInput(workload(), (offer("a100-oom", "0.5", 800, fits=False),))
    out = run_comparison(inp, seed=1, samples=100)
    assert out.recommended_candidate_id is None
    assert out.tornado is None
    assert out.notes
    assert out.candidates[0].rank_by_unit_cost is None


def test_free_text_reasons_and_uncostable_rows_are_ineligible() -> None:
    inp = ComparisonInput(
        workload(),
        (
            offer("h100-a", "2.0", 1000, ineligible_reasons=("vendor cannot deliver in Q3",)),
            offer("h100-b", "2.0", 1000, throughput_per_replica=None),
            offer("h100-c", "2.0", 1000),
        ),
    )
    out = run_comparison(inp, seed=1, samples=100)
    assert outcome(out, "h100-a").reasons == ("vendor cannot deliver in Q3",)
    assert "cannot be costed" in outcome(out, "h100-b").reasons[0]
    assert out.recommended_candidate_id == "h100-c"


def test_training_comparison() -> None:
    w = WorkloadInput(
        workload_class="training",
        training=TrainingSpec(
            active_params_b=8,
            tokens=Range(1.5e11, 2e11, 3e11),
            checkpoint_write_s=120,
            checkpoint_interval_h=3,
            node_mtbf_h=Range(1500, 4000, 8000),
            success_probability=Range(0.7, 0.85, 0.95),
        ),
        platform_labor_fte=1,
        loaded_monthly_cost_per_fte=D(20000),
    )
    fabric = {"interconnect_gbps": 900.0, "fabric_gbps": 50.0, "crosses_nodes": True}
    inp = ComparisonInput(
        w,
        (
            offer("h100-x", "2.8", 5e5, gpus_per_replica=64, **fabric),
            offer("h200-y", "3.5", 6.5e5, gpus_per_replica=64, **fabric),
            offer(
                "b200-z",
                "5.0",
                0,
                throughput_per_replica=None,
                peak_dense_tflops_per_gpu=2250.0,
                gpus_per_replica=32,
                perf_source="estimated",
                **fabric,
            ),
            api_route(),
        ),
    )
    out = run_comparison(inp, seed=3, samples=2000)
    assert out.unit_label == "per completed training run"
    assert outcome(out, "api-frontier").eligible is False
    for cid in ("h100-x", "h200-y", "b200-z"):
        row = outcome(out, cid)
        assert row.eligible
        assert row.training is not None
        assert row.training.recommended_checkpoint_interval_h > 0
        assert {"checkpointing", "failed_run_waste"} <= set(row.cost_lines)
    assert any(w.code == "PERF_ESTIMATED" for w in outcome(out, "b200-z").warnings)
    assert out.breakeven is None
    assert out.tornado is not None
    assert "node_mtbf_h" in {e.assumption for e in out.tornado.entries}
    json.dumps(out.to_dict(), allow_nan=False)


def test_media_comparison_reports_per_thousand_assets() -> None:
    w = WorkloadInput(
        workload_class="media",
        monthly_accepted_outputs=Range(4e4, 6e4, 1e5),
        acceptance_rate=Range(0.6, 0.75, 0.85),
        failure_rate=Range(0.0, 0.02, 0.05),
        media=MediaSpec(
            moderation_cost_per_asset=D("0.003"),
            review_fraction=0.02,
            review_cost_per_asset=D("0.30"),
        ),
    )
    inp = ComparisonInput(
        w,
        (
            offer("l40s-img", "1.0", 0.3, throughput_unit="outputs_per_s"),
            offer("h100-img", "2.6", 0.9, throughput_unit="outputs_per_s"),
            CandidateInput(
                id="img-api",
                label="Image API",
                kind="api",
                capacity_model="api",
                api_pricing=ApiPricing(price_per_output=D("0.04")),
            ),
        ),
    )
    out = run_comparison(inp, seed=5, samples=2000)
    assert out.unit_label == "per 1,000 accepted assets"
    row = outcome(out, "l40s-img")
    assert {
        "gpu_cost",
        "failed_renders",
        "queue_overhead",
        "moderation_or_quality_filtering",
        "operator_review",
    } <= set(row.cost_lines)


def test_invalid_seed_is_refused() -> None:
    with pytest.raises(EngineInputError) as err:
        run_comparison(scenario(), seed=-3)
    assert err.value.field == "seed"


def test_engine_modules_import_nothing_outside_the_engine() -> None:
    # The standard library, numpy and scipy (the plan's MILP solver); nothing of ours
    # outside the engine, no Django.
    allowed = set(sys.stdlib_module_names) | {"numpy", "scipy"}
    # Every engine module, not a list that a new module could be left out of.
    for path in sorted(ENGINE_DIR.rglob("*.py")):
        name = path.stem
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                # `from core import workloads` names the module core.workloads.
                mods = [f"{base}.{a.name}" for a in node.names] if base == "core" else [base]
            else:
                continue
            for mod in mods:
                # ...and the workload and cost-line taxonomies, themselves pure.
                ours = mod.startswith("engine") or mod in ("core.workloads", "core.cost_lines")
                assert ours or mod.split(".")[0] in allowed, f"{name}.py imports {mod}"
