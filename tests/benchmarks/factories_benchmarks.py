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


def level_metrics(
    concurrency: int,
    output_tokens_per_s: float,
    ttft_p95_ms: float,
    itl_p95_ms: float,
    e2e_p99_ms: float,
    *,
    failed: int = 0,
) -> dict:
    """The stored metrics of a one-level file (a vLLM `benchmark_serving` run at one
    concurrency), with its operating point as the parsers write it: p50 = half the p95,
    p99 = 1.2 × the p95 (E2E: p50 = half, p95 = 0.9 × the p99), 1,000 requests."""

    def fam(p50, p95, p99):
        return {"p50": p50, "p95": p95, "p99": p99, "mean": p50}

    ttft = fam(ttft_p95_ms / 2, ttft_p95_ms, ttft_p95_ms * 1.2)
    itl = fam(itl_p95_ms / 2, itl_p95_ms, itl_p95_ms * 1.2)
    e2e = fam(e2e_p99_ms / 2, e2e_p99_ms * 0.9, e2e_p99_ms)
    completed = 1000 - failed
    point = {
        "label": f"concurrency {concurrency}",
        "concurrency": float(concurrency),
        "request_rate_per_s": None,
        "requests_per_s": output_tokens_per_s / 300,
        "output_tokens_per_s": output_tokens_per_s,
        "input_tokens_per_s": None,
        "ttft_ms": ttft,
        "itl_ms": itl,
        "tpot_ms": None,
        "e2e_ms": e2e,
        "error_rate": failed / 1000,
        "request_samples": None,
    }
    return {
        **metrics_dict(
            ttft=(ttft["p50"], ttft["p95"], ttft["p99"]),
            e2e=(e2e["p50"], e2e["p95"], e2e["p99"]),
            output_tokens_per_s=output_tokens_per_s,
            concurrency=float(concurrency),
        ),
        "requests_completed": completed,
        "requests_failed": failed,
        "itl_ms": itl,
        "operating_points": [point],
    }


# The audit's sweep (findings V12): Llama 3.1 70B on 8 × H200, concurrency 8, 32 and 64,
# p95 TTFT 325, 752 and 2,091 ms against a brief's TTFT p95 ≤ 800 ms.
AUDIT_LEVELS = (
    (8, 1200.0, 325.0, 21.0, 9000.0),
    (32, 2400.0, 752.0, 28.0, 12000.0),
    (64, 3000.0, 2091.0, 41.0, 16500.0),
)


def audit_sweep(*, quote, brief, uploaded_by, sweep: str = "h200 concurrency sweep") -> list:
    """Three one-level files of one sweep (AUDIT_LEVELS) on `quote`'s accelerator, 8 GPUs,
    bound to `brief`, uploaded as separate files under one sweep name."""
    return [
        BenchmarkResultFactory(
            quote=quote,
            accelerator=quote.accelerator,
            brief=brief,
            gpu_count=8,
            uploaded_by=uploaded_by,
            original_name=f"c{c}.json",
            sweep=sweep,
            model_name="meta-llama/Llama-3.1-70B-Instruct",
            precision="bf16",
            serving_engine="vLLM",
            input_tokens_mean=1500,
            output_tokens_mean=300,
            concurrency=float(c),
            metrics=level_metrics(c, tps, ttft, itl, e2e),
        )
        for c, tps, ttft, itl, e2e in AUDIT_LEVELS
    ]
