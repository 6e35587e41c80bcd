"""Shared helpers: value coercion/validation, percentiles, discrepancies."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, TypeVar

import numpy as np

from ._combine import combine_runs as combine_runs
from ._percentiles import percentiles_in_place
from ._points import is_serving, operating_point
from .errors import ParseError
from .registry import ProgressFn as ProgressFn
from .types import (
    Discrepancy,
    FloatArray,
    Metrics,
    ParsedResult,
    Percentiles,
    RequestSamples,
    Scalar,
)

T = TypeVar("T")

#: Relative difference above which a file summary value is reported as a Discrepancy.
DISCREPANCY_THRESHOLD: Final = 0.01

#: Upper bounds per value kind ("absurd" values are rejected).
MAX_MS: Final = 1e9  # ~11.6 days
MAX_S: Final = MAX_MS / 1000.0
MAX_COUNT: Final = 1e15
MAX_RATE: Final = 1e12
PERCENTILE_QS: Final = (50.0, 95.0, 99.0)

# kind -> (minimum, maximum); every kind requires a finite value
_BOUNDS: Final[dict[str, tuple[float, float]]] = {
    "ms": (0.0, MAX_MS),
    "s": (0.0, MAX_S),
    "ns": (0.0, MAX_MS * 1e6),
    "count": (0.0, MAX_COUNT),
    "rate": (0.0, MAX_RATE),
    "ratio": (0.0, 1.0),
    "percent": (0.0, 100.0),
    "epoch": (0.0, 1e13),
    "any": (-1e300, 1e300),
}

_UNIT_TO_MS: Final[dict[str, float]] = {
    "ms": 1.0,
    "msec": 1.0,
    "milliseconds": 1.0,
    "s": 1000.0,
    "sec": 1000.0,
    "secs": 1000.0,
    "seconds": 1000.0,
    "us": 1e-3,
    "µs": 1e-3,
    "usec": 1e-3,
    "microseconds": 1e-3,
    "ns": 1e-6,
    "nsec": 1e-6,
    "nanoseconds": 1e-6,
}


def unit_to_ms(unit: object) -> float | None:
    """Factor converting a time unit string to milliseconds (None if not a time unit)."""
    if not isinstance(unit, str):
        return None
    return _UNIT_TO_MS.get(unit.strip().lower())


def check_number(value: float, where: str, kind: str) -> float:
    """Validate an already-numeric value against the bounds of ``kind``."""
    lo, hi = _BOUNDS[kind]
    if math.isnan(value) or math.isinf(value):
        raise ParseError(f"{where} is {value!r} (NaN/Infinity is not a valid {kind} value)")
    if value < lo:
        raise ParseError(f"{where} is {value!r}: negative values are not allowed")
    if value > hi:
        raise ParseError(f"{where} is {value!r}: absurdly large for a {kind} value (max {hi:g})")
    return value


def to_number(value: object, where: str, kind: str, *, thousands: bool = False) -> float | None:
    """Coerce a JSON/CSV value to float and validate it; None/"" -> None."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ParseError(f"{where} is a boolean ({value!r}), expected a number")
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:
            raise ParseError(f"{where} is an absurdly large integer") from None
    elif isinstance(value, str):
        text = value.strip()
        if text == "" or text.upper() in {"N/A", "NA", "NONE", "NULL", "[N/A]"}:
            return None
        if thousands:
            text = text.replace(",", "")
        try:
            number = float(text)
        except ValueError:
            hint = " (spreadsheet formula?)" if text[:1] in "=+-@" and len(text) > 1 else ""
            raise ParseError(f"{where} is {_short(value)!r}, expected a number{hint}") from None
    else:
        raise ParseError(f"{where} has type {type(value).__name__}, expected a number")
    return check_number(number, where, kind)


def to_int(value: object, where: str, kind: str = "count") -> int | None:
    number = to_number(value, where, kind)
    return None if number is None else round(number)


def to_str(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def _short(value: object, limit: int = 60) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def get_path(obj: object, *path: str) -> object:
    """obj[path[0]][path[1]]... or None when any step is missing / not a dict."""
    cur = obj
    for key in path:
        if not isinstance(cur, dict):
            return None
        cur = cur.get(key)
    return cur


def scalar(value: object) -> Scalar:
    """JSON-safe scalar for ParsedResult.extra (containers become None)."""
    if value is None or isinstance(value, bool | str | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return None


def scalars(mapping: Mapping[str, object], skip: Iterable[str] = ()) -> dict[str, Scalar]:
    skipped = set(skip)
    out: dict[str, Scalar] = {}
    for key, value in mapping.items():
        if key in skipped or isinstance(value, dict | list):
            continue
        out[str(key)] = scalar(value)
    return out


# ----------------------------------------------------------------------------- percentiles


def percentiles_of(values: FloatArray) -> Percentiles | None:
    """p50/p95/p99/mean of the finite values, numpy linear interpolation (type 7)."""
    finite = values[np.isfinite(values)]  # always a private copy
    return percentiles_owned(finite)


def percentiles_owned(finite: FloatArray) -> Percentiles | None:
    """Like :func:`percentiles_of` for a private array of finite values (it gets reordered)."""
    if finite.size == 0:
        return None
    mean = float(finite.mean())
    p50, p95, p99 = percentiles_in_place(finite, PERCENTILE_QS)
    return Percentiles(p50, p95, p99, mean)


def percentiles_where(values: FloatArray, mask: np.ndarray) -> Percentiles | None:
    """Percentiles of the selected values that were recorded (not NaN)."""
    return percentiles_owned(values[mask & ~np.isnan(values)])


def maybe_percentiles(
    p50: float | None, p95: float | None, p99: float | None, mean: float | None
) -> Percentiles | None:
    p = Percentiles(p50, p95, p99, mean)
    return None if p.is_empty() else p


def rel_diff(file_value: float, recomputed: float) -> float:
    """Symmetric relative difference |a-b| / max(|a|, |b|) (0 when both are 0)."""
    denom = max(abs(file_value), abs(recomputed))
    if denom == 0.0:
        return 0.0
    return abs(file_value - recomputed) / denom


def compare(
    out: list[Discrepancy], metric: str, file_value: float | None, recomputed: float | None
) -> None:
    if file_value is None or recomputed is None:
        return
    if not (math.isfinite(file_value) and math.isfinite(recomputed)):
        return
    diff = rel_diff(file_value, recomputed)
    if diff > DISCREPANCY_THRESHOLD and abs(file_value - recomputed) > 1e-9:
        out.append(Discrepancy(metric, float(file_value), float(recomputed), diff))


def compare_percentiles(
    out: list[Discrepancy], name: str, file_p: Percentiles | None, rec_p: Percentiles | None
) -> None:
    if file_p is None or rec_p is None:
        return
    for attr in ("p50", "p95", "p99", "mean"):
        compare(out, f"{name}.{attr}", getattr(file_p, attr), getattr(rec_p, attr))


# ----------------------------------------------------------------------------- arrays


def float_array(values: object, where: str, kind: str, *, scale: float = 1.0) -> FloatArray:
    """List of numbers to a validated float64 array (None -> NaN = missing), optionally scaled.

    Numeric strings are accepted; booleans, containers and non-numeric strings raise ParseError.
    """
    if not isinstance(values, list):
        raise ParseError(f"{where} is {type(values).__name__}, expected a list of numbers")
    types = set(map(type, values))
    if types <= {int, float}:
        try:
            arr = np.asarray(values, dtype=np.float64)
        except OverflowError:
            raise ParseError(f"{where} holds a number too large for float64") from None
    else:
        arr = np.array(
            [_elem(v, f"{where}[{i}]", kind) for i, v in enumerate(values)], dtype=np.float64
        ).reshape(-1)
    check_array(arr, where, kind, allow_nan=NoneType in types)
    return arr * scale if scale != 1.0 else arr


NoneType = type(None)


def _elem(value: object, where: str, kind: str) -> float:
    number = to_number(value, where, kind)
    return math.nan if number is None else number


def check_array(
    arr: FloatArray,
    where: str,
    kind: str,
    *,
    allow_nan: bool = True,
) -> None:
    """Reject NaN (unless allowed), Infinity, negatives and absurd values in an array."""
    if arr.size == 0:
        return
    lo, hi = _BOUNDS[kind]
    finite = np.isfinite(arr)
    if not finite.all():
        bad = ~finite
        if allow_nan:
            bad &= ~np.isnan(arr)
        if bad.any():
            idx = int(np.flatnonzero(bad)[0])
            raise ParseError(f"{where}[{idx}] is {float(arr[idx])!r} (NaN/Infinity is not allowed)")
    with np.errstate(invalid="ignore"):
        low = arr < lo
        high = arr > hi
    if low.any():
        idx = int(np.flatnonzero(low)[0])
        raise ParseError(f"{where}[{idx}] is {float(arr[idx])!r}: negative values are not allowed")
    if high.any():
        idx = int(np.flatnonzero(high)[0])
        raise ParseError(f"{where}[{idx}] is {float(arr[idx])!r}: absurdly large (max {hi:g})")


def nan_array(n: int) -> FloatArray:
    return np.full(n, np.nan, dtype=np.float64)


def tpot_from(e2e_ms: FloatArray, ttft_ms: FloatArray, output_tokens: FloatArray) -> FloatArray:
    """(e2e - ttft) / (output_tokens - 1) for requests with more than one output token."""
    out = nan_array(e2e_ms.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = (output_tokens > 1) & np.isfinite(e2e_ms) & np.isfinite(ttft_ms)
        out[ok] = (e2e_ms[ok] - ttft_ms[ok]) / (output_tokens[ok] - 1.0)
    return out


def refuse_e2e_before_ttft(e2e_ms: FloatArray, ttft_ms: FloatArray) -> None:
    """A request cannot end before its first token: such a file would give a negative
    time per output token and an absurd throughput, so it is refused, naming the request."""
    with np.errstate(invalid="ignore"):
        # Half a millisecond of slack: tools round the two figures separately.
        impossible = np.isfinite(e2e_ms) & np.isfinite(ttft_ms) & (e2e_ms < ttft_ms - 0.5)
    if impossible.any():
        idx = int(np.flatnonzero(impossible)[0])
        raise ParseError(
            f"successful request {idx + 1} ends {float(e2e_ms[idx]):g} ms after it started but "
            f"its first token came at {float(ttft_ms[idx]):g} ms: the end-to-end latency cannot "
            "be shorter than the time to first token; check the file's columns or units"
        )


def finite_sum(values: FloatArray, mask: np.ndarray | None = None) -> float | None:
    sel = values if mask is None else values[mask]
    sel = sel[np.isfinite(sel)]
    return float(sel.sum()) if sel.size else None


def summarize_samples(samples: RequestSamples, pooled_itl_ms: FloatArray | None) -> dict[str, Any]:
    """Percentiles and totals recomputed from per-request data (successful requests only)."""
    ok = samples.success
    refuse_e2e_before_ttft(samples.e2e_ms[ok], samples.ttft_ms[ok])
    tpot = samples.tpot_ms
    if tpot is None:
        tpot = tpot_from(samples.e2e_ms, samples.ttft_ms, samples.output_tokens)
    itl = pooled_itl_ms if pooled_itl_ms is not None else samples.itl_ms[ok]
    completed = int(ok.sum())
    in_total = finite_sum(samples.input_tokens, ok)
    out_total = finite_sum(samples.output_tokens, ok)
    return {
        "ttft_ms": percentiles_of(samples.ttft_ms[ok]),
        "e2e_ms": percentiles_of(samples.e2e_ms[ok]),
        "tpot_ms": percentiles_of(tpot[ok]),
        "itl_ms": percentiles_of(itl),
        "requests_completed": completed,
        "requests_failed": int(ok.shape[0] - completed),
        "input_tokens_total": None if in_total is None else round(in_total),
        "output_tokens_total": None if out_total is None else round(out_total),
    }


class Builder:
    """Collects notes / discrepancies / extras while a parser works."""

    def __init__(self, format_id: str, format_name: str) -> None:
        self.format_id = format_id
        self.format_name = format_name
        self.notes: list[str] = []
        self.discrepancies: list[Discrepancy] = []
        self.extra: dict[str, Scalar] = {}

    def where(self, field: str) -> str:
        return f"{self.format_name}: field '{field}'"

    def num(self, obj: Mapping[str, Any], key: str, kind: str) -> float | None:
        return self.wrap(lambda: to_number(obj.get(key), self.where(key), kind))

    def int_(self, obj: Mapping[str, Any], key: str, label: str | None = None) -> int | None:
        return self.wrap(lambda: to_int(obj.get(key), self.where(label or key)))

    def value(self, value: object, label: str, kind: str) -> float | None:
        return self.wrap(lambda: to_number(value, self.where(label), kind))

    def wrap(self, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except ParseError as exc:
            raise self.error(exc.message) from None

    def error(self, message: str) -> ParseError:
        return ParseError(message, format_id=self.format_id)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def result(
        self,
        metrics: Metrics,
        *,
        tool_version: str | None = None,
        model: str | None = None,
        per_request: RequestSamples | None = None,
        runs: Sequence[ParsedResult] = (),
    ) -> ParsedResult:
        points = (
            (operating_point(metrics, per_request, 0, self.extra),) if is_serving(metrics) else ()
        )
        return ParsedResult(
            format_id=self.format_id,
            format_name=self.format_name,
            tool_version=tool_version,
            model=model,
            metrics=metrics,
            per_request=per_request,
            discrepancies=tuple(self.discrepancies),
            notes=tuple(self.notes),
            runs=tuple(runs),
            extra=dict(self.extra),
            operating_points=points,
        )


def parse_each(
    items: Sequence[T], parse_one: Callable[[int, T], ParsedResult], progress: ProgressFn | None
) -> list[ParsedResult]:
    """Every item of a file holding several runs parsed as one run, progress after each."""
    runs = []
    for i, item in enumerate(items):
        runs.append(parse_one(i, item))
        if progress is not None:
            progress((i + 1) / len(items))
    return runs


def safe_div(num: float | None, den: float | None) -> float | None:
    if num is None or den is None or den <= 0:
        return None
    return num / den
