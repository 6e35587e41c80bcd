"""Column extraction from large CSV files, on pyarrow's streaming CSV reader.

Two readers give identical values:

* the columnar reader (``pyarrow.csv.open_csv``) streams the body in blocks of
  :data:`BLOCK_BYTES` and copies each block's decoded columns into preallocated numpy arrays,
  so the memory held is the output arrays plus one block, never a table of the whole file;
* the exact reader (the ``csv`` module and one Python call per cell) is used when the
  columnar reader refuses the file or cannot be trusted with it: a bad cell, a ragged row,
  blank padding around a value, a literal ``nan``/``inf``, timestamps in mixed notations,
  list-valued columns. Its per-cell parsers produce the messages that name the row (the
  file's line number) and the column. pyarrow's own conversion errors name neither, so a
  refused file is read again by the exact reader to say where it goes wrong.

Both readers parse decimals to the nearest double (pyarrow uses fast_float, the exact reader
``float()``), so a file gives the same arrays whichever reader read it.
"""

from __future__ import annotations

import codecs
import csv
import io
import math
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .errors import ParseError

FloatArray = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

#: bytes of CSV text decoded per streamed block
BLOCK_BYTES: Final = 1 << 22


def use_threads() -> bool:
    """Decode blocks on pyarrow's thread pool only when a CPU is idle.

    On a busy 2-core machine the hand-offs cost more wall-clock time than the parallelism
    saves (measured: 0.22 s serial vs 0.35 s threaded for 54 MB at load 4).
    """
    try:
        load = os.getloadavg()[0]
    except OSError:  # pragma: no cover - platforms without a load average
        return False
    return (os.cpu_count() or 1) - load >= 1.0


# column kinds
FLOAT: Final = "float"
FLAG: Final = "flag"
TIME: Final = "time"
LIST: Final = "list"

TRUE_WORDS: Final = frozenset(
    {"ok", "success", "succeeded", "successful", "true", "yes", "y", "1", "pass", "passed"}
    | {"done", "completed", "complete", "accepted"}
)
FALSE_WORDS: Final = frozenset(
    {"error", "err", "fail", "failed", "failure", "false", "no", "n", "0", "timeout"}
    | {"cancelled", "canceled", "aborted", "rejected"}
)


def _spellings(words: frozenset[str]) -> list[str]:
    return sorted({v for w in words for v in (w, w.upper(), w.capitalize())})


_TRUE_SPELLINGS: Final = _spellings(TRUE_WORDS)
_FALSE_SPELLINGS: Final = _spellings(FALSE_WORDS)


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    index: int
    kind: str  # FLOAT | FLAG | TIME | LIST


@dataclass(slots=True)
class Columns:
    """Decoded columns: FLOAT/TIME -> float64 (NaN = empty), FLAG -> int8 (1, 0, -1 = empty).

    LIST columns give the per-row mean (NaN when empty) in ``values`` and the pooled
    ``list_values`` of all rows with ``list_row`` (row index of every pooled value).
    """

    rows: int
    values: dict[str, np.ndarray]
    list_values: dict[str, FloatArray] = field(default_factory=dict)
    list_row: dict[str, I64] = field(default_factory=dict)
    pending: dict[str, tuple[list[float], list[int]]] = field(default_factory=dict)


class _Untrusted(Exception):
    """The columnar reader cannot give the exact result for this file."""


# ----------------------------------------------------------------------------- per-cell parsers


def cell_error(column: str, row: int, text: str, expected: str) -> ParseError:
    shown = text if len(text) <= 40 else text[:37] + "..."
    hint = " (spreadsheet formula?)" if shown[:1] in "=+-@" and not _looks_numeric(shown) else ""
    return ParseError(
        f"row {row}, column '{column}': {shown!r} is not {expected}{hint}",
        format_id="requests-csv",
    )


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def parse_float_cell(text: str, column: str, row: int) -> float:
    stripped = text.strip()
    if not stripped:
        return math.nan
    try:
        value = float(stripped)
    except ValueError:
        raise cell_error(column, row, text, "a number") from None
    if not math.isfinite(value):
        raise ParseError(
            f"row {row}, column '{column}': {stripped!r} (NaN/Infinity is not allowed)",
            format_id="requests-csv",
        )
    return value


def parse_flag_cell(text: str, column: str, row: int) -> int:
    word = text.strip().lower()
    if not word:
        return -1
    if word in TRUE_WORDS:
        return 1
    if word in FALSE_WORDS:
        return 0
    raise cell_error(column, row, text, "a recognised value (ok/error, yes/no, true/false, 1/0)")


def parse_time_cell(text: str, column: str, row: int) -> float:
    stripped = text.strip()
    if not stripped:
        return math.nan
    try:
        value = float(stripped)
    except ValueError:
        pass
    else:
        if not math.isfinite(value):
            raise cell_error(column, row, text, "a timestamp")
        return value
    iso = stripped[:-1] + "+00:00" if stripped[-1:] in "Zz" else stripped
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        raise cell_error(column, row, text, "an ISO-8601 timestamp or epoch seconds") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def parse_list_cell(text: str, column: str, row: int) -> list[float]:
    stripped = text.strip().strip("[]")
    if not stripped:
        return []
    out: list[float] = []
    for part in re.split(r"[;|\s]+", stripped):
        if part:
            value = parse_float_cell(part, column, row)
            if not math.isnan(value):
                out.append(value)
    return out


# ----------------------------------------------------------------------------- readers


def read_columns(
    data: bytes,
    body_start: int,
    header: Sequence[str],
    wanted: Sequence[Column],
    progress: Callable[[float], None] | None = None,
) -> Columns:
    """Decode the wanted columns of a CSV body starting at byte ``body_start``."""
    if len(data) > body_start and all(c.kind != LIST for c in wanted):
        try:
            return read_columnar(data, body_start, len(header), wanted, progress)
        except _Untrusted:
            pass
    return read_exact(data, body_start, len(header), wanted, progress)


def _time_type(data: bytes, body_start: int, col: Column) -> pa.DataType:
    """float64 for epoch seconds; a timestamp type when the first value is ISO-8601."""
    end = data.find(b"\n", body_start, body_start + 65536)
    line = data[body_start : end if end >= 0 else body_start + 65536].rstrip(b"\r")
    cells = line.split(b",")
    cell = cells[col.index].strip() if col.index < len(cells) else b""
    if len(cell) < 10 or cell[4:5] != b"-":
        return pa.float64()
    zoned = cell[-1:] in b"Zz" or re.search(rb"[+-]\d\d:?\d\d$", cell[10:]) is not None
    return pa.timestamp("ns", "UTC") if zoned else pa.timestamp("ns")


def _estimate_rows(data: bytes, body_start: int) -> int:
    """Rows in the body, from the line length of its first 256 KiB (a little over, not a count)."""
    sample = data[body_start : body_start + (1 << 18)]
    lines = sample.count(b"\n") or sample.count(b"\r")
    if not lines or len(sample) == len(data) - body_start:
        return lines + 1
    return int((len(data) - body_start) / (len(sample) / lines) * 1.02) + 64


def read_columnar(
    data: bytes,
    body_start: int,
    ncols: int,
    wanted: Sequence[Column],
    progress: Callable[[float], None] | None = None,
) -> Columns:
    """pyarrow streaming reader; raises _Untrusted when only the exact reader can answer."""
    names = [f"c{i}" for i in range(ncols)]
    types: dict[str, pa.DataType] = {}
    for col in wanted:
        if col.kind == FLAG:
            types[names[col.index]] = pa.bool_()
        elif col.kind == TIME:
            types[names[col.index]] = _time_type(data, body_start, col)
        else:
            types[names[col.index]] = pa.float64()
    capacity = _estimate_rows(data, body_start)
    values: dict[str, np.ndarray] = {
        c.name: np.empty(capacity, dtype=np.int8 if c.kind == FLAG else np.float64) for c in wanted
    }
    nulls = dict.fromkeys(values, 0)
    body = pa.py_buffer(data)[body_start:]
    try:
        reader = pacsv.open_csv(
            pa.BufferReader(body),
            read_options=pacsv.ReadOptions(
                column_names=names, block_size=BLOCK_BYTES, use_threads=use_threads()
            ),
            parse_options=pacsv.ParseOptions(newlines_in_values=False),
            convert_options=pacsv.ConvertOptions(
                column_types=types,
                include_columns=list(types),
                null_values=[""],
                true_values=_TRUE_SPELLINGS,
                false_values=_FALSE_SPELLINGS,
                strings_can_be_null=True,
            ),
        )
        row = 0
        for batch in reader:
            n = batch.num_rows
            if row + n > capacity:  # longer than estimated from the first lines: grow
                capacity = max(row + n, capacity + capacity // 2)
                for name, arr in values.items():
                    values[name] = np.resize(arr, capacity)
            for col in wanted:
                arr = batch.column(names[col.index])
                nulls[col.name] += arr.null_count
                _store_block(arr, col, values[col.name][row : row + n])
            row += n
            if progress is not None:
                progress(min(1.0, row / capacity))
    except pa.ArrowInvalid:
        raise _Untrusted from None
    for col in wanted:
        arr = values[col.name][:row]
        values[col.name] = arr
        if col.kind != FLAG and row - int(np.count_nonzero(np.isfinite(arr))) != nulls[col.name]:
            raise _Untrusted  # a literal nan/inf: the exact reader names the cell
    return Columns(rows=row, values=values)


def _store_block(arr: pa.Array, col: Column, target: np.ndarray) -> None:
    if col.kind == FLAG:  # bool -> 1/0, empty -> -1
        target[:] = numpy_values(pc.cast(arr, pa.int8()), np.int8)
        if arr.null_count:
            target[numpy_nulls(arr)] = -1
        return
    if pa.types.is_timestamp(arr.type):
        np.divide(numpy_values(pc.cast(arr, pa.int64()), np.int64), 1e9, out=target)
    else:
        target[:] = numpy_values(arr, np.float64)
    if arr.null_count:
        target[numpy_nulls(arr)] = np.nan


def numpy_values(arr: pa.Array, dtype: type) -> np.ndarray:
    """Zero-copy numpy view of a fixed-width array's values (null slots hold anything).

    Read from the buffer directly: ``Array.to_numpy`` imports pandas when it is installed.
    """
    return np.frombuffer(
        arr.buffers()[1], dtype=dtype, count=len(arr), offset=arr.offset * np.dtype(dtype).itemsize
    )


def numpy_nulls(arr: pa.Array) -> np.ndarray:
    bits = np.frombuffer(arr.buffers()[0], dtype=np.uint8)
    valid = np.unpackbits(bits, count=arr.offset + len(arr), bitorder="little")[arr.offset :]
    nulls: np.ndarray = valid == 0
    return nulls


def read_exact(
    data: bytes,
    body_start: int,
    ncols: int,
    wanted: Sequence[Column],
    progress: Callable[[float], None] | None = None,
) -> Columns:
    """The csv module, one Python call per cell: exact messages for every bad cell."""
    capacity = max(1, data.count(b"\n", body_start) or data.count(b"\r", body_start)) + 1
    values: dict[str, np.ndarray] = {
        c.name: np.empty(capacity, dtype=np.int8 if c.kind == FLAG else np.float64) for c in wanted
    }
    out = Columns(rows=0, values=values)
    size = max(1, len(data))
    stream = io.BytesIO(data)
    stream.seek(body_start)
    reader = csv.reader(_decoded_lines(stream))
    line_no = 1
    try:
        for cells in reader:
            line_no = reader.line_num + 1
            if _store_row(cells, ncols, wanted, out, out.rows, line_no):
                out.rows += 1
            if progress is not None and out.rows % 65536 == 0:
                progress(min(1.0, stream.tell() / size))
    except csv.Error as exc:
        raise ParseError(
            f"row {line_no + 1}: malformed CSV ({exc})", format_id="requests-csv"
        ) from None
    for name, (vals, rows) in out.pending.items():
        out.list_values[name] = np.asarray(vals, dtype=np.float64)
        out.list_row[name] = np.asarray(rows, dtype=np.int64)
    for col in wanted:
        if col.kind == LIST and col.name not in out.list_values:
            out.list_values[col.name] = np.empty(0)
            out.list_row[col.name] = np.empty(0, dtype=np.int64)
    for name, arr in out.values.items():
        out.values[name] = arr[: out.rows]
    return out


def _parse_cell(col: Column, text: str, row: int) -> float:
    if col.kind == FLAG:
        return parse_flag_cell(text, col.name, row)
    if col.kind == TIME:
        return parse_time_cell(text, col.name, row)
    return parse_float_cell(text, col.name, row)


def _store_row(
    cells: list[str], ncols: int, wanted: Sequence[Column], out: Columns, i: int, line_no: int
) -> bool:
    """Store one csv row at index ``i``; False for blank rows (nothing stored)."""
    if not cells or (len(cells) == 1 and not cells[0].strip()):
        return False
    if len(cells) > ncols and any(cell.strip() for cell in cells[ncols:]):
        raise ParseError(
            f"row {line_no} has {len(cells)} fields but the header has {ncols}",
            format_id="requests-csv",
        )
    if i >= next(iter(out.values.values())).shape[0]:
        for name, arr in out.values.items():
            fill = -1 if arr.dtype == np.int8 else np.nan
            out.values[name] = np.concatenate([arr, np.full_like(arr, fill)])
    for col in wanted:
        text = cells[col.index] if col.index < len(cells) else ""
        if col.kind == LIST:
            items = parse_list_cell(text, col.name, line_no)
            out.values[col.name][i] = math.fsum(items) / len(items) if items else math.nan
            vals, rows = out.pending.setdefault(col.name, ([], []))
            vals.extend(items)
            rows.extend([i] * len(items))
        else:
            out.values[col.name][i] = _parse_cell(col, text, line_no)
    return True


def _decoded_lines(stream: io.BytesIO) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pending = ""
    while True:
        block = stream.read(1 << 16)
        text = pending + decoder.decode(block, final=not block)
        if not block:
            if text:
                yield text
            return
        parts = text.splitlines(keepends=True)
        pending = parts.pop() if parts and not parts[-1].endswith(("\n", "\r")) else ""
        yield from parts
