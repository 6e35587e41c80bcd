"""vLLM offline benchmarks: latency (``benchmark_latency.py``) and throughput results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._util import (
    Builder,
    ProgressFn,
    compare_percentiles,
    float_array,
    maybe_percentiles,
    percentiles_of,
    scalars,
)
from .registry import JSON_OBJECT, Format
from .types import Metrics, ParsedResult

LATENCY_ID: Final = "vllm-latency"
LATENCY_NAME: Final = "vLLM latency benchmark (JSON)"
THROUGHPUT_ID: Final = "vllm-throughput"
THROUGHPUT_NAME: Final = "vLLM throughput benchmark (JSON)"


# ----------------------------------------------------------------------------- latency / throughput


def parse_latency(obj: Mapping[str, Any], progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(LATENCY_ID, LATENCY_NAME)
    lat = obj.get("latencies")
    arr = b.wrap(lambda: float_array(lat, b.where("latencies"), "s", scale=1000.0))
    pcts = obj.get("percentiles")
    if not isinstance(pcts, dict):
        raise b.error(f"{LATENCY_NAME}: field 'percentiles' must be an object")
    file_p = maybe_percentiles(
        _ms(b, pcts.get("50"), "percentiles.50"),
        _ms(b, pcts.get("95"), "percentiles.95"),
        _ms(b, pcts.get("99"), "percentiles.99"),
        _ms(b, obj.get("avg_latency"), "avg_latency"),
    )
    rec = percentiles_of(arr) if arr.size else None
    compare_percentiles(b.discrepancies, "e2e_ms", file_p, rec)
    b.note(
        "vLLM latency benchmark: each latency is one whole batch (batch size, input and output "
        "lengths are not in the file), not a per-request latency"
    )
    if rec is not None:
        b.note(f"percentiles recomputed from {arr.size} iteration latencies")
    std = b.num(obj, "std_latency", "s")
    if std is not None:
        b.extra["std_latency_ms"] = std * 1000.0
    for key, value in pcts.items():
        number = _ms(b, value, f"percentiles.{key}")
        if number is not None:
            b.extra[f"percentile_{key}_ms"] = number
    b.extra["iterations"] = int(arr.size)
    metrics = Metrics(e2e_ms=rec if rec is not None else file_p)
    return b.result(metrics)


def _ms(b: Builder, value: object, label: str) -> float | None:
    seconds = b.value(value, label, "s")
    return None if seconds is None else seconds * 1000.0


def parse_throughput(obj: Mapping[str, Any], progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(THROUGHPUT_ID, THROUGHPUT_NAME)
    elapsed = b.num(obj, "elapsed_time", "s")
    total_tokens = b.int_(obj, "total_num_tokens")
    b.note(
        "offline throughput run: tokens_per_second includes prompt tokens (not comparable with "
        "serving output_throughput); for hf/mii backends token counts are expected, not measured"
    )
    if total_tokens is not None:
        b.extra["total_num_tokens"] = total_tokens
    b.extra.update(scalars(obj))
    metrics = Metrics(
        requests_completed=b.int_(obj, "num_requests"),
        duration_s=elapsed,
        request_throughput_rps=b.num(obj, "requests_per_second", "rate"),
        total_tokens_per_s=b.num(obj, "tokens_per_second", "rate"),
    )
    return b.result(metrics)


def is_latency(obj: object) -> bool:
    return isinstance(obj, dict) and {"avg_latency", "latencies", "percentiles"} <= obj.keys()


def is_throughput(obj: object) -> bool:
    return (
        isinstance(obj, dict)
        and {"elapsed_time", "requests_per_second", "tokens_per_second"} <= obj.keys()
    )


FORMATS: Final = (
    Format(
        LATENCY_ID,
        LATENCY_NAME,
        "avg_latency + latencies + percentiles",
        parse_latency,
        is_latency,
        JSON_OBJECT,
        70,
    ),
    Format(
        THROUGHPUT_ID,
        THROUGHPUT_NAME,
        "elapsed_time + requests_per_second + tokens_per_second",
        parse_throughput,
        is_throughput,
        JSON_OBJECT,
        80,
    ),
)
