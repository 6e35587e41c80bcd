"""Pure helpers: plan rules, histograms, figure dicts, key figures (no database)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import charts, figures, plan_rules
from benchmarks.distributions import distributions_for, histogram
from benchmarks.parsers.types import RequestSamples
from tests.benchmarks.factories_benchmarks import metrics_dict

REALTIME = plan_rules.BriefFacts(
    workload_class="realtime_inference",
    model_name="Llama 3.1 70B",
    weight_precision="bf16",
    p95_context_tokens=3500,
    concurrency=32,
    ttft_p95_ms=800,
    itl_p95_ms=60,
    e2e_p99_ms=20000,
    peak_to_average=2.0,
)


def _codes(specs):
    return [s.code for s in specs]


def test_realtime_plan_has_four_phases_with_brief_targets():
    specs = plan_rules.plan_steps_for(REALTIME)
    assert sorted({s.phase for s in specs}) == [1, 2, 3, 4]
    by_code = {s.code: s for s in specs}
    assert by_code["p2-e2e-p99"].threshold == 20000
    assert "20,000 ms" in by_code["p2-e2e-p99"].title
    assert by_code["p2-ttft-p95"].threshold == 800
    assert by_code["p1-fits-at-concurrency"].threshold == 32
    assert "3,500 tokens" in by_code["p1-fits-at-concurrency"].criterion
    assert by_code["p1-peak-memory"].kind == plan_rules.AUTO
    assert "90%" in by_code["p1-peak-memory"].criterion
    assert by_code["p2-accepted-outputs"].kind == plan_rules.AUTO
    assert by_code["p4-normalised-row"].kind == plan_rules.AUTO
    ops = [s.code for s in specs if s.phase == 3]
    assert ops == [
        "p3-kill-worker",
        "p3-drain-node",
        "p3-restart-serving",
        "p3-bad-deploy",
        "p3-cold-start",
        "p3-telemetry",
        "p3-cost-attribution",
    ]
    assert all(s.kind == plan_rules.MANUAL for s in specs if s.phase == 3)
    assert len(set(_codes(specs))) == len(specs)


def test_training_plan_checks_checkpoint_recovery_not_serving():
    brief = plan_rules.BriefFacts(workload_class="full_finetune", checkpoint_write_s=120)
    codes = _codes(plan_rules.plan_steps_for(brief))
    assert "p3-checkpoint-recovery" in codes
    assert "p3-restart-serving" not in codes
    assert "p2-e2e-p99" not in codes
    assert {"p2-training-throughput", "p2-time-to-target", "p2-checkpoint-write"} <= set(codes)


def test_no_target_no_latency_step():
    brief = plan_rules.BriefFacts(workload_class="batch_inference", concurrency=8)
    codes = _codes(plan_rules.plan_steps_for(brief))
    assert "p2-e2e-p99" not in codes
    assert "p2-ttft-p95" not in codes
    assert "p2-throughput" in codes


def _spec(code, brief=REALTIME):
    return next(s for s in plan_rules.plan_steps_for(brief) if s.code == code)


def _facts(metrics, rid=1, gpus=1):
    return plan_rules.ResultFacts(
        result_id=rid, label=f"result #{rid}", metrics=metrics, gpu_count=gpus
    )


@pytest.mark.parametrize(
    ("p99", "expected"), [(19999.0, "passed"), (20000.0, "passed"), (20001.0, "failed")]
)
def test_e2e_step_judged_against_target(p99, expected):
    verdict = plan_rules.evaluate(
        _spec("p2-e2e-p99"), [_facts(metrics_dict(e2e=(1.0, 2.0, p99)), rid=7)]
    )
    assert verdict.status == expected
    assert verdict.result_id == 7
    assert "p99 E2E" in verdict.observed


def test_first_result_with_the_metric_counts():
    no_e2e = metrics_dict(e2e=None)
    verdict = plan_rules.evaluate(
        _spec("p2-e2e-p99"), [_facts(no_e2e, rid=1), _facts(metrics_dict(), rid=2)]
    )
    assert verdict.result_id == 2


def _point(concurrency, tokens_per_s, ttft_p95, itl_p95=30.0, e2e_p99=9000.0):
    return {
        "label": f"run {concurrency}",
        "concurrency": concurrency,
        "output_tokens_per_s": tokens_per_s,
        "ttft_ms": {"p50": ttft_p95 / 2, "p95": ttft_p95, "p99": ttft_p95 * 1.3},
        "itl_ms": {"p50": itl_p95 / 2, "p95": itl_p95, "p99": itl_p95 * 1.5},
        "e2e_ms": {"p50": e2e_p99 / 2, "p95": e2e_p99 * 0.9, "p99": e2e_p99},
        "error_rate": 0.0,
    }


def _sweep(*points):
    # The headline is the saturation run (highest throughput), as the parsers store it.
    head = max(points, key=lambda p: p["output_tokens_per_s"])
    return {
        **metrics_dict(ttft=(100.0, head["ttft_ms"]["p95"], 2000.0)),
        "operating_points": list(points),
    }


def test_latency_steps_pass_a_sweep_at_the_point_that_meets_every_target():
    # Given a sweep whose saturation run (c64) misses the 800 ms TTFT target and whose c16 run
    # meets every target of the brief
    sweep = _sweep(_point(1, 40.0, 170.0), _point(16, 500.0, 520.0), _point(64, 900.0, 1450.0))
    # When the latency steps read it, then each passes and names the point the engine costs
    for code in ("p2-ttft-p95", "p2-itl-p95", "p2-e2e-p99"):
        verdict = plan_rules.evaluate(_spec(code), [_facts(sweep, rid=9)])
        assert verdict.status == "passed", code
        assert verdict.observed.startswith("met at concurrency 16: TTFT p95 520 ms"), code
        assert verdict.result_id == 9


def test_latency_steps_fail_a_sweep_naming_the_closest_point():
    # c4 meets TTFT but misses ITL; c16 misses TTFT by less than c4 misses ITL: no point meets
    # every target, so even the TTFT step fails, naming the point closest to the targets
    sweep = _sweep(_point(4, 200.0, 300.0, itl_p95=90.0), _point(16, 500.0, 880.0))
    verdict = plan_rules.evaluate(_spec("p2-ttft-p95"), [_facts(sweep)])
    assert verdict.status == "failed"
    assert verdict.observed.startswith(
        "no operating point meets every target; closest at concurrency 16: TTFT p95 880 ms"
    )


def test_sweep_without_a_targets_figure_is_judged_on_the_steps_own_target():
    # Given a sweep that records no end-to-end latency (the brief has an E2E target)
    points = [_point(4, 200.0, 300.0), _point(16, 500.0, 900.0)]
    for point in points:
        point["e2e_ms"] = None
    verdict = plan_rules.evaluate(_spec("p2-ttft-p95"), [_facts(_sweep(*points))])
    assert verdict.status == "passed"
    assert verdict.observed.startswith("met at concurrency 4: TTFT p95 300 ms")


def test_without_results_steps_stay_pending():
    for spec in plan_rules.plan_steps_for(REALTIME):
        if spec.kind == plan_rules.AUTO:
            assert plan_rules.evaluate(spec, []).status == "pending"


def test_accepted_outputs_fail_when_results_only_count_generated():
    spec = _spec("p2-accepted-outputs")
    assert plan_rules.evaluate(spec, [_facts(metrics_dict())]).status == "failed"
    ok = plan_rules.evaluate(spec, [_facts(metrics_dict(acceptance_rate=0.93))])
    assert ok.status == "passed"
    assert "93.0%" in ok.observed


def test_fits_at_concurrency_needs_the_target_concurrency_without_failures():
    spec = _spec("p1-fits-at-concurrency")
    low = plan_rules.evaluate(spec, [_facts(metrics_dict(concurrency=8))])
    assert low.status == "pending"
    assert "8" in low.observed
    ok = plan_rules.evaluate(spec, [_facts(metrics_dict(concurrency=32))])
    assert ok.status == "passed"
    failing = {**metrics_dict(concurrency=64), "requests_failed": 3}
    assert plan_rules.evaluate(spec, [_facts(failing)]).status == "failed"


def test_itl_uses_tpot_then_itl():
    spec = _spec("p2-itl-p95")
    verdict = plan_rules.evaluate(spec, [_facts(metrics_dict())])
    assert verdict.status == "passed"
    assert "TPOT" in verdict.observed
    only_itl = {**metrics_dict(), "tpot_ms": None, "itl_ms": {"p95": 75.0}}
    assert plan_rules.evaluate(spec, [_facts(only_itl)]).status == "failed"


def test_comparison_row_step():
    spec = _spec("p4-normalised-row")
    assert plan_rules.evaluate(spec, [], has_comparison_row=True).status == "passed"
    assert plan_rules.evaluate(spec, [], has_comparison_row=False).status == "pending"


def test_histogram_counts_every_value_and_flags_the_tail():
    rng = np.random.default_rng(1)
    values = np.concatenate([rng.normal(500, 50, 10_000), [1e6], [np.nan, np.inf]])
    hist = histogram(values, bins=20)
    assert hist["count"] == 10_001
    assert sum(hist["counts"]) + hist["overflow"] == hist["count"]
    assert hist["overflow"] >= 1
    assert len(hist["edges"]) == 21
    assert hist["max"] == 1e6
    assert hist["p50"] == pytest.approx(500, rel=0.02)
    json.dumps(hist, allow_nan=False)


def test_histogram_of_constant_or_empty():
    assert histogram([]) is None
    assert histogram([np.nan]) is None
    hist = histogram([5.0, 5.0])
    assert hist["count"] == 2
    assert sum(hist["counts"]) == 2


def test_distributions_skip_failed_requests():
    n = 4
    samples = RequestSamples(
        ttft_ms=np.array([10.0, 20.0, 30.0, 9999.0]),
        e2e_ms=np.array([100.0, 200.0, 300.0, np.nan]),
        itl_ms=np.full(n, np.nan),
        input_tokens=np.full(n, 10.0),
        output_tokens=np.full(n, 10.0),
        success=np.array([True, True, True, False]),
    )
    out = distributions_for(samples)
    assert out["ttft_ms"]["count"] == 3
    assert out["ttft_ms"]["max"] == 30.0
    assert out["e2e_ms"]["count"] == 3
    assert distributions_for(None) == {}


def test_percentile_figure_has_one_trace_per_percentile():
    fig = charts.latency_percentiles_figure(metrics_dict())
    assert [t["name"] for t in fig["data"]] == ["p50", "p95", "p99"]
    assert fig["data"][2]["y"] == [450.0, 60.0, 40.0, 12000.0]
    assert charts.latency_percentiles_figure({}) is None
    json.dumps(fig, allow_nan=False)


def test_distribution_figure_marks_target():
    hist = histogram(np.arange(1, 1001, dtype=float), bins=10)
    fig = charts.distribution_figure(hist, title="TTFT", target_ms=800, target_label="target")
    assert len(fig["data"][0]["x"]) == 10
    xs = [s["x0"] for s in fig["layout"]["shapes"]]
    assert 800.0 in xs
    json.dumps(fig, allow_nan=False)


def test_compare_scatter_draws_target_line_and_skips_unplaceable():
    points = [
        {
            "label": "A",
            "group": "H100",
            "e2e_p99_ms": 9000,
            "tokens_per_s_per_gpu": 1200,
            "result_id": 1,
        },
        {
            "label": "B",
            "group": "H200",
            "e2e_p99_ms": None,
            "tokens_per_s_per_gpu": 1500,
            "result_id": 2,
        },
        {
            "label": "C",
            "group": "H200",
            "e2e_p99_ms": 15000,
            "tokens_per_s_per_gpu": 2000,
            "result_id": 3,
        },
    ]
    fig = charts.compare_scatter_figure(points, target=10000)
    assert {t["name"] for t in fig["data"]} == {"H100", "H200"}
    assert sum(len(t["x"]) for t in fig["data"]) == 2
    assert fig["layout"]["shapes"][0]["x0"] == 10000.0
    assert charts.compare_scatter_figure(points[1:2], target=None) is None


def test_key_figures_per_gpu_and_acceptance():
    m = {**metrics_dict(output_tokens_per_s=4000), "accepted_outputs": 900, "acceptance_rate": None}
    f = figures.key_figures(m, 4)
    assert f["tokens_per_s_per_gpu"] == 1000
    assert f["acceptance_rate"] == pytest.approx(0.9)
    assert f["has_acceptance_data"] is True
    assert (
        figures.key_figures({"output_tokens_per_s": float("nan")}, 2)["output_tokens_per_s"] is None
    )
    assert figures.key_figures({"output_tokens_per_s": True}, 2)["output_tokens_per_s"] is None


def test_peak_memory_from_nvidia_smi_or_dcgm_telemetry():
    spec = _spec("p1-peak-memory")
    smi = {"extra": {"memory.used_max": 70000.0, "memory.total_max": 81559.0}}
    verdict = plan_rules.evaluate(spec, [_facts(metrics_dict()), _facts(smi, rid=3)])
    assert verdict.status == "passed"
    assert verdict.result_id == 3
    assert "85.8%" in verdict.observed
    dcgm = {"extra": {"DCGM_FI_DEV_FB_USED_mean": 78000.0, "DCGM_FI_DEV_FB_FREE_mean": 2000.0}}
    assert plan_rules.evaluate(spec, [_facts(dcgm)]).status == "failed"
    assert plan_rules.evaluate(spec, [_facts(metrics_dict())]).status == "pending"
