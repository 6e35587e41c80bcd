"""Real files read right (findings X7-X10, X12, C4): which model, which run, which figures.

The files are written here in the real formats: a `vllm bench sweep` summary.json (a JSON array
of serve results with `run_number`), a `vllm bench serve` result where every request failed,
SGLang `bench_serving` JSON Lines with `server_info` (aggregated and prefill/decode), and a
GuideLLM benchmarks.json whose request list includes warm-up requests. Figures are made up.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from benchmarks.parsers import parse

from .test_parser_synthetic import guidellm_bench, sglang_line


def _vllm_run(run_number: int, output_tps: float, ttft_p99: float, e2e_p99: float) -> dict:
    return {
        "date": "20251020-101500",
        "endpoint_type": "openai",
        "backend": "openai",
        "label": None,
        "model_id": "Qwen/Qwen2.5-0.5B-Instruct",
        "tokenizer_id": "Qwen/Qwen2.5-0.5B-Instruct",
        "num_prompts": 20,
        "request_rate": "inf",
        "burstiness": 1.0,
        "max_concurrency": 2,
        "duration": 12.0,
        "completed": 20,
        "failed": 0,
        "total_input_tokens": 2560,
        "total_output_tokens": int(output_tps * 12.0),
        "request_throughput": 20 / 12.0,
        "request_goodput": None,
        "output_throughput": output_tps,
        "total_token_throughput": output_tps + 2560 / 12.0,
        "mean_ttft_ms": ttft_p99 / 2,
        "median_ttft_ms": ttft_p99 / 2,
        "std_ttft_ms": 3.0,
        "p99_ttft_ms": ttft_p99,
        "mean_e2el_ms": e2e_p99 * 0.8,
        "median_e2el_ms": e2e_p99 * 0.8,
        "std_e2el_ms": 5.0,
        "p99_e2el_ms": e2e_p99,
        "max_num_seqs": 8,
        "run_number": run_number,
    }


def _sweep(*runs: dict) -> bytes:
    return json.dumps(list(runs), indent=4).encode()


def test_x9_repetitions_at_one_concurrency_are_one_point_with_their_mean() -> None:
    """X9: two runs at max_concurrency 2 are repetitions: the headline is their mean (188.84,
    not the better 191.20), the spread is kept, and there is one operating point."""
    result = parse(
        _sweep(_vllm_run(0, 191.2006, 75.025, 189.182), _vllm_run(1, 186.4833, 53.664, 211.892)),
        "summary.json",
    )
    assert result.format_id == "vllm-sweep"
    assert len(result.runs) == 2
    assert result.metrics.output_tokens_per_s == pytest.approx((191.2006 + 186.4833) / 2)
    assert result.metrics.e2e_ms is not None
    assert result.metrics.e2e_ms.p99 == pytest.approx((189.182 + 211.892) / 2)
    assert result.extra["repetitions"] == 2
    assert "saturation" not in str(result.extra["headline_run"])
    assert "mean of 2 repetitions" in str(result.extra["headline_run"])
    [point] = result.operating_points
    assert point.repetitions == 2
    assert point.output_tokens_per_s == pytest.approx(188.84195)
    assert (point.output_tokens_per_s_min, point.output_tokens_per_s_max) == (186.4833, 191.2006)
    assert any("no repetition is taken as the best" in n for n in result.notes)


def test_x9_a_sweep_with_repetitions_keeps_one_point_per_load_level() -> None:
    """X9: two concurrencies, the higher one repeated: two points, the repeated one averaged."""
    low = {**_vllm_run(0, 100.0, 40.0, 150.0), "max_concurrency": 1}
    result = parse(
        _sweep(low, _vllm_run(1, 190.0, 70.0, 190.0), _vllm_run(2, 180.0, 60.0, 210.0)),
        "summary.json",
    )
    assert [p.repetitions for p in result.operating_points] == [None, 2]
    assert result.operating_points[1].output_tokens_per_s == pytest.approx(185.0)
    assert result.metrics.output_tokens_per_s == pytest.approx(185.0)  # the saturation level


def _all_failed() -> bytes:
    body: dict[str, Any] = {
        "date": "20251020-101500",
        "endpoint_type": "openai",
        "backend": "openai",
        "model_id": "Qwen/Qwen2.5-0.5B-Instruct",
        "tokenizer_id": "Qwen/Qwen2.5-0.5B-Instruct",
        "num_prompts": 8,
        "request_rate": "inf",
        "burstiness": 1.0,
        "max_concurrency": None,
        "duration": 0.05,
        "completed": 0,
        "failed": 8,
        "total_input_tokens": 0,
        "total_output_tokens": 0,
        "request_throughput": 0.0,
        "request_goodput": None,
        "output_throughput": 0.0,
        "total_token_throughput": 0.0,
        "max_output_tokens_per_s": 0.0,
        "max_concurrent_requests": 0,
    }
    for family in ("ttft", "tpot", "itl"):
        for stat in ("mean", "median", "std", "p99"):
            body[f"{stat}_{family}_ms"] = 0.0
    body["errors"] = ["Connection refused"] * 8
    return json.dumps(body, indent=4).encode()


def test_x10_all_failed_run_records_no_successful_requests_and_no_throughput() -> None:
    """X10: the 0.0 throughputs of an all-failed run are placeholders, not measured zeros."""
    result = parse(_all_failed(), "vllm-bench-serve.json")
    m = result.metrics
    assert (m.requests_completed, m.requests_failed) == (0, 8)
    assert m.output_tokens_per_s is None
    assert m.request_throughput_rps is None
    assert m.total_tokens_per_s is None
    assert result.extra["outcome"] == "no successful requests"


def _pd_line(**extra: Any) -> dict[str, Any]:
    line = sglang_line(float("inf"), **extra)
    line["server_info"] = {
        "internal_states": [{"model_path": "Qwen/Qwen2.5-3B-Instruct", "last_gen_throughput": 1}],
        "prefill": [
            {
                "model_path": "Qwen/Qwen2.5-3B-Instruct",
                "dtype": "auto",
                "quantization": None,
                "kv_cache_dtype": "auto",
                "version": "0.4.9",
            }
        ],
        "decode": [{"model_path": "Qwen/Qwen2.5-3B-Instruct", "dtype": "auto"}],
    }
    return line


def test_x7_c4_sglang_pd_file_names_its_model_in_server_info() -> None:
    """X7 / C4: a prefill/decode SGLang file's model is read from server_info's entries."""
    result = parse((json.dumps(_pd_line()) + "\n").encode(), "pd.jsonl")
    assert result.format_id == "sglang"
    assert result.model == "Qwen/Qwen2.5-3B-Instruct"
    assert result.tool_version == "0.4.9"
    assert result.extra["server_dtype"] == "auto"
    assert result.extra["server_kv_cache_dtype"] == "auto"


def test_c4_sglang_model_named_only_in_internal_states() -> None:
    """C4: `server_info.internal_states[].model_path` alone names the model."""
    line = sglang_line(float("inf"))
    line["server_info"] = {"internal_states": [{"model_path": "Qwen/Qwen2.5-3B-Instruct"}]}
    result = parse((json.dumps(line) + "\n").encode(), "agg.jsonl")
    assert result.model == "Qwen/Qwen2.5-3B-Instruct"


def test_x11_sglang_server_quantization_is_kept_as_the_precision_source() -> None:
    """X11: SGLang's `quantization` server argument is read (fp8 states the precision)."""
    line = sglang_line(4.0)
    line["server_info"] = {"model_path": "Qwen/Qwen2.5-7B-Instruct", "quantization": "fp8"}
    result = parse((json.dumps(line) + "\n").encode(), "agg.jsonl")
    assert result.extra["server_quantization"] == "fp8"


def test_x12_sglang_input_throughput_is_kept() -> None:
    """X12: SGLang's input_throughput is stored (metrics and operating point)."""
    line = sglang_line(float("inf"))
    line["input_throughput"] = 13511.92
    result = parse((json.dumps(line) + "\n").encode(), "agg.jsonl")
    assert result.metrics.input_tokens_per_s == 13511.92
    assert result.operating_points[0].input_tokens_per_s == 13511.92


def test_x8_guidellm_note_counts_warmup_requests_right() -> None:
    """X8: 23 listed requests, 19 measured: the note says so instead of "23 of 19"."""
    ttfts = [50.0 + i for i in range(19)]
    bench = guidellm_bench(1.0, ttfts, True)
    extra = [dict(bench["requests"]["successful"][0], request_id=f"w{i}") for i in range(4)]
    bench["requests"]["successful"] = bench["requests"]["successful"] + extra
    obj = {
        "metadata": {"version": 1, "guidellm_version": "0.5.0"},
        "args": {"target": "http://gpu-node:8000", "model": "Qwen/Qwen3-30B-A3B"},
        "benchmarks": [bench],
    }
    result = parse(json.dumps(obj).encode(), "benchmarks.json")
    [note] = [n for n in result.notes if "'requests'" in n]
    assert "23 successful requests, of which the metrics measure 19" in note
    assert "of 19 successful" not in note
