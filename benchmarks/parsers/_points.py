"""Operating points: the load levels of a benchmark, as the engine compares them."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from .types import (
    LATENCY_FIELDS,
    MAX_REQUEST_SAMPLES,
    Metrics,
    OperatingPoint,
    RequestPoint,
    RequestSamples,
    Scalar,
)


def run_label(metrics: Metrics, index: int, extra: Mapping[str, Scalar] | None = None) -> str:
    """How a run of a sweep is named: its concurrency, else its request rate, else its number."""
    if metrics.concurrency is not None:
        return f"concurrency {metrics.concurrency:g}"
    if metrics.request_rate is not None:
        return f"request rate {metrics.request_rate:g}/s"
    rate = (extra or {}).get("request_rate")
    if isinstance(rate, str | float) and str(rate).lower() in {"inf", "infinity"}:
        return "request rate inf (all requests at once)"
    return f"run {index + 1}"


def is_serving(metrics: Metrics) -> bool:
    """Does the run measure a served load (so that it is an operating point)?"""
    return any(
        value is not None
        for value in (
            metrics.request_throughput_rps,
            metrics.output_tokens_per_s,
            metrics.ttft_ms,
            metrics.e2e_ms,
            metrics.tpot_ms,
        )
    )


def input_tokens_per_s(metrics: Metrics) -> float | None:
    """Input tokens/s of one run: stated by the file, else derived from its own figures."""
    if metrics.input_tokens_per_s is not None:
        return metrics.input_tokens_per_s
    if metrics.total_tokens_per_s is not None and metrics.output_tokens_per_s is not None:
        return max(0.0, metrics.total_tokens_per_s - metrics.output_tokens_per_s)
    if metrics.input_tokens_total is not None and metrics.duration_s:
        return metrics.input_tokens_total / metrics.duration_s
    return None


def operating_point(
    metrics: Metrics,
    samples: RequestSamples | None,
    index: int = 0,
    extra: Mapping[str, Scalar] | None = None,
) -> OperatingPoint:
    input_per_s = input_tokens_per_s(metrics)
    error_rate = None
    done, failed = metrics.requests_completed, metrics.requests_failed
    if done is not None and failed is not None and done + failed > 0:
        error_rate = failed / (done + failed)
    return OperatingPoint(
        label=run_label(metrics, index, extra),
        concurrency=metrics.concurrency,
        request_rate_per_s=metrics.request_rate,
        requests_per_s=metrics.request_throughput_rps,
        output_tokens_per_s=metrics.output_tokens_per_s,
        input_tokens_per_s=input_per_s,
        **{family: getattr(metrics, family) for family in LATENCY_FIELDS},
        error_rate=error_rate,
        request_samples=request_samples(samples),
    )


def request_samples(samples: RequestSamples | None) -> tuple[RequestPoint, ...] | None:
    """At most MAX_REQUEST_SAMPLES requests, evenly spaced over the file (the same ones every
    time)."""
    if samples is None or len(samples) == 0:
        return None
    n = len(samples)
    index = np.unique(np.linspace(0, n - 1, min(n, MAX_REQUEST_SAMPLES)).round().astype(np.int64))
    itl = samples.itl_ms
    if samples.tpot_ms is not None and bool(np.isnan(itl[index]).all()):
        itl = samples.tpot_ms  # files without chunk gaps: the decode time per token
    rows = zip(
        samples.ttft_ms[index].tolist(),
        itl[index].tolist(),
        samples.e2e_ms[index].tolist(),
        samples.success[index].tolist(),
        strict=True,
    )
    return tuple((_opt(t), _opt(i), _opt(e), bool(ok)) for t, i, e, ok in rows)


def _opt(value: float) -> float | None:
    return value if math.isfinite(value) else None
