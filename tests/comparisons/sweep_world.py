"""The decision audit's common brief, quote and vLLM serve files, built through the API.

Brief: real-time, Llama 3.1 8B in BF16, 1,000 tokens in and 200 out (mean = p95),
concurrency 16, TTFT p95 500 ms, ITL p95 50 ms, E2E p99 15 s; 1,000,000 accepted per month,
acceptance 0.8, failure 0, utilisation 0.5 (fixed ranges), no labour, storage or egress.
Quote: H100 SXM on-demand at $2.50 per GPU-hour.
"""

from __future__ import annotations

import importlib
import json
from decimal import Decimal
from typing import Any

from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.models import BenchmarkResult
from checklist.models import ChecklistItem
from procurement.models import CandidateResult, Comparison
from procurement.services.comparisons import comparison_create, comparison_run
from tests.comparisons.factories_comparisons import answer_checklist
from tests.factories import (
    AcceleratorFactory,
    ModelProfileFactory,
    QuoteFactory,
    WorkloadBriefFactory,
)

MODEL_ID = "meta-llama/Llama-3.1-8B-Instruct"

# The roofline (engine/performance.py) for Llama 3.1 8B (8.0 B parameters, 32 layers, 8 KV
# heads of 128) in BF16 on one H100 SXM (989 dense BF16 TFLOPS, 3.35 TB/s) at the default
# efficiencies (memory 0.6, compute 0.4), written out so that tests check it by hand.
WEIGHT_BYTES = 8.0e9 * 2  # 16 GB of BF16 weights
BANDWIDTH = 3.35e12 * 0.6  # bytes/s achieved
FLOPS = 989e12 * 0.4  # FLOP/s achieved
KV_PER_TOKEN = 2 * 32 * 8 * 128 * 2  # K and V × layers × KV heads × head dim × 2 bytes


def roofline_tokens_per_s(
    concurrency: int, tokens_in: int = 1000, tokens_out: int = 200, *, cached: float = 0.0
) -> float:
    """output tok/s = B × out / (B × TTFT + out × ITL) on one GPU; the prefill (TTFT) computes
    only the ``cached`` share's complement of the input (a prefix cache holds the rest)."""
    kv_per_sequence = KV_PER_TOKEN * (tokens_in + tokens_out / 2)
    itl = max(
        (WEIGHT_BYTES + concurrency * kv_per_sequence) / BANDWIDTH,  # memory-bound decode
        2 * 8.0e9 * concurrency / FLOPS,
    )
    prefilled = tokens_in * (1 - cached)
    ttft = max(2 * 8.0e9 * prefilled / FLOPS, WEIGHT_BYTES / BANDWIDTH)
    return concurrency * tokens_out / (concurrency * ttft + tokens_out * itl)


def fitted_tokens_per_s(
    concurrency: int = 16, tokens_in: int = 1000, tokens_out: int = 200
) -> float:
    """The fitted estimate (engine/fitted, engine 1.9.0) of the audit's row, written out from
    engine/fitted/data/1.9.0/parameters.json: η_memory 0.9, η_compute 0.9, η_prefill
    0.487328, κ 0.646025, σ 0.934702, power exponent 1, full clocks from 0.379128 W per
    8-bit TFLOPS; one H100 SXM at 700 W computing BF16 at 989 TFLOPS = 1,978 8-bit TFLOPS:
    700 / 1,978 = 0.353893 W per TFLOPS, power factor 0.353893 / 0.379128 = 0.933439;
    Hopper / TensorRT-LLM (factor 1), one GPU (no all-reduce). Memory holds far more
    than the brief's 16 requests, so the batch is 16:

    decode step = (16e9 + 16 × 131,072 × (1,000 + 100)) / (3.35e12 × 0.9)
                  + 2 × 8e9 × 16 / (989e12 × 0.933439 × 0.9) = 6.0719 + 0.3081 = 6.3800 ms
    prefill     = (2 × 8e9 × 1,000 + 2 × 32 × 1,000² × 4,096) / (989e12 × 0.933439 × 0.487328)
                = 36.147 ms
    per token   = 6.3800 + 16 × 36.147 / 200 = 9.272 ms ≤ κ × 50 ms = 32.3 ms: the TPOT
                  target does not bind (throughput-bound)
    tok/s       = 16 × 200 / (16 × 0.036147 + 200 × 0.0063800) × σ = 1,725.7 × 0.934702
                = 1,613.0
    """
    kv_token = 2 * 32 * 8 * 128 * 2
    flops = 989e12 * (700 / (989 * 2) / 0.379128)
    step = (WEIGHT_BYTES + concurrency * kv_token * (tokens_in + tokens_out / 2)) / 3.015e12
    step += 2 * 8.0e9 * concurrency / (flops * 0.9)
    prefill = (2 * 8.0e9 * tokens_in + 2 * 32 * tokens_in**2 * 4096) / (flops * 0.487328)
    return concurrency * tokens_out / (concurrency * prefill + tokens_out * step) * 0.934702


def llama_8b():
    return ModelProfileFactory(
        slug="llama-3-1-8b",
        name="Llama 3.1 8B",
        family="Llama",
        params_total_b=8.0,
        params_active_b=8.0,
        layers=32,
        hidden_size=4096,
        attention_heads=32,
        kv_heads=8,
        head_dim=128,
    )


def audit_brief(lead, **extra: Any):
    fixed = {
        f"{base}_{part}": value
        for base, value in (
            ("monthly_accepted_outputs", 1_000_000),
            ("acceptance_rate", 0.8),
            ("failure_rate", 0.0),
            ("utilisation", 0.5),
        )
        for part in ("low", "likely", "high")
    }
    values = {
        "created_by": lead,
        "model": llama_8b(),
        "context_window_tokens": 8192,
        "p95_input_tokens": 1000,
        "mean_input_tokens": 1000,
        "p95_output_tokens": 200,
        "mean_output_tokens": 200,
        "concurrency": 16,
        "ttft_p95_ms": 500,
        "itl_p95_ms": 50,
        "e2e_p99_ms": 15_000,
        "peak_to_average": 2.0,
        "operating_model": "managed",
        "platform_fte": 0,
        "storage_gb": 0,
        "egress_gb_month": 0,
        **fixed,
        **extra,
    }
    return WorkloadBriefFactory(**values)


def h100_quote(lead, price: str = "2.50"):
    """An H100 quote whose provider has answered the whole checklist (so it can be eligible)."""
    if not ChecklistItem.objects.exists():
        migration = importlib.import_module("checklist.migrations.0002_seed_items")
        migration.seed_items(apps, None)
    acc = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")
    quote = QuoteFactory(accelerator=acc, price_per_gpu_hour=Decimal(price))
    answer_checklist(quote.provider, lead)
    return quote


def vllm_file(
    concurrency: int,
    output_tokens_per_s: float,
    *,
    ttft_s: float | list[float] = 0.1,
    itl_s: float = 0.02,
    ok: int = 20,
    failed: int = 0,
    **metadata: Any,
) -> bytes:
    """A vLLM `benchmark_serving` file with per-request arrays: ``ok`` successful requests of
    1,000 tokens in and 200 out, ``failed`` requests that timed out (no token); ``metadata``
    as `--metadata KEY=VALUE` writes it (top-level keys, e.g. ``kv_cache_dtype="fp8"``)."""
    ttfts = ttft_s if isinstance(ttft_s, list) else [ttft_s] * ok
    out_len = 200
    itls = [[itl_s] * (out_len - 1) for _ in range(ok)]
    latencies = [t + itl_s * (out_len - 1) for t in ttfts]
    total_out = out_len * ok
    duration = total_out / output_tokens_per_s
    body = {
        "date": "20261201-120000",
        "backend": "vllm",
        "model_id": MODEL_ID,
        "tokenizer_id": MODEL_ID,
        "num_prompts": ok + failed,
        "request_rate": "inf",
        "burstiness": 1.0,
        "max_concurrency": concurrency,
        "duration": duration,
        "completed": ok,
        "failed": failed,
        "total_input_tokens": 1000 * ok,
        "total_output_tokens": total_out,
        "request_throughput": ok / duration,
        "output_throughput": output_tokens_per_s,
        "total_token_throughput": (1000 * ok + total_out) / duration,
        "input_lens": [1000] * (ok + failed),
        "output_lens": [out_len] * ok + [0] * failed,
        "ttfts": ttfts + [0.0] * failed,
        "itls": itls + [[] for _ in range(failed)],
        "latencies": latencies + [0.0] * failed,
        "generated_texts": [""] * (ok + failed),
        "errors": [""] * ok + ["TimeoutError"] * failed,
        **metadata,
    }
    return json.dumps(body).encode()


def upload(
    client, quote, brief, body: bytes, *, sweep: str = "", name: str = "run.json", **fields: Any
):
    """Upload through the API; ``fields`` are more form fields (``serving_engine``, …)."""
    response = client.post(
        "/api/v1/benchmark-results/",
        {
            "file": SimpleUploadedFile(name, body),
            "quote": quote.pk,
            "brief": brief.pk,
            "gpu_count": 1,
            "precision": "bf16",
            "sweep": sweep,
            **fields,
        },
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    result = BenchmarkResult.objects.get(pk=response.json()["id"])
    assert result.status == "parsed", result.error
    return result


def compare(lead, brief, quotes, route_ids=(), **assumptions: Any) -> Comparison:
    """Create and compute a comparison (seed 7); ``assumptions`` are its overrides."""
    comparison = comparison_create(
        acting_user=lead,
        brief=brief,
        quote_ids=[q.pk for q in quotes],
        api_route_ids=list(route_ids),
        seed=7,
        enqueue=False,
        **({"assumptions": assumptions} if assumptions else {}),
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    return comparison


def row(comparison: Comparison, quote) -> CandidateResult:
    return CandidateResult.objects.get(comparison=comparison, key=f"quote:{quote.pk}")
