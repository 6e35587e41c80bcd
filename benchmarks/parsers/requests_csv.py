"""Our own per-request CSV format (see README.md, "requests-csv")."""

from __future__ import annotations

import csv
import math
from typing import Final

import numpy as np

from . import _csvread as fc
from ._util import (
    MAX_COUNT,
    MAX_MS,
    Builder,
    ProgressFn,
    percentiles_of,
    percentiles_owned,
    refuse_e2e_before_ttft,
    safe_div,
)
from .errors import ParseError
from .registry import CSV_HEADER, Format
from .types import FloatArray, Metrics, ParsedResult, Percentiles, RequestSamples

FORMAT_ID: Final = "requests-csv"
FORMAT_NAME: Final = "Per-request CSV (workbench template)"

COLUMNS: Final[dict[str, str]] = {
    "start_time": fc.TIME,
    "ttft_ms": fc.FLOAT,
    "itl_ms": fc.FLOAT,
    "itl_ms_list": fc.LIST,
    "e2e_ms": fc.FLOAT,
    "input_tokens": fc.FLOAT,
    "output_tokens": fc.FLOAT,
    "status": fc.FLAG,
    "accepted": fc.FLAG,
}
LATENCY_COLUMNS: Final = ("ttft_ms", "itl_ms", "e2e_ms")
TOKEN_COLUMNS: Final = ("input_tokens", "output_tokens")


def split_header(data: bytes) -> tuple[list[str], int] | None:
    """Header cells (normalised) and the byte offset of the first body line."""
    end = data.find(b"\n")
    line_end = len(data) if end < 0 else end
    raw = data[:line_end]
    if len(raw) > 16384:
        return None
    text = raw.decode("utf-8", "replace").lstrip("\ufeff").rstrip("\r")
    try:
        cells = next(csv.reader([text]), [])
    except csv.Error:
        return None
    names = [c.strip().strip('"').strip().lower() for c in cells]
    return names, (len(data) if end < 0 else end + 1)


def looks_like(header: list[str]) -> bool:
    return any(name in header for name in ("ttft_ms", "e2e_ms", "itl_ms", "itl_ms_list"))


def parse(data: bytes, progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(FORMAT_ID, FORMAT_NAME)
    split = split_header(data)
    if split is None:
        raise b.error(f"{FORMAT_NAME}: no readable header line")
    header, body_start = split
    if not looks_like(header):
        raise b.error(
            f"{FORMAT_NAME}: header needs at least one of ttft_ms, e2e_ms, itl_ms, itl_ms_list "
            f"(found: {', '.join(header[:12]) or 'nothing'})"
        )
    duplicates = sorted({h for h in header if h and header.count(h) > 1 and h in COLUMNS})
    if duplicates:
        raise b.error(f"{FORMAT_NAME}: duplicate column(s) {', '.join(duplicates)}")
    wanted = [
        fc.Column(name, header.index(name), kind)
        for name, kind in COLUMNS.items()
        if name in header
    ]
    if "itl_ms" in header and "itl_ms_list" in header:
        wanted = [c for c in wanted if c.name != "itl_ms"]
        b.note("both itl_ms and itl_ms_list present: itl_ms_list was used")
    unknown = [h for h in header if h and h not in COLUMNS]
    if unknown:
        b.note(f"ignored unknown column(s): {', '.join(unknown[:10])}")
    try:
        cols = fc.read_columns(data, body_start, header, wanted, progress)
    except ParseError as exc:
        raise b.error(f"{FORMAT_NAME}: {exc.message}") from None
    n = cols.rows
    if n == 0:
        raise b.error(f"{FORMAT_NAME}: the file has a header but no data rows")
    values = cols.values

    def column(name: str) -> FloatArray:
        arr = values.get(name)
        return np.full(n, np.nan) if arr is None else arr

    for name in LATENCY_COLUMNS:
        if name in values:
            _check(b, values[name], name, MAX_MS)
    for name in TOKEN_COLUMNS:
        if name in values:
            _check(b, values[name], name, MAX_COUNT)
    if "start_time" in values:
        _check(b, values["start_time"], "start_time", 1e11)

    status = values.get("status")
    success = np.ones(n, dtype=np.bool_) if status is None else status != 0
    accepted_raw = values.get("accepted")
    ttft = column("ttft_ms")
    e2e = column("e2e_ms")
    in_tok = column("input_tokens")
    out_tok = column("output_tokens")
    pooled_itl: FloatArray | None = None
    if "itl_ms_list" in values:
        itl = values["itl_ms_list"]
        rows = cols.list_row["itl_ms_list"]
        pooled = cols.list_values["itl_ms_list"]
        _check(b, pooled, "itl_ms_list", MAX_MS)
        pooled_itl = pooled[success[rows]] if rows.size else pooled
    else:
        itl = column("itl_ms")
        if "itl_ms" in values:
            b.note(
                "ITL percentiles are computed over per-request mean ITL (itl_ms column), "
                "not over pooled chunk gaps"
            )
    try:
        refuse_e2e_before_ttft(e2e[success], ttft[success])
    except ParseError as exc:
        raise b.error(f"{FORMAT_NAME}: {exc.message}") from None
    with np.errstate(invalid="ignore", divide="ignore"):
        tpot = e2e - ttft
        tpot /= out_tok - 1.0
        tpot[~(out_tok > 1)] = np.nan  # also NaN token counts
    accepted = None if accepted_raw is None else accepted_raw == 1

    ok_count = int(success.sum())
    all_ok = ok_count == n
    scratch = np.empty(ok_count)  # one reusable buffer for the percentile selections
    metrics_kw: dict[str, object] = {}
    if ok_count:
        metrics_kw["ttft_ms"] = _pct(ttft, success, all_ok, scratch)
        metrics_kw["e2e_ms"] = _pct(e2e, success, all_ok, scratch)
        metrics_kw["tpot_ms"] = _pct(tpot, success, all_ok, scratch)
        metrics_kw["itl_ms"] = (
            percentiles_of(pooled_itl)
            if pooled_itl is not None
            else _pct(itl, success, all_ok, scratch)
        )
    else:
        b.note("no successful request in the file")
    in_total = _sum(in_tok, None if all_ok else success)
    out_total = _sum(out_tok, None if all_ok else success)
    duration = None
    if "start_time" in values:
        start = values["start_time"]
        first = float(np.fmin.reduce(start))
        if not math.isnan(first):
            finish = np.empty(n)
            with np.errstate(invalid="ignore"):
                np.divide(e2e, 1000.0, out=finish)
                finish += start
            last = float(np.fmax(np.fmax.reduce(finish), np.fmax.reduce(start)))
            del finish
            duration = last - first if last > first else None
        if duration is not None:
            busy = _sum(e2e, None)
            if busy is not None:
                b.extra["mean_in_flight_requests"] = busy / 1000.0 / duration
    accepted_count = None
    rate = None
    if accepted_raw is not None:
        known = success & (accepted_raw >= 0)
        accepted_count = int((accepted_raw[success] == 1).sum())
        known_count = int(known.sum())
        rate = accepted_count / known_count if known_count else None
    tokens_sum = (
        None if in_total is None and out_total is None else (in_total or 0) + (out_total or 0)
    )
    metrics = Metrics(
        requests_completed=ok_count,
        requests_failed=n - ok_count,
        duration_s=duration,
        request_throughput_rps=safe_div(float(ok_count), duration),
        output_tokens_per_s=safe_div(out_total, duration),
        total_tokens_per_s=safe_div(tokens_sum, duration),
        input_tokens_total=None if in_total is None else round(in_total),
        output_tokens_total=None if out_total is None else round(out_total),
        accepted_outputs=accepted_count,
        acceptance_rate=rate,
        **metrics_kw,  # type: ignore[arg-type]
    )
    samples = RequestSamples(
        ttft_ms=ttft,
        e2e_ms=e2e,
        itl_ms=itl,
        input_tokens=in_tok,
        output_tokens=out_tok,
        success=success,
        accepted=accepted,
        tpot_ms=tpot,
        start_s=values.get("start_time"),
    )
    return b.result(metrics, per_request=samples)


def _check(
    b: Builder, arr: FloatArray, name: str, limit: float, allow_negative: bool = False
) -> None:
    """Reject negative/absurd values (NaN marks empty cells; literal NaN is refused earlier)."""
    if arr.size == 0:
        return
    lo = float(np.fmin.reduce(arr))
    hi = float(np.fmax.reduce(arr))
    if (lo < 0 and not allow_negative) or hi > limit or np.isinf(lo) or np.isinf(hi):
        with np.errstate(invalid="ignore"):
            bad = (arr > limit) | np.isinf(arr)
            if not allow_negative:
                bad |= arr < 0
        i = int(np.flatnonzero(bad)[0])
        problem = "negative" if arr[i] < 0 else f"absurdly large (max {limit:g})"
        raise b.error(
            f"{FORMAT_NAME}: data row {i + 1} (line {i + 2}), column '{name}' = {float(arr[i])!r} "
            f"is {problem}"
        )


def _has_nan(values: FloatArray) -> bool:
    """One pass, no temporary: values are bounded, so the sum is NaN only if some value is."""
    return math.isnan(float(np.add.reduce(values)))


def _pct(
    values: FloatArray, mask: np.ndarray, all_selected: bool, scratch: FloatArray
) -> Percentiles | None:
    """Percentiles of the selected, recorded values; ``scratch`` (len = selected) is reused."""
    if _has_nan(values):
        keep = ~np.isnan(values)
        if not all_selected:
            keep &= mask
        return percentiles_owned(values[keep])
    if all_selected:
        np.copyto(scratch, values)
    else:
        np.compress(mask, values, out=scratch)
    return percentiles_owned(scratch)


def _sum(values: FloatArray, mask: np.ndarray | None) -> float | None:
    if values.size and not _has_nan(values):
        return float(values.sum() if mask is None else np.add.reduce(values, where=mask))
    present = ~np.isnan(values)
    if mask is not None:
        present &= mask
    if not present.any():
        return None
    return float(np.add.reduce(values, where=present, initial=0.0))


FORMATS: Final = (
    Format(
        FORMAT_ID,
        FORMAT_NAME,
        "CSV header with ttft_ms / e2e_ms / itl_ms / itl_ms_list",
        parse,
        lambda header: looks_like([h.strip().strip('"').lower() for h in header]),
        CSV_HEADER,
        50,
        raw=True,
    ),
)
