"""Detection of large JSON files reads the head only; per-request arrays read without json."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from benchmarks.parsers import ParseError, _aiperf_columns, _head, aiperf, detect, parse


def vllm_doc(n: int, seed: int = 3) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    out_lens = rng.integers(2, 20, n)
    ttfts = rng.gamma(2.0, 0.05, n).round(6)
    itls = [rng.gamma(3.0, 0.004, int(k) - 1).round(6).tolist() for k in out_lens]
    return {
        "backend": "vllm",
        "model_id": "org/model",
        "num_prompts": n,
        "request_rate": "inf",
        "max_concurrency": 32,
        "duration": 50.0,
        "completed": n,
        "request_throughput": n / 50.0,
        "output_throughput": float(out_lens.sum()) / 50.0,
        "mean_ttft_ms": float(ttfts.mean() * 1000),
        "input_lens": [100] * n,
        "output_lens": out_lens.tolist(),
        "ttfts": ttfts.tolist(),
        "itls": itls,
        "generated_texts": ["x"] * n,
        "errors": [""] * n,
    }


def test_large_json_with_an_invalid_tail_still_detects() -> None:
    data = json.dumps(vllm_doc(5000)).encode()
    assert len(data) > 4 * _head.HEAD_BYTES
    broken = data[: len(data) // 2] + b"<<< not JSON at all"
    assert detect(broken, "big.json") == "vllm-serve"
    with pytest.raises(ParseError):
        parse(broken, "big.json")


def test_detection_of_large_json_lines_reads_complete_lines_of_the_head() -> None:
    line = json.dumps({k: v for k, v in vllm_doc(10).items() if k != "itls"})
    data = ("\n".join([line] * 2000) + "\n").encode()
    assert len(data) > _head.HEAD_BYTES
    assert detect(data + b"{broken", "runs.jsonl") == "vllm-serve"


def test_detection_of_a_pretty_printed_guidellm_head() -> None:
    doc = {
        "benchmarks": [
            {"type_": "generative_benchmark", "requests": [{"x": i} for i in range(5000)]}
        ],
        "metadata": {"version": 1},
    }
    data = json.dumps(doc, indent=2).encode()
    assert len(data) > _head.HEAD_BYTES
    assert detect(data[:-5000], "g.json") == "guidellm"


def test_close_prefix_cuts_after_the_last_complete_value() -> None:
    assert _head.close_prefix(b'{"a": [1, 2, 3') == b'{"a": [1, 2]}'
    assert _head.close_prefix(b'{"a": "x,y", "b": "unfinished') == b'{"a": "x,y"}'
    assert _head.close_prefix(b'{"a": {"b": [1]}, "c"') == b'{"a": {"b": [1]}}'
    assert _head.close_prefix(b"]") is None


def test_large_vllm_file_parses_to_the_same_result_as_the_standard_loader() -> None:
    doc = vllm_doc(3000)
    data = json.dumps(doc).encode()
    fast = parse(data)
    assert _head.load_serve(data) is not None
    # NaN is not standard JSON: simdjson refuses it, the standard loader takes the file
    doc["std_ttft_ms"] = float("nan")
    slow = parse(json.dumps(doc).encode())
    assert fast.metrics == slow.metrics
    assert fast.per_request is not None
    assert slow.per_request is not None
    for name in ("ttft_ms", "e2e_ms", "itl_ms", "output_tokens", "tpot_ms"):
        assert np.array_equal(
            getattr(fast.per_request, name), getattr(slow.per_request, name), equal_nan=True
        ), name


def test_large_vllm_file_with_a_bad_per_request_value_is_refused_by_name() -> None:
    doc = vllm_doc(3000)
    doc["ttfts"][17] = -1.0
    with pytest.raises(ParseError) as info:
        parse(json.dumps(doc).encode())
    assert "ttfts" in info.value.message
    doc["ttfts"][17] = "soon"
    with pytest.raises(ParseError) as info:
        parse(json.dumps(doc).encode())
    assert "'ttfts'[17]" in info.value.message


def test_detect_on_the_head_alone_of_a_large_file() -> None:
    data = json.dumps(vllm_doc(5000)).encode()
    head = data[: _head.HEAD_BYTES]
    assert detect(head, "big.json", partial=True) == "vllm-serve"
    csv_head = b"ttft_ms,e2e_ms\n" + b"12.5,100\n" * 20000
    assert detect(csv_head[:70000], "r.csv", partial=True) == "requests-csv"


def aiperf_line(i: int, phase: str = "profiling", error: bool = False) -> str:
    metrics: dict[str, Any] = {
        "ttft": {"value": 100.0 + i % 7, "unit": "ms"},
        "request_latency": {"value": 1.5 + (i % 5) / 10, "unit": "s"},
        "inter_token_latency": {"value": 20.0 + i % 3, "unit": "ms"},
        "input_sequence_length": {"value": 100, "unit": "tokens"},
        "output_sequence_length": {"value": 50 + i % 4, "unit": "tokens"},
        "inter_chunk_latency": {"value": [19.5, 20.5 + i % 2, 21.0], "unit": "ms"},
        "min_request_timestamp": {"value": 1_759_522_419_154_829_652 + i * 10**7, "unit": "ns"},
        "max_response_timestamp": {"value": 1_759_522_421_154_829_659 + i * 10**7, "unit": "ns"},
    }
    err = {"code": 500, "type": "ServerError", "message": "x"} if error else None
    return json.dumps(
        {
            "metadata": {"x_request_id": str(i), "credit_phase": phase},
            "metrics": metrics,
            "error": err,
        }
    )


def test_large_aiperf_jsonl_read_column_wise_matches_the_record_reader() -> None:
    lines = [aiperf_line(i, "warmup" if i < 5 else "profiling", i % 50 == 7) for i in range(3000)]
    data = ("\n".join(lines) + "\n").encode()
    assert len(data) > _head.HEAD_BYTES
    assert _aiperf_columns.read_columns(data, "record") is not None
    fast = parse(data)
    slow = aiperf.parse_jsonl([json.loads(ln) for ln in lines])
    assert fast.metrics == slow.metrics
    assert fast.notes == slow.notes
    assert fast.metrics.requests_failed == sum(1 for i in range(5, 3000) if i % 50 == 7)
    assert fast.metrics.e2e_ms is not None
    assert fast.metrics.e2e_ms.p50 == pytest.approx(1700.0)


def test_large_aiperf_jsonl_with_a_foreign_line_uses_the_record_reader() -> None:
    lines = [aiperf_line(i) for i in range(2000)] + [json.dumps({"something": "else"})]
    with pytest.raises(ParseError) as info:
        parse(("\n".join(lines) + "\n").encode())
    assert "not all AIPerf records" in info.value.message or "line 2001" in info.value.message


def test_a8_every_format_is_declared_once_by_its_module() -> None:
    """A8: one Format entry per format (no parallel tables in parsers/__init__.py)."""
    from benchmarks import parsers

    assert set(parsers.REGISTRY) == set(parsers.FORMATS)
    assert len(parsers.FORMATS) == 25  # amd-smi-csv (R19) is the 25th
    assert set(parsers.JSON_RULES) | set(parsers.TEXT_RULES) == set(parsers.FORMATS)
    for fid, fmt in parsers.REGISTRY.items():
        assert fmt.id == fid
        assert fmt.sniff is not None
        assert fmt.rule
