"""Sizing from a request trace: a one-hour trace of ~20,000 requests replayed on 50 deployments
at the operating curve's centre, p10 and p90 in under 5 s of one core (ADR 0021).

The trace is the shipped Azure LLM inference trace (conversation service, 58 minutes, 19,366
requests) read by the product's own reader; the 50 deployments are seeded curves of one to
eight GPUs a replica whose speed spans the catalog's.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from bench.common import at_most, best_of, emit  # noqa: E402
from briefs.trace_files import read_trace  # noqa: E402
from engine.trace import (  # noqa: E402
    CurvePoint,
    OperatingCurve,
    RequestTrace,
    TraceSizing,
    size_trace,
    sustainable_point,
)

TRACE = Path(__file__).resolve().parents[1] / "briefs" / "data" / "azure-llm-conversation-2023.csv"
DEPLOYMENTS = 50
PROFILES = (0.7, 1.0, 1.3)  # p10, centre, p90 of the curve's throughput
LIMIT_S = 5.0


def deployments(seed: int = 42) -> list[OperatingCurve]:
    rng = np.random.default_rng(seed)
    curves = []
    for _ in range(DEPLOYMENTS):
        speed = float(rng.uniform(0.5, 4.0))
        points = [
            CurvePoint(c, speed * 60 * c**0.7, 150 + 12 * c, 15 + 0.4 * c)
            for c in (1, 4, 16, 32, 64, 128)
        ]
        curves.append(
            OperatingCurve.of(points, input_tokens=1000, output_tokens=250, prefill_weight=0.05)
        )
    return curves


def size_all(trace: RequestTrace, curves: list[OperatingCurve]) -> list[TraceSizing]:
    input_p95, _ = trace.size_percentile(95)
    out = []
    for curve in curves:
        for factor in PROFILES:
            profile = curve.scaled(factor)
            point = sustainable_point(
                profile, ttft_p95_ms=2000, itl_p95_ms=50, input_tokens_p95=input_p95
            )
            if point is not None:
                out.append(size_trace(trace, profile, point, volume_scale=3.0))
    return out


def main() -> None:
    with TRACE.open("rb") as handle:
        trace = read_trace(handle).trace
    curves = deployments()
    sized: list[list[TraceSizing]] = []
    cpu, _ = best_of(lambda: sized.append(size_all(trace, curves)), repeat=3, cpu=True)
    emit(
        {
            "trace_sizing_20k_requests_50_deployments_cpu_s": at_most(
                cpu,
                LIMIT_S,
                "s",
                "< 5 s CPU, one core (centre, p10 and p90)",
                requests=trace.requests,
                replays=len(sized[-1]),
            )
        }
    )


if __name__ == "__main__":
    main()
