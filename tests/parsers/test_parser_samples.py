"""Every stored real sample parses, with independently recomputed numbers.

Percentiles are recomputed here straight from the raw JSON/CSV (numpy, linear interpolation),
without going through the parsers' own array code.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.parsers import FORMATS, ParsedResult, Percentiles, detect, parse

FIXTURES = Path(__file__).parent / "fixtures"

EXPECTED = {
    "aiperf/aiperf_examples_run1_profile_export.jsonl": "aiperf-jsonl",
    "aiperf/aiperf_examples_run1_profile_export_aiperf.csv": "aiperf-csv",
    "aiperf/aiperf_examples_run1_profile_export_aiperf.json": "aiperf-json",
    "guidellm/guidellm_v0.3era_test_asset_benchmarks_stripped.json": "guidellm",
    "guidellm/llmd_fixture_guidellm0.8dev_report_v2_mock.json": "guidellm",
    "llmperf/bedrock_70b_individual_responses.json": "llmperf-individual",
    "llmperf/bedrock_70b_summary.json": "llmperf-summary",
    "llmperf/groq_70b_individual_responses.json": "llmperf-individual",
    "llmperf/groq_70b_summary.json": "llmperf-summary",
    "mlperf/mlperf_inference_v4.1_closed_GigaComputing_summary.csv": "mlperf-inference-summary",
    "mlperf/mlperf_training_v4.0_ASUSTeK_ESC_N8A-E12_llama2_70b_lora_result_0.txt": (
        "mlperf-training-log"
    ),
    "mlperf/mlperf_training_v4.0_ASUSTeK_systems_ESC_N8A-E12.json": "mlperf-system",
    "nvidia-smi/xypp3_8gpu_nvidia_smi_noheader_nounits_customheader.csv": "nvidia-smi-csv",
    "vllm-serve/llmd_exp7_H100_vllm-2replicas_benchmark_2025-05-13_04-55-27.json": "vllm-serve",
    # written for the tests (test_parser_realdata.py), public layouts, invented values
    "written/aiperf_0.10_profile_export_aiperf.json": "aiperf-json",
    "written/amd_smi_metric_watch_mi300x.csv": "amd-smi-csv",
    "written/amd_smi_monitor.csv": "amd-smi-csv",
    "written/llmperf_summaries_by_concurrency.json": "llmperf-summary",
    "written/mlperf_inference_v5.0_summary_written.csv": "mlperf-inference-summary",
    "written/rocm_smi_showuse_power_mem.csv": "amd-smi-csv",
    "written/sglang_bench_serving_console.txt": "serving-console",
    "written/vllm_2024_no_token_requests.json": "vllm-serve",
    "written/vllm_append_result_rate_sweep.jsonl": "vllm-serve",
}


def sample_files() -> list[Path]:
    return sorted(
        p for p in FIXTURES.rglob("*") if p.is_file() and not p.name.endswith(".source.txt")
    )


def raw(rel: str) -> bytes:
    return (FIXTURES / rel).read_bytes()


def load(rel: str) -> Any:
    return json.loads(raw(rel))


def pct(values: list[float] | np.ndarray) -> Percentiles:
    arr = np.asarray(values, dtype=np.float64)
    p50, p95, p99 = np.percentile(arr, [50, 95, 99])
    return Percentiles(float(p50), float(p95), float(p99), float(arr.mean()))


def assert_pct(actual: Percentiles | None, expected: Percentiles, rel: float = 1e-9) -> None:
    assert actual is not None
    for attr in ("p50", "p95", "p99", "mean"):
        want = getattr(expected, attr)
        got = getattr(actual, attr)
        if want is None:
            continue
        assert got == pytest.approx(want, rel=rel, abs=1e-9), attr


def test_every_fixture_has_provenance_and_an_expectation() -> None:
    files = sample_files()
    assert len(files) == len(EXPECTED)
    for path in files:
        assert path.with_name(path.name + ".source.txt").is_file(), path
        assert str(path.relative_to(FIXTURES)) in EXPECTED, path


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_sample_detected_and_parsed(rel: str) -> None:
    data = raw(rel)
    expected = EXPECTED[rel]
    assert detect(data, Path(rel).name) == expected
    # the name is only a hint: a meaningless name gives the same answer
    assert detect(data, "upload.bin") == expected
    assert detect(data) == expected
    result = parse(data, "upload.bin")
    assert isinstance(result, ParsedResult)
    assert result.format_id == expected
    assert result.format_name == FORMATS[expected]
    as_json = json.dumps(result.to_dict(), allow_nan=False)
    back = json.loads(as_json)
    assert back["format_id"] == expected
    assert back["has_per_request"] is (result.per_request is not None)


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_sample_progress_reaches_one(rel: str) -> None:
    seen: list[float] = []
    parse(raw(rel), progress=seen.append)
    assert seen
    assert seen[-1] == 1.0
    assert seen == sorted(seen)
    assert all(0.0 <= x <= 1.0 for x in seen)


# ----------------------------------------------------------------------------- AIPerf


def _aiperf_records() -> list[dict[str, Any]]:
    text = raw("aiperf/aiperf_examples_run1_profile_export.jsonl").decode()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_aiperf_jsonl_recomputed_from_records() -> None:
    records = _aiperf_records()
    ok = [r for r in records if r["error"] is None]
    result = parse(raw("aiperf/aiperf_examples_run1_profile_export.jsonl"))
    m = result.metrics
    assert m.requests_completed == len(ok) == 89
    assert m.requests_failed == 11
    assert_pct(m.ttft_ms, pct([r["metrics"]["ttft"]["value"] for r in ok]))
    assert_pct(m.e2e_ms, pct([r["metrics"]["request_latency"]["value"] for r in ok]))
    assert_pct(m.tpot_ms, pct([r["metrics"]["inter_token_latency"]["value"] for r in ok]))
    gaps = [g for r in ok for g in r["metrics"]["inter_chunk_latency"]["value"]]
    assert_pct(m.itl_ms, pct(gaps))
    start = min(r["metrics"]["min_request_timestamp"]["value"] for r in ok)
    end = max(r["metrics"]["max_response_timestamp"]["value"] for r in ok)
    assert m.duration_s == pytest.approx((end - start) / 1e9)
    osl = sum(r["metrics"]["output_sequence_length"]["value"] for r in ok)
    assert m.output_tokens_total == osl
    assert result.per_request is not None
    assert len(result.per_request) == 100
    assert result.to_dict()["request_count"] == 100


def test_aiperf_json_summary_values_and_agreement_with_records() -> None:
    summary = load("aiperf/aiperf_examples_run1_profile_export_aiperf.json")["records"]
    result = parse(raw("aiperf/aiperf_examples_run1_profile_export_aiperf.json"))
    m = result.metrics
    for name, tag in (
        ("ttft_ms", "ttft"),
        ("e2e_ms", "request_latency"),
        ("tpot_ms", "inter_token_latency"),
        ("itl_ms", "inter_chunk_latency"),
    ):
        s = summary[tag]
        assert_pct(getattr(m, name), Percentiles(s["p50"], s["p95"], s["p99"], s["avg"]))
    assert m.requests_completed == 89
    assert m.requests_failed == 11
    assert m.duration_s == pytest.approx(summary["benchmark_duration"]["avg"])
    assert m.request_throughput_rps == pytest.approx(summary["request_throughput"]["avg"])
    assert m.output_tokens_per_s == pytest.approx(summary["output_token_throughput"]["avg"])
    assert m.input_tokens_total == 48950
    assert m.output_tokens_total == 21624
    assert m.concurrency == 100
    assert result.model == "openai/gpt-oss-20b"
    # AIPerf's own percentiles equal numpy linear interpolation over its per-request records
    per_request = parse(raw("aiperf/aiperf_examples_run1_profile_export.jsonl")).metrics
    for name in ("ttft_ms", "e2e_ms", "tpot_ms", "itl_ms"):
        assert_pct(getattr(per_request, name), getattr(m, name), rel=1e-7)
    assert per_request.duration_s == pytest.approx(m.duration_s, rel=1e-6)
    assert per_request.request_throughput_rps == pytest.approx(m.request_throughput_rps, rel=1e-6)


def test_aiperf_csv_matches_json_to_two_decimals() -> None:
    text = raw("aiperf/aiperf_examples_run1_profile_export_aiperf.csv").decode()
    all_rows = [r for r in csv.reader(io.StringIO(text)) if r]
    rows = {r[0]: r for r in all_rows}
    result = parse(raw("aiperf/aiperf_examples_run1_profile_export_aiperf.csv"))
    m = result.metrics
    header = all_rows[0]
    ttft_row = dict(zip(header, rows["Time to First Token (ms)"], strict=False))
    assert m.ttft_ms == Percentiles(
        float(ttft_row["p50"]),
        float(ttft_row["p95"]),
        float(ttft_row["p99"]),
        float(ttft_row["avg"]),
    )
    json_m = parse(raw("aiperf/aiperf_examples_run1_profile_export_aiperf.json")).metrics
    for name in ("ttft_ms", "e2e_ms", "tpot_ms", "itl_ms"):
        a, b = getattr(m, name), getattr(json_m, name)
        for attr in ("p50", "p95", "p99", "mean"):
            assert getattr(a, attr) == pytest.approx(getattr(b, attr), abs=0.006)
    assert m.requests_completed == 89
    assert m.requests_failed == 11
    assert m.duration_s == pytest.approx(9.32)


# ----------------------------------------------------------------------------- LLMPerf


@pytest.mark.parametrize("provider", ["bedrock", "groq"])
def test_llmperf_individual_recomputed_and_matches_summary(provider: str) -> None:
    items = load(f"llmperf/{provider}_70b_individual_responses.json")
    summary = load(f"llmperf/{provider}_70b_summary.json")
    ok = [x for x in items if x["error_code"] is None]
    result = parse(raw(f"llmperf/{provider}_70b_individual_responses.json"))
    m = result.metrics
    assert m.requests_completed == len(ok) == summary["results_num_completed_requests"]
    assert m.requests_failed == len(items) - len(ok) == summary["results_number_errors"]
    for name, key in (
        ("ttft_ms", "ttft_s"),
        ("e2e_ms", "end_to_end_latency_s"),
        ("tpot_ms", "inter_token_latency_s"),
    ):
        recomputed = pct([x[key] * 1000.0 for x in ok])
        assert_pct(getattr(m, name), recomputed)
        from_summary = Percentiles(
            summary[f"results_{key}_quantiles_p50"] * 1000.0,
            summary[f"results_{key}_quantiles_p95"] * 1000.0,
            summary[f"results_{key}_quantiles_p99"] * 1000.0,
            summary[f"results_{key}_mean"] * 1000.0,
        )
        assert_pct(recomputed, from_summary, rel=1e-9)
    assert not result.discrepancies


@pytest.mark.parametrize("provider", ["bedrock", "groq"])
def test_llmperf_summary_values(provider: str) -> None:
    summary = load(f"llmperf/{provider}_70b_summary.json")
    result = parse(raw(f"llmperf/{provider}_70b_summary.json"))
    m = result.metrics
    assert m.ttft_ms == Percentiles(
        summary["results_ttft_s_quantiles_p50"] * 1000.0,
        summary["results_ttft_s_quantiles_p95"] * 1000.0,
        summary["results_ttft_s_quantiles_p99"] * 1000.0,
        summary["results_ttft_s_mean"] * 1000.0,
    )
    assert m.output_tokens_per_s == summary["results_mean_output_throughput_token_per_s"]
    assert m.request_throughput_rps == pytest.approx(
        summary["results_num_completed_requests_per_min"] / 60.0
    )
    assert m.concurrency == summary["num_concurrent_requests"]
    assert result.model == summary["model"]
    assert result.per_request is None


# ----------------------------------------------------------------------------- vLLM


def test_vllm_llmd_summary_values_and_colon_typo() -> None:
    rel = "vllm-serve/llmd_exp7_H100_vllm-2replicas_benchmark_2025-05-13_04-55-27.json"
    obj = load(rel)
    assert "request_goodput:" in obj
    result = parse(raw(rel))
    m = result.metrics
    assert m.requests_completed == obj["completed"]
    assert m.requests_failed == obj["num_prompts"] - obj["completed"]
    assert m.duration_s == obj["duration"]
    assert m.request_rate == obj["request_rate"]
    assert m.concurrency is None
    for family, name in (("ttft", "ttft_ms"), ("tpot", "tpot_ms"), ("itl", "itl_ms")):
        assert getattr(m, name) == Percentiles(
            obj[f"median_{family}_ms"],
            obj[f"p95_{family}_ms"],
            obj[f"p99_{family}_ms"],
            obj[f"mean_{family}_ms"],
        )
    assert m.e2e_ms is None  # e2el was not requested in that run
    assert m.total_tokens_per_s == obj["total_token_throughput"]
    assert result.model == "meta-llama/Llama-3.1-8B-Instruct"
    assert result.per_request is None
    assert "request_goodput" in result.extra
    assert result.extra["timestamp"] == "2025-05-13_04-55-27,model"  # untyped --metadata kept


# ----------------------------------------------------------------------------- GuideLLM


def test_guidellm_v03_summary_values() -> None:
    rel = "guidellm/guidellm_v0.3era_test_asset_benchmarks_stripped.json"
    bench = load(rel)["benchmarks"][0]
    result = parse(raw(rel))
    m = result.metrics
    ttft = bench["metrics"]["time_to_first_token_ms"]["successful"]
    assert m.ttft_ms == Percentiles(
        ttft["median"], ttft["percentiles"]["p95"], ttft["percentiles"]["p99"], ttft["mean"]
    )
    lat = bench["metrics"]["request_latency"]["successful"]
    assert m.e2e_ms is not None
    assert m.e2e_ms.p99 == pytest.approx(lat["percentiles"]["p99"] * 1000.0)
    assert m.requests_completed == bench["request_totals"]["successful"] == 46
    assert m.requests_failed == 0
    assert result.extra["requests_incomplete"] == 1
    assert m.concurrency == 1.0
    assert result.model == "example_model"
    assert result.per_request is None  # the file keeps a 1-request sample only
    assert any("sample of 1 of 46" in n for n in result.notes)


def test_guidellm_v2_runs_per_load_point() -> None:
    rel = "guidellm/llmd_fixture_guidellm0.8dev_report_v2_mock.json"
    obj = load(rel)
    result = parse(raw(rel))
    assert result.tool_version == "0.8.0.dev18"
    assert len(result.runs) == 2
    rates = [r.metrics.request_rate for r in result.runs]
    assert rates == [2.0, 4.0]
    for run, bench in zip(result.runs, obj["benchmarks"], strict=True):
        ttft = bench["metrics"]["time_to_first_token_ms"]["successful"]
        assert run.metrics.ttft_ms == Percentiles(
            ttft["percentiles"]["p50"],
            ttft["percentiles"]["p95"],
            ttft["percentiles"]["p99"],
            ttft["mean"],
        )
        assert run.metrics.requests_completed == 2
        assert run.model == "e2e-mock-model"
    # R6: the headline is the saturation run (highest throughput), stated, not the first run
    best = max(result.runs, key=lambda r: r.metrics.output_tokens_per_s or 0.0)
    assert result.metrics == best.metrics
    assert result.runs[int(result.extra["headline_run_index"])] is best  # type: ignore[arg-type]
    assert len(result.to_dict()["runs"]) == 2


# ----------------------------------------------------------------------------- MLPerf / telemetry


def test_mlperf_training_time_to_train() -> None:
    rel = "mlperf/mlperf_training_v4.0_ASUSTeK_ESC_N8A-E12_llama2_70b_lora_result_0.txt"
    events = [
        json.loads(line.split(":::MLLOG ", 1)[1])
        for line in raw(rel).decode().splitlines()
        if ":::MLLOG " in line
    ]
    start = next(e["time_ms"] for e in events if e["key"] == "run_start")
    stop = next(e for e in events if e["key"] == "run_stop")
    assert stop["metadata"]["status"] == "success"
    result = parse(raw(rel))
    assert result.metrics.time_to_target_s == pytest.approx((stop["time_ms"] - start) / 1000.0)
    assert result.model == "llama2_70b_lora"
    assert result.extra["submission_org"] == "ASUSTeK"


def test_mlperf_inference_rows() -> None:
    rel = "mlperf/mlperf_inference_v4.1_closed_GigaComputing_summary.csv"
    rows = list(csv.DictReader(io.StringIO(raw(rel).decode())))
    result = parse(raw(rel))
    assert len(result.runs) == len(rows) == 26
    for run, row in zip(result.runs, rows, strict=True):
        assert run.extra["result"] == float(row["Result"])
        assert run.extra["units"] == row["Units"]
        assert run.metrics.gpus == int(row["number_of_nodes"]) * int(row["accelerators_per_node"])
        if row["Units"] in ("Queries/s", "Samples/s"):
            assert run.metrics.request_throughput_rps == float(row["Result"])
    assert result.model == rows[0]["Model"]


def test_mlperf_system_gpus() -> None:
    result = parse(raw("mlperf/mlperf_training_v4.0_ASUSTeK_systems_ESC_N8A-E12.json"))
    assert result.metrics.gpus == 8
    assert result.extra["accelerator_model_name"] == "NVIDIA H100-SXM5-80GB"


def test_nvidia_smi_custom_header() -> None:
    result = parse(raw("nvidia-smi/xypp3_8gpu_nvidia_smi_noheader_nounits_customheader.csv"))
    assert result.metrics.gpus == 8
    assert result.metrics.duration_s is not None
    mean_power = result.extra["power.draw_mean"]
    assert isinstance(mean_power, float)
    assert 50 < mean_power < 100
    assert math.isfinite(mean_power)
