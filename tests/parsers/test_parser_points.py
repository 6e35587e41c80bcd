"""Operating points: one per run of a sweep, with a bounded sample of per-request data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.parsers import parse
from benchmarks.parsers._points import request_samples
from benchmarks.parsers.types import (
    MAX_REQUEST_SAMPLES,
    OperatingPoint,
    Percentiles,
    RequestSamples,
)

from .test_parser_synthetic import guidellm_bench, vllm_2024

WRITTEN = Path(__file__).parent / "fixtures" / "written"


def dumps(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def test_vllm_sweep_gives_one_point_per_run() -> None:
    result = parse((WRITTEN / "vllm_append_result_rate_sweep.jsonl").read_bytes())
    points = result.operating_points
    assert [p.request_rate_per_s for p in points] == [1.0, 4.0, None, 8.0]
    assert [p.output_tokens_per_s for p in points] == [210.0, 820.0, 5040.0, 1610.0]
    assert points[1].label == "request rate 4/s"
    assert points[2].label.startswith("request rate inf")
    assert points[1].ttft_ms == Percentiles(61.0 * 0.9, None, 61.0 * 2.2, 61.0)
    assert points[1].requests_per_s == 3.9
    assert points[1].input_tokens_per_s == pytest.approx(200 * 3.9)
    assert points[1].error_rate == 0.0
    assert points[1].request_samples is None  # summary-only runs
    assert result.to_dict()["operating_points"][3]["label"] == "request rate 8/s"


def test_single_point_file_has_one_point_with_request_samples() -> None:
    doc = vllm_2024(n=40)
    doc["max_concurrency"] = 16
    result = parse(dumps(doc))
    (point,) = result.operating_points
    assert point.label == "concurrency 16"
    assert point.concurrency == 16.0
    assert point.ttft_ms == result.metrics.ttft_ms
    assert point.e2e_ms == result.metrics.e2e_ms
    samples = point.request_samples
    assert samples is not None
    assert len(samples) == 40
    ttft, itl, e2e, ok = samples[0]
    assert ttft == pytest.approx(doc["ttfts"][0] * 1000)
    assert itl == pytest.approx(float(np.mean(doc["itls"][0])) * 1000)
    assert e2e == pytest.approx((doc["ttfts"][0] + sum(doc["itls"][0])) * 1000)
    assert ok is True


def test_guidellm_rates_give_points() -> None:
    ttfts = [10.0, 12.0, 15.0, 11.0, 30.0]
    obj = {
        "metadata": {"version": 1, "guidellm_version": "0.5.0"},
        "args": {"model": "m"},
        "benchmarks": [
            guidellm_bench(rate, ttfts, i == 0) for i, rate in enumerate((1.0, 2.0, 4.0))
        ],
    }
    result = parse(dumps(obj))
    points = result.operating_points
    assert [p.request_rate_per_s for p in points] == [1.0, 2.0, 4.0]
    assert points[0].request_samples is not None
    assert len(points[0].request_samples) == 5
    assert points[1].request_samples is None
    assert points[0].error_rate == pytest.approx(1 / 6)


def test_perf_analyzer_concurrency_series_gives_points() -> None:
    base = 1_759_522_419_154_829_652
    experiments = []
    for level, gap_ms in ((1, 5), (4, 6), (16, 9)):
        requests = []
        for i in range(4):
            start = base + i * 10_000_000
            stamps = [start + 50_000_000 + k * gap_ms * 1_000_000 for k in range(5)]
            requests.append(
                {
                    "timestamp": start,
                    "request_inputs": {"payload": "{}"},
                    "response_timestamps": stamps,
                    "response_outputs": [{"response": "{}"}] * 5,
                }
            )
        experiments.append(
            {
                "experiment": {"mode": "concurrency", "value": level},
                "requests": requests,
                "window_boundaries": [base, base + 10**9],
            }
        )
    obj = {"experiments": experiments, "version": "2.41", "service_kind": "openai"}
    result = parse(dumps(obj))
    points = result.operating_points
    assert [p.concurrency for p in points] == [1.0, 4.0, 16.0]
    assert [p.label for p in points] == ["concurrency 1", "concurrency 4", "concurrency 16"]
    assert points[2].itl_ms is not None
    assert points[2].itl_ms.p50 == pytest.approx(9.0)


def test_llmperf_results_by_concurrency_give_points() -> None:
    result = parse((WRITTEN / "llmperf_summaries_by_concurrency.json").read_bytes())
    assert [p.concurrency for p in result.operating_points] == [1.0, 8.0, 32.0]
    assert result.operating_points[2].requests_per_s == pytest.approx(230.0 / 60.0)


def test_training_files_have_no_points() -> None:
    obj = {"kind": "training", "gpus": 8, "step_time_s": 1.5, "tokens_per_s": 100000.0}
    assert parse(dumps(obj)).operating_points == ()


def test_request_samples_are_bounded_even_and_deterministic() -> None:
    n = 10_007
    index = np.arange(n, dtype=np.float64)
    samples = RequestSamples(
        ttft_ms=index,
        e2e_ms=index * 2,
        itl_ms=np.full(n, np.nan),
        input_tokens=np.ones(n),
        output_tokens=np.ones(n),
        success=index % 2 == 0,
        tpot_ms=np.full(n, 3.0),
    )
    first = request_samples(samples)
    assert first is not None
    assert len(first) == MAX_REQUEST_SAMPLES
    assert first == request_samples(samples)
    taken = [t for t, _, _, _ in first]
    assert taken[0] == 0.0
    assert taken[-1] == n - 1
    gaps = np.diff(taken)
    assert gaps.min() >= 4
    assert gaps.max() <= 6
    assert first[1][1] == 3.0  # no chunk gaps in the file: the TPOT is the ITL stand-in
    assert first[0][3] is (taken[0] % 2 == 0)


def test_operating_point_is_stored_as_plain_json() -> None:
    point = OperatingPoint(
        label="concurrency 50",
        concurrency=50.0,
        request_rate_per_s=None,
        requests_per_s=12.0,
        output_tokens_per_s=3000.0,
        input_tokens_per_s=9000.0,
        ttft_ms=Percentiles(300.0, 835.0, 1200.0, 350.0),
        itl_ms=Percentiles(20.0, 35.0, 60.0, 22.0),
        tpot_ms=None,
        e2e_ms=Percentiles(5000.0, 8000.0, 9000.0, 5200.0),
        error_rate=0.01,
        request_samples=((310.0, 21.0, 5100.0, True), (None, None, 9000.0, False)),
    )
    data = json.loads(json.dumps(point.to_dict(), allow_nan=False))
    assert data == {
        "label": "concurrency 50",
        "concurrency": 50.0,
        "request_rate_per_s": None,
        "requests_per_s": 12.0,
        "output_tokens_per_s": 3000.0,
        "input_tokens_per_s": 9000.0,
        "ttft_ms": {"p50": 300.0, "p95": 835.0, "p99": 1200.0, "mean": 350.0},
        "itl_ms": {"p50": 20.0, "p95": 35.0, "p99": 60.0, "mean": 22.0},
        "tpot_ms": None,
        "e2e_ms": {"p50": 5000.0, "p95": 8000.0, "p99": 9000.0, "mean": 5200.0},
        "error_rate": 0.01,
        "request_samples": [[310.0, 21.0, 5100.0, True], [None, None, 9000.0, False]],
        "repetitions": None,
        "output_tokens_per_s_min": None,
        "output_tokens_per_s_max": None,
    }


def test_issue17_the_shared_guidellm_report_gives_one_point_per_rate() -> None:
    """The shared GuideLLM 0.8 report (two constant-rate benchmarks) is a sweep of two."""
    shared = Path(__file__).parent / "fixtures" / "guidellm"
    result = parse((shared / "llmd_fixture_guidellm0.8dev_report_v2_mock.json").read_bytes())
    points = result.operating_points
    assert [p.label for p in points] == ["request rate 2/s", "request rate 4/s"]
    assert [p.request_rate_per_s for p in points] == [2.0, 4.0]
    assert points[1].output_tokens_per_s == pytest.approx(6.377, abs=1e-3)
    assert all(p.ttft_ms is not None and p.ttft_ms.p95 for p in points)
