"""A hand-built comparison snapshot (the JSON `freeze` writes), for pure adapter tests."""

from __future__ import annotations

import copy
from typing import Any

from procurement.snapshot import assumptions

H100 = {
    "id": 1,
    "slug": "h100-sxm-80gb",
    "name": "H100 SXM 80GB",
    "vendor": "NVIDIA",
    "tdp_w": 700,
    "interconnect": "NVLink",
    "spec": {
        "memory_gb": 80.0,
        "max_gpus_per_node": 8,
        "memory_bandwidth_tbps": 3.35,
        "bf16_dense_tflops": 989.0,
        "fp8_dense_tflops": 1979.0,
        "fp4_dense_tflops": None,
        "interconnect_gbps": 450.0,
        "supported_precisions": ["bf16", "fp16", "fp8", "int8", "int4"],
    },
}
LLAMA_70B = {
    "id": 7,
    "slug": "llama-3-1-70b",
    "name": "Llama 3.1 70B",
    "family": "Llama",
    "params_active_b": 70.6,
    "spec": {
        "params_b": 70.6,
        "layers": 80,
        "kv_heads": 8,
        "head_dim": 128,
        "active_params_b": None,
        "hidden_size": 8192,
        "attention_heads": 64,
        "mla_latent_dim": None,
        "sliding_window": None,
        "sliding_window_layers": 0,
        "max_context": 131072,
    },
}


def quote(qid: int, price: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": qid,
        "version": 1,
        "label": f"Offer {qid} · H100",
        "provider_name": f"Provider {qid}",
        "accelerator_slug": H100["slug"],
        "accelerator_id": 1,
        "capacity_model": "on_demand",
        "price_per_gpu_hour": price,
        "currency": "USD",
        "gpus_per_node": 8,
        "max_gpus_available": None,
        "region": "eu-west",
        "quoted_at": "2026-12-01T00:00:00+00:00",
        "valid_until": None,
        "idle_billed": True,
        **extra,
    }


def result(rid: int, model: str, **extra: Any) -> dict[str, Any]:
    """A frozen benchmark result on the H100 at the brief's shape unless told otherwise."""
    return {
        "result_id": rid,
        "accelerator": H100["slug"],
        "quote_id": None,
        "brief_id": None,
        "gpu_count": 4,
        "model_name": model,
        "precision": "bf16",
        "input_tokens_mean": 1500.0,
        "output_tokens_mean": 300.0,
        "concurrency": 32.0,
        "output_tokens_per_s": 2000.0,
        "tokens_per_s_per_gpu": 500.0,
        "ttft_p95_ms": 150.0,
        "e2e_p99_ms": 9000.0,
        **extra,
    }


def snapshot(
    quotes: list[dict[str, Any]],
    results: list[dict[str, Any]] | None = None,
    routes: list[dict[str, Any]] | None = None,
    **brief: Any,
) -> dict[str, Any]:
    base = {
        "id": 11,
        "workload_class": "realtime_inference",
        "model_id": 7,
        "weight_precision": "bf16",
        "kv_precision": "bf16",
        "context_window_tokens": 8192,
        "p95_input_tokens": 3000,
        "p95_output_tokens": 500,
        "mean_input_tokens": 1500,
        "mean_output_tokens": 300,
        "concurrency": 32,
        "monthly_accepted_outputs_low": 2_000_000,
        "monthly_accepted_outputs_likely": 3_000_000,
        "monthly_accepted_outputs_high": 5_000_000,
        "acceptance_rate_low": 0.85,
        "acceptance_rate_likely": 0.92,
        "acceptance_rate_high": 0.97,
        "failure_rate_low": 0.0,
        "failure_rate_likely": 0.01,
        "failure_rate_high": 0.02,
        "utilisation_low": 0.5,
        "utilisation_likely": 0.7,
        "utilisation_high": 0.85,
        "peak_to_average": 2.0,
        "allowed_regions": [],
        "operating_model": "self_managed",
        "platform_fte": 0.5,
        "loaded_monthly_cost_per_fte": "15000",
        "horizon_months": 12,
        **brief,
    }
    # What the earlier selector froze: the highest tokens/s per GPU on each accelerator, any
    # model (kept so the same snapshot exercises the old reading, D1).
    legacy: dict[str, Any] = {}
    for found in results or []:
        best = legacy.get("1")
        if best is None or found["tokens_per_s_per_gpu"] > best["tokens_per_s_per_gpu"]:
            legacy["1"] = {**found, "has_acceptance_data": "acceptance_rate" in found}
    return copy.deepcopy(
        {
            "format": 1,
            "as_of": "2026-12-03T00:00:00+00:00",
            "base_currency": "USD",
            "stale_quote_days": 30,
            "selection": {},
            "brief": base,
            "model": LLAMA_70B,
            "assumptions": {"overrides": {}, "effective": assumptions.effective({})},
            "accelerators": {H100["slug"]: H100},
            "quotes": quotes,
            "api_routes": routes or [],
            "fx_rates": {"USD": {"rate_to_base": "1", "as_of": "2026-12-03"}},
            "checklist": None,
            "measured": {"by_quote": {}, "by_accelerator": legacy, "results": results or []},
        }
    )
