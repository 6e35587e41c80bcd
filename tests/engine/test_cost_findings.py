"""Cost lines right: D8, D9, D10, D12, D13, D15 (decision audit)."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from briefs.rules import FIELD_LABELS
from engine import cost
from engine.comparison import run_comparison
from engine.cost.assumptions import NOT_ASSESSED
from engine.types import (
    ApiPricing,
    CandidateInput,
    ComparisonInput,
    PurchaseSpec,
    TrainingSpec,
    WorkloadInput,
)
from procurement.snapshot.assumptions import SCALARS
from tests.engine.builders import fixed, gpu, outcome

D = Decimal


def inference(**kw: object) -> WorkloadInput:
    base: dict[str, object] = {
        "workload_class": "batch_inference",
        "monthly_accepted_outputs": fixed(1000),
        "utilisation": fixed(1.0),
        "output_tokens_per_request": 3600,
    }
    base.update(kw)
    return WorkloadInput(**base)  # type: ignore[arg-type]


def api(cid: str = "api", **kw: object) -> CandidateInput:
    base: dict[str, object] = {
        "id": cid,
        "label": cid,
        "kind": "api",
        "capacity_model": "api",
        "api_pricing": ApiPricing(price_per_output=D("0.10")),
    }
    base.update(kw)
    return CandidateInput(**base)  # type: ignore[arg-type]


def tuning(cls: str, **kw: object) -> WorkloadInput:
    spec = TrainingSpec(
        active_params_b=1.0,
        tokens=fixed(3.6e10),
        checkpoint_write_s=0.0,
        checkpoint_interval_h=1.0,
        node_mtbf_h=fixed(1e9),
        failure_rate_scope=kw.pop("scope", "node"),  # type: ignore[arg-type]
    )
    return WorkloadInput(workload_class=cls, training=spec, **kw)  # type: ignore[arg-type]


def trainer(**kw: object) -> CandidateInput:
    return gpu("t", gpus_per_replica=8, throughput_per_replica=fixed(1e6), **kw)


# ------------------------------------------------------------------ D8


def test_d8_full_finetune_divides_by_accepted_models() -> None:
    """D8: full fine-tuning gave the same cost at acceptance 1.0 and 0.5."""
    one = cost.point_estimate(tuning("full_finetune", acceptance_rate=fixed(1.0)), trainer())
    half = cost.point_estimate(tuning("full_finetune", acceptance_rate=fixed(0.5)), trainer())
    assert half.unit_label == "per accepted fine-tuned model"
    assert half.unit_cost == one.unit_cost * 2


def test_d8_training_holds_the_gpus_for_wall_clock_over_utilisation() -> None:
    """D8: utilisation was required for training but never changed its cost."""
    # 10 h of compute on 8 GPUs at 2.50: busy 200.00; at utilisation 0.5, held 20 h = 400.00
    busy = cost.point_estimate(tuning("training", utilisation=fixed(1.0)), trainer())
    half = cost.point_estimate(tuning("training", utilisation=fixed(0.5)), trainer())
    assert busy.total == D("200.00")
    assert half.total == D("400.00")
    assert half.lines["idle_capacity"] == D("200.00")
    assert half.training is not None
    assert half.training.held_h == pytest.approx(20.0)


# ------------------------------------------------------------------ D15


def test_d15_a_cluster_failure_rate_is_not_multiplied_by_the_nodes() -> None:
    """D15: on 4 nodes, a cluster-wide rate gave 4 × the failures entered."""
    c = gpu(
        "t",
        gpus_per_replica=32,
        gpus_per_node=8,
        throughput_per_replica=fixed(1e6),
        interconnect_gbps=900,
        fabric_gbps=100,
    )
    per_node = tuning("training", utilisation=fixed(1.0))
    per_cluster = tuning("training", utilisation=fixed(1.0), scope="cluster")
    a = cost.point_estimate(_mtbf(per_node, 100.0), c).training
    b = cost.point_estimate(_mtbf(per_cluster, 100.0), c).training
    assert a is not None
    assert b is not None
    assert a.nodes == 4
    assert a.expected_node_failures == pytest.approx(4 * b.expected_node_failures)
    assert (a.failure_rate_scope, b.failure_rate_scope) == ("node", "cluster")
    assert FIELD_LABELS["node_failure_rate_per_day"] == "Node failures per day (per node)"


def _mtbf(w: WorkloadInput, hours: float) -> WorkloadInput:
    assert w.training is not None
    return replace(w, training=replace(w.training, node_mtbf_h=fixed(hours)))


# ------------------------------------------------------------------ D12


def test_d12_fixed_capacity_is_sized_with_a_stated_peak_headroom() -> None:
    """D12: a reserved row ran the peak at 100 % of measured throughput."""
    # 73,000 outputs × 36 GPU-s = exactly one replica-month at 100 %
    w0 = inference(monthly_accepted_outputs=fixed(73_000))
    w20 = inference(monthly_accepted_outputs=fixed(73_000), fixed_peak_headroom=0.2)
    rs = gpu("rs", capacity_model="reserved", price_per_gpu_hour=D("2.00"))
    assert cost.point_estimate(w0, rs).billed_gpu_hours == D("730.0000")
    assert cost.point_estimate(w20, rs).billed_gpu_hours == D("1460.0000")  # 1 / 0.8 → 2
    assert SCALARS["fixed_peak_headroom"].default == 0.2


def test_d12_spot_carries_an_interruption_and_rework_line() -> None:
    """D12: a spot row had the same lines as an on-demand row at the spot price."""
    w = inference(spot_rework_share=0.1)
    od = cost.point_estimate(w, gpu("od"))
    spot = cost.point_estimate(w, gpu("sp", capacity_model="spot"))
    assert "interruption_rework" not in od.lines
    assert spot.lines["interruption_rework"] == D("2.50")  # 10 % of 10 GPU-h × 2.50
    assert spot.total == od.total + D("2.50")
    own = cost.point_estimate(w, gpu("sp", capacity_model="spot", spot_rework_share=0.3))
    assert own.lines["interruption_rework"] == D("7.50")  # the offer's own figure wins
    assert SCALARS["spot_rework_share"].default == 0.1


# ------------------------------------------------------------------ D13


def test_d13_failed_api_attempts_billed_is_an_explicit_assumption_per_route() -> None:
    """D13: every failed API attempt was billed, with no way to say otherwise."""
    w = inference(failure_rate=fixed(0.2))
    billed = cost.point_estimate(w, api())
    free = cost.point_estimate(w, api(failed_attempts_billed=0.0))
    # 1,000 accepted / 0.8 = 1,250 attempts × 0.10 = 125.00; only completed: 100.00
    assert billed.total == D("125.00")
    assert free.total == D("100.00")
    assert cost.point_estimate(
        inference(failure_rate=fixed(0.2), api_failed_attempts_billed=0.0), api()
    ).total == D("100.00")
    out = run_comparison(ComparisonInput(w, (api(failed_attempts_billed=0.0),)), seed=1, samples=50)
    item = next(
        a
        for a in out.assumptions_applied
        if a.name == "api_failed_attempts_billed" and a.candidate_id == "api"
    )
    assert (item.value, item.source) == (0.0, "route")


# ------------------------------------------------------------------ D10


def test_d10_api_rows_pay_the_storage_the_brief_needs_or_say_they_do_not() -> None:
    """D10: API rows carried storage 0.00 whatever the brief's storage_gb."""
    w = inference(storage_gb=1000)
    priced = cost.point_estimate(w, api(storage_price_per_gb_month=D("0.023")))
    assert priced.lines["storage"] == D("23.00")
    out = run_comparison(ComparisonInput(w, (api(), gpu())), seed=1, samples=50)
    assert "STORAGE_NOT_PRICED" in {x.code for x in outcome(out, "api").warnings}
    assert SCALARS["api_storage_per_gb_month"].default > 0  # what the snapshot gives API rows


# ------------------------------------------------------------------ D9


def test_d9_every_default_is_listed_with_its_value_and_source() -> None:
    """D9: observability, serving stack, colocation... defaulted to 0 without a word."""
    spec = PurchaseSpec(
        capex_per_node=D(240_000),
        life_months=36,
        price_per_kwh=D("0.12"),
        power_kw_per_node=D(10),
        cost_of_capital_annual=D("0.08"),
        residual_value_share=D("0.1"),
    )
    buy = gpu("buy", capacity_model="purchase", price_per_gpu_hour=None, purchase=spec)
    w = inference(assumption_sources={"observability_per_month": "product default"})
    out = run_comparison(ComparisonInput(w, (buy, gpu())), seed=1, samples=50)
    items = {(a.name, a.candidate_id): a for a in out.assumptions_applied}
    obs = items[("observability_per_month", "")]
    assert (obs.value, obs.source, obs.note) == ("0", "product default", NOT_ASSESSED)
    for name in ("serving_stack_per_month", "fixed_peak_headroom", "horizon_months"):
        assert (name, "") in items
    for name in (
        "colocation_per_node_month",
        "price_per_kwh",
        "pue",
        "life_months",
        "cost_of_capital_annual",
        "residual_value_share",
    ):
        assert (f"purchase.{name}", "buy") in items
    assert items[("purchase.colocation_per_node_month", "buy")].note == NOT_ASSESSED
    assert "assumptions_applied" in out.to_dict()


def test_d9_owned_hardware_carries_cost_of_capital_and_residual_value() -> None:
    """D9: no cost of capital and no residual value for owned hardware."""
    plain = PurchaseSpec(
        capex_per_node=D(240_000), life_months=36, price_per_kwh=D(0), power_kw_per_node=D(0)
    )
    financed = PurchaseSpec(
        capex_per_node=D(240_000),
        life_months=36,
        price_per_kwh=D(0),
        power_kw_per_node=D(0),
        cost_of_capital_annual=D("0.08"),
        residual_value_share=D("0.1"),
    )
    per_node = cost.purchase_monthly_per_node(financed, 8)
    # (240,000 − 24,000) / 36 = 6,000; 8 % × (240,000 + 24,000) / 2 / 12 = 880
    assert per_node["capex_amortisation"] == D(6000)
    assert per_node["cost_of_capital"] == D(880)
    assert "cost_of_capital" not in cost.purchase_monthly_per_node(plain, 8)
    assert SCALARS["cost_of_capital_annual"].default > 0
    assert SCALARS["residual_value_share"].default > 0


# ------------------------------------------------------------------ Monte Carlo agrees


def test_d8_d12_d13_d15_the_monte_carlo_repeats_the_new_cost_terms() -> None:
    """D8/D12/D13/D15: the simulation at degenerate ranges equals the point estimate."""
    from engine import montecarlo

    w = inference(
        monthly_accepted_outputs=fixed(90_000),
        failure_rate=fixed(0.2),
        utilisation=fixed(0.6),
        peak_to_average=fixed(2.0),
        fixed_peak_headroom=0.2,
        spot_rework_share=0.15,
        api_failed_attempts_billed=0.25,
    )
    cands = [
        gpu("rs", capacity_model="reserved", price_per_gpu_hour=D("2.00")),
        gpu("sp", capacity_model="spot", price_per_gpu_hour=D("1.00")),
        gpu("sp2", capacity_model="spot", spot_rework_share=0.5),
        api("a"),
        api("b", failed_attempts_billed=1.0),
    ]
    vec = montecarlo.sample_unit_costs(w, cands, seed=1, samples=3)
    for i, c in enumerate(cands):
        exact = float(cost.point_estimate(w, c).unit_cost_exact)
        assert vec[i, 0] == pytest.approx(exact, rel=1e-5), c.id
    t = tuning("full_finetune", utilisation=fixed(0.5), acceptance_rate=fixed(0.8))
    t = _mtbf(replace(t, training=replace(t.training, failure_rate_scope="cluster")), 50.0)
    trainers = [
        gpu(
            "t",
            gpus_per_replica=32,
            throughput_per_replica=fixed(1e6),
            fabric_gbps=100,
            interconnect_gbps=900,
        ),
    ]
    vec = montecarlo.sample_unit_costs(t, trainers, seed=1, samples=3)
    exact = float(cost.point_estimate(t, trainers[0]).unit_cost_exact)
    assert vec[0, 0] == pytest.approx(exact, rel=1e-5)
