"""Histograms of per-request latencies, computed once at parse time so pages never reparse,
and the requests' sizes (prompt and output tokens) the cheapest plan splits into buckets.

Pure numpy, no Django. Only successful requests with a finite value count. The bins span
[min, p99.5]: the slowest 0.5 % would otherwise squeeze every other bar into one; they are
counted in `overflow` (and still shown by the p99 marker), never silently dropped.

`request_sizes` keeps at most `MAX_SIZE_SAMPLES` successful requests with a prompt length,
evenly spaced over the file (the same ones every time, as the operating points keep their
latency samples): `{"input_tokens": [...], "output_tokens": [...], "requests": n}`, an output
length None where the file does not record it, `requests` how many there were in all.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from benchmarks.parsers.types import RequestSamples

DEFAULT_BINS = 40
MAX_SIZE_SAMPLES = 2000
_TAIL_QUANTILE = 99.5


def _round(values: npt.NDArray[np.float64] | list[float]) -> list[float]:
    return [round(float(v), 3) for v in values]


def histogram(values: npt.ArrayLike, *, bins: int = DEFAULT_BINS) -> dict[str, Any] | None:
    """Histogram of the finite values: edges, counts, count, overflow and p50/p95/p99 (ms)."""
    data = np.asarray(values, dtype=np.float64)
    data = data[np.isfinite(data)]
    if data.size == 0:
        return None
    lo = float(data.min())
    hi = float(np.percentile(data, _TAIL_QUANTILE))
    if hi <= lo:
        hi = lo + max(abs(lo) * 0.01, 1.0)
    counts, edges = np.histogram(data, bins=bins, range=(lo, hi))
    p50, p95, p99 = np.percentile(data, [50.0, 95.0, 99.0])
    return {
        "edges": _round(edges),
        "counts": [int(c) for c in counts],
        "count": int(data.size),
        "overflow": int(np.count_nonzero(data > hi)),
        "p50": round(float(p50), 3),
        "p95": round(float(p95), 3),
        "p99": round(float(p99), 3),
        "max": round(float(data.max()), 3),
        "unit": "ms",
    }


def request_sizes(
    samples: RequestSamples | None, *, limit: int = MAX_SIZE_SAMPLES
) -> dict[str, Any] | None:
    """The successful requests' prompt and output tokens (module docstring); None without any
    request that states its prompt length."""
    if samples is None or len(samples) == 0:
        return None
    prompts = np.asarray(samples.input_tokens, dtype=np.float64)
    outputs = np.asarray(samples.output_tokens, dtype=np.float64)
    keep = np.asarray(samples.success, dtype=bool) & np.isfinite(prompts)
    if outputs.shape != prompts.shape:
        outputs = np.full(prompts.shape, np.nan)
    prompts, outputs = prompts[keep], outputs[keep]
    n = int(prompts.size)
    if n == 0:
        return None
    index = np.unique(np.linspace(0, n - 1, min(n, limit)).round().astype(np.int64))
    return {
        "input_tokens": [round(float(v), 1) for v in prompts[index]],
        "output_tokens": [round(float(v), 1) if np.isfinite(v) else None for v in outputs[index]],
        "requests": n,
    }


def distributions_for(samples: RequestSamples | None) -> dict[str, dict[str, Any]]:
    """`{"ttft_ms": histogram, "e2e_ms": histogram, "request_sizes": request_sizes}` for the
    successful requests (each left out when there is nothing to put in it)."""
    if samples is None or len(samples) == 0:
        return {}
    ok = np.asarray(samples.success, dtype=bool)
    out: dict[str, dict[str, Any]] = {}
    for name, values in (("ttft_ms", samples.ttft_ms), ("e2e_ms", samples.e2e_ms)):
        hist = histogram(np.asarray(values, dtype=np.float64)[ok])
        if hist is not None:
            out[name] = hist
    sizes = request_sizes(samples)
    if sizes is not None:
        out["request_sizes"] = sizes
    return out
