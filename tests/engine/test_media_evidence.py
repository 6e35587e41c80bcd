"""Media rows (D3 and issue 14): a measured acceptance is used in the cost or the warning
stays, and a render of another model than the brief's is not this row's measurement."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.comparison import run_comparison
from procurement.snapshot import thaw
from tests.engine.snapshot_world import H100, quote, snapshot

SDXL = {"id": 21, "slug": "sdxl-1-0", "name": "Stable Diffusion XL 1.0", "family": "SDXL"}
MEDIA_BRIEF = {
    "workload_class": "media",
    "model_id": None,
    "media_kind": "image",
    "gpu_seconds_per_asset": 3.5,
    "monthly_accepted_outputs_low": 200_000,
    "monthly_accepted_outputs_likely": 200_000,
    "monthly_accepted_outputs_high": 200_000,
    "acceptance_rate_low": 0.8,
    "acceptance_rate_likely": 0.8,
    "acceptance_rate_high": 0.8,
    "failure_rate_low": 0,
    "failure_rate_likely": 0,
    "failure_rate_high": 0,
    "utilisation_low": 1,
    "utilisation_likely": 1,
    "utilisation_high": 1,
    "platform_fte": 0,
}


def _render(rid: int, model: str = "stabilityai/stable-diffusion-xl-base-1.0", **extra):
    """A frozen media benchmark result bound to offer 1 on the H100."""
    return {
        "result_id": rid,
        "accelerator": H100["slug"],
        "quote_id": 1,
        "brief_id": None,
        "gpu_count": 1,
        "model_name": model,
        "model_profile_id": None,
        "request_throughput_rps": 0.5,
        "requests_completed": 1000,
        "tokens_per_s_per_gpu": 0.0,  # images, not tokens (the fixture ranks on it)
        **extra,
    }


def _media_snapshot(results, model=None):
    snap = snapshot([quote(1, "2.50")], results, **MEDIA_BRIEF)
    snap["model"] = model
    return snap


def _run(snap):
    thawed = thaw(snap)
    return thawed, run_comparison(thawed.input, seed=7, samples=200).candidates[0]


def test_d3_media_measured_acceptance_is_used_in_the_cost_and_said():
    """Acceptance 0.5 measured against the brief's 0.8: 1.6× the attempts per accepted asset,
    so 1.6× the GPU cost per accepted asset; the row says the measured rate was used."""
    before, plain = _run(_media_snapshot([_render(5)]))
    thawed, measured = _run(_media_snapshot([_render(5, acceptance_rate=0.5)]))
    assert before.facts["quote:1"]["perf_source"] == "measured"
    assert thawed.facts["quote:1"]["perf_source"] == "measured"
    # GPU time per rendered asset + the renders thrown away; no other line in this brief
    gpu = measured.cost_lines["gpu_cost"] + measured.cost_lines["failed_renders"]
    gpu0 = plain.cost_lines["gpu_cost"] + plain.cost_lines["failed_renders"]
    assert abs(gpu / gpu0 - Decimal("1.6")) < Decimal("0.001")
    assert abs(measured.unit_cost / plain.unit_cost - Decimal("1.6")) < Decimal("0.001")
    assert "NO_ACCEPTANCE_DATA" in {w.code for w in plain.warnings}
    assert "NO_ACCEPTANCE_DATA" not in {w.code for w in measured.warnings}
    assert (plain.acceptance_source, measured.acceptance_source) == ("brief", "measured")
    perf = thawed.facts["quote:1"]["performance"]
    assert perf["acceptance_source"] == "measured (0.500, result 5)"


def test_d3_media_result_stating_acceptance_data_without_a_rate_keeps_the_warning():
    _, row = _run(_media_snapshot([_render(5, has_acceptance_data=True)]))
    assert "NO_ACCEPTANCE_DATA" in {w.code for w in row.warnings}
    assert row.acceptance_source == "brief"


def test_issue14_media_render_of_another_model_is_ignored_with_its_reason():
    """A FLUX render on the H100 is not this SDXL brief's measurement: the row stays
    estimated and says why; a render of SDXL itself counts."""
    flux = _render(5, model="black-forest-labs/FLUX.1-dev", request_throughput_rps=9.0)
    thawed, _ = _run(_media_snapshot([flux], model=SDXL))
    perf = thawed.facts["quote:1"]["performance"]
    assert thawed.facts["quote:1"]["perf_source"] == "estimated"
    assert perf["ignored_evidence"] == [
        "benchmark of black-forest-labs/FLUX.1-dev ignored: the brief is Stable Diffusion XL 1.0"
    ]
    sdxl = _render(6, model="Stable Diffusion XL 1.0")
    thawed, _ = _run(_media_snapshot([flux, sdxl], model=SDXL))
    assert thawed.facts["quote:1"]["perf_source"] == "measured"
    assert thawed.facts["quote:1"]["performance"]["outputs_per_s"] == 0.5


def _relative_spread(row) -> float:
    return (row.p90 - row.p10) / row.p50


def test_measured_media_row_gets_the_measured_spread_not_the_estimate():
    """A render measured at 0.5 assets/s per GPU is known to within the measured spread
    (0.90–1.05×); the same rate estimated from the brief's GPU-seconds keeps the wider
    estimate spread (0.75–1.10×), as LLM rows do. (The spread was asked for by a name the
    spread lookup did not know, so every media row got the measured spread.)"""
    measured_in, measured = _run(_media_snapshot([_render(5, acceptance_rate=0.8)]))
    brief_seconds = {**MEDIA_BRIEF, "gpu_seconds_per_asset": 2.0}  # ≈ 0.5 assets/s on an H100
    estimated_in, estimated = _run(
        {**_media_snapshot([]), "brief": {**_media_snapshot([])["brief"], **brief_seconds}}
    )
    assert measured_in.facts["quote:1"]["perf_source"] == "measured"
    assert estimated_in.facts["quote:1"]["perf_source"] == "estimated"
    measured_range = measured_in.input.candidates[0].throughput_per_replica
    estimated_range = estimated_in.input.candidates[0].throughput_per_replica
    assert measured_range is not None
    assert estimated_range is not None
    assert measured_range.low / measured_range.likely == pytest.approx(0.90)
    assert estimated_range.low / estimated_range.likely == pytest.approx(0.75)
    assert _relative_spread(measured) < _relative_spread(estimated)


def test_p2_a_media_brief_naming_no_model_takes_no_llm_benchmark():
    """Issue 37, P2: the demo's gpt-oss-20b AIPerf run (9.55 requests/s, output tokens/s and
    a TTFT) is not 9.55 images/s per GPU. The row is estimated from the brief's 3.5 GPU-s per
    image on the reference GPU (989.5 BF16 dense TFLOPS) scaled to this H100's 989:
    989 / (3.5 × 989.5) = 0.285570 assets/s."""
    llm = _render(
        5,
        model="openai/gpt-oss-20b",
        request_throughput_rps=9.55,
        output_tokens_per_s=2200.0,
        tokens_per_s_per_gpu=2200.0,
        ttft_p95_ms=180.0,
    )
    thawed, _ = _run(_media_snapshot([llm]))
    perf = thawed.facts["quote:1"]["performance"]
    assert thawed.facts["quote:1"]["perf_source"] == "estimated"
    assert perf["outputs_per_s"] == 0.28557
    assert perf["ignored_evidence"] == [
        "benchmark of openai/gpt-oss-20b ignored: it measured tokens (an LLM serving run), not "
        "rendered assets"
    ]
    thawed, _ = _run(_media_snapshot([llm, _render(6)]))
    assert thawed.facts["quote:1"]["perf_source"] == "measured"
    assert thawed.facts["quote:1"]["performance"]["outputs_per_s"] == 0.5
