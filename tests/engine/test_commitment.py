"""D2 / H3: the commitment is the obligation the decision creates, not one month or one run."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import cost
from engine.comparison import run_comparison
from engine.cost.commitment import TERM_NOT_STATED, TERM_OUTLASTS_USE, commitment
from engine.errors import EngineInputError
from engine.types import (
    FIXED_CAPACITY,
    CandidateInput,
    ComparisonInput,
    PurchaseSpec,
    TrainingSpec,
    WorkloadInput,
)
from tests.engine.builders import fixed, outcome

D = Decimal


def inference(**kw: object) -> WorkloadInput:
    base: dict[str, object] = {
        "workload_class": "batch_inference",
        "monthly_accepted_outputs": fixed(50_000),
        "utilisation": fixed(1.0),
        "output_tokens_per_request": 3600,
        "platform_labor_fte": 0.5,
        "loaded_monthly_cost_per_fte": D(10_000),
    }
    base.update(kw)
    return WorkloadInput(**base)  # type: ignore[arg-type]


def gpu(cid: str = "g", **kw: object) -> CandidateInput:
    base: dict[str, object] = {
        "id": cid,
        "label": cid,
        "kind": "gpu",
        "capacity_model": "reserved",
        "price_per_gpu_hour": D("2.00"),
        "throughput_per_replica": fixed(100),
        "perf_source": "measured",
        "has_acceptance_data": True,
    }
    base.update(kw)
    return CandidateInput(**base)  # type: ignore[arg-type]


def training_run() -> WorkloadInput:
    # 8 GPUs × 1e6 tokens/s... 2.5e10 tokens: ~6.94 h of compute, no failures or stalls.
    return WorkloadInput(
        workload_class="training",
        utilisation=fixed(1.0),
        training=TrainingSpec(
            active_params_b=1.0,
            tokens=fixed(2.5e10),
            checkpoint_write_s=0.0,
            checkpoint_interval_h=1.0,
            node_mtbf_h=fixed(1e9),
        ),
    )


def _row(inp: ComparisonInput, cid: str):
    return outcome(run_comparison(inp, seed=1, samples=200), cid)


def test_d2_training_on_a_reserved_contract_commits_the_whole_contract() -> None:
    """D2: a run on 8 GPUs of a 12-month reservation commits 8 × 8,760 h × 2.00, not the run."""
    cand = gpu(
        "rs",
        gpus_per_replica=8,
        throughput_per_replica=fixed(1e6),
        min_commitment_gpu_hours_per_month=D(8 * 730),
        term_months=12,
        interconnect_gbps=900,
    )
    row = _row(ComparisonInput(training_run(), (cand,)), "rs")
    assert row.total is not None
    # P1: the row pays the whole contract, not the run's ~111 USD share of it
    assert row.total == D("140160.00")
    assert row.commitment_usd == D("140160.00")  # 8 × 730 × 12 × 2.00
    assert row.commitment is not None
    assert row.commitment.contract_usd == D("140160.00")
    assert row.commitment.run_share_usd == row.gpu_spend
    assert row.commitment.basis == "training_fixed_term"
    codes = {w.code: w.detail for w in row.warnings}
    assert TERM_OUTLASTS_USE in codes
    assert "no stated use" in codes[TERM_OUTLASTS_USE]


def test_h3_a_short_horizon_does_not_shrink_a_reserved_term() -> None:
    """H3: a 12-month reserved term counts 12 months whether the horizon is 12 or 1."""
    cand = gpu("rs", term_months=12)
    long = _row(ComparisonInput(inference(horizon_months=12), (cand,)), "rs")
    short = _row(ComparisonInput(inference(horizon_months=1), (cand,)), "rs")
    # one replica (50,000 outputs × 36 s ≤ 730 h): 730 GPU-h × 2.00 × 12 = 17,520
    assert long.commitment_usd == short.commitment_usd == D("17520.00")
    assert TERM_OUTLASTS_USE in {w.code for w in short.warnings}
    assert TERM_OUTLASTS_USE not in {w.code for w in long.warnings}


def test_h3_a_zero_horizon_is_refused_with_the_field_named() -> None:
    """H3: horizon 0 used to zero the commitment; the engine refuses it."""
    with pytest.raises(EngineInputError) as err:
        inference(horizon_months=0)
    assert err.value.field == "horizon_months"


def test_d2_a_36_month_term_under_a_12_month_horizon_counts_36_months() -> None:
    """D2: the inference commitment was monthly total × min(term, horizon)."""
    cand = gpu("rs", term_months=36)
    row = _row(ComparisonInput(inference(horizon_months=12), (cand,)), "rs")
    assert row.commitment_usd == D("52560.00")  # 730 × 2.00 × 36


def test_d2_on_demand_commitment_is_vendor_spend_over_the_horizon_without_labour() -> None:
    """D2: an on-demand "commitment" included the team's own labour."""
    cand = gpu("od", capacity_model="on_demand")
    w = inference(horizon_months=6)
    row = _row(ComparisonInput(w, (cand,)), "od")
    assert row.cost_lines["platform_labor"] == D("5000.00")
    assert row.total is not None
    assert row.commitment_usd == (row.total - D("5000.00")) * 6
    assert row.commitment is not None
    assert row.commitment.contract_usd is None


def test_d2_purchase_commits_the_purchase_price() -> None:
    """D2: buying hardware commits its full purchase price."""
    spec = PurchaseSpec(
        capex_per_node=D(250_000), life_months=36, price_per_kwh=D("0.10"), power_kw_per_node=D(10)
    )
    cand = gpu("buy", capacity_model="purchase", price_per_gpu_hour=None, purchase=spec)
    row = _row(ComparisonInput(inference(horizon_months=1), (cand,)), "buy")
    assert row.commitment_usd == D("250000.00")  # one node of 8 GPUs
    assert row.commitment is not None
    assert row.commitment.basis == "purchase"


@settings(max_examples=150, deadline=None)
@given(
    model=st.sampled_from(sorted(FIXED_CAPACITY)),
    training=st.booleans(),
    horizon=st.integers(min_value=1, max_value=120),
    volume=st.floats(min_value=1, max_value=1e9),
    acceptance=st.floats(min_value=0.05, max_value=1),
    failure=st.floats(min_value=0, max_value=0.9),
    utilisation=st.floats(min_value=0.05, max_value=1),
    peak=st.floats(min_value=1, max_value=20),
    headroom=st.floats(min_value=0, max_value=0.9),
    storage=st.floats(min_value=0, max_value=1e6),
    fte=st.floats(min_value=0, max_value=10),
    tokens=st.floats(min_value=1e6, max_value=1e13),
    min_gpus=st.integers(min_value=0, max_value=512),
    term=st.integers(min_value=0, max_value=120),
    price=st.decimals(min_value=D("0.01"), max_value=D("50"), places=2),
)
def test_h3_no_brief_field_brings_fixed_commitment_under_min_times_term_times_price(
    model: str,
    training: bool,
    horizon: int,
    volume: float,
    acceptance: float,
    failure: float,
    utilisation: float,
    peak: float,
    headroom: float,
    storage: float,
    fte: float,
    tokens: float,
    min_gpus: int,
    term: int,
    price: Decimal,
) -> None:
    """H3/D2 property: commitment_usd ≥ minimum commitment × term × price, for any brief."""
    common = {
        "horizon_months": horizon,
        "acceptance_rate": fixed(acceptance),
        "utilisation": fixed(utilisation),
        "fixed_peak_headroom": headroom,
        "storage_gb": storage,
        "platform_labor_fte": fte,
        "loaded_monthly_cost_per_fte": D(12_000),
    }
    if training:
        w = WorkloadInput(
            workload_class="training",
            training=TrainingSpec(
                active_params_b=7.0,
                tokens=fixed(tokens),
                checkpoint_write_s=30.0,
                checkpoint_interval_h=1.0,
                node_mtbf_h=fixed(500.0),
            ),
            **common,  # type: ignore[arg-type]
        )
    else:
        w = WorkloadInput(
            workload_class="batch_inference",
            monthly_accepted_outputs=fixed(volume),
            failure_rate=fixed(failure),
            peak_to_average=fixed(peak),
            output_tokens_per_request=500,
            **common,  # type: ignore[arg-type]
        )
    purchase = None
    if model == "purchase":
        purchase = PurchaseSpec(
            capex_per_node=D(200_000) * price,
            life_months=36,
            price_per_kwh=D("0.12"),
            power_kw_per_node=D(10),
        )
    cand = gpu(
        "f",
        capacity_model=model,
        price_per_gpu_hour=None if purchase else price,
        purchase=purchase,
        throughput_per_replica=fixed(5e4 if training else 1000),
        min_commitment_gpu_hours_per_month=D(min_gpus * 730),
        term_months=term,
    )
    est = cost.point_estimate(w, cand)
    floor = cost.money(D(min_gpus * 730) * term * cost.price_per_gpu_hour(cand))  # type: ignore[operator]
    assert commitment(w, cand, est).commitment_usd >= floor


@pytest.mark.parametrize("capacity_model", ["dedicated_cluster", "private_cloud"])
def test_fixed_capacity_without_a_term_says_the_horizon_was_counted(capacity_model: str) -> None:
    """Issue 15 (8): no stated term counts max(1, horizon) months, and the row says so."""
    cand = gpu("dc", capacity_model=capacity_model, term_months=0)
    row = _row(ComparisonInput(inference(horizon_months=3), (cand,)), "dc")
    assert row.commitment is not None
    assert row.commitment.basis == "fixed_no_term"
    assert row.commitment.months_counted == 3
    codes = {w.code: w for w in row.warnings}
    assert TERM_NOT_STATED in codes
    assert codes[TERM_NOT_STATED].severity == "warn"
    assert "no stated term: the commitment counts 3 months" in codes[TERM_NOT_STATED].detail


def test_fixed_capacity_with_a_term_has_no_term_warning() -> None:
    row = _row(ComparisonInput(inference(horizon_months=12), (gpu("rs", term_months=12),)), "rs")
    assert TERM_NOT_STATED not in {w.code for w in row.warnings}
