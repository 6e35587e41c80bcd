"""The snapshot adapter: what is frozen, how eligibility is decided, FX in Decimal, and
reproducibility from snapshot + seed + engine version."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from benchmarks.models import BenchmarkResult
from catalog.models import Quote
from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from procurement.services.comparisons.compute import compute
from procurement.snapshot import thaw
from tests.comparisons.factories_comparisons import answer_checklist
from tests.factories import (
    FxRateFactory,
    ModelApiRouteFactory,
    ProviderFactory,
    QuoteFactory,
    WorkloadBriefFactory,
)

ROW_FIELDS = [
    "key", "kind", "quote_id", "api_route_id", "label", "provider_name", "accelerator_name",
    "capacity_model", "gpus", "hourly_price_usd", "eligible", "reasons", "cost_lines",
    "total_usd", "accepted_outputs", "unit_cost_usd", "unit_label", "p10", "p50", "p90",
    "prob_cheapest", "rank", "rank_hourly", "fit", "performance", "perf_source", "checklist",
    "warnings", "detail",
]  # fmt: skip


def _run(lead, brief, quotes=(), routes=(), **kwargs):
    comparison = comparison_create(
        acting_user=lead,
        brief=brief,
        quote_ids=[q.pk for q in quotes],
        api_route_ids=[r.pk for r in routes],
        **kwargs,
    ).comparison
    return comparison_run(comparison_id=comparison.pk)


def _row(comparison, obj):
    prefix = "api" if obj.__class__.__name__ == "ModelApiRoute" else "quote"
    return CandidateResult.objects.get(comparison=comparison, key=f"{prefix}:{obj.pk}")


def _codes(row):
    return {w["code"] for w in row.warnings}


def test_recomputing_from_the_stored_snapshot_gives_identical_rows(computed, scenario):
    # The database moves on; the snapshot does not.
    Quote.objects.filter(pk=scenario["fast"].pk).update(price_per_gpu_hour=Decimal("9.99"))
    again = compute(computed.snapshot, seed=computed.seed, samples=computed.samples)
    stored = {
        r["key"]: r for r in CandidateResult.objects.filter(comparison=computed).values(*ROW_FIELDS)
    }
    assert again.recommended_key == computed.recommended_key
    assert again.result == computed.result
    assert len(again.rows) == len(stored) == 2
    for row in again.rows:
        assert {f: row.get(f) for f in ROW_FIELDS} == stored[row["key"]]


def test_a_different_seed_moves_the_percentiles_not_the_point_estimate(computed):
    other = compute(computed.snapshot, seed=computed.seed + 1, samples=computed.samples)
    first = {r.key: r for r in CandidateResult.objects.filter(comparison=computed)}
    for row in other.rows:
        assert row["unit_cost_usd"] == first[row["key"]].unit_cost_usd
    assert any(row["p50"] != first[row["key"]].p50 for row in other.rows)


def test_thaw_is_pure(computed, django_assert_num_queries):
    with django_assert_num_queries(0):
        thawed = thaw(computed.snapshot)
    assert thawed.input is not None
    assert len(thawed.input.candidates) == 2


def test_fx_uses_the_latest_rate_as_of_today_in_decimal(scenario, lead):
    today = timezone.now().date()
    FxRateFactory(currency="EUR", rate_to_base=Decimal("1.05"), as_of=today - timedelta(days=9))
    FxRateFactory(currency="EUR", rate_to_base=Decimal("1.0812"), as_of=today - timedelta(days=1))
    FxRateFactory(currency="EUR", rate_to_base=Decimal("2.0"), as_of=today + timedelta(days=3))
    quote = QuoteFactory(
        provider=scenario["fast"].provider,
        accelerator=scenario["fast"].accelerator,
        currency="EUR",
        price_per_gpu_hour=Decimal("2.3000"),
    )
    comparison = _run(lead, scenario["brief"], [quote])
    row = _row(comparison, quote)
    assert comparison.snapshot["fx_rates"]["EUR"] == {
        "rate_to_base": "1.08120000",
        "as_of": (today - timedelta(days=1)).isoformat(),
    }
    assert row.hourly_price_usd == Decimal("2.4868")  # 2.30 × 1.0812 exactly
    assert row.detail["fx_rate"] == "1.08120000"
    assert row.eligible


def test_missing_fx_rate_is_flagged_and_never_converted(scenario, lead):
    quote = QuoteFactory(
        provider=scenario["fast"].provider,
        accelerator=scenario["fast"].accelerator,
        currency="GBP",
        price_per_gpu_hour=Decimal("1.0000"),
    )
    comparison = _run(lead, scenario["brief"], [quote, scenario["fast"]])
    row = _row(comparison, quote)
    assert not row.eligible
    assert "FX_MISSING" in _codes(row)
    assert any("FX rate" in r for r in row.reasons)
    assert row.hourly_price_usd is None
    assert row.total_usd is None
    assert row.cost_lines == {}
    assert row.rank is None


def test_region_outside_the_data_boundary_is_ineligible(scenario, lead):
    quote = QuoteFactory(
        provider=scenario["fast"].provider,
        accelerator=scenario["fast"].accelerator,
        region="us-east",
    )
    row = _row(_run(lead, scenario["brief"], [quote]), quote)
    assert not row.eligible
    assert "DATA_BOUNDARY_VIOLATED" in _codes(row)
    open_brief = WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000, allowed_regions=[])
    assert _row(_run(lead, open_brief, [quote]), quote).eligible


def test_memory_that_does_not_fit_within_the_offer_is_ineligible(scenario, lead):
    quote = QuoteFactory(
        provider=scenario["fast"].provider,
        accelerator=scenario["fast"].accelerator,
        max_gpus_available=2,
    )
    row = _row(_run(lead, scenario["brief"], [quote]), quote)
    assert not row.eligible
    assert "MEMORY_DOES_NOT_FIT" in _codes(row)
    assert any("needs 4 GPUs" in r and "at most 2" in r for r in row.reasons)
    assert row.fit["fits"] is False
    assert row.fit["offered_gpus"] == 2


def test_checklist_short_of_the_commitment_is_ineligible(scenario, lead, checklist_items):
    bare = ProviderFactory(name="No evidence", slug="no-evidence")
    reserved = QuoteFactory(
        provider=bare,
        accelerator=scenario["fast"].accelerator,
        capacity_model="reserved",
        term_months=6,
        price_per_gpu_hour=Decimal("1.50"),
    )
    row = _row(_run(lead, scenario["brief"], [reserved, scenario["fast"]]), reserved)
    assert not row.eligible
    assert "CHECKLIST_BELOW_COMMITMENT" in _codes(row)
    assert row.checklist["required_level"] == "full"
    assert row.checklist["completeness_pct"] == 0
    answer_checklist(bare, lead)
    again = _run(lead, scenario["brief"], [reserved, scenario["fast"]])
    assert _row(again, reserved).eligible


def test_latency_target_missed_by_the_estimate_is_ineligible(scenario, lead):
    strict = WorkloadBriefFactory(created_by=lead, ttft_p95_ms=100)
    row = _row(_run(lead, strict, [scenario["fast"]]), scenario["fast"])
    assert not row.eligible
    assert "LATENCY_TARGET_UNMET" in _codes(row)
    assert row.performance["latency_source"] == "estimated"
    assert row.performance["ttft_p95_ms"] > 100


def test_measured_benchmark_replaces_the_estimate(scenario, lead):
    quote = scenario["fast"]
    BenchmarkResult.objects.create(
        uploaded_by=lead,
        quote=quote,
        accelerator=quote.accelerator,
        gpu_count=4,
        raw_file="benchmarks/x.json",
        original_name="x.json",
        sha256="0" * 64,
        size_bytes=10,
        format_id="vllm",
        status=BenchmarkResult.Status.PARSED,
        parsed_at=timezone.now(),
        metrics={
            "output_tokens_per_s": 2000.0,
            "ttft_ms": {"p95": 150.0},
            # the brief sets an ITL target too: without this figure the row is unmeasured
            "itl_ms": {"p95": 40.0},
            "e2e_ms": {"p99": 9000.0},
            "acceptance_rate": 0.9,
        },
        # D1: "measured" only on the brief's model, precision and shape (the brief's
        # means are 1,500 in / 300 out at concurrency 32)
        model_name="meta-llama/Llama-3.1-70B-Instruct",
        precision="bf16",
        input_tokens_mean=1500,
        output_tokens_mean=300,
        concurrency=32,
    )
    row = _row(_run(lead, scenario["brief"], [quote]), quote)
    assert row.perf_source == "measured"
    assert row.performance["tokens_per_s"] == 2000.0
    assert row.performance["latency_source"] == "measured"
    assert {"PERF_ESTIMATED", "LATENCY_UNMEASURED", "NO_ACCEPTANCE_DATA"}.isdisjoint(_codes(row))


def test_purchase_quote_is_costed_from_capex_power_and_support(scenario, lead):
    quote = QuoteFactory(
        provider=scenario["fast"].provider,
        accelerator=scenario["fast"].accelerator,
        capacity_model="purchase",
        price_per_gpu_hour=None,
        price_per_node=Decimal("300000"),
        support_per_year=Decimal("12000"),
        power_kw_per_node=Decimal("10.2"),
        amortisation_months=36,
    )
    row = _row(_run(lead, scenario["brief"], [quote]), quote)
    assert row.eligible, row.reasons
    assert row.hourly_price_usd > 0
    assert row.detail["gpu_spend_breakdown"]["capex_amortisation"]


def test_purchase_without_a_node_price_is_listed_with_its_reason(scenario, lead):
    quote = QuoteFactory(
        provider=scenario["fast"].provider,
        accelerator=scenario["fast"].accelerator,
        capacity_model="purchase",
        price_per_gpu_hour=None,
    )
    comparison = _run(lead, scenario["brief"], [quote, scenario["fast"]])
    row = _row(comparison, quote)
    assert not row.eligible
    assert row.reasons == ["the purchase quote has no price per node"]
    assert comparison.result["counts"]["not_costed"] == 1


def test_api_route_for_another_model_or_over_its_rate_limit_is_ineligible(scenario, lead):
    """U7: a route serving another model carries MODEL_SUBSTITUTION naming both models and is
    never the recommended row (the brief does not allow substitution); over its rate limit
    a route is ineligible."""
    from tests.factories import ModelProfileFactory

    other = ModelProfileFactory(slug="other-model", name="Other")
    wrong_model = ModelApiRouteFactory(region="eu-west", model_profile=other)
    throttled = ModelApiRouteFactory(region="eu-west", rate_limit_tpm=1000)
    comparison = _run(lead, scenario["brief"], [scenario["fast"]], [wrong_model, throttled])
    row = _row(comparison, wrong_model)
    (warning,) = [w for w in row.warnings if w["code"] == "MODEL_SUBSTITUTION"]
    assert "the brief is Llama 3.1 70B" in warning["detail"]
    assert comparison.recommended_key != row.key
    assert any("tokens/min" in r for r in _row(comparison, throttled).reasons)


@pytest.mark.parametrize("workload_class", ["training", "full_finetune"])
def test_training_briefs_cost_a_run_on_the_target_gpus(scenario, lead, workload_class):
    brief = WorkloadBriefFactory(
        created_by=lead,
        workload_class=workload_class,
        training_tokens_b=2.0,
        sequence_length=4096,
        checkpoint_interval_min=60,
        checkpoint_write_s=120,
        restart_time_min=20,
        expected_mfu=0.4,
        node_failure_rate_per_day=0.01,
        target_gpus=32,
        run_success_probability=0.9,
        checkpoint_size_gb=1100,
        global_batch_tokens=4_000_000,
        allowed_regions=[],
    )
    route = ModelApiRouteFactory(region="eu-west")
    comparison = _run(lead, brief, [scenario["fast"]], [route])
    row = _row(comparison, scenario["fast"])
    assert row.eligible, row.reasons
    assert row.gpus == 32
    # D8: a fine-tuning run is costed per accepted fine-tuned model
    expected = (
        "per completed training run"
        if workload_class == "training"
        else ("per accepted fine-tuned model")
    )
    assert row.unit_label == expected
    assert row.cost_lines["failed_run_waste"]
    assert not _row(comparison, route).eligible


def test_gpus_per_replica_grow_with_the_brief_concurrency(scenario, lead):
    quote = scenario["fast"]
    one = WorkloadBriefFactory(created_by=lead, concurrency=1, e2e_p99_ms=30_000)
    many = WorkloadBriefFactory(created_by=lead, concurrency=256, e2e_p99_ms=120_000)
    # 141 GB of BF16 weights; M-2: 80 GiB = 85.9 GB, usable 85.9 × 0.9 − 2 = 75.31 GB, so two
    # GPUs hold 70.6 + 0.57 GB of KV (3,500 tokens × 327,680 B / 2) = 71.2 GB each
    assert _row(_run(lead, one, [quote]), quote).gpus == 2
    assert _row(_run(lead, many, [quote]), quote).gpus == 8  # + 256 × 1.15 GB of KV cache
