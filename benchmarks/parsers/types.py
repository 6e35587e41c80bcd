"""Normalised result types shared by every benchmark-file parser.

Pure data: no Django, no I/O. Units are part of the field names (``_ms``, ``_s``, ``_per_s``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: the latency families of Metrics and OperatingPoint (Percentiles in ms)
LATENCY_FIELDS = ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms")
#: JSON-safe scalar stored in :attr:`ParsedResult.extra`.
Scalar = str | int | float | bool | None


def _clean(value: Any) -> Any:
    """Turn a value into something ``json.dumps`` accepts without NaN/Infinity."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, np.generic):
        return _clean(value.item())
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return str(value)


def _as_dict(obj: Any) -> dict[str, Any]:
    """Every field of a dataclass, JSON-clean (a Percentiles field as its own dict)."""
    return {
        f.name: v.to_dict() if isinstance(v := getattr(obj, f.name), Percentiles) else _clean(v)
        for f in fields(obj)
    }


@dataclass(frozen=True, slots=True)
class Percentiles:
    """Latency distribution summary in milliseconds (None when not available)."""

    p50: float | None
    p95: float | None
    p99: float | None
    mean: float | None = None

    def to_dict(self) -> dict[str, float | None]:
        return _as_dict(self)

    def is_empty(self) -> bool:
        return self.p50 is None and self.p95 is None and self.p99 is None and self.mean is None


#: per-request (ttft_ms, itl_ms, e2e_ms, ok); None where the file does not carry the value
RequestPoint = tuple[float | None, float | None, float | None, bool]

#: at most this many per-request samples are kept on an operating point
MAX_REQUEST_SAMPLES = 2000


@dataclass(frozen=True, slots=True)
class OperatingPoint:
    """One load level of a benchmark: a run of a sweep, or the only run of a file.

    ``request_samples`` is an evenly spaced, deterministic subsample (at most
    :data:`MAX_REQUEST_SAMPLES`) of the per-request data, so that goodput against any latency
    objectives can be computed later; None when the file has no per-request data.
    ``error_rate`` is failed / (completed + failed).
    """

    label: str
    concurrency: float | None = None
    request_rate_per_s: float | None = None
    requests_per_s: float | None = None
    output_tokens_per_s: float | None = None
    input_tokens_per_s: float | None = None
    ttft_ms: Percentiles | None = None
    itl_ms: Percentiles | None = None
    tpot_ms: Percentiles | None = None
    e2e_ms: Percentiles | None = None
    error_rate: float | None = None
    request_samples: tuple[RequestPoint, ...] | None = None
    #: runs at this same load level averaged into this point (None: one run)
    repetitions: int | None = None
    output_tokens_per_s_min: float | None = None
    output_tokens_per_s_max: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out = _as_dict(self)
        if (samples := self.request_samples) is not None:
            out["request_samples"] = [
                [_clean(t), _clean(i), _clean(e), bool(ok)] for t, i, e, ok in samples
            ]
        return out


@dataclass(frozen=True, slots=True)
class Metrics:
    """Normalised metrics. Every field is optional: None means "the file does not carry it".

    Latency families (all in ms):
      * ``ttft_ms`` time to first token,
      * ``itl_ms`` gap between streamed chunks pooled over all chunks (vLLM/SGLang ITL,
        AIPerf ``inter_chunk_latency``),
      * ``tpot_ms`` decode time per output token excluding the first token
        (vLLM TPOT == GenAI-Perf/AIPerf ``inter_token_latency`` == GuideLLM
        ``inter_token_latency_ms``),
      * ``e2e_ms`` request latency.
    """

    requests_completed: int | None = None
    requests_failed: int | None = None
    duration_s: float | None = None
    request_throughput_rps: float | None = None
    output_tokens_per_s: float | None = None
    total_tokens_per_s: float | None = None
    input_tokens_per_s: float | None = None  # as the file states it (SGLang input_throughput)
    input_tokens_total: int | None = None
    output_tokens_total: int | None = None
    concurrency: float | None = None
    request_rate: float | None = None
    ttft_ms: Percentiles | None = None
    itl_ms: Percentiles | None = None
    tpot_ms: Percentiles | None = None
    e2e_ms: Percentiles | None = None
    accepted_outputs: int | None = None
    acceptance_rate: float | None = None
    gpus: int | None = None
    # training runs
    step_time_s: float | None = None
    tokens_per_s: float | None = None
    mfu: float | None = None
    time_to_target_s: float | None = None
    checkpoint_write_s: float | None = None
    checkpoint_restore_s: float | None = None
    restart_time_s: float | None = None
    # media-generation runs
    assets_per_hour: float | None = None
    assets_generated: int | None = None
    assets_accepted: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True, slots=True, eq=False)
class RequestSamples:
    """Per-request data as aligned numpy arrays (one element per request).

    Float arrays use NaN for "not recorded". Latencies are in ms, token counts are floats
    (so that NaN can mark a missing count). ``success`` is False for failed/cancelled
    requests; ``accepted`` is None when the file has no acceptance information.
    ``itl_ms`` is the per-request mean gap between chunks/tokens; ``tpot_ms`` is
    ``(e2e - ttft) / (output_tokens - 1)`` where computable; ``start_s`` is the request start
    on the file's clock (epoch seconds or a monotonic clock), NaN when unknown.
    """

    ttft_ms: FloatArray
    e2e_ms: FloatArray
    itl_ms: FloatArray
    input_tokens: FloatArray
    output_tokens: FloatArray
    success: BoolArray
    accepted: BoolArray | None = None
    tpot_ms: FloatArray | None = None
    start_s: FloatArray | None = None

    def __len__(self) -> int:
        return int(self.success.shape[0])


@dataclass(frozen=True, slots=True)
class Discrepancy:
    """The file's own summary value disagrees with the value recomputed from per-request data."""

    metric: str
    file_value: float
    recomputed_value: float
    rel_diff: float

    def to_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True, slots=True, eq=False)
class ParsedResult:
    """One normalised benchmark run.

    Files that hold several runs (GuideLLM sweeps, SGLang/vLLM JSON Lines, ``vllm bench
    sweep`` summaries, MLPerf summary CSVs with many rows, Perf Analyzer exports with several
    experiments, LLMPerf summaries by concurrency) return the saturation run (highest
    throughput; ``extra["headline_run"]`` says which) at the top level and every run, in file
    order, in :attr:`runs` (empty for single-run files). Runs at one load level are
    repetitions: the headline and their operating point are their mean, never the best.
    :attr:`extra` keeps format-specific scalars (configuration, units, hardware strings) that
    have no normalised field.
    """

    format_id: str
    format_name: str
    tool_version: str | None
    model: str | None
    metrics: Metrics
    per_request: RequestSamples | None = None
    discrepancies: tuple[Discrepancy, ...] = ()
    notes: tuple[str, ...] = ()
    runs: tuple[ParsedResult, ...] = ()
    extra: Mapping[str, Scalar] = field(default_factory=dict)
    #: one per run of a sweep (one for a single-point serving file, none for other kinds)
    operating_points: tuple[OperatingPoint, ...] = ()

    @property
    def request_count(self) -> int | None:
        """Number of per-request records carried by the file (None without per-request data)."""
        return None if self.per_request is None else len(self.per_request)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable view (no numpy, NaN/Infinity become None, no per-request arrays)."""
        return {
            "format_id": self.format_id,
            "format_name": self.format_name,
            "tool_version": self.tool_version,
            "model": self.model,
            "metrics": self.metrics.to_dict(),
            "has_per_request": self.per_request is not None,
            "request_count": self.request_count,
            "discrepancies": [d.to_dict() for d in self.discrepancies],
            "notes": list(self.notes),
            "extra": {str(k): _clean(v) for k, v in self.extra.items()},
            "runs": [r.to_dict() for r in self.runs],
            "operating_points": [p.to_dict() for p in self.operating_points],
        }
