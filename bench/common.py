"""Shared helpers: timing, peak memory, and the result record every benchmark returns."""

from __future__ import annotations

import json
import resource
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def record(value: float, unit: str, target: str, ok: bool, **extra: Any) -> dict[str, Any]:
    return {"value": round(value, 4), "unit": unit, "target": target, "ok": bool(ok), **extra}


def at_least(value: float, limit: float, unit: str, target: str, **extra: Any) -> dict[str, Any]:
    """A figure whose target is a floor; `ratio` = value / limit (>= 1 is met)."""
    ratio = value / limit if limit else float("inf")
    return record(value, unit, target, value >= limit, ratio=round(ratio, 3), **extra)


def at_most(value: float, limit: float, unit: str, target: str, **extra: Any) -> dict[str, Any]:
    """A figure whose target is a ceiling; `ratio` = limit / value (>= 1 is met)."""
    ratio = limit / value if value else float("inf")
    return record(value, unit, target, value <= limit, ratio=round(ratio, 3), **extra)


def best_of(
    fn: Callable[[], Any], repeat: int = 5, warmup: int = 1, *, cpu: bool = False
) -> tuple[float, list[float]]:
    """Min time of `repeat` runs after `warmup` discarded runs (CPU-bound kernels).

    `cpu=True` measures this process's CPU time, so other jobs on a shared 2-core box do not
    count against a one-core claim (single-threaded BLAS is forced by the caller).
    """
    clock = time.process_time if cpu else time.perf_counter
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = clock()
        fn()
        samples.append(clock() - start)
    return min(samples), samples


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) with numpy's linear interpolation (NaN for no values)."""
    if not values:
        return float("nan")
    return float(np.percentile(values, q * 100.0, method="linear"))


def median(values: list[float]) -> float:
    return statistics.median(values)


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def emit(results: dict[str, Any]) -> None:
    """Benchmarks run as subprocesses and print one JSON line as their last line."""
    sys.stdout.write("\n" + json.dumps(results) + "\n")
