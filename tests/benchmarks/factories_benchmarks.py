"""Factories for benchmark results and plans (this area's own; shared ones: tests/factories)."""

from __future__ import annotations

import hashlib

import factory
from django.core.files.base import ContentFile
from django.utils import timezone
from factory.django import DjangoModelFactory

from benchmarks.models import BenchmarkPlan, BenchmarkResult
from core.roles import Role
from tests.factories import AcceleratorFactory, UserFactory, WorkloadBriefFactory


def metrics_dict(
    *,
    ttft=(120.0, 300.0, 450.0),
    e2e=(4000.0, 9000.0, 12000.0),
    output_tokens_per_s: float | None = 2400.0,
    request_throughput_rps: float | None = 6.0,
    acceptance_rate: float | None = None,
    concurrency: float | None = 32.0,
) -> dict:
    """A stored `metrics` JSON shaped like the parser's `Metrics.to_dict()`."""

    def fam(values):
        if values is None:
            return None
        p50, p95, p99 = values
        return {"p50": p50, "p95": p95, "p99": p99, "mean": p50}

    return {
        "requests_completed": 1000,
        "requests_failed": 0,
        "duration_s": 166.7,
        "request_throughput_rps": request_throughput_rps,
        "output_tokens_per_s": output_tokens_per_s,
        "concurrency": concurrency,
        "ttft_ms": fam(ttft),
        "itl_ms": fam((20.0, 35.0, 60.0)),
        "tpot_ms": fam((18.0, 30.0, 40.0)),
        "e2e_ms": fam(e2e),
        "accepted_outputs": None,
        "acceptance_rate": acceptance_rate,
    }


class BenchmarkResultFactory(DjangoModelFactory[BenchmarkResult]):
    """A parsed result row (no parser run); the raw file is a small stored JSON."""

    class Meta:
        model = BenchmarkResult

    uploaded_by = factory.SubFactory(UserFactory, role=Role.PLATFORM_ENGINEER)
    accelerator = factory.SubFactory(AcceleratorFactory)
    quote = None
    gpu_count = 1
    brief = None
    raw_file = factory.LazyFunction(lambda: ContentFile(b'{"demo": true}', name="result.json"))
    original_name = "result.json"
    sha256 = factory.Sequence(lambda n: hashlib.sha256(str(n).encode()).hexdigest())
    size_bytes = 14
    format_id = "vllm-serve"
    status = BenchmarkResult.Status.PARSED
    progress = 1.0
    metrics = factory.LazyFunction(metrics_dict)
    parsed_at = factory.LazyFunction(timezone.now)


class BenchmarkPlanFactory(DjangoModelFactory[BenchmarkPlan]):
    class Meta:
        model = BenchmarkPlan

    quote = factory.SubFactory("tests.factories.QuoteFactory")
    brief = factory.SubFactory(WorkloadBriefFactory)
    created_by = factory.SubFactory(UserFactory, role=Role.PLATFORM_ENGINEER)


def vllm_serve_bytes(requests: int, *, seed: int = 7, chunks: int = 8) -> bytes:
    """A vLLM `benchmark_serving.py --save-result` file with per-request arrays (seconds),
    its summary computed from those arrays (so the parser finds no discrepancy)."""
    import json

    import numpy as np

    rng = np.random.default_rng(seed)
    ttfts = rng.gamma(4.0, 0.05, requests)
    itls = rng.gamma(3.0, 0.006, (requests, chunks))
    output_lens = np.full(requests, chunks + 1)
    input_lens = rng.integers(200, 2000, requests)
    latencies = ttfts + itls.sum(axis=1)
    duration = float(latencies.sum() / 32)
    tpot = (latencies - ttfts) / (output_lens - 1)

    def stats(name: str, values_s) -> dict:
        ms = np.asarray(values_s) * 1000
        return {
            f"mean_{name}_ms": float(ms.mean()),
            f"median_{name}_ms": float(np.median(ms)),
            f"std_{name}_ms": float(ms.std()),
            f"p99_{name}_ms": float(np.percentile(ms, 99)),
        }

    body = {
        "date": "20250101-120000",
        "backend": "vllm",
        "model_id": "meta-llama/Llama-3.1-70B-Instruct",
        "tokenizer_id": "meta-llama/Llama-3.1-70B-Instruct",
        "num_prompts": requests,
        "request_rate": "inf",
        "burstiness": 1.0,
        "max_concurrency": 32,
        "duration": duration,
        "completed": requests,
        "failed": 0,
        "total_input_tokens": int(input_lens.sum()),
        "total_output_tokens": int(output_lens.sum()),
        "request_throughput": requests / duration,
        "output_throughput": float(output_lens.sum()) / duration,
        "total_token_throughput": float(input_lens.sum() + output_lens.sum()) / duration,
        **stats("ttft", ttfts),
        **stats("tpot", tpot),
        **stats("itl", itls.ravel()),
        **stats("e2el", latencies),
        "input_lens": input_lens.tolist(),
        "output_lens": output_lens.tolist(),
        "ttfts": np.round(ttfts, 6).tolist(),
        "itls": np.round(itls, 6).tolist(),
        "latencies": np.round(latencies, 6).tolist(),
        "generated_texts": [""] * requests,
        "errors": [""] * requests,
    }
    return json.dumps(body).encode()
