"""Synthetic but realistic comparison inputs, for benchmarks and load tests.

A real-time chat workload and `n` candidates mixing every capacity model (on-demand, spot,
marketplace, reserved, dedicated cluster, purchase) and model API routes, with ranged
throughput. Deterministic for a given `seed`.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np

from engine.types import (
    ApiPricing,
    CandidateInput,
    ComparisonInput,
    PurchaseSpec,
    Range,
    WorkloadInput,
)

CAPACITY_MODELS = ("on_demand", "spot", "marketplace", "reserved", "dedicated_cluster", "purchase")


def synthetic_workload() -> WorkloadInput:
    return WorkloadInput(
        workload_class="realtime_inference",
        monthly_accepted_outputs=Range(2e6, 3e6, 5e6),
        acceptance_rate=Range(0.85, 0.92, 0.97),
        failure_rate=Range(0.005, 0.01, 0.03),
        utilisation=Range(0.35, 0.55, 0.75),
        peak_to_average=Range(1.5, 2.0, 3.0),
        input_tokens_per_request=1500,
        output_tokens_per_request=300,
        platform_labor_fte=0.5,
        loaded_monthly_cost_per_fte=Decimal(18000),
        storage_gb=500,
        egress_gb_per_month=200,
        observability_per_month=Decimal(300),
    )


def synthetic_candidates(n: int, *, seed: int = 3) -> list[CandidateInput]:
    rng = np.random.default_rng(seed)
    out: list[CandidateInput] = []
    for i in range(n):
        if i % 10 == 9:
            out.append(
                CandidateInput(
                    id=f"api-{i}",
                    label=f"Model API {i}",
                    kind="api",
                    capacity_model="api",
                    api_pricing=ApiPricing(
                        Decimal("0.40") + Decimal(i % 7) / 20, Decimal("1.20"), Decimal("0.10")
                    ),
                )
            )
            continue
        model = CAPACITY_MODELS[i % len(CAPACITY_MODELS)]
        tokens_per_s = float(rng.uniform(600, 6000))
        extra: dict[str, object] = {
            "throughput_per_replica": Range(tokens_per_s * 0.75, tokens_per_s, tokens_per_s * 1.1),
            "gpus_per_replica": int(rng.choice([1, 2, 4, 8])),
            "storage_price_per_gb_month": Decimal("0.08"),
            "egress_price_per_gb": Decimal("0.05"),
            "min_commitment_gpu_hours_per_month": (
                Decimal(730) if model in ("reserved", "dedicated_cluster") else Decimal(0)
            ),
            "term_months": 12 if model in ("reserved", "dedicated_cluster") else 0,
        }
        if model == "purchase":
            extra["purchase"] = PurchaseSpec(
                Decimal(280_000), 36, Decimal("0.12"), gpu_tdp_w=Decimal(700)
            )
        else:
            extra["price_per_gpu_hour"] = Decimal(str(round(float(rng.uniform(0.8, 4.5)), 2)))
        out.append(
            CandidateInput(
                id=f"gpu-{i}",
                label=f"GPU offer {i}",
                kind="gpu",
                capacity_model=model,
                **extra,  # type: ignore[arg-type]
            )
        )
    return out


def synthetic_comparison(n: int, *, seed: int = 3) -> ComparisonInput:
    return ComparisonInput(
        workload=synthetic_workload(), candidates=tuple(synthetic_candidates(n, seed=seed))
    )
