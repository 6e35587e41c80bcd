"""Representative snapshots whose row facts are frozen as JSON (snapshot_facts_rows.json).

Each scenario is a snapshot as `freeze` writes it, covering every kind of row the adapter
builds: a GPU quote measured on its own sweep (three configurations, prefix caching, a
reviewer-accepted checklist, capacity dates), an estimated quote on another accelerator
with a calibration ledger, a purchase quote in a currency without a rate, a model API with
a batch tier, a media brief measured on a render, a training brief, and the stored
format-1 snapshot of the last format-1 release. `frozen_rows` computes each one and keeps
what a comparison stores per row (fit, performance, checklist, detail and the row fields),
leaving out the Monte Carlo quantiles, which the adapter does not shape.

Regenerate the fixture only when a row fact is meant to change (and say why in the commit):
    DJANGO_SETTINGS_MODULE=config.settings_test .venv/bin/python -c "import django; \
        django.setup(); from tests.comparisons import facts_world; facts_world.main()" \
        > tests/comparisons/fixtures/snapshot_facts_rows.json
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from procurement.services.comparisons.compute import compute
from tests.engine.snapshot_world import H100, quote, result, snapshot

FIXTURES = Path(__file__).parent / "fixtures"
MODEL = "meta-llama/Llama-3.1-70B-Instruct"
# Drawn by the Monte Carlo run, not shaped by the snapshot adapter.
SAMPLED = ("p10", "p50", "p90", "prob_cheapest")

A100 = {
    **copy.deepcopy(H100),
    "id": 2,
    "slug": "a100-sxm-80gb",
    "name": "A100 SXM 80GB",
    "tdp_w": 400,
    "spec": {
        **H100["spec"],
        "memory_bandwidth_tbps": 2.04,
        "bf16_dense_tflops": 312.0,
        "fp8_dense_tflops": None,
        "interconnect_gbps": 300.0,
    },
}


def _point(c: float, tps: float, ttft: float, itl_p50: float, requests: float) -> dict[str, Any]:
    return {
        "label": f"concurrency {c:g}",
        "concurrency": c,
        "output_tokens_per_s": tps,
        "input_tokens_per_s": requests * 1500,
        "requests_per_s": requests,
        "ttft_ms": {"p50": None, "p95": ttft, "p99": None, "mean": None},
        "itl_ms": {"p50": itl_p50, "p95": itl_p50 * 1.5, "p99": None, "mean": None},
        "e2e_ms": {"p50": None, "p95": None, "p99": ttft * 12, "mean": None},
        "error_rate": 0.002,
    }


def serving() -> dict[str, Any]:
    """Real-time inference: measured sweep, estimate with a ledger, no FX, an API route."""
    sweep = [
        _point(8, 1200, 300, 12, 4.0),
        _point(32, 2400, 835, 20, 8.0),
        _point(64, 3000, 2600, 40, 10.0),
    ]
    own = result(
        5,
        MODEL,
        quote_id=1,
        brief_id=11,
        model_profile_id=7,
        operating_points=sweep,
        acceptance_rate=0.9,
        failure_rate=0.002,
        requests_completed=2400,
        serving_engine="vllm",
        engine_version="0.6.3",
        tensor_parallel=4,
        sweep="h100 sweep",
        sweep_result_ids=[5, 6],
    )
    other_model = result(8, "some-1b-model", gpu_count=1)
    contoso = quote(
        1,
        "2.50",
        gpus_per_node=8,
        max_gpus_available=16,
        min_commitment_gpus=4,
        term_months=3,
        capacity_available_from="2027-01-01T00:00:00+00:00",
        capacity_lead_time_days=14,
        entered_by_vendor=True,
        private_endpoint="yes",
        inter_node_bandwidth_gbps=400,
        storage_per_gb_month="0.08",
    )
    fabrikam = quote(
        2,
        "1.60",
        accelerator_slug=A100["slug"],
        accelerator_id=2,
        label="Offer 2 · A100",
        region="us-east",
        quoted_at="2026-10-01T00:00:00+00:00",
        price_far_from_market=True,
        price_check={"message": "The price is 40 % below the market median."},
    )
    bought = quote(
        3,
        None,
        capacity_model="purchase",
        currency="EUR",
        price_per_node="310000",
        power_kw_per_node="10.2",
        support_per_year="12000",
        amortisation_months=48,
    )
    route = {
        "id": 4,
        "label": "Serverless Llama",
        "provider_name": "Provider 4",
        "model_name": "Llama 3.1 70B",
        "model_profile_id": 7,
        "currency": "USD",
        "price_input_per_m_tokens": "0.60",
        "price_output_per_m_tokens": "0.80",
        "price_cached_input_per_m_tokens": "0.15",
        "price_tiers": {},
        "rate_limit_rpm": 600,
        "rate_limit_tpm": 1_000_000,
        "region": "eu-west",
        "processing_regions": ["eu-west", "us-east"],
        "private_endpoint": "no",
        "p95_ttft_ms": 450.0,
        "p99_e2e_ms": 12000.0,
        "is_public_list_price": True,
        "quoted_at": "2026-11-20T00:00:00+00:00",
        "valid_until": None,
    }
    snap = snapshot(
        [contoso, fabrikam, bought],
        [own, other_model],
        [route],
        ttft_p95_ms=2000,
        itl_p95_ms=60,
        e2e_p99_ms=30000,
        serving_engine="vllm",
        serving_engine_version="0.6.3",
        allowed_regions=["eu-west", "us-east"],
    )
    snap["format"] = 2
    snap["accelerators"][A100["slug"]] = A100
    snap["assumptions"]["effective"]["cached_input_fraction"] = 0.3
    snap["calibration"] = {
        "a100-sxm-80gb|profile:7|bf16|realtime_inference": {
            "accelerator": A100["slug"],
            "entries": 12,
            "median_ratio": 0.8,
            "p10_ratio": 0.7,
            "p90_ratio": 0.9,
            "min_ratio": 0.65,
            "max_ratio": 0.95,
            "results": 12,
            "model": "profile:7",
            "precision": "bf16",
            "workload_class": "realtime_inference",
        }
    }
    snap["checklist"] = {
        "1": {
            "required_level": "production",
            "complete": True,
            "completeness_pct": 100,
            "required_count": 4,
            "counted_count": 4,
            "answered_count": 4,
            "evidenced_count": 4,
            "needs_info_count": 0,
            "missing_items": [],
            "awaiting_review": [],
            "red_flags": [],
            "accepted": ["network-boundary"],
        }
    }
    return snap


def batch() -> dict[str, Any]:
    """Batch inference: an API route billed at its batch tier, quotes without evidence."""
    route = {
        **serving()["api_routes"][0],
        "price_tiers": {"batch": {"input_per_m": "0.30", "output_per_m": "0.40"}},
    }
    return snapshot(
        [quote(1, "2.10", max_gpus_available=1)],
        [],
        [route],
        workload_class="batch_inference",
        concurrency=64,
    )


def strict_errors() -> dict[str, Any]:
    """A single-point result over the brief's error rate, without the ITL the brief targets."""
    snap = serving()
    (own, _) = snap["measured"]["results"]
    own.pop("operating_points")
    own.pop("sweep_result_ids")
    snap["measured"]["results"] = [own]
    snap["brief"]["max_error_rate"] = 0.001
    return snap


def media() -> dict[str, Any]:
    """Image generation measured on a render of this offer (and one of another model)."""
    render = {
        "result_id": 31,
        "accelerator": H100["slug"],
        "quote_id": 1,
        "brief_id": None,
        "gpu_count": 1,
        "model_name": "stabilityai/stable-diffusion-xl-base-1.0",
        "model_profile_id": 21,
        "request_throughput_rps": 0.5,
        "requests_completed": 1000,
        "acceptance_rate": 0.85,
        "failure_rate": 0.01,
        "tokens_per_s_per_gpu": 0.0,
    }
    flux = {
        **render,
        "result_id": 32,
        "model_name": "black-forest-labs/FLUX.1-dev",
        "model_profile_id": 22,
    }
    snap = snapshot(
        [quote(1, "2.50"), quote(2, "2.20")],
        [render, flux],
        workload_class="media",
        model_id=None,
        media_kind="image",
        gpu_seconds_per_asset=3.5,
        moderation_cost_per_asset="0.002",
        review_minutes_per_asset=0.1,
        platform_fte=0,
    )
    snap["model"] = {"id": 21, "slug": "sdxl-1-0", "name": "Stable Diffusion XL 1.0"}
    return snap


def training() -> dict[str, Any]:
    """An adapter fine-tune on 8 GPUs, one offer capped below it."""
    return snapshot(
        [quote(1, "2.50"), quote(2, "2.40", max_gpus_available=4)],
        [],
        workload_class="adapter_finetune",
        target_gpus=8,
        lora_rank=32,
        training_tokens_b=2.0,
        sequence_length=4096,
        batch_size=4,
        sharding="zero3",
        expected_mfu=0.38,
        node_failure_rate_per_day=0.01,
        checkpoint_size_gb=900,
        checkpoint_write_s=120,
        monthly_accepted_outputs_low=None,
        monthly_accepted_outputs_likely=None,
        monthly_accepted_outputs_high=None,
    )


def format1() -> dict[str, Any]:
    """The snapshot the last format-1 release stored (test_comparisons_snapshot_upgrade)."""
    loaded: dict[str, Any] = json.loads((FIXTURES / "snapshot_format1.json").read_text())
    return loaded


SCENARIOS = {
    "serving": serving,
    "batch": batch,
    "strict_errors": strict_errors,
    "media": media,
    "training": training,
    "format1": format1,
}


def _plain(value: object) -> object:
    if isinstance(value, Decimal):
        return format(value, "f")
    raise TypeError(f"{type(value).__name__} is not stored")


def frozen_rows(name: str) -> str:
    """The stored rows of one scenario, as JSON text in the rows' own key order."""
    computed = compute(SCENARIOS[name](), seed=7, samples=200, plan_time_limit=5)
    rows = [{k: v for k, v in row.items() if k not in SAMPLED} for row in computed.rows]
    for row in rows:
        row["detail"].pop("cost_band", None)  # widened from the sampled p10 / p90
    return json.dumps(rows, default=_plain, indent=1, ensure_ascii=False)


def main() -> None:
    print(json.dumps({name: json.loads(frozen_rows(name)) for name in SCENARIOS}, indent=1))
