"""Matching rules, measured acceptance, shared draws, substitution and recommendation words."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import recommendation
from engine.comparison import run_comparison
from engine.evidence import (
    ResultWorkload,
    choose_evidence,
    match_result,
)
from engine.montecarlo import simulate
from engine.types import CandidateInput, CandidateStats, Range, WorkloadInput
from procurement.snapshot import thaw
from tests.engine.builders import LLAMA_70B, LLAMA_70B_ON_4_H100, outcome
from tests.engine.snapshot_world import quote, result, snapshot

TARGET = LLAMA_70B_ON_4_H100


def _result(**kw) -> ResultWorkload:
    base = {
        "result_id": 1,
        "accelerator": "h100",
        "model_name": LLAMA_70B,
        "precision": "bf16",
        "gpu_count": 4,
        "input_tokens_mean": 1500,
        "output_tokens_mean": 300,
        "concurrency": 32,
    }
    return ResultWorkload(**{**base, **kw})


def _run(snap, samples=400):
    thawed = thaw(snap)
    return thawed, run_comparison(thawed.input, seed=7, samples=samples)


def test_d1_benchmark_of_another_model_is_ignored_with_its_reason():
    """D1 / U18: an 8B result never counts as measured for a 70B brief."""
    verdict = match_result(_result(model_name="meta-llama/Llama-3.1-8B-Instruct"), TARGET)
    assert verdict.kind == "ignored"
    assert verdict.reason == (
        "benchmark of meta-llama/Llama-3.1-8B-Instruct ignored: the brief is Llama 3.1 70B"
    )
    thawed, out = _run(snapshot([quote(1, "1.00")], [result(5, "some-1b-model")]))
    row = out.candidates[0]
    assert thawed.input.candidates[0].perf_source == "estimated"
    assert "PERF_ESTIMATED" in {w.code for w in row.warnings}
    perf = thawed.facts["quote:1"]["performance"]
    assert perf["ignored_evidence"] == [
        "benchmark of some-1b-model ignored: the brief is Llama 3.1 70B"
    ]


def test_d1_measured_only_at_the_brief_shape_else_proxy_with_reason():
    """D1: the same model on another shape is a proxy, its difference stated."""
    assert match_result(_result(), TARGET).kind == "measured"
    short = match_result(_result(input_tokens_mean=500), TARGET)
    assert short.kind == "proxy"
    assert "input 500 tokens against the brief's 1,500 (±25 %)" in short.reason
    low = match_result(_result(concurrency=8), TARGET)
    assert low.kind == "proxy"
    assert "concurrency 8" in low.reason
    assert match_result(_result(precision="fp8"), TARGET).kind == "proxy"
    assert match_result(_result(precision=""), TARGET).kind == "proxy"


def test_d1_same_family_and_size_class_is_a_proxy_scaled_by_parameters():
    verdict = match_result(_result(model_name="meta-llama/Llama-3.3-70B-Instruct"), TARGET)
    assert verdict.kind == "proxy"  # Llama 3.3 70B is another model of the same class
    other = match_result(_result(model_name="Llama-3.3-65b"), TARGET)
    assert other.kind == "proxy"
    assert abs(other.throughput_factor - 65 / 70.6) < 1e-9
    assert any("parameter count" in a for a in other.adjustments)
    assert other.spread_low_factor < 1


def test_d14_scaling_is_stated_and_widens_and_the_costed_gpu_count_wins():
    """D14: a 1-GPU result is not silently scaled linearly to 4; the 4-GPU one is preferred."""
    one = _result(result_id=1, gpu_count=1)
    eight = _result(result_id=2, gpu_count=4)
    scaled = match_result(one, TARGET)
    assert scaled.kind == "proxy"
    assert scaled.throughput_factor == 4
    assert "measured on 1 GPU, scaled linearly to 4 (×4)" in scaled.adjustments[0]
    assert scaled.spread_low_factor < 0.85
    best, _ = choose_evidence([one, eight], TARGET)
    assert best is not None
    assert best.result_id == 2


@settings(max_examples=15, deadline=None)
@given(
    model=st.sampled_from(["some-1b-model", "Qwen2.5-7B-Instruct", "mistral-large", ""]),
    tps=st.floats(min_value=1, max_value=1e6),
    gpus=st.integers(min_value=1, max_value=8),
)
def test_d1_property_another_models_result_never_changes_any_cost(model, tps, gpus):
    """D1 (hypothesis): adding a benchmark result of another model changes no cost."""
    quotes = [quote(1, "2.50"), quote(2, "3.10")]
    base = [result(5, LLAMA_70B)]
    extra = result(
        9, model, gpu_count=gpus, output_tokens_per_s=tps, tokens_per_s_per_gpu=tps / gpus
    )
    _, before = _run(snapshot(quotes, base), samples=50)
    _, after = _run(snapshot(quotes, [*base, extra]), samples=50)
    for a, b in zip(before.candidates, after.candidates, strict=True):
        assert (a.unit_cost, a.cost_lines, a.p10, a.p50, a.p90) == (
            b.unit_cost,
            b.cost_lines,
            b.p10,
            b.p50,
            b.p90,
        )


def test_d3_measured_acceptance_replaces_the_brief_and_the_row_says_so():
    """D3: acceptance 0.4 measured on this workload doubles the cost per accepted output
    against 0.8 (attempts = accepted / (acceptance × (1 − failure)))."""
    brief = {
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
    _, plain = _run(snapshot([quote(1, "2.00")], [result(5, LLAMA_70B)], **brief))
    _, measured = _run(
        snapshot([quote(1, "2.00")], [result(5, LLAMA_70B, acceptance_rate=0.4)], **brief)
    )
    a, b = plain.candidates[0], measured.candidates[0]
    gpu = b.cost_lines["gpu_compute"] + b.cost_lines["retry_waste"] + b.cost_lines["idle_capacity"]
    gpu0 = a.cost_lines["gpu_compute"] + a.cost_lines["retry_waste"] + a.cost_lines["idle_capacity"]
    assert abs(gpu / gpu0 - 2) < Decimal("0.0001")
    assert "NO_ACCEPTANCE_DATA" in {w.code for w in a.warnings}
    assert "NO_ACCEPTANCE_DATA" not in {w.code for w in b.warnings}
    assert (a.acceptance_source, b.acceptance_source) == ("brief", "measured")


def _offer(cid: str, price: str, key: str) -> CandidateInput:
    return CandidateInput(
        id=cid,
        label=cid,
        kind="gpu",
        capacity_model="on_demand",
        accelerator="h100",
        price_per_gpu_hour=Decimal(price),
        gpus_per_replica=4,
        throughput_per_replica=Range(1800, 2000, 2100),
        perf_source="measured",
        evidence_key=key,
    )


@settings(max_examples=15, deadline=None)
@given(
    cheap=st.decimals(min_value="0.50", max_value="5.00", places=2),
    extra=st.decimals(min_value="0.01", max_value="1.00", places=2),
    seed=st.integers(min_value=0, max_value=2**31),
)
def test_d4_dearer_offer_on_the_same_measurement_is_never_cheapest(cheap, extra, seed):
    """D4 (hypothesis): two offers identical but for price: the dearer has P(cheapest) 0."""
    workload = WorkloadInput(
        workload_class="realtime_inference",
        monthly_accepted_outputs=Range(1e6, 2e6, 3e6),
        output_tokens_per_request=300,
        input_tokens_per_request=1500,
    )
    offers = [_offer("a", str(cheap + extra), "result:5"), _offer("b", str(cheap), "result:5")]
    stats = {s.candidate_id: s for s in simulate(workload, offers, seed=seed, samples=500).stats}
    assert stats["a"].prob_cheapest == 0.0
    assert stats["b"].prob_cheapest == 1.0


def test_u7_substituted_model_is_flagged_and_not_recommended_unless_allowed():
    """U7: gpt-4o-mini for a Llama 70B brief carries MODEL_SUBSTITUTION naming both."""
    route = {
        "id": 3,
        "label": "OpenAI · gpt-4o-mini",
        "provider_name": "OpenAI",
        "model_name": "gpt-4o-mini",
        "model_profile_id": None,
        "price_input_per_m_tokens": "0.15",
        "price_output_per_m_tokens": "0.60",
        "currency": "USD",
        "region": "eu-west",
        "quoted_at": "2026-12-01T00:00:00+00:00",
    }
    _, out = _run(snapshot([quote(1, "2.50")], [result(5, LLAMA_70B)], [route]))
    api = outcome(out, "api:3")
    (warning,) = [w for w in api.warnings if w.code == "MODEL_SUBSTITUTION"]
    assert "serves gpt-4o-mini, the brief is Llama 3.1 70B" in warning.detail
    assert api.rank_by_unit_cost == 1
    assert out.recommended_candidate_id == "quote:1"
    assert any("gpt-4o-mini" in n for n in out.recommendation_notes)
    _, allowed = _run(
        snapshot([quote(1, "2.50")], [result(5, LLAMA_70B)], [route], allow_model_substitution=True)
    )
    assert allowed.recommended_candidate_id == "api:3"
    assert any("different model" in n for n in allowed.recommendation_notes)


def test_u26_tie_and_estimated_winner_against_measured_runner_up_are_said():
    """U26: a 0.9 % gap with overlapping p10–p90 and P(cheapest) 64 % reads as a tie, and an
    estimated winner against a measured runner-up is said in words."""
    winner = _offer("est", "2.50", "estimate:h100:llama")
    winner = replace(winner, perf_source="estimated")
    runner = _offer("meas", "2.52", "result:5")
    workload = WorkloadInput(
        workload_class="realtime_inference",
        monthly_accepted_outputs=Range.fixed(1e6),
        output_tokens_per_request=300,
    )
    stats = {
        "est": CandidateStats("est", 25.75, 32.0, 40.46, 32.0, 0.64),
        "meas": CandidateStats("meas", 25.91, 32.3, 40.59, 32.3, 0.36),
    }
    words = " ".join(
        recommendation.notes(workload, [winner, runner], [winner, runner], "est", stats)
    )
    assert "effectively tied with meas" in words
    assert "P(cheapest) is 64%" in words
    assert "throughput is estimated while the runner-up meas is measured" in words
    apart = {**stats, "meas": CandidateStats("meas", 50.0, 55.0, 60.0, 55.0, 0.0)}
    assert "tied" not in " ".join(
        recommendation.notes(workload, [winner, runner], [winner, runner], "est", apart)
    )


def test_d11_closest_latency_is_said_and_no_meets_beside_unmeasured():
    """D11 / U7: no GPU offer meets 500 ms: the recommendation says the closest figure;
    an unmeasured latency never reads 'meets'."""
    # The offer has 4 GPUs: the measured 4-GPU configuration is its only one.
    snap = snapshot(
        [quote(1, "2.50", max_gpus_available=4)],
        [result(5, LLAMA_70B, ttft_p95_ms=612.0)],
        ttft_p95_ms=500,
    )
    _, out = _run(snap)
    assert any("closest: 612 ms against 500 ms" in n for n in out.recommendation_notes)
    snap = snapshot([quote(1, "2.50")], [], ttft_p95_ms=100_000)
    _, out = _run(snap)
    row = out.candidates[0]
    assert "LATENCY_UNMEASURED" in {w.code for w in row.warnings}
    assert not row.latency_verdict.startswith("meets")
