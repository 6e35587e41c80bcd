"""Benchmark files read whole (findings R5-R7, R14, R18, R19) on small files written for them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks.figures import peak_memory_mib
from benchmarks.parsers import ParseError, detect, parse

WRITTEN = Path(__file__).parent / "fixtures" / "written"
SHIPPED = Path(__file__).parent / "fixtures" / "guidellm"  # the shared GuideLLM samples


def raw(name: str) -> bytes:
    return (WRITTEN / name).read_bytes()


def test_r5_requests_without_a_token_are_failed_and_2024_latency_keys_compared() -> None:
    """R5: zero-token requests count as failed (not 0 ms successes); *_latency_ms is used."""
    data = raw("vllm_2024_no_token_requests.json")
    doc = json.loads(data)
    result = parse(data)
    m = result.metrics
    assert m.requests_completed == 8
    assert m.requests_failed == 2
    assert result.extra["no_token_requests"] == 2
    assert any("produced no token" in n for n in result.notes)
    produced = [i for i, t in enumerate(doc["ttfts"]) if t > 0]
    e2e = [(doc["ttfts"][i] + sum(doc["itls"][i])) * 1000 for i in produced]
    assert m.e2e_ms is not None
    assert m.e2e_ms.mean == pytest.approx(float(np.mean(e2e)))
    assert m.ttft_ms is not None
    assert m.ttft_ms.mean == pytest.approx(
        float(np.mean([doc["ttfts"][i] for i in produced])) * 1000
    )
    flagged = {d.metric for d in result.discrepancies}
    assert "e2e_ms.mean" in flagged  # the file's mean_latency_ms disagrees, and it is said
    assert "requests_completed" in flagged
    assert "ttft_ms.mean" in flagged  # the file's TTFT mean includes the 0 ms requests


def test_r5_2024_latency_keys_used_without_per_request_arrays() -> None:
    """R5: a summary-only 2024 file gets its end-to-end latency from *_latency_ms."""
    doc = json.loads(raw("vllm_2024_no_token_requests.json"))
    for key in ("input_lens", "output_lens", "ttfts", "itls", "generated_texts", "errors"):
        del doc[key]
    result = parse(json.dumps(doc).encode())
    assert result.metrics.e2e_ms is not None
    assert result.metrics.e2e_ms.mean == pytest.approx(doc["mean_latency_ms"])
    assert result.metrics.e2e_ms.p99 == pytest.approx(doc["p99_latency_ms"])


def test_r6_vllm_rate_sweep_headline_is_the_saturation_run() -> None:
    """R6: every run kept; the headline is the highest-throughput run, and it says so."""
    result = parse(raw("vllm_append_result_rate_sweep.jsonl"))
    assert len(result.runs) == 4
    assert [r.metrics.request_rate for r in result.runs] == [1.0, 4.0, None, 8.0]
    assert result.metrics.output_tokens_per_s == 5040.0
    assert result.extra["headline_run_index"] == 2
    assert "saturation run" in str(result.extra["headline_run"])
    assert any("headline: saturation run" in n and "of 4 runs" in n for n in result.notes)


def test_r6_guidellm_sweep_headline_is_the_saturation_rate_and_says_so() -> None:
    """R6: the GuideLLM 0.8 report (constant rates 2/s and 4/s, shipped in fixtures/guidellm)
    heads with its highest-throughput run, not its first, and the result says which it took."""
    result = parse((SHIPPED / "llmd_fixture_guidellm0.8dev_report_v2_mock.json").read_bytes())
    assert [r.metrics.request_rate for r in result.runs] == [2.0, 4.0]
    assert result.extra["headline_run_index"] == 1
    assert result.extra["headline_run"] == "saturation run, request rate 4/s of 2 runs"
    saturation = result.runs[1].metrics
    assert result.metrics == saturation
    assert saturation.output_tokens_per_s is not None
    assert saturation.output_tokens_per_s > (result.runs[0].metrics.output_tokens_per_s or 0.0)
    assert result.notes[0].startswith(
        "file holds 2 benchmarks (load points); headline: saturation run (highest throughput), "
        "request rate 4/s of 2 runs"
    )


def test_r6_r14_mlperf_summary_headline_and_wording() -> None:
    """R6 + R14: MLPerf rows all kept, plural wording. F8 (round 4): rows of different systems
    are separate results, not load levels of one sweep, so the headline is the first row (it
    was the fastest system's, H200, read as the "saturation run" of H100's)."""
    result = parse(raw("mlperf_inference_v5.0_summary_written.csv"))
    assert len(result.runs) == 3
    assert result.extra["systemname"] == "Example 8xH100"
    assert result.model == "llama2-70b-99"
    note = result.notes[0]
    assert "3 results of different systems, models or scenarios: not one sweep" in note
    assert "row (system x model x scenario)s" not in " ".join(result.notes)


def test_r7_aiperf_010_concurrency_and_model_from_input_config() -> None:
    """R7: AIPerf 0.10 keeps them in input_config.models.items and input_config.phases."""
    result = parse(raw("aiperf_0.10_profile_export_aiperf.json"))
    assert result.format_id == "aiperf-json"
    assert result.metrics.concurrency == 64.0  # the profiling phase, not the warm-up
    assert result.model == "Qwen/Qwen3-8B"


def test_r7_sglang_console_concurrency_and_model() -> None:
    """R7: SGLang writes 'Max request concurrency'; the model is in the Namespace line."""
    data = raw("sglang_bench_serving_console.txt")
    assert detect(data) == "serving-console"
    result = parse(data)
    assert result.metrics.concurrency == 32.0
    assert result.model == "meta-llama/Llama-3.1-8B-Instruct"
    assert result.metrics.ttft_ms is not None
    assert result.metrics.ttft_ms.p99 == 612.75


def test_r18_llmperf_summaries_keyed_by_concurrency() -> None:
    """R18: one object of LLMPerf summaries by concurrency is read, one run per member."""
    data = raw("llmperf_summaries_by_concurrency.json")
    assert detect(data) == "llmperf-summary"
    result = parse(data)
    assert [r.metrics.concurrency for r in result.runs] == [1.0, 8.0, 32.0]
    assert result.metrics.concurrency == 32.0  # saturation: 230 requests/min
    assert result.runs[1].metrics.ttft_ms is not None
    assert result.runs[1].metrics.ttft_ms.p50 == pytest.approx(550.0)
    assert any("3 LLMPerf summaries" in n for n in result.notes)


def test_r19_amd_smi_telemetry() -> None:
    """R19: an amd-smi metric watch log of MI-series GPUs is read like an nvidia-smi log."""
    data = raw("amd_smi_metric_watch_mi300x.csv")
    assert detect(data, "amd.csv") == "amd-smi-csv"
    result = parse(data, "amd.csv")
    m, extra = result.metrics, result.extra
    assert m.gpus == 2
    assert m.duration_s == 10.0  # epoch-second timestamps, repeated header skipped
    assert extra["samples"] == 6
    assert extra["power.draw_mean"] == pytest.approx((712 + 698 + 731 + 705 + 690) / 5)
    assert extra["utilization.gpu_max"] == 99.0
    assert extra["temperature.gpu_max"] == 80.0  # hotspot: MI300X reports no edge temperature
    assert extra["memory.used_max"] == 178176.0
    # The plan's peak-memory check reads AMD telemetry as it reads NVIDIA's (MiB).
    assert peak_memory_mib({"extra": extra}) == (178176.0, 196592.0)
    assert any("MiB" in n for n in result.notes)


def test_r19_amd_smi_monitor_units_in_cells_and_rocm_smi_bytes() -> None:
    """R19: `amd-smi monitor --csv` cells carry units; rocm-smi gives VRAM in bytes."""
    monitor = parse(raw("amd_smi_monitor.csv"))
    assert monitor.format_id == "amd-smi-csv"
    assert monitor.metrics.gpus == 2
    assert monitor.extra["power.draw_mean"] == 601.0  # the N/A cell is no reading, not 0 W
    assert monitor.extra["clocks.sm_max"] == 2010.0
    assert monitor.extra["memory.used_max"] == 150000.0
    rocm = parse(raw("rocm_smi_showuse_power_mem.csv"))
    assert rocm.format_id == "amd-smi-csv"
    assert rocm.metrics.gpus == 2
    assert rocm.extra["memory.total_max"] == 65520.0  # 68,702,699,520 B
    assert rocm.extra["memory.used_max"] == 51200.0
    assert rocm.extra["gpu_name"] == "AMD Instinct MI250X"


def test_r19_amd_smi_bad_cell_names_line_and_column() -> None:
    """R19: a cell that is not a number is refused with its line and column."""
    text = "gpu,power_usage,vram_used\n0,601 W,1000 MB\n1,lots,1000 MB\n"
    with pytest.raises(ParseError, match=r"line 3, column 'power_usage'"):
        parse(text.encode())
