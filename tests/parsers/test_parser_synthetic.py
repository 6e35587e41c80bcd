"""Formats described in FORMATS.md without a stored sample: small files built from the spec."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from benchmarks.parsers import ParseError, Percentiles, detect, parse


def dumps(obj: Any, **kw: Any) -> bytes:
    return json.dumps(obj, **kw).encode()


def pct(values: list[float] | np.ndarray) -> Percentiles:
    arr = np.asarray(values, dtype=np.float64)
    p50, p95, p99 = np.percentile(arr, [50, 95, 99])
    return Percentiles(float(p50), float(p95), float(p99), float(arr.mean()))


def close(a: Percentiles | None, b: Percentiles) -> None:
    assert a is not None
    for attr in ("p50", "p95", "p99", "mean"):
        assert getattr(a, attr) == pytest.approx(getattr(b, attr), rel=1e-9, abs=1e-9), attr


# ----------------------------------------------------------------------------- vLLM serving


def vllm_2024(n: int = 40, seed: int = 1) -> dict[str, Any]:
    """Early-2024/early-2025 layout: per-request arrays always written, no 'failed' key."""
    rng = np.random.default_rng(seed)
    ttfts = rng.gamma(2.0, 0.05, n).round(6)
    out_lens = rng.integers(2, 60, n)
    itls = [rng.gamma(3.0, 0.004, int(k) - 1).round(6).tolist() for k in out_lens]
    errors = [""] * n
    ttfts[3] = 0.0
    out_lens[3] = 0
    itls[3] = []
    errors[3] = "Traceback: ReadTimeout"
    ok = [i for i in range(n) if not errors[i]]
    lat = [ttfts[i] + sum(itls[i]) for i in range(n)]
    tpot = [(lat[i] - ttfts[i]) / (out_lens[i] - 1) for i in ok if out_lens[i] > 1]
    all_itl = [g for i in ok for g in itls[i]]
    ttft_ok = [ttfts[i] for i in ok]
    return {
        "date": "20240301-101010",
        "backend": "vllm",
        "model_id": "meta-llama/Llama-2-7b-hf",
        "tokenizer_id": "meta-llama/Llama-2-7b-hf",
        "best_of": 1,
        "use_beam_search": False,
        "num_prompts": n,
        "request_rate": "inf",
        "duration": 12.5,
        "completed": len(ok),
        "total_input_tokens": 100 * len(ok),
        "total_output_tokens": int(sum(out_lens[i] for i in ok)),
        "request_throughput": len(ok) / 12.5,
        "input_throughput": 100 * len(ok) / 12.5,
        "output_throughput": float(sum(out_lens[i] for i in ok)) / 12.5,
        "mean_ttft_ms": float(np.mean(ttft_ok) * 1000),
        "median_ttft_ms": float(np.median(ttft_ok) * 1000),
        "p99_ttft_ms": float(np.percentile(ttft_ok, 99) * 1000),
        "mean_tpot_ms": float(np.mean(tpot) * 1000),
        "median_tpot_ms": float(np.median(tpot) * 1000),
        "p99_tpot_ms": float(np.percentile(tpot, 99) * 1000),
        "mean_itl_ms": float(np.mean(all_itl) * 1000),
        "median_itl_ms": float(np.median(all_itl) * 1000),
        "p99_itl_ms": float(np.percentile(all_itl, 99) * 1000),
        "input_lens": [100] * n,
        "output_lens": [int(x) for x in out_lens],
        "ttfts": [float(x) for x in ttfts],
        "itls": itls,
        "generated_texts": ["x"] * n,
        "errors": errors,
    }


def test_vllm_per_request_arrays_recomputed() -> None:
    obj = vllm_2024()
    result = parse(dumps(obj), "openai-infqps-Llama-2-7b-hf-20240301-101010.json")
    assert result.format_id == "vllm-serve"
    m = result.metrics
    ok = [i for i, e in enumerate(obj["errors"]) if not e]
    close(m.ttft_ms, pct([obj["ttfts"][i] * 1000 for i in ok]))
    close(m.itl_ms, pct([g * 1000 for i in ok for g in obj["itls"][i]]))
    lat = [obj["ttfts"][i] + sum(obj["itls"][i]) for i in ok]
    tpot = [
        (lat[j] - obj["ttfts"][i]) / (obj["output_lens"][i] - 1) * 1000
        for j, i in enumerate(ok)
        if obj["output_lens"][i] > 1
    ]
    close(m.tpot_ms, pct(tpot))
    close(m.e2e_ms, pct([x * 1000 for x in lat]))
    assert m.requests_completed == len(ok)
    assert m.requests_failed == 1
    assert m.request_rate is None
    assert m.total_tokens_per_s == pytest.approx(obj["input_throughput"] + obj["output_throughput"])
    assert result.per_request is not None
    assert len(result.per_request) == len(obj["ttfts"])
    assert not result.per_request.success[3]
    assert result.discrepancies == ()
    assert any("inf" in n for n in result.notes)
    assert any("input_throughput" in n for n in result.notes)
    d = result.to_dict()
    assert d["has_per_request"] is True
    assert d["request_count"] == len(obj["ttfts"])
    assert "ttfts" not in d["extra"]


def test_vllm_summary_disagreeing_with_arrays_is_reported() -> None:
    obj = vllm_2024()
    obj["p99_ttft_ms"] *= 1.5
    obj["median_itl_ms"] *= 0.9
    result = parse(dumps(obj))
    metrics = {d.metric: d for d in result.discrepancies}
    assert set(metrics) == {"ttft_ms.p99", "itl_ms.p50"}
    d = metrics["ttft_ms.p99"]
    assert d.file_value == obj["p99_ttft_ms"]
    assert d.rel_diff == pytest.approx(1 - 1 / 1.5)
    # the recomputed value is the one reported
    assert result.metrics.ttft_ms is not None
    assert result.metrics.ttft_ms.p99 == pytest.approx(d.recomputed_value)


def test_vllm_2026_all_failed_and_new_keys() -> None:
    obj = {
        "date": "20260101-120000",
        "endpoint_type": "openai",
        "backend": "openai",
        "label": None,
        "model_id": "/data/shared-models/Qwen2.5-14B-Instruct",
        "tokenizer_id": "x",
        "num_prompts": 5,
        "request_rate": 2.0,
        "burstiness": 1.0,
        "max_concurrency": 8,
        "duration": 3.0,
        "completed": 0,
        "failed": 5,
        "total_input_tokens": 0,
        "total_output_tokens": 0,
        "request_throughput": 0.0,
        "request_goodput": None,
        "output_throughput": 0.0,
        "total_token_throughput": 0.0,
        "max_output_tokens_per_s": 0.0,
        "max_concurrent_requests": 5,
        "rtfx": 0.0,
        "mean_ttft_ms": 0.0,
        "median_ttft_ms": 0.0,
        "std_ttft_ms": 0.0,
        "p99_ttft_ms": 0.0,
        "mean_e2el_ms": 0.0,
        "median_e2el_ms": 0.0,
        "p99_e2el_ms": 0.0,
        "latencies": [0.0] * 5,
        "queue_times": [0.0] * 5,
    }
    result = parse(dumps(obj, indent=4, sort_keys=True))
    m = result.metrics
    assert result.format_id == "vllm-serve"
    assert m.requests_completed == 0
    assert m.requests_failed == 5
    assert m.ttft_ms is None
    assert m.e2e_ms is None
    assert m.concurrency == 8
    assert any("completed == 0" in n for n in result.notes)


def test_vllm_colon_key_p50_keys_and_p999() -> None:
    obj = {
        "backend": "openai-chat",
        "model_id": "m",
        "num_prompts": 10,
        "request_rate": "inf",
        "completed": 9,
        "failed": 1,
        "duration": 2.0,
        "request_throughput": 4.5,
        "request_goodput:": 3.0,
        "output_throughput": 100.0,
        "total_token_throughput": 300.0,
        "mean_ttft_ms": 10.0,
        "median_ttft_ms": 9.0,
        "p50_ttft_ms": 9.5,
        "p95_ttft_ms": 12.0,
        "p99_ttft_ms": 13.0,
        "p99.9_ttft_ms": 14.0,
    }
    result = parse(dumps(obj))
    assert result.metrics.ttft_ms == Percentiles(9.5, 12.0, 13.0, 10.0)
    assert result.extra["request_goodput_rps"] == 3.0
    assert result.extra["p99.9_ttft_ms"] == 14.0
    assert result.metrics.requests_failed == 1


def test_vllm_append_result_json_lines() -> None:
    a = vllm_2024(seed=1)
    b = vllm_2024(seed=2)
    b["request_rate"] = 4.0
    data = dumps(a) + b"\n" + dumps(b) + b"\n"
    result = parse(data)
    assert result.format_id == "vllm-serve"
    assert len(result.runs) == 2
    assert result.runs[1].metrics.request_rate == 4.0
    # R6: the headline is the saturation run (highest throughput), stated, not the first run
    best = max(result.runs, key=lambda r: r.metrics.output_tokens_per_s or 0.0)
    assert result.metrics == best.metrics
    assert result.runs[int(result.extra["headline_run_index"])] is best  # type: ignore[arg-type]


def test_vllm_sweep_summary_and_run_file() -> None:
    runs = []
    for i, seqs in enumerate((4, 8)):
        run = {
            "backend": "openai",
            "model_id": "m",
            "num_prompts": 20,
            "request_rate": "inf",
            "max_concurrency": None,
            "duration": 5.0 + i,
            "completed": 20,
            "failed": 0,
            "request_throughput": 20 / (5.0 + i),
            "output_throughput": 100.0,
            "total_token_throughput": 200.0,
            "mean_ttft_ms": 50.0 + i,
            "median_ttft_ms": 49.0,
            "p99_ttft_ms": 80.0,
            "mean_e2el_ms": 500.0,
            "median_e2el_ms": 480.0,
            "p99_e2el_ms": 900.0,
            "run_number": i,
            "max_num_seqs": seqs,
        }
        runs.append(run)
    single = parse(dumps(runs[0], indent=4), "run=0.json")
    assert single.format_id == "vllm-serve"
    assert single.extra["max_num_seqs"] == 4
    assert any("sweep" in n for n in single.notes)
    summary = parse(dumps(runs, indent=4), "summary.json")
    assert summary.format_id == "vllm-sweep"
    assert [r.extra["max_num_seqs"] for r in summary.runs] == [4, 8]
    assert summary.runs[1].metrics.e2e_ms == Percentiles(480.0, None, 900.0, 500.0)


def test_vllm_pytorch_format() -> None:
    items = [
        {
            "benchmark": {"name": "vLLM benchmark", "extra_info": {"args": {}}},
            "model": {"name": "meta-llama/Llama-3.1-8B"},
            "metric": {"name": name, "benchmark_values": [value], "extra_info": {}},
        }
        for name, value in (
            ("median_ttft_ms", 20.0),
            ("p99_ttft_ms", 40.0),
            ("mean_ttft_ms", 22.0),
            ("request_throughput", 5.0),
            ("output_throughput", 400.0),
            ("completed", 100),
        )
    ]
    result = parse(dumps(items))
    assert result.format_id == "vllm-pytorch"
    assert result.metrics.ttft_ms == Percentiles(20.0, None, 40.0, 22.0)
    assert result.model == "meta-llama/Llama-3.1-8B"


def test_vllm_latency() -> None:
    latencies = [1.2, 1.25, 1.3, 1.22, 1.4, 1.21, 1.19, 1.33]
    obj = {
        "avg_latency": float(np.mean(latencies)),
        "latencies": latencies,
        "percentiles": {
            str(p): float(np.percentile(latencies, p)) for p in (10, 25, 50, 75, 90, 99)
        },
    }
    result = parse(dumps(obj, indent=4))
    assert result.format_id == "vllm-latency"
    close(result.metrics.e2e_ms, pct([x * 1000 for x in latencies]))
    assert result.discrepancies == ()
    assert any("batch" in n for n in result.notes)


def test_vllm_throughput() -> None:
    obj = {
        "elapsed_time": 42.0,
        "num_requests": 1000,
        "total_num_tokens": 512000,
        "requests_per_second": 23.8,
        "tokens_per_second": 12190.5,
    }
    result = parse(dumps(obj, indent=4))
    assert result.format_id == "vllm-throughput"
    assert result.metrics.total_tokens_per_s == 12190.5
    assert result.metrics.requests_completed == 1000
    assert any("prompt tokens" in n for n in result.notes)


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("mean_ttft_ms", float("nan"), "mean_ttft_ms"),
        ("p99_ttft_ms", -1.0, "p99_ttft_ms"),
        ("median_ttft_ms", 5e9, "median_ttft_ms"),
        ("duration", "soon", "duration"),
        ("completed", -3, "completed"),
        ("total_output_tokens", True, "total_output_tokens"),
    ],
)
def test_vllm_bad_values_name_the_field(key: str, value: Any, fragment: str) -> None:
    obj = vllm_2024()
    obj[key] = value
    with pytest.raises(ParseError) as info:
        parse(dumps(obj))
    assert fragment in info.value.message
    assert info.value.format_id == "vllm-serve"


@pytest.mark.parametrize(
    ("mutate", "fragment"),
    [
        (lambda o: o["ttfts"].__setitem__(0, -0.5), "ttfts"),
        (lambda o: o["ttfts"].__setitem__(1, float("inf")), "ttfts"),
        (lambda o: o["itls"][0].__setitem__(0, "x"), "itls"),
        (lambda o: o["itls"].__setitem__(0, 5), "itls"),
        (lambda o: o["output_lens"].pop(), "output_lens"),
    ],
)
def test_vllm_bad_per_request_arrays(mutate: Any, fragment: str) -> None:
    obj = vllm_2024()
    mutate(obj)
    with pytest.raises(ParseError) as info:
        parse(dumps(obj))
    assert fragment in info.value.message


def test_vllm_large_per_request_arrays_fast() -> None:
    n = 100_000
    rng = np.random.default_rng(7)
    obj: dict[str, Any] = {
        "backend": "vllm",
        "model_id": "m",
        "num_prompts": n,
        "request_rate": "inf",
        "duration": 100.0,
        "completed": n,
        "request_throughput": n / 100.0,
        "output_throughput": 1.0,
        "mean_ttft_ms": 1.0,
        "ttfts": rng.random(n).tolist(),
        "input_lens": [10] * n,
        "output_lens": [5] * n,
        "itls": [[0.01, 0.02, 0.01, 0.03]] * n,
        "errors": [""] * n,
    }
    data = dumps(obj)
    seen: list[float] = []
    result = parse(data, progress=seen.append)
    assert result.per_request is not None
    assert len(result.per_request) == n
    assert result.metrics.itl_ms is not None
    assert result.metrics.itl_ms.p50 == pytest.approx(15.0)
    assert seen[-1] == 1.0


# ----------------------------------------------------------------------------- GenAI-Perf


def genai_metric(unit: str, values: list[float]) -> dict[str, Any]:
    arr = np.asarray(values)
    out: dict[str, Any] = {"unit": unit, "avg": float(arr.mean())}
    for p in (1, 5, 10, 25, 50, 75, 90, 95, 99):
        out[f"p{p}"] = float(np.percentile(arr, p))
    out.update(min=float(arr.min()), max=float(arr.max()), std=float(arr.std()))
    return out


def test_genai_perf_json_nested_config_streaming() -> None:
    obj = {
        "time_to_first_token": genai_metric("ms", [100, 120, 140, 160]),
        "inter_token_latency": genai_metric("ms", [10, 11, 12, 13]),
        "request_latency": genai_metric("ms", [1000, 1100, 1200, 1300]),
        "output_token_throughput": {"unit": "tokens/sec", "avg": 408.83},
        "request_throughput": {"unit": "requests/sec", "avg": 3.2},
        "request_count": {"unit": "count", "avg": 40},
        "input_config": {
            "model_names": ["llama"],
            "endpoint": {"type": "chat", "streaming": True, "url": "http://internal:8000"},
            "perf_analyzer": {"stimulus": {"concurrency": 10}},
        },
    }
    result = parse(dumps(obj, indent=2))
    assert result.format_id == "genai-perf-json"
    m = result.metrics
    assert m.ttft_ms == Percentiles(
        130.0, obj["time_to_first_token"]["p95"], obj["time_to_first_token"]["p99"], 130.0
    )
    assert m.tpot_ms is not None
    assert m.itl_ms is None
    assert m.concurrency == 10
    assert m.requests_completed == 40
    assert result.model == "llama"
    assert any("TPOT" in n for n in result.notes)


def test_genai_perf_json_old_flat_config_non_streaming() -> None:
    obj = {
        "time_to_first_token": genai_metric("ms", [1000, 1100]),
        "request_latency": genai_metric("ms", [1000, 1100]),
        "request_throughput": {"unit": "requests/sec", "avg": 1.0},
        "input_config": {
            "model": ["gpt2"],
            "streaming": False,
            "concurrency": 1,
            "service_kind": "openai",
        },
    }
    result = parse(dumps(obj, indent=2))
    assert result.metrics.ttft_ms is None
    assert result.metrics.e2e_ms is not None
    assert any("non-streaming" in n for n in result.notes)
    assert result.model == "gpt2"


def test_genai_perf_csv_thousands_separators_crlf() -> None:
    text = (
        "Metric,avg,min,max,p99,p95,p90,p75,p50,p25\r\n"
        'Time To First Token (ms),"1,146.31",249.48,"2,001.00","1,990.00","1,900.00",1.00,'
        '1.00,"1,100.50",1.00\r\n'
        "Inter Token Latency (ms),12.10,10.00,15.00,14.90,14.50,1,1,12.00,1\r\n"
        'Request Latency (ms),"9,611.46",1,1,"9,999.00","9,900.00",1,1,"9,600.00",1\r\n'
        "Output Sequence Length (tokens),100.00,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A\r\n"
        "\r\n"
        "Metric,Value\r\n"
        "Output Token Throughput (tokens/sec),408.83\r\n"
        "Request Throughput (per sec),3.12\r\n"
        "Request Count (count),40.00\r\n"
    )
    result = parse(text.encode(), "profile_export_genai_perf.csv")
    assert result.format_id == "genai-perf-csv"
    m = result.metrics
    assert m.ttft_ms == Percentiles(1100.5, 1900.0, 1990.0, 1146.31)
    assert m.e2e_ms == Percentiles(9600.0, 9900.0, 9999.0, 9611.46)
    assert m.tpot_ms == Percentiles(12.0, 14.5, 14.9, 12.1)
    assert m.output_tokens_per_s == 408.83
    assert m.request_throughput_rps == 3.12
    assert m.requests_completed == 40


def test_perf_analyzer_raw_export() -> None:
    base = 1_759_522_419_154_829_652  # ns, beyond 2**53
    requests = []
    for i in range(4):
        start = base + i * 10_000_000
        stamps = [start + 50_000_000 + k * 5_000_000 for k in range(5)]
        requests.append(
            {
                "timestamp": start,
                "request_inputs": {"payload": "{}"},
                "response_timestamps": stamps,
                "response_outputs": [{"response": "{}"}] * 5,
            }
        )
    obj = {
        "experiments": [
            {
                "experiment": {"mode": "concurrency", "value": 4},
                "requests": requests,
                "window_boundaries": [base, base + 10**9],
            }
        ],
        "version": "2.41",
        "service_kind": "openai",
        "endpoint": "v1/chat/completions",
    }
    result = parse(dumps(obj))
    assert result.format_id == "perf-analyzer-json"
    m = result.metrics
    assert m.ttft_ms == Percentiles(50.0, 50.0, 50.0, 50.0)
    assert m.e2e_ms == Percentiles(70.0, 70.0, 70.0, 70.0)
    assert m.itl_ms is not None
    assert m.itl_ms.p50 == pytest.approx(5.0)
    assert m.concurrency == 4
    assert m.requests_completed == 4


# ----------------------------------------------------------------------------- AIPerf current


def aiperf_metric(unit: str, avg: float, **extra: float) -> dict[str, Any]:
    out: dict[str, Any] = {"unit": unit, "avg": avg}
    out.update(extra)
    return out


def test_aiperf_current_layout_json() -> None:
    obj = {
        "schema_version": "1.3",
        "aiperf_version": "0.10.0",
        "benchmark_id": "abc",
        "time_to_first_token": aiperf_metric("ms", 200.0, p50=190.0, p95=300.0, p99=350.0),
        "inter_token_latency": aiperf_metric("ms", 20.0, p50=19.0, p95=25.0, p99=30.0),
        "inter_chunk_latency": aiperf_metric("ms", 21.0, p50=20.0, p95=26.0, p99=31.0),
        "request_latency": aiperf_metric("ms", 2000.0, p50=1900.0, p95=2500.0, p99=2600.0),
        "request_throughput": aiperf_metric("requests/sec", 9.5),
        "request_count": aiperf_metric("requests", 95),
        "error_request_count": aiperf_metric("requests", 5),
        "output_token_throughput": aiperf_metric("tokens/sec", 1500.0),
        "total_token_throughput": aiperf_metric("tokens/sec", 5500.0),
        "benchmark_duration": aiperf_metric("sec", 10.0),
        "total_isl": aiperf_metric("tokens", 40000),
        "total_osl": aiperf_metric("tokens", 15000),
        "input_config": {
            "endpoint": {"model_names": ["Qwen/Qwen3"], "streaming": True},
            "loadgen": {"concurrency": 2},
        },
        "run_info": {"benchmark_id": "abc", "random_seed": 1},
        "was_cancelled": False,
        "is_complete": True,
        "error_summary": [],
        "start_time": "2026-07-01T00:00:00",
        "end_time": "2026-07-01T00:00:10",
    }
    result = parse(dumps(obj, indent=2), "profile_export_aiperf.json")
    assert result.format_id == "aiperf-json"
    m = result.metrics
    assert result.tool_version == "0.10.0"
    assert m.ttft_ms == Percentiles(190.0, 300.0, 350.0, 200.0)
    assert m.itl_ms == Percentiles(20.0, 26.0, 31.0, 21.0)
    assert m.duration_s == 10.0
    assert m.requests_completed == 95
    assert m.requests_failed == 5
    assert m.total_tokens_per_s == 5500.0
    assert m.concurrency == 2
    assert result.model == "Qwen/Qwen3"


def test_aiperf_current_csv_with_sum_and_p10() -> None:
    text = (
        "Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\r\n"
        "Request Latency (ms),2000.00,1,1,1,1,1,1,1,1900.00,1,1,2500.00,2600.00,1\r\n"
        "Time to First Token (ms),200.00,1,1,1,1,1,1,1,190.00,1,1,300.00,350.00,1\r\n"
        "\r\n"
        "Metric,Value\r\n"
        "Benchmark Duration (sec),10.00\r\n"
        "Request Count,95.00\r\n"
    )
    result = parse(text.encode())
    assert result.format_id == "aiperf-csv"
    assert result.metrics.ttft_ms == Percentiles(190.0, 300.0, 350.0, 200.0)
    assert result.metrics.e2e_ms == Percentiles(1900.0, 2500.0, 2600.0, 2000.0)
    assert result.metrics.duration_s == 10.0


def test_aiperf_jsonl_excludes_warmup() -> None:
    def rec(phase: str, ttft: float, error: Any = None) -> dict[str, Any]:
        metrics = {
            "ttft": {"value": ttft, "unit": "ms"},
            "request_latency": {"value": ttft * 10, "unit": "ms"},
            "output_sequence_length": {"value": 11, "unit": "tokens"},
        }
        if error:
            metrics = {"error_request_count": {"value": 1, "unit": "requests"}}
        return {
            "metadata": {"credit_phase": phase, "timestamp_ns": 1},
            "metrics": metrics,
            "error": error,
        }

    lines = [
        rec("warmup", 999.0),
        rec("profiling", 10.0),
        rec("profiling", 20.0),
        rec("profiling", 0.0, {"code": 500, "type": "Err", "message": "x"}),
    ]
    result = parse(b"\n".join(dumps(x) for x in lines))
    assert result.format_id == "aiperf-jsonl"
    assert result.metrics.requests_completed == 2
    assert result.metrics.requests_failed == 1
    close(result.metrics.ttft_ms, pct([10.0, 20.0]))
    close(result.metrics.tpot_ms, pct([9.0, 18.0]))
    assert any("warmup" in n for n in result.notes)


# ----------------------------------------------------------------------------- GuideLLM v0.4 / v1


def guidellm_dist(values: list[float]) -> dict[str, Any]:
    arr = np.asarray(values)
    ds = {
        "mean": float(arr.mean()),
        "median": float(np.median(arr)),
        "mode": float(arr[0]),
        "variance": float(arr.var()),
        "std_dev": float(arr.std()),
        "min": float(arr.min()),
        "max": float(arr.max()),
        "count": len(values),
        "total_sum": float(arr.sum()),
        "percentiles": {
            k: float(np.percentile(arr, q))
            for k, q in (
                ("p001", 0.1),
                ("p01", 1),
                ("p05", 5),
                ("p10", 10),
                ("p25", 25),
                ("p50", 50),
                ("p75", 75),
                ("p90", 90),
                ("p95", 95),
                ("p99", 99),
                ("p999", 99.9),
            )
        },
        "cumulative_distribution_function": None,
    }
    empty = dict.fromkeys(ds, 0.0) | {"count": 0, "percentiles": {}}
    return {"successful": ds, "errored": empty, "incomplete": empty, "total": ds}


def guidellm_bench(rate: float, ttfts: list[float], with_requests: bool) -> dict[str, Any]:
    lat = [t / 1000 + 0.5 for t in ttfts]
    reqs = [
        {
            "request_id": str(i),
            "time_to_first_token_ms": t,
            "request_latency": lat[i],
            "inter_token_latency_ms": 5.0,
            "prompt_tokens": 100,
            "output_tokens": 50,
        }
        for i, t in enumerate(ttfts)
    ]
    return {
        "type_": "generative_benchmark",
        "config": {"strategy": {"type_": "constant", "rate": rate}},
        "scheduler_metrics": {},
        "metrics": {
            "request_totals": {
                "successful": len(ttfts),
                "errored": 1,
                "incomplete": 0,
                "total": len(ttfts) + 1,
            },
            "requests_per_second": guidellm_dist([rate]),
            "request_latency": guidellm_dist(lat),
            "time_to_first_token_ms": guidellm_dist(ttfts),
            "inter_token_latency_ms": guidellm_dist([5.0] * len(ttfts)),
            "output_tokens_per_second": guidellm_dist([250.0]),
            "prompt_token_count": guidellm_dist([100.0] * len(ttfts)),
            "output_token_count": guidellm_dist([50.0] * len(ttfts)),
        },
        "requests": {
            "successful": reqs if with_requests else [],
            "errored": [],
            "incomplete": [],
            "total": None,
        },
        "duration": 30.0,
    }


def test_guidellm_v05_metadata_v1_with_full_request_list() -> None:
    ttfts = [10.0, 12.0, 15.0, 11.0, 30.0]
    obj = {
        "metadata": {
            "version": 1,
            "guidellm_version": "0.5.0",
            "python_version": "3.12",
            "platform": "Linux",
        },
        "args": {"target": "http://gpu-node:8000", "model": "gpt-oss-20b"},
        "benchmarks": [guidellm_bench(2.0, ttfts, True), guidellm_bench(4.0, ttfts, False)],
    }
    result = parse(dumps(obj))
    assert result.format_id == "guidellm"
    assert result.tool_version == "0.5.0"
    first = result.runs[0]
    assert first.per_request is not None
    close(first.metrics.ttft_ms, pct(ttfts))
    close(first.metrics.e2e_ms, pct([t + 500 for t in ttfts]))
    assert first.discrepancies == ()
    assert first.metrics.requests_failed == 1
    assert first.metrics.input_tokens_total == 500
    assert result.runs[1].per_request is None
    assert result.runs[1].metrics.request_rate == 4.0
    assert result.model == "gpt-oss-20b"


# ----------------------------------------------------------------------------- SGLang


def sglang_line(rate: Any, **extra: Any) -> dict[str, Any]:
    line = {
        "tag": None,
        "backend": "sglang",
        "dataset_name": "random",
        "request_rate": rate,
        "max_concurrency": 64,
        "sharegpt_output_len": None,
        "random_input_len": 1024,
        "random_output_len": 128,
        "random_range_ratio": 1.0,
        "server_info": {"model_path": "meta-llama/Llama-3.1-8B-Instruct", "version": "0.4.6"},
        "duration": 20.0,
        "completed": 100,
        "total_input_tokens": 102400,
        "total_input_text_tokens": 102400,
        "total_input_vision_tokens": 0,
        "total_output_tokens": 12800,
        "total_output_tokens_retokenized": 12790,
        "request_throughput": 5.0,
        "input_throughput": 5120.0,
        "output_throughput": 640.0,
        "total_throughput": 5760.0,
        "mean_e2e_latency_ms": 900.0,
        "median_e2e_latency_ms": 880.0,
        "std_e2e_latency_ms": 10.0,
        "p99_e2e_latency_ms": 1200.0,
        "mean_ttft_ms": 50.0,
        "median_ttft_ms": 45.0,
        "std_ttft_ms": 5.0,
        "p99_ttft_ms": 90.0,
        "mean_tpot_ms": 7.0,
        "median_tpot_ms": 6.9,
        "p99_tpot_ms": 9.0,
        "mean_itl_ms": 7.1,
        "median_itl_ms": 6.8,
        "p95_itl_ms": 8.5,
        "p99_itl_ms": 20.0,
        "concurrency": 45.0,
        "accept_length": None,
    }
    line.update(extra)
    return line


def test_sglang_jsonl_with_bare_infinity() -> None:
    text = json.dumps(sglang_line(float("inf"))) + "\n" + json.dumps(sglang_line(8.0)) + "\n"
    assert "Infinity" in text
    result = parse(text.encode(), "sglang_1201_100_1024_128.jsonl")
    assert result.format_id == "sglang"
    assert len(result.runs) == 2
    assert result.metrics.request_rate is None
    assert result.runs[1].metrics.request_rate == 8.0
    assert result.metrics.e2e_ms == Percentiles(880.0, None, 1200.0, 900.0)
    assert result.metrics.itl_ms == Percentiles(6.8, 8.5, 20.0, 7.1)
    assert result.metrics.concurrency == 64
    assert result.extra["mean_in_flight_requests"] == 45.0
    assert result.model == "meta-llama/Llama-3.1-8B-Instruct"
    assert json.dumps(result.to_dict(), allow_nan=False)


def test_sglang_single_line_with_output_details() -> None:
    ttfts = [0.05, 0.04, 0.06, 0.045]
    itls = [[0.007, 0.008], [0.006], [0.009, 0.007, 0.008], [0.0065]]
    line = sglang_line(
        4.0,
        input_lens=[10] * 4,
        output_lens=[3, 2, 4, 2],
        ttfts=ttfts,
        itls=itls,
        generated_texts=["a"] * 4,
        errors=["", "", "", ""],
    )
    result = parse(dumps(line))
    assert result.format_id == "sglang"
    close(result.metrics.ttft_ms, pct([t * 1000 for t in ttfts]))
    close(result.metrics.itl_ms, pct([g * 1000 for row in itls for g in row]))
    assert result.per_request is not None
    # the fake summary numbers do not match the arrays: reported, not hidden
    assert any(d.metric.startswith("ttft_ms") for d in result.discrepancies)


# ----------------------------------------------------------------------------- MLPerf, telemetry


def test_mlperf_training_aborted_run_has_no_time_to_train() -> None:
    lines = [
        ':::MLLOG {"namespace": "", "time_ms": 1000, "event_type": "POINT_IN_TIME", '
        '"key": "submission_benchmark", "value": "gpt3", "metadata": {}}',
        ':::MLLOG {"namespace": "", "time_ms": 2000, "event_type": "INTERVAL_START", '
        '"key": "run_start", "value": null, "metadata": {}}',
        '[0] :::MLLOG {"namespace": "", "time_ms": 9000, "event_type": "INTERVAL_END", '
        '"key": "run_stop", "value": null, "metadata": {"status": "aborted"}}',
    ]
    result = parse("\n".join(lines).encode())
    assert result.format_id == "mlperf-training-log"
    assert result.metrics.time_to_target_s is None
    assert result.extra["run_duration_s"] == 7.0
    assert any("aborted" in n for n in result.notes)


def test_nvidia_smi_verbatim_csv_with_units_and_repeated_header() -> None:
    header = (
        "timestamp, name, pci.bus_id, index, utilization.gpu [%], memory.used [MiB], "
        "memory.total [MiB], power.draw [W]"
    )
    rows = [
        header,
        "2025/05/30 10:00:00.123, NVIDIA GeForce RTX 4090, 00000000:01:00.0, 0, 95 %, "
        "8234 MiB, 24564 MiB, 120.50 W",
        "2025/05/30 10:00:00.123, NVIDIA GeForce RTX 4090, 00000000:02:00.0, 1, 85 %, "
        "8000 MiB, 24564 MiB, [N/A]",
        header,
        "2025/05/30 10:00:05.123, NVIDIA GeForce RTX 4090, 00000000:01:00.0, 0, 93 %, "
        "8300 MiB, 24564 MiB, 119.50 W",
    ]
    result = parse("\n".join(rows).encode())
    assert result.format_id == "nvidia-smi-csv"
    assert result.metrics.gpus == 2
    assert result.metrics.duration_s == pytest.approx(5.0)
    assert result.extra["power.draw_mean"] == pytest.approx(120.0)
    assert result.extra["utilization.gpu_max"] == 95.0
    assert result.extra["gpu_name"] == "NVIDIA GeForce RTX 4090"


def test_dcgm_scrape_drops_sentinels() -> None:
    text = (
        "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
        "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
        'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",device="nvidia0",'
        'modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 87\n'
        'DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-b",device="nvidia1",'
        'modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 91\n'
        'DCGM_FI_DEV_MEMORY_TEMP{gpu="0",UUID="GPU-a",Hostname="node1"} 9223372036854775794\n'
        'DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-a",Hostname="node1"} 650.5\n'
    )
    result = parse(text.encode(), "metrics.txt")
    assert result.format_id == "dcgm-metrics"
    assert result.metrics.gpus == 2
    assert result.extra["DCGM_FI_DEV_GPU_UTIL_mean"] == 89.0
    assert "DCGM_FI_DEV_MEMORY_TEMP_mean" not in result.extra
    assert result.extra["gpu_name"] == "NVIDIA H100 80GB HBM3"


# ----------------------------------------------------------------------------- run-json


def test_run_json_training_template_and_media() -> None:
    training = {
        "kind": "training",
        "gpus": 16,
        "step_time_s": 2.5,
        "tokens_per_s": 400000,
        "mfu": 45,
        "time_to_target_s": 3600,
        "checkpoint_write_s": 30,
        "checkpoint_restore_s": 40,
        "restart_time_s": 300,
        "custom": "kept",
    }
    result = parse(dumps(training))
    m = result.metrics
    assert result.format_id == "run-json"
    assert m.mfu == pytest.approx(0.45)
    assert m.gpus == 16
    assert m.restart_time_s == 300
    assert result.extra["custom"] == "kept"
    media = {
        "kind": "media",
        "gpus": 8,
        "duration_s": 1800,
        "assets_generated": 900,
        "assets_accepted": 855,
    }
    mr = parse(dumps(media)).metrics
    assert mr.assets_per_hour == pytest.approx(1800.0)
    assert mr.acceptance_rate == pytest.approx(0.95)
    assert mr.accepted_outputs == 855


@pytest.mark.parametrize(
    ("obj", "fragment"),
    [
        ({"kind": "training", "step_time_s": -1}, "step_time_s"),
        ({"kind": "training", "mfu": 250}, "mfu"),
        ({"kind": "media", "assets_generated": 5, "assets_accepted": 6}, "assets_accepted"),
        ({"kind": "training", "gpus": 0}, "gpus"),
        ({"kind": "inference", "ttft_ms": {"p50": "fast"}}, "ttft_ms.p50"),
        ({"kind": "training", "schema_version": 9}, "schema_version"),
    ],
)
def test_run_json_errors(obj: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        parse(dumps(obj))
    assert fragment in info.value.message
    assert info.value.format_id == "run-json"


# ----------------------------------------------------------------------------- detection errors


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"", "empty"),
        (b"   \n\t", "empty"),
        (b'{"hello": 1}', "top-level keys: hello"),
        (b"[1, 2, 3]", "int items"),
        (b"[]", "empty JSON array"),
        (b'{"a": ', "not valid JSON"),
        (b"just some text\n", "unrecognised text"),
        (b"a,b,c\n1,2,3\n", "unrecognised text"),
        (b"\xff\xfe\x00\xd8garbage", "UTF-16"),
        (b"col\xff\xfe,b\n", "not UTF-8"),
        (b'{"a":1}\n{"b":2}\n', "JSON Lines"),
    ],
)
def test_unknown_files_name_formats_tried(data: bytes, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        detect(data, "mystery.dat")
    assert fragment in info.value.message
    with pytest.raises(ParseError):
        parse(data, "mystery.dat")


def test_unknown_json_lists_rules() -> None:
    with pytest.raises(ParseError) as info:
        parse(b'{"foo": {"bar": 1}}')
    message = info.value.message
    for fid in ("vllm-serve", "guidellm", "aiperf-json", "llmperf-summary", "run-json"):
        assert fid in message
    assert info.value.format_id is None


def test_progress_exception_propagates() -> None:
    class Stop(Exception):
        pass

    def cancel(fraction: float) -> None:
        if fraction > 0.0:
            raise Stop

    with pytest.raises(Stop):
        parse(dumps(vllm_2024()), progress=cancel)


def test_to_dict_has_no_nan_or_numpy() -> None:
    obj = vllm_2024()
    obj["std_ttft_ms"] = float("nan")  # unused statistic: kept in extra as a string
    result = parse(dumps(obj))
    text = json.dumps(result.to_dict(), allow_nan=False)
    assert "NaN" not in text
    assert isinstance(result.to_dict()["metrics"]["ttft_ms"]["p50"], float)
    assert not math.isnan(result.to_dict()["metrics"]["ttft_ms"]["p50"])


CONSOLE = """\
INFO 01-15 10:00:00 Namespace(backend='vllm', model='m', request_rate=inf)
============ Serving Benchmark Result ============
Successful requests:                     1000
Failed requests:                         0
Maximum request concurrency:             64
Benchmark duration (s):                  30.85
Total input tokens:                      229711
Total generated tokens:                  203068
Request throughput (req/s):              32.42
Output token throughput (tok/s):         6582.87
Peak output token throughput (tok/s):    14046.00
Peak concurrent requests:                1000.00
Total Token throughput (tok/s):          14029.44
---------------Time to First Token----------------
Mean TTFT (ms):                          120.50
Median TTFT (ms):                        110.25
P99 TTFT (ms):                           310.75
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          9.10
Median TPOT (ms):                        9.00
P99 TPOT (ms):                           12.00
---------------Inter-token Latency----------------
Mean ITL (ms):                           9.05
Median ITL (ms):                         8.50
P99 ITL (ms):                            40.00
==================================================
"""


def test_serving_console_output() -> None:
    result = parse((CONSOLE + CONSOLE.replace("32.42", "30.00")).encode(), "paste.txt")
    assert result.format_id == "serving-console"
    m = result.metrics
    # Two pastes at the same concurrency are repetitions: the headline is their mean.
    assert m.requests_completed == 2000
    assert m.request_throughput_rps == pytest.approx(31.21)
    assert m.requests_failed == 0
    assert m.concurrency == 64
    assert m.ttft_ms == Percentiles(110.25, None, 310.75, 120.5)
    assert m.itl_ms == Percentiles(8.5, None, 40.0, 9.05)
    assert m.total_tokens_per_s == 14029.44
    assert len(result.runs) == 2
    assert result.runs[1].metrics.request_throughput_rps == 30.0
    with pytest.raises(ParseError):
        parse(CONSOLE.replace("32.42", "-1").encode())
