"""Contracts priced as they are bought (issue 38: P1, P3, P4, P5, P10, P11, P19), in the engine.

The hand figures are those of the round-4 decision audit (briefs A, B and D).
"""

from __future__ import annotations

from decimal import Decimal

from engine.comparison import run_comparison
from engine.types import CandidateInput, ComparisonInput, TrainingSpec, WorkloadInput
from tests.engine.builders import fixed

D = Decimal


def brief_d(**kw: object) -> WorkloadInput:
    """Pre-training an 8B model on 2 T tokens, 128 GPUs, MFU 0.40, 3-month horizon."""
    base: dict[str, object] = {
        "workload_class": "training",
        "utilisation": fixed(0.9),
        "platform_labor_fte": 1.0,
        "loaded_monthly_cost_per_fte": D(20_000),
        "storage_gb": 5_000,
        "horizon_months": 3,
        "training": TrainingSpec(
            active_params_b=8.03,
            tokens=fixed(2e12),
            mfu=fixed(0.40),
            checkpoint_write_s=60,
            checkpoint_interval_h=1.0,
            node_mtbf_h=fixed(24 / 0.005),  # 0.005 node failures a day
            restart_h=0.25,
            checkpoint_size_gb=120,
            checkpoints_retained=3,
            success_probability=fixed(0.9),
        ),
    }
    base.update(kw)
    return WorkloadInput(**base)  # type: ignore[arg-type]


def cluster(cid: str, capacity_model: str, price: str, term: int, **kw: object) -> CandidateInput:
    base: dict[str, object] = {
        "id": cid,
        "label": cid,
        "kind": "gpu",
        "capacity_model": capacity_model,
        "price_per_gpu_hour": D(price),
        "gpus_per_replica": 128,
        "gpus_per_node": 8,
        "peak_dense_tflops_per_gpu": 989.5,
        "term_months": term,
        "storage_price_per_gb_month": D("0.023"),
        "interconnect_gbps": 900,
        "fabric_gbps": 50,
        "has_acceptance_data": True,
    }
    if capacity_model == "reserved":
        base["min_commitment_gpu_hours_per_month"] = D(128 * 730)
    base.update(kw)
    return CandidateInput(**base)  # type: ignore[arg-type]


def _rows(workload: WorkloadInput, *cands: CandidateInput):
    out = run_comparison(ComparisonInput(workload, cands), seed=3, samples=400)
    return {c.candidate_id: c for c in out.candidates}, out


def test_p1_a_training_run_on_a_3_month_reservation_pays_the_whole_contract() -> None:
    """Brief D: the run holds 128 GPUs for 598.314 h of a 3-month, 128-GPU contract.

    Run's share (as before): 76,584.2 GPU-h × 2.20 = 168,485.15; + checkpoint storage 6.79
    + storage 94.25 + labour 16,392.16 = 184,978.35. The contract: 128 × 730 × 3 × 2.20 =
    616,704.00, so 448,218.85 of it is unused by the run and the row costs
    616,704.00 + 6.79 + 94.25 + 16,392.16 = 633,197.20 a run. On demand: 245,479.84 wins.
    """
    reserved = cluster("nw-h100-3m", "reserved", "2.20", 3)
    h200 = cluster("ct-h200-6m", "reserved", "2.60", 6)
    on_demand = cluster("ct-h100-od", "on_demand", "2.99", 0)
    rows, out = _rows(brief_d(), reserved, h200, on_demand)
    row = rows["nw-h100-3m"]
    assert row.gpu_spend == D("168485.15")  # the run's share, as the finding computed it
    assert row.cost_lines["term_beyond_horizon"] == D("448218.85")  # 616,704.00 − 168,485.15
    assert row.total == D("633197.20")
    assert row.commitment is not None and row.commitment.contract_usd == D("616704.00")
    assert rows["ct-h100-od"].total == D("245479.84")
    # The 6-month H200 contract counts in full too: 128 × 730 × 6 × 2.60 = 1,457,664.00
    assert rows["ct-h200-6m"].commitment.contract_usd == D("1457664.00")  # type: ignore[union-attr]
    assert rows["ct-h200-6m"].total > D("1457664.00")
    assert out.recommended_candidate_id == "ct-h100-od"
    assert rows["ct-h100-od"].rank_by_unit_cost == 1
    # P(cheapest) follows: the Monte Carlo pays the contract on every draw
    assert rows["ct-h100-od"].prob_cheapest == 1.0
    assert rows["nw-h100-3m"].prob_cheapest == 0.0


def test_p1_a_stated_residual_use_of_the_contract_lowers_the_unused_part() -> None:
    """Half the unused months stated as used by other work: 448,218.85 × 0.5 = 224,109.42
    (half-even on 224,109.425)."""
    rows, _ = _rows(brief_d(term_residual_use_share=0.5), cluster("r", "reserved", "2.20", 3))
    assert rows["r"].cost_lines["term_beyond_horizon"] == D("224109.42")
    assert rows["r"].total == D("184978.35") + D("224109.42")


def test_p1_a_run_that_uses_the_whole_term_pays_nothing_more() -> None:
    """A run longer than the contract: no unused part (the term is the run's)."""
    long_run = brief_d(
        training=TrainingSpec(
            active_params_b=8.03,
            tokens=fixed(8e12),
            mfu=fixed(0.40),
            checkpoint_write_s=60,
            checkpoint_interval_h=1.0,
            node_mtbf_h=fixed(4800),
            restart_h=0.25,
        )
    )
    rows, _ = _rows(long_run, cluster("r", "reserved", "2.20", 3))
    assert "term_beyond_horizon" not in rows["r"].cost_lines
