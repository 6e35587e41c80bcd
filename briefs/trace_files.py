"""Request-trace files read into a ``RequestTrace``, streamed (pure: no Django).

Layouts, recognised by their header (docs/briefs.md "Traffic traces" has each column):

- **Azure LLM inference trace** (Azure/AzurePublicDataset, 2023 and 2024):
  ``TIMESTAMP,ContextTokens,GeneratedTokens``; the timestamp has no zone (read as UTC, said so).
- **BurstGPT** (``Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type``):
  seconds from the trace's start; the model names the route (tenant).
- **Generic CSV or JSON Lines**: ``arrival_s`` (seconds from any origin) or ``arrival_time``
  (ISO 8601), ``input_tokens``, ``output_tokens``, optional ``tenant`` or ``route``.

A file is read in blocks (pyarrow's streaming CSV reader; JSON Lines line by line) and refused
as a whole, with the line that holds the fault, when a time goes backwards, a token count is
negative or missing, or it holds more requests than the limit: nothing of it is kept then.
"""

from __future__ import annotations

import io
import json
import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from engine.trace import RequestTrace, TraceError

MAX_REQUESTS = 5_000_000  # a month of a busy service at ~2 requests/s; past it, upload a window
_BLOCK_BYTES = 1 << 20


class TraceFileError(ValueError):
    """A trace file refused, with what is wrong and where."""


@dataclass(frozen=True, slots=True, eq=False)
class TraceFile:
    layout: str  # "azure", "burstgpt", "generic-csv", "generic-jsonl"
    trace: RequestTrace
    started_at: datetime | None  # the first arrival, where the file gives a clock time
    tenants: dict[str, int] = field(default_factory=dict)  # requests per tenant / route
    notes: tuple[str, ...] = ()

    @property
    def layout_words(self) -> str:
        return LAYOUT_WORDS[self.layout]


LAYOUT_WORDS = {
    "azure": "Azure LLM inference trace",
    "burstgpt": "BurstGPT trace",
    "generic-csv": "request trace (CSV)",
    "generic-jsonl": "request trace (JSON Lines)",
}

_GENERIC_TOKENS = ("input_tokens", "output_tokens")


@dataclass
class _Columns:
    """What the blocks add up to, and where the next block's lines start."""

    arrival: list[np.ndarray] = field(default_factory=list)
    inputs: list[np.ndarray] = field(default_factory=list)
    outputs: list[np.ndarray] = field(default_factory=list)
    tenants: Counter[str] = field(default_factory=Counter)
    rows: int = 0
    last_arrival: float = -math.inf
    header_lines: int = 1  # a CSV's header; JSON Lines have none

    def add(self, arrival: np.ndarray, inputs: np.ndarray, outputs: np.ndarray) -> None:
        first_line = self.rows + self.header_lines + 1
        if self.rows + arrival.shape[0] > MAX_REQUESTS:
            raise TraceFileError(
                f"The file holds more than {MAX_REQUESTS:,} requests: upload a window of it "
                "(a peak hour, a day or a week) and say which."
            )
        for name, values in (("input tokens", inputs), ("output tokens", outputs)):
            bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
            if bad.size:
                raise TraceFileError(
                    f"Line {first_line + int(bad[0])}: {name} is missing or negative."
                )
        bad = np.flatnonzero(~np.isfinite(arrival))
        if bad.size:
            raise TraceFileError(f"Line {first_line + int(bad[0])}: the arrival time is missing.")
        previous = np.concatenate(([self.last_arrival], arrival[:-1]))
        back = np.flatnonzero(arrival < previous)
        if back.size:
            raise TraceFileError(
                f"Line {first_line + int(back[0])}: the arrival time goes back before the "
                "line above it; a trace must be in arrival order (sort it by time)."
            )
        self.arrival.append(arrival)
        self.inputs.append(inputs)
        self.outputs.append(outputs)
        self.rows += arrival.shape[0]
        self.last_arrival = float(arrival[-1])

    def trace(self) -> RequestTrace:
        if not self.rows:
            raise TraceFileError("The file holds no request.")
        arrival = np.concatenate(self.arrival)
        try:
            return RequestTrace(
                arrival - arrival[0],
                np.concatenate(self.inputs).astype(np.float64),
                np.concatenate(self.outputs).astype(np.float64),
            )
        except TraceError as exc:
            raise TraceFileError(str(exc)) from exc


def _numbers(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A numeric column as float64, a missing value as NaN (caught with its line)."""
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=np.float64)


@dataclass(frozen=True, slots=True)
class _CsvLayout:
    name: str
    arrival: str
    clock: bool  # a date and time (else seconds from any origin)
    inputs: str
    outputs: str
    tenant: str | None = None


_LAYOUTS = (
    _CsvLayout("azure", "TIMESTAMP", True, "ContextTokens", "GeneratedTokens"),
    _CsvLayout("burstgpt", "Timestamp", False, "Request tokens", "Response tokens", "Model"),
    _CsvLayout("generic-csv", "arrival_s", False, "input_tokens", "output_tokens"),
    _CsvLayout("generic-csv", "arrival_time", True, "input_tokens", "output_tokens"),
)


def _csv_batches(stream: IO[bytes], types: dict[str, pa.DataType]) -> Iterator[pa.RecordBatch]:
    try:
        reader = pacsv.open_csv(
            stream,
            read_options=pacsv.ReadOptions(block_size=_BLOCK_BYTES),
            convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=True),
        )
        yield from reader
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise TraceFileError(f"The file cannot be read as CSV: {exc}") from exc


def _seconds(stamps: np.ndarray) -> np.ndarray:
    """datetime64 times as float seconds since the epoch, a missing one as NaN."""
    seconds = stamps.astype("int64").astype(np.float64) / 1e9
    seconds[np.isnat(stamps)] = np.nan
    return seconds


def _started(first: np.datetime64 | None) -> datetime | None:
    if first is None or np.isnat(first):
        return None
    micros = int(first.astype("datetime64[us]").astype("int64"))
    return datetime.fromtimestamp(micros / 1e6, tz=UTC)


def _header(stream: IO[bytes]) -> list[str]:
    line = stream.readline(64 * 1024).decode("utf-8-sig", errors="replace")
    stream.seek(0)
    return [name.strip() for name in line.strip().split(",")]


class _Progress(io.RawIOBase):
    """The stream, reporting the share of ``total`` bytes read so far to ``report``."""

    def __init__(self, inner: IO[bytes], total: int, report: Callable[[float], None]) -> None:
        self.inner, self.total, self.report = inner, max(1, total), report

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self.inner.seek(offset, whence)

    def tell(self) -> int:
        return self.inner.tell()

    def readinto(self, buffer: Any) -> int:
        data = self.inner.read(len(buffer))
        buffer[: len(data)] = data
        self.report(min(1.0, self.inner.tell() / self.total))
        return len(data)


def read_trace(
    stream: IO[bytes],
    *,
    size: int | None = None,
    progress: Callable[[float], None] | None = None,
) -> TraceFile:
    """Read a trace file in any supported layout; TraceFileError says what is wrong.
    ``progress``: called with the share of the file's ``size`` bytes read, as blocks are."""
    if progress is not None and size:
        stream = io.BufferedReader(_Progress(stream, size, progress), buffer_size=_BLOCK_BYTES)
    start = stream.read(1)
    stream.seek(0)
    if start in (b"{", b"["):
        return _read_jsonl(stream)
    names = _header(stream)
    for layout in _LAYOUTS:
        if all(name in names for name in (layout.arrival, layout.inputs, layout.outputs)):
            tenant = layout.tenant or next((n for n in ("tenant", "route") if n in names), None)
            return _read_csv(stream, layout, tenant if tenant in names else None)
    raise TraceFileError(
        "Unknown trace layout: the header should be the Azure LLM inference trace's "
        "(TIMESTAMP, ContextTokens, GeneratedTokens), BurstGPT's (Timestamp, Request tokens, "
        "Response tokens …) or arrival_s / arrival_time, input_tokens, output_tokens."
    )


def _read_csv(stream: IO[bytes], layout: _CsvLayout, tenant: str | None) -> TraceFile:
    """Times with a zone are read as such; without one (the Azure trace's), as UTC, said so."""
    notes: list[str] = []
    if layout.clock:
        try:
            return _read_csv_as(stream, layout, tenant, pa.timestamp("ns", tz="UTC"), notes)
        except TraceFileError as exc:
            if "zone offset" not in str(exc):
                raise
            stream.seek(0)
            notes.append("The file's times state no time zone: read as UTC.")
            return _read_csv_as(stream, layout, tenant, pa.timestamp("ns"), notes)
    notes.append("Arrival times are seconds from the trace's start (no clock time).")
    return _read_csv_as(stream, layout, tenant, pa.float64(), notes)


def _read_csv_as(
    stream: IO[bytes],
    layout: _CsvLayout,
    tenant: str | None,
    arrival_type: pa.DataType,
    notes: list[str],
) -> TraceFile:
    columns = _Columns()
    types = {layout.arrival: arrival_type} | ({tenant: pa.string()} if tenant else {})
    first: np.datetime64 | None = None
    unanswered = 0
    for batch in _csv_batches(stream, types):
        if layout.clock:
            stamps = batch.column(layout.arrival).to_numpy(zero_copy_only=False)
            stamps = np.asarray(stamps, dtype="datetime64[ns]")
            first = stamps[0] if first is None and stamps.size else first
            seconds = _seconds(stamps)
        else:
            seconds = _numbers(batch.column(layout.arrival))
        outputs = _numbers(batch.column(layout.outputs))
        unanswered += int(np.sum(outputs == 0))
        columns.add(seconds, _numbers(batch.column(layout.inputs)), outputs)
        if tenant:
            columns.tenants.update(str(t) for t in batch.column(tenant).to_pylist() if t)
    if unanswered:
        notes.append(
            f"{unanswered:,} requests generated no token (failed or refused in the original "
            "service): kept as arrivals that read their prompt."
        )
    return TraceFile(
        layout.name, columns.trace(), _started(first), dict(columns.tenants), tuple(notes)
    )


def _iso_to_utc(values: list[Any]) -> np.ndarray:
    """ISO 8601 times with or without a zone, as naive UTC for numpy (no zone: UTC)."""
    out = []
    for value in values:
        try:
            moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError as exc:
            raise TraceFileError(f"{value!r} is not an ISO 8601 date and time.") from exc
        if moment.tzinfo is not None:
            moment = moment.astimezone(UTC).replace(tzinfo=None)
        out.append(moment.isoformat())
    return np.asarray(out, dtype="datetime64[ns]")


def _read_jsonl(stream: IO[bytes]) -> TraceFile:
    columns = _Columns(header_lines=0)
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="strict", newline="")
    arrival: list[Any] = []
    inputs: list[float] = []
    outputs: list[float] = []
    clock: bool | None = None
    first: np.datetime64 | None = None
    line_no = 0

    def flush() -> None:
        nonlocal first
        if not inputs:
            return
        if clock:
            stamps = _iso_to_utc(arrival)
            first = stamps[0] if first is None else first
            seconds = _seconds(stamps)
        else:
            seconds = np.asarray(arrival, dtype=np.float64)
        columns.add(seconds, np.asarray(inputs), np.asarray(outputs))
        arrival.clear()
        inputs.clear()
        outputs.clear()

    try:
        for line_no, raw in enumerate(text, start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise TraceFileError(f"Line {line_no}: not a JSON object ({exc.msg}).") from exc
            if not isinstance(record, dict):
                raise TraceFileError(f"Line {line_no}: not a JSON object.")
            if clock is None:
                clock = "arrival_s" not in record
            key = "arrival_time" if clock else "arrival_s"
            if key not in record or not all(k in record for k in _GENERIC_TOKENS):
                raise TraceFileError(
                    f"Line {line_no}: needs {key}, input_tokens and output_tokens."
                )
            arrival.append(record[key] if clock else _float(record[key], line_no))
            inputs.append(_float(record["input_tokens"], line_no))
            outputs.append(_float(record["output_tokens"], line_no))
            tag = record.get("tenant") or record.get("route")
            if tag:
                columns.tenants[str(tag)] += 1
            if len(inputs) >= 65_536:
                flush()
    except UnicodeDecodeError as exc:
        raise TraceFileError("The file is not UTF-8 text.") from exc
    flush()
    return TraceFile("generic-jsonl", columns.trace(), _started(first), dict(columns.tenants))


def _float(value: Any, line_no: int) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TraceFileError(f"Line {line_no}: {value!r} is not a number.")
    return float(value)
