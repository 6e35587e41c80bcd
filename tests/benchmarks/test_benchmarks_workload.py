"""Issue 14 / D1: every parsed result records the workload it measured, and the comparison
snapshot reads them (model, precision, parallelism, lengths, concurrency)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.parsers.types import Metrics, ParsedResult, RequestSamples
from benchmarks.selectors import evidence_results_for
from benchmarks.services.results import workload_fields
from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory, metrics_dict


def _parsed(**metrics) -> ParsedResult:
    n = 20
    samples = RequestSamples(
        ttft_ms=np.full(n, 100.0),
        e2e_ms=np.full(n, 900.0),
        itl_ms=np.full(n, 10.0),
        input_tokens=np.arange(1000.0, 1000.0 + n),
        output_tokens=np.full(n, 300.0),
        success=np.ones(n, dtype=bool),
    )
    return ParsedResult(
        format_id="vllm",
        format_name="vLLM",
        tool_version=None,
        model="meta-llama/Llama-3.1-70B-Instruct",
        metrics=Metrics(concurrency=32, request_rate=4.0, **metrics),
        per_request=samples,
        extra={"dtype": "BF16"},
    )


def test_workload_fields_from_a_parse_and_the_upload_parallelism():
    """D1: lengths (mean, p95 from per-request data), concurrency, rate, precision, TP/PP."""
    found = workload_fields(_parsed(), "TP=4, PP=2")
    assert found["input_tokens_mean"] == pytest.approx(1009.5)
    assert found["input_tokens_p95"] == pytest.approx(np.quantile(np.arange(1000.0, 1020.0), 0.95))
    assert found["output_tokens_mean"] == 300.0
    assert (found["concurrency"], found["request_rate"]) == (32.0, 4.0)
    assert found["precision"] == "bf16"
    assert (found["tensor_parallel"], found["pipeline_parallel"]) == (4, 2)


@pytest.mark.django_db
def test_evidence_results_carry_the_workload(quote_a, h100):
    result = BenchmarkResultFactory(
        quote=quote_a,
        accelerator=h100,
        gpu_count=4,
        model_name="meta-llama/Llama-3.1-8B-Instruct",
        precision="bf16",
        concurrency=16,
        metrics=metrics_dict(output_tokens_per_s=4000),
    )
    (row,) = evidence_results_for([quote_a.pk], [h100.pk], None)
    assert row["result_id"] == result.pk
    assert row["model_name"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert row["accelerator"] == h100.slug
    assert (row["precision"], row["concurrency"], row["gpu_count"]) == ("bf16", 16, 4)
    assert row["tokens_per_s_per_gpu"] == 1000
