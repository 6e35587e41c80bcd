"""Hand-computed cost lines for every workload class, and the exact GPU split property."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import cost
from engine.errors import EngineInputError
from engine.types import (
    ApiPricing,
    CandidateInput,
    ComparisonInput,
    MediaSpec,
    PurchaseSpec,
    Range,
    TrainingSpec,
    WorkloadInput,
)
from tests.engine.builders import fixed, gpu

D = Decimal


def inference(**kw: object) -> WorkloadInput:
    base: dict[str, object] = {
        "workload_class": "batch_inference",
        "monthly_accepted_outputs": fixed(1000),
        "acceptance_rate": fixed(1.0),
        "failure_rate": fixed(0.0),
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
        "api_pricing": ApiPricing(D("3"), D("15"), D("0.30")),
    }
    base.update(kw)
    return CandidateInput(**base)  # type: ignore[arg-type]


GPU_LINES = ("gpu_compute", "retry_waste", "idle_capacity")


# ------------------------------------------------------------------ inference


def test_inference_unit_cost_is_price_times_gpu_seconds_exactly() -> None:
    # 1 GPU, 100 tokens/s, 3,600 output tokens: 36 GPU-seconds per attempt.
    est = cost.point_estimate(inference(), gpu())
    price, attempts, gpu_s, accepted = D("2.50"), D(1000), D(36), D(1000)
    expected = price * attempts * gpu_s / D(3600) / accepted
    assert est.unit_cost_per_accepted_output == expected.quantize(cost.PER_OUTPUT_QUANTUM)
    assert est.total / est.accepted_outputs == expected
    assert est.lines["gpu_compute"] == D("25.00")
    assert est.lines["retry_waste"] == est.lines["idle_capacity"] == D("0.00")
    assert est.billed_gpu_hours == D("10.0000")
    with localcontext() as ctx:
        ctx.prec = 40
        per_m = D(25) / (D(1000) * D(3600)) * D(1_000_000)
    assert est.unit_cost == per_m.quantize(cost.UNIT_QUANTUM)
    assert est.unit_label == "per 1M accepted output tokens"


@pytest.mark.parametrize(
    ("price", "tokens_per_s", "out_tokens", "accepted", "gpus"),
    [("1.00", 50, 900, 4000, 1), ("3.60", 200, 500, 720, 2), ("0.75", 1000, 2000, 100, 8)],
)
def test_inference_exact_for_several_hand_values(
    price: str, tokens_per_s: int, out_tokens: int, accepted: int, gpus: int
) -> None:
    w = inference(monthly_accepted_outputs=fixed(accepted), output_tokens_per_request=out_tokens)
    c = gpu(
        price_per_gpu_hour=D(price),
        throughput_per_replica=fixed(tokens_per_s),
        gpus_per_replica=gpus,
        interconnect_gbps=900,
    )
    est = cost.point_estimate(w, c)
    gpu_s = D(gpus) * D(out_tokens) / D(tokens_per_s)
    expected_total = cost.money(D(price) * D(accepted) * gpu_s / D(3600))
    assert est.total == expected_total
    assert est.lines["gpu_compute"] == expected_total


def test_retries_and_rejections_are_retry_waste() -> None:
    w = inference(
        monthly_accepted_outputs=fixed(800),
        acceptance_rate=fixed(0.8),
        failure_rate=fixed(0.2),
    )
    est = cost.point_estimate(w, gpu())
    # attempts = 800 / (0.8 × 0.8) = 1250; 36 GPU-s each; accepted work 800 × 36 s = 8 h.
    assert est.attempts == D(1250)
    assert est.lines["gpu_compute"] == D("20.00")  # 8 h × 2.50
    assert est.lines["retry_waste"] == D("11.25")  # 450 × 36 s = 4.5 h × 2.50
    assert est.lines["idle_capacity"] == D("0.00")


def test_elastic_utilisation_bills_idle() -> None:
    est = cost.point_estimate(inference(utilisation=fixed(0.5)), gpu())
    assert est.billed_gpu_hours == D("20.0000")
    assert est.lines["gpu_compute"] == D("25.00")
    assert est.lines["idle_capacity"] == D("25.00")


def test_idle_not_billed_ignores_utilisation() -> None:
    est = cost.point_estimate(inference(utilisation=fixed(0.5)), gpu(idle_billed=False))
    assert est.lines["idle_capacity"] == D("0.00")
    assert est.total == D("25.00")


def test_fixed_capacity_sizes_replicas_for_the_peak() -> None:
    # 2,628,000 attempts/month = 1/s on average; 10 GPU-s each → 10 replicas on average,
    # peak-to-average 2 → 20 replicas × 730 h billed, 7,300 h of work.
    w = inference(
        monthly_accepted_outputs=fixed(2_628_000),
        peak_to_average=fixed(2.0),
        output_tokens_per_request=1000,
    )
    c = gpu(capacity_model="reserved", price_per_gpu_hour=D("2.00"))
    est = cost.point_estimate(w, c)
    assert est.billed_gpu_hours == D("14600.0000")
    assert est.lines["gpu_compute"] == D("14600.00")
    assert est.lines["idle_capacity"] == D("14600.00")
    assert est.gpu_spend == D("29200.00")


def test_fixed_capacity_rounds_replicas_up_and_respects_commitment() -> None:
    w = inference(monthly_accepted_outputs=fixed(1000))  # 10 GPU-hours of work
    est = cost.point_estimate(w, gpu(capacity_model="reserved"))
    assert est.billed_gpu_hours == D("730.0000")  # one replica all month
    committed = gpu(min_commitment_gpu_hours_per_month=D(100))
    est2 = cost.point_estimate(w, committed)
    assert est2.billed_gpu_hours == D("100.0000")
    assert est2.lines["idle_capacity"] == D("225.00")  # 90 h × 2.50


def test_purchase_price_and_whole_nodes() -> None:
    spec = PurchaseSpec(
        capex_per_node=D(240_000),
        life_months=36,
        price_per_kwh=D("0.10"),
        power_kw_per_node=D(10),
        pue=D("1.5"),
        colocation_per_node_month=D(500),
        support_per_node_year=D(12_000),
    )
    c = gpu(capacity_model="purchase", price_per_gpu_hour=None, purchase=spec)
    with localcontext(cost.DECIMAL_CONTEXT):
        node_month = D(240_000) / 36 + D(10) * 730 * D("1.5") * D("0.10") + 500 + 1000
        assert cost.price_per_gpu_hour(c) == node_month / (8 * 730)
    est = cost.point_estimate(inference(), c)
    assert est.billed_gpu_hours == D("5840.0000")  # one replica needs a whole 8-GPU node
    assert est.gpu_spend == cost.money(node_month)
    assert sum(est.gpu_spend_breakdown.values()) == est.gpu_spend
    assert est.gpu_spend_breakdown["power"] == D("1095.00")


def test_tdp_gives_node_power_when_node_power_is_missing() -> None:
    spec = PurchaseSpec(D(100_000), 48, D("0.20"), gpu_tdp_w=D(700), pue=D("1.2"))
    parts = cost.purchase_monthly_per_node(spec, 8)
    assert parts["power"] == D("5.6") * 730 * D("1.2") * D("0.20")


def test_non_gpu_lines() -> None:
    w = inference(
        storage_gb=1000,
        egress_gb_per_month=200,
        serving_stack_per_month=D(400),
        observability_per_month=D(250),
        platform_labor_fte=0.5,
        loaded_monthly_cost_per_fte=D(16_000),
    )
    c = gpu(
        storage_price_per_gb_month=D("0.10"),
        egress_price_per_gb=D("0.09"),
        public_ip_per_month=D(4),
        load_balancer_per_month=D(20),
        private_networking_per_month=D(6),
        serving_stack_per_month=D(100),
    )
    lines = cost.point_estimate(w, c).lines
    assert lines["storage"] == D("100.00")
    assert lines["network"] == D("48.00")  # 200 × 0.09 + 4 + 20 + 6
    assert lines["serving_stack"] == D("500.00")
    assert lines["observability"] == D("250.00")
    assert lines["platform_labor"] == D("8000.00")


def test_egress_scales_with_volume() -> None:
    w = inference(egress_gb_per_month=100)
    c = gpu(egress_price_per_gb=D("0.10"))
    doubled = cost.point_estimate(w, c, values={"monthly_accepted_outputs": 2000})
    assert doubled.lines["network"] == D("20.00")


def test_managed_capacity_counts_vendor_management_not_platform_team() -> None:
    w = inference(
        platform_labor_fte=1.0, vendor_management_fte=0.1, loaded_monthly_cost_per_fte=D(15_000)
    )
    assert cost.point_estimate(w, gpu()).lines["platform_labor"] == D("15000.00")
    managed = gpu(capacity_model="managed_endpoint")
    assert cost.point_estimate(w, managed).lines["platform_labor"] == D("1500.00")
    assert cost.point_estimate(w, api()).lines["platform_labor"] == D("1500.00")


def test_api_route_token_prices_times_attempts() -> None:
    w = inference(
        monthly_accepted_outputs=fixed(1_000_000),
        acceptance_rate=fixed(0.9),
        failure_rate=fixed(0.1),
        input_tokens_per_request=1000,
        output_tokens_per_request=500,
        cached_input_fraction=0.5,
    )
    est = cost.point_estimate(w, api())
    per_attempt = (D(500) * 3 + D(500) * D("0.30") + D(500) * 15) / D(1_000_000)
    assert per_attempt == D("0.00915")
    assert est.lines["api_compute"] == D("9150.00")
    with localcontext(cost.DECIMAL_CONTEXT):
        spend = cost.money(D(1_000_000) / (D("0.9") * D("0.9")) * per_attempt)
    assert est.lines["retry_waste"] == spend - D("9150.00")
    assert "idle_capacity" not in est.lines
    assert est.price_per_gpu_hour is None
    assert est.gpu_spend is None


def test_unit_labels_per_class() -> None:
    assert cost.point_estimate(inference(), gpu()).unit_label == "per 1M accepted output tokens"
    for cls in ("retrieval", "evaluation", "realtime_inference"):
        assert cost.point_estimate(inference(workload_class=cls), gpu()).unit_label == (
            "per 1M accepted output tokens"
        )
    no_tokens = inference(output_tokens_per_request=0)
    est = cost.point_estimate(no_tokens, gpu(throughput_unit="outputs_per_s"))
    assert est.unit_label == "per 1,000 accepted outputs"


def test_retrieval_and_evaluation_cost_like_batch() -> None:
    batch = cost.point_estimate(inference(), gpu())
    for cls in ("retrieval", "evaluation"):
        other = cost.point_estimate(inference(workload_class=cls), gpu())
        assert other.lines == batch.lines
        assert other.unit_cost == batch.unit_cost


# ------------------------------------------------------------------ media


def test_media_formula_per_thousand_accepted_assets() -> None:
    w = WorkloadInput(
        workload_class="media",
        monthly_accepted_outputs=fixed(8000),
        acceptance_rate=fixed(0.8),
        failure_rate=fixed(0.2),
        utilisation=fixed(0.5),
        media=MediaSpec(
            moderation_cost_per_asset=D("0.01"),
            review_fraction=0.1,
            review_cost_per_asset=D("0.50"),
            asset_size_gb=0.005,
            retention_months=2,
        ),
    )
    # 0.25 images/s per GPU → 4 GPU-s per attempt; attempts 12,500; completed 10,000.
    c = gpu(
        throughput_per_replica=fixed(0.25),
        throughput_unit="outputs_per_s",
        price_per_gpu_hour=D("3.60"),
        storage_price_per_gb_month=D("0.02"),
    )
    est = cost.point_estimate(w, c)
    assert est.attempts == D(12_500)
    lines = est.lines
    assert lines["gpu_cost"] == D("32.00")  # 8,000 × 4 s = 8.888… h × 3.60
    assert lines["failed_renders"] == D("18.00")  # 4,500 × 4 s = 5 h × 3.60
    assert lines["queue_overhead"] == D("50.00")  # billed 27.7 h − work 13.8 h
    assert lines["moderation_or_quality_filtering"] == D("100.00")
    assert lines["operator_review"] == D("500.00")
    assert lines["storage"] == D("1.60")  # 8,000 × 0.005 GB × 2 months × 0.02
    assert est.unit_label == "per 1,000 accepted assets"
    assert est.unit_cost == (est.total / 8).quantize(cost.UNIT_QUANTUM)


# ------------------------------------------------------------------ training


def training(**kw: object) -> WorkloadInput:
    spec: dict[str, object] = {
        "active_params_b": 1.0,
        "tokens": fixed(3.6e10),
        "checkpoint_write_s": 36.0,
        "checkpoint_interval_h": 1.0,
        "node_mtbf_h": fixed(101.0),
        "restart_h": 0.5,
        "success_probability": fixed(0.8),
    }
    cls = kw.pop("workload_class", "training")
    spec.update(kw)
    return WorkloadInput(workload_class=cls, training=TrainingSpec(**spec))  # type: ignore[arg-type]


def trainer(**kw: object) -> CandidateInput:
    return gpu(
        "trainer",
        **{
            "gpus_per_replica": 8,
            "gpus_per_node": 8,
            "price_per_gpu_hour": D("2.00"),
            "throughput_per_replica": fixed(1e6),
            "interconnect_gbps": 900,
            **kw,
        },
    )


@pytest.mark.parametrize("cls", ["training", "full_finetune"])
def test_training_run_hand_computed(cls: str) -> None:
    # compute 10 h; stall 10 × 36 s = 0.1 h; failures 10.1 h × 1 node / 101 h = 0.1;
    # lost 0.1 × (0.5 + 0.5) = 0.1 h; wall 10.2 h on 8 GPUs at 2.00.
    # D8 (was: billed = wall, 163.20): the GPUs are held wall / utilisation (default 0.7)
    # = 14.571429 h → 116.571429 GPU-h × 2.00 = 233.142857 → 233.14; idle (116.571429 −
    # 81.6) × 2 = 69.942857, rounded cumulatively after stall 1.60 and lost 1.60:
    # q(73.142857) − 3.20 = 69.94; gpu_compute = 233.14 − 73.14 = 160.00.
    est = cost.point_estimate(training(workload_class=cls), trainer())
    assert est.lines["gpu_compute"] == D("160.00")
    assert est.lines["checkpointing"] == D("1.60")
    assert est.lines["failed_run_waste"] == D("1.60")
    assert est.lines["idle_capacity"] == D("69.94")
    assert est.total == D("233.14")
    assert est.unit_cost == D("291.425000")  # ÷ success probability 0.8 (× acceptance 1.0)
    # D8: full fine-tuning is costed per accepted fine-tuned model, like adapters
    assert est.unit_label == (
        "per completed training run" if cls == "training" else "per accepted fine-tuned model"
    )
    assert est.training is not None
    assert est.training.recommended_checkpoint_interval_h == pytest.approx(math.sqrt(2.02))
    assert est.training.wall_clock_h == pytest.approx(10.2)


def test_training_flops_estimate_from_peak_and_mfu() -> None:
    w = training(mfu=fixed(0.5), active_params_b=10.0)
    c = trainer(throughput_per_replica=None, peak_dense_tflops_per_gpu=1000.0)
    est = cost.point_estimate(w, c)
    # tokens/s = 8 × 1e15 × 0.5 / (6 × 1e10)
    assert est.training is not None
    assert est.training.tokens_per_s == pytest.approx(8e15 * 0.5 / 6e10)


def test_checkpoint_storage_and_young_daly_recommendation_lowers_cost() -> None:
    w = training(checkpoint_interval_h=8.0, checkpoint_size_gb=100, checkpoints_retained=2)
    c = trainer(storage_price_per_gb_month=D("0.10"))
    est = cost.point_estimate(w, c)
    assert est.training is not None
    assert est.training.recommended_checkpoint_interval_h < 8.0
    assert est.training.total_at_recommended_interval < est.total


def test_adapter_finetune_divides_by_accepted_models() -> None:
    w = training(workload_class="adapter_finetune")
    w = WorkloadInput(
        workload_class="adapter_finetune",
        training=w.training,
        acceptance_rate=fixed(0.5),
    )
    est = cost.point_estimate(w, trainer())
    assert est.unit_label == "per accepted fine-tuned model"
    # D8: 233.14 (held wall / utilisation 0.7, see above; was 163.20) / (0.8 × 0.5)
    assert est.unit_cost == D("582.850000")


def test_api_routes_do_not_train() -> None:
    with pytest.raises(EngineInputError) as err:
        cost.point_estimate(training(), api())
    assert err.value.field == "kind"


# ------------------------------------------------------------------ properties


money_st = st.decimals(min_value=D("0.01"), max_value=D("40"), places=2)


@settings(max_examples=200, deadline=None)
@given(
    price=money_st,
    accepted=st.integers(min_value=1, max_value=50_000_000),
    acceptance=st.floats(min_value=0.05, max_value=1.0),
    failure=st.floats(min_value=0.0, max_value=0.9),
    util=st.floats(min_value=0.05, max_value=1.0),
    peak=st.floats(min_value=1.0, max_value=8.0),
    tps=st.floats(min_value=0.5, max_value=50_000),
    out_tokens=st.integers(min_value=1, max_value=8000),
    gpus=st.sampled_from([1, 2, 4, 8]),
    capacity=st.sampled_from(["on_demand", "spot", "reserved", "dedicated_cluster"]),
    commitment=st.integers(min_value=0, max_value=5000),
)
def test_gpu_lines_sum_to_billed_hours_times_price(
    price: Decimal,
    accepted: int,
    acceptance: float,
    failure: float,
    util: float,
    peak: float,
    tps: float,
    out_tokens: int,
    gpus: int,
    capacity: str,
    commitment: int,
) -> None:
    w = inference(
        monthly_accepted_outputs=fixed(accepted),
        acceptance_rate=fixed(acceptance),
        failure_rate=fixed(failure),
        utilisation=fixed(util),
        peak_to_average=fixed(peak),
        output_tokens_per_request=out_tokens,
    )
    c = gpu(
        capacity_model=capacity,
        price_per_gpu_hour=price,
        throughput_per_replica=fixed(tps),
        gpus_per_replica=gpus,
        min_commitment_gpu_hours_per_month=D(commitment),
    )
    est = cost.point_estimate(w, c)
    with localcontext(cost.DECIMAL_CONTEXT):
        d = cost.dec
        attempts = D(accepted) / d(acceptance) / (1 - d(failure))
        gpu_s = gpus * D(out_tokens) / d(tps)
        if capacity in ("reserved", "dedicated_cluster"):
            replicas = math.ceil(d(peak) * attempts * gpu_s / (gpus * D(730) * D(3600)))
            billed = D(replicas * gpus * 730)
        else:
            billed = attempts * gpu_s / D(3600) / d(util)
        billed = max(billed, D(commitment))
        expected_spend = (billed * price).quantize(D("0.01"))
    parts = [est.lines[name] for name in GPU_LINES]
    assert sum(parts) == est.gpu_spend == expected_spend
    assert all(isinstance(v, Decimal) for v in est.lines.values())
    assert all(v.as_tuple().exponent == -2 for v in est.lines.values())
    assert all(p >= 0 for p in parts)
    assert est.total == sum(est.lines.values())


@settings(max_examples=100, deadline=None)
@given(
    tokens=st.floats(min_value=1e8, max_value=1e13),
    mtbf=st.floats(min_value=10, max_value=1e5),
    interval=st.floats(min_value=0.1, max_value=24),
    write_s=st.floats(min_value=0, max_value=1200),
    gpus=st.sampled_from([1, 8, 64, 512]),
    commitment=st.integers(min_value=0, max_value=400_000),
)
def test_training_gpu_lines_sum_exactly(
    tokens: float, mtbf: float, interval: float, write_s: float, gpus: int, commitment: int
) -> None:
    w = training(
        tokens=fixed(tokens),
        node_mtbf_h=fixed(mtbf),
        checkpoint_interval_h=interval,
        checkpoint_write_s=write_s,
    )
    c = trainer(
        gpus_per_replica=gpus,
        capacity_model="reserved",
        min_commitment_gpu_hours_per_month=D(commitment),
    )
    est = cost.point_estimate(w, c)
    assert est.gpu_spend is not None
    gpu_part = (
        est.lines["gpu_compute"]
        + est.lines["failed_run_waste"]
        + est.lines["idle_capacity"]
        + est.lines["checkpointing"]  # no checkpoint storage priced here
    )
    assert gpu_part == est.gpu_spend
    assert all(v >= 0 for v in est.lines.values())


# ------------------------------------------------------------------ invalid input


def test_range_low_above_high_names_the_field() -> None:
    with pytest.raises(EngineInputError) as err:
        Range(0.9, 0.8, 0.7)
    assert err.value.field == "low"
    assert "low ≤ likely ≤ high" in err.value.message


def test_range_likely_above_high_names_high() -> None:
    with pytest.raises(EngineInputError) as err:
        Range(0.1, 0.9, 0.8)
    assert err.value.field == "high"


def test_negative_price_is_refused() -> None:
    with pytest.raises(EngineInputError) as err:
        gpu(price_per_gpu_hour=D("-1"))
    assert err.value.field == "price_per_gpu_hour"
    assert "'g'" in err.value.message


def test_float_money_is_refused() -> None:
    with pytest.raises(EngineInputError) as err:
        gpu(price_per_gpu_hour=2.5)
    assert err.value.field == "price_per_gpu_hour"
    assert "Decimal" in err.value.message


def test_zero_volume_is_refused() -> None:
    with pytest.raises(EngineInputError) as err:
        inference(monthly_accepted_outputs=fixed(0))
    assert err.value.field == "monthly_accepted_outputs"


def test_missing_volume_is_refused() -> None:
    with pytest.raises(EngineInputError) as err:
        WorkloadInput(workload_class="batch_inference")
    assert err.value.field == "monthly_accepted_outputs"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("acceptance_rate", Range(0.5, 0.9, 1.2)),
        ("acceptance_rate", fixed(0.0)),
        ("failure_rate", fixed(1.0)),
        ("utilisation", fixed(0.0)),
        ("peak_to_average", fixed(0.5)),
        ("output_tokens_per_request", -1),
        ("loaded_monthly_cost_per_fte", D(-5)),
    ],
)
def test_out_of_range_workload_fields_name_the_field(field: str, value: object) -> None:
    with pytest.raises(EngineInputError) as err:
        inference(**{field: value})
    assert err.value.field == field


def test_int_money_is_accepted_as_decimal() -> None:
    c = gpu(price_per_gpu_hour=3)
    assert c.price_per_gpu_hour == D(3)
    assert isinstance(c.price_per_gpu_hour, Decimal)


def test_rented_gpu_needs_a_price_and_api_needs_prices() -> None:
    with pytest.raises(EngineInputError) as err:
        gpu(price_per_gpu_hour=None)
    assert err.value.field == "price_per_gpu_hour"
    with pytest.raises(EngineInputError) as err:
        api(api_pricing=None)
    assert err.value.field == "api_pricing"


def test_duplicate_candidate_ids_are_refused() -> None:
    with pytest.raises(EngineInputError) as err:
        ComparisonInput(inference(), (gpu("x"), gpu("x")))
    assert err.value.field == "candidates"


def test_tokens_per_second_needs_output_tokens() -> None:
    with pytest.raises(EngineInputError) as err:
        cost.point_estimate(inference(output_tokens_per_request=0), gpu())
    assert err.value.field == "output_tokens_per_request"
