"""Issue 14, calibration ledger: a comparison that costs a row measured on its own workload
keeps the (estimate, measurement) pair; the accelerator page and the result page show the
ratio; later estimates on that accelerator take their spread from the observed ratios."""

from __future__ import annotations

import dataclasses

import pytest

from briefs.fit import gpu_spec_for, model_spec_for
from catalog.models import CalibrationEntry
from engine.performance import InferencePerfInput, estimate_inference
from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory, metrics_dict
from tests.factories import ModelProfileFactory, WorkloadBriefFactory

pytestmark = pytest.mark.django_db


def _row(lead, brief, quote) -> CandidateResult:
    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[quote.pk], seed=11
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    return CandidateResult.objects.get(comparison=comparison, quote=quote)


def _estimate_at(brief, quote, gpus: int, *, concurrency: int) -> float:
    """The roofline at the brief's mean lengths and this concurrency, on the quote's node: the
    estimate a ledger pair takes at a point's own shape (engine 1.5.0)."""
    gpu = dataclasses.replace(
        gpu_spec_for(quote.accelerator), max_gpus_per_node=quote.gpus_per_node
    )
    return estimate_inference(
        InferencePerfInput(
            model=model_spec_for(brief.model),
            gpu=gpu,
            weight_precision=brief.weight_precision,
            kv_precision=brief.kv_precision,
            input_tokens=brief.mean_input_tokens,
            output_tokens=brief.mean_output_tokens,
            concurrency=concurrency,
            gpus=gpus,
        )
    ).output_tokens_per_s


def _measured_at_half_the_estimate(brief, quote, estimated: CandidateResult):
    """A result at the brief's shape, on the costed GPUs, at half the roofline estimate at
    its own lengths and concurrency."""
    tokens = _estimate_at(brief, quote, estimated.gpus, concurrency=brief.concurrency) / 2
    return BenchmarkResultFactory(
        quote=quote,
        accelerator=quote.accelerator,
        brief=brief,
        gpu_count=estimated.gpus,
        model_name=brief.model.name,
        precision=brief.weight_precision,
        input_tokens_mean=brief.mean_input_tokens,
        output_tokens_mean=brief.mean_output_tokens,
        concurrency=brief.concurrency,
        metrics=metrics_dict(output_tokens_per_s=tokens, concurrency=brief.concurrency),
    )


@pytest.fixture
def ledger(scenario, lead):
    """The H100 row estimated, then measured at half its estimate: one ledger pair."""
    brief, fast = scenario["brief"], scenario["fast"]
    estimated = _row(lead, brief, fast)
    assert estimated.performance["evidence"]["kind"] == "estimated"
    result = _measured_at_half_the_estimate(brief, fast, estimated)
    measured = _row(lead, brief, fast)
    assert measured.performance["evidence"]["kind"] == "measured", measured.performance
    return {"result": result, "measured": measured, "estimated": estimated}


def test_ledger_keeps_the_pair_when_a_comparison_costs_a_measured_row(ledger, scenario, lead):
    entry = CalibrationEntry.objects.get()
    assert entry.accelerator == scenario["fast"].accelerator
    assert entry.benchmark_result_id == ledger["result"].pk
    assert entry.model_profile == scenario["brief"].model
    assert entry.measured_over_estimate == pytest.approx(0.5, abs=0.01)
    assert entry.shape == "in 1,500 / out 300 / c32 / " + (
        f"{ledger['measured'].gpus} GPU" + ("s" if ledger["measured"].gpus != 1 else "")
    )
    _row(lead, scenario["brief"], scenario["fast"])  # computed again: no second pair
    assert CalibrationEntry.objects.count() == 1


def test_accelerator_and_result_pages_show_the_ratio(ledger, scenario, login, engineer):
    client = login(engineer)
    page = client.get(scenario["fast"].accelerator.get_absolute_url()).content.decode()
    assert "Calibration ledger" in page
    assert "median <strong>0.50</strong> over 1 pair" in page
    result_page = client.get(ledger["result"].get_absolute_url()).content.decode()
    assert "Measured / estimate" in result_page
    assert "<strong>0.50</strong>" in result_page


def test_n3_another_models_estimate_on_the_accelerator_is_not_moved_by_the_pair(
    ledger, scenario, lead
):
    """Another model's brief on the same H100 stays estimated at the default spread: the
    Llama 3.1 70B pair says nothing of how far the estimate of an 8B model is off (it moved
    every estimate on the accelerator before)."""
    other = WorkloadBriefFactory(
        created_by=lead, model=ModelProfileFactory(slug="llama-3-1-8b", name="Llama 3.1 8B")
    )
    row = _row(lead, other, scenario["fast"])
    assert row.performance["evidence"]["kind"] == "estimated"
    assert "calibration_applied" not in row.performance
    CalibrationEntry.objects.all().delete()
    uncalibrated = _row(lead, other, scenario["fast"])
    assert row.p90 == uncalibrated.p90
    assert row.total_usd == uncalibrated.total_usd
