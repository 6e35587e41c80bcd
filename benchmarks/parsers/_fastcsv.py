"""Fast column extraction from large CSV files (numpy only, no per-row Python objects).

The fast path works on the raw bytes of files without quote characters:

* field boundaries come from one vectorised scan for ``,`` and ``\\n`` per ~1 MiB chunk;
* decimal numbers (``123``, ``45.678``, up to 16 significant digits) are decoded with SWAR
  ("SIMD within a register") arithmetic on unaligned 8-byte loads of every field: the dot is
  located and squeezed out, the digits are validated and combined with three multiply/shift
  steps, and the integer mantissa is divided by a power of ten, which rounds exactly like
  Python's ``float()`` for these inputs;
* short words (``ok``/``error``/``yes``/``no``...) are looked up as 8-byte codes;
* ISO-8601 timestamps are converted with numpy's ``datetime64`` parser (offsets handled here).

Any field the vectorised decoders cannot prove valid (signs, exponents, blanks inside,
``nan``, formulas, very long numbers...) is re-parsed by the same per-cell Python functions
the slow path uses, so both paths give identical results and identical error messages.
Files with quotes, ragged rows or list-valued columns use the ``csv`` module (streaming rows).
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import math
import os
import re
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final

import numpy as np
import numpy.typing as npt

from .errors import ParseError

FloatArray = npt.NDArray[np.float64]
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

CHUNK_BYTES: Final = 1 << 20
MAX_THREADS: Final = 4
#: files are split into threaded segments of at least this many bytes
MIN_SEGMENT_BYTES: Final = 4 << 20

# column kinds
FLOAT: Final = "float"
FLAG: Final = "flag"
TIME: Final = "time"
LIST: Final = "list"

TRUE_WORDS: Final = frozenset(
    {
        "ok",
        "success",
        "succeeded",
        "successful",
        "true",
        "yes",
        "y",
        "1",
        "pass",
        "passed",
        "done",
        "completed",
        "complete",
        "accepted",
    }
)
FALSE_WORDS: Final = frozenset(
    {
        "error",
        "err",
        "fail",
        "failed",
        "failure",
        "false",
        "no",
        "n",
        "0",
        "timeout",
        "cancelled",
        "canceled",
        "aborted",
        "rejected",
    }
)


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    index: int
    kind: str  # FLOAT | FLAG | TIME | LIST


@dataclass(slots=True)
class Columns:
    """Decoded columns: FLOAT/TIME -> float64 (NaN = empty), FLAG -> int8 (1, 0, -1 = empty).

    LIST columns give ``list_mean`` (per-row mean, NaN when empty), ``list_count`` and the
    pooled ``list_values`` of all rows with ``list_row`` (row index of every pooled value).
    """

    rows: int
    values: dict[str, np.ndarray]
    list_values: dict[str, FloatArray]
    list_row: dict[str, I64]
    pending: dict[str, tuple[list[float], list[int]]] = field(default_factory=dict)


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


# ----------------------------------------------------------------------------- SWAR constants


def _u64(values: Sequence[int]) -> U64:
    return np.array(values, dtype=np.uint64)


_ALL: Final = (1 << 64) - 1
#: top k bytes of a little-endian word (the last k characters of the 8 loaded)
_KEEP: Final = _u64([0] + [_ALL ^ ((1 << (8 * (8 - k))) - 1) for k in range(1, 8)] + [_ALL])
#: ASCII '0' in the low 8-k bytes (leading zeros for a right-aligned k-digit number)
_ZF: Final = _u64([int.from_bytes(b"0" * (8 - k) + b"\0" * k, "little") for k in range(9)])
#: bytes >= q / bytes < q
_HI: Final = _u64([_ALL ^ ((1 << (8 * q)) - 1) for q in range(8)] + [0])
_LO: Final = _u64([(1 << (8 * q)) - 1 for q in range(8)] + [_ALL])
_DOTS: Final = np.uint64(0x2E2E2E2E2E2E2E2E)
_LOW7: Final = np.uint64(0x7F7F7F7F7F7F7F7F)
_HIGH: Final = np.uint64(0x8080808080808080)
_BYTE_INDEX: Final = np.uint64(0x0001020304050607)
_C30: Final = np.uint64(0x3030303030303030)
_CF0: Final = np.uint64(0xF0F0F0F0F0F0F0F0)
_C06: Final = np.uint64(0x0606060606060606)
_LOWER: Final = np.uint64(0x2020202020202020)
_C76: Final = np.uint64(0x7676767676767676)
_BYTE: Final = np.uint64(0xFF)
_DOT: Final = np.uint64(0x2E)
_M1: Final = np.uint64(0x0F0F0F0F0F0F0F0F)
_M2: Final = np.uint64(0x00FF00FF00FF00FF)
_M3: Final = np.uint64(0x0000FFFF0000FFFF)
_F1: Final = np.uint64(2561)
_F2: Final = np.uint64(6553601)
_F3: Final = np.uint64(42949672960001)
_S7: Final = np.uint64(7)
_S8: Final = np.uint64(8)
_S16: Final = np.uint64(16)
_S32: Final = np.uint64(32)
_S56: Final = np.uint64(56)
_E8: Final = np.uint64(100_000_000)
_MAX_EXACT: Final = np.uint64(1 << 53)
_POW10: Final = 10.0 ** np.arange(24)
_NO_DOT: Final = -(1 << 40)


def _word_code(word: str) -> int:
    raw = word.encode()
    return int.from_bytes(b"\0" * (8 - len(raw)) + raw, "little")


_FLAG_CODES: Final = sorted(
    [(_word_code(w), 1) for w in TRUE_WORDS if len(w) <= 8]
    + [(_word_code(w), 0) for w in FALSE_WORDS if len(w) <= 8]
)
_FLAG_BITS: Final = 7


def _perfect_hash() -> tuple[int, U64, npt.NDArray[np.int8]]:
    """Multiplier m so that (code * m) >> 57 is collision-free over the known words."""
    for i in range(1, 100_000):
        mult = (0x9E3779B97F4A7C15 * i) & _ALL | 1
        slots = {((code * mult) & _ALL) >> (64 - _FLAG_BITS) for code, _ in _FLAG_CODES}
        if len(slots) == len(_FLAG_CODES):
            keys = np.full(1 << _FLAG_BITS, _ALL, dtype=np.uint64)  # never a valid key
            vals = np.full(1 << _FLAG_BITS, -1, dtype=np.int8)
            for code, value in _FLAG_CODES:
                slot = ((code * mult) & _ALL) >> (64 - _FLAG_BITS)
                keys[slot] = code
                vals[slot] = value
            return mult, keys, vals
    raise RuntimeError("no perfect hash for the status words")  # pragma: no cover


_FLAG_MULT, _FLAG_KEYS, _FLAG_VALS = _perfect_hash()
_FLAG_MULT_U64: Final = np.uint64(_FLAG_MULT)
_FLAG_SHIFT: Final = np.uint64(64 - _FLAG_BITS)


def _swar8(word: U64) -> U64:
    """Eight validated ASCII digits (first digit in the lowest byte) -> integer."""
    word = word & _M1
    word = (word * _F1) >> _S8
    word = ((word & _M2) * _F2) >> _S16
    return ((word & _M3) * _F3) >> _S32


def _digit_errors(word: U64) -> U64:
    """Non-zero where some byte of ``word`` is not an ASCII digit."""
    return ((word & _CF0) ^ _C30) | (((word + _C06) & _CF0) ^ _C30)


def _dot_bits(word: U64, keep: U64) -> U64:
    t = word ^ _DOTS
    return ~(((t & _LOW7) + _LOW7) | t) & _HIGH & keep


def decode_decimals_general(
    words: U64, starts: I64, ends: I64
) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """Decode unsigned decimal fields [starts, ends) of the buffer behind ``words``.

    ``words[i]`` must be the little-endian 8-byte load at byte offset i. Returns the values
    (NaN for empty fields) and a mask of fields that need the per-cell parser. Handles up to
    16 digits with the dot anywhere.
    """
    length = ends - starts
    x = words[ends - 8]
    k_lo = np.minimum(length, 8)
    dots_lo = _dot_bits(x, _KEEP[k_lo])
    has_long = bool((length > 8).any())
    ndots = np.bitwise_count(dots_lo)
    if has_long:
        y = words[ends - 16]
        k_hi = _clip8(length - 8)
        dots_hi = _dot_bits(y, _KEEP[k_hi])
        ndots = ndots + np.bitwise_count(dots_hi)
    has_dot = ndots > 0
    any_dot = bool(has_dot.any())
    ndig = length - has_dot
    dot = np.full(length.shape[0], _NO_DOT, dtype=np.int64)
    if any_dot:
        idx_lo = (((dots_lo >> _S7) * _BYTE_INDEX) >> _S56).astype(np.int64)
        dot = np.where(dots_lo != 0, ends - 8 + idx_lo, dot)
        if has_long:
            idx_hi = (((dots_hi >> _S7) * _BYTE_INDEX) >> _S56).astype(np.int64)
            dot = np.where(dots_hi != 0, ends - 16 + idx_hi, dot)
        q = _clip8(dot - ends + 9)
        x = (x & _HI[q]) | (words[ends - 9] & _LO[q])
    k = np.minimum(ndig, 8)
    x = (x & _KEEP[k]) | _ZF[k]
    errors = _digit_errors(x)
    mantissa = _swar8(x)
    if has_long and bool((ndig > 8).any()):
        if any_dot:
            q = _clip8(dot - ends + 17)
            y = (y & _HI[q]) | (words[ends - 17] & _LO[q])
        k = _clip8(ndig - 8)
        y = (y & _KEEP[k]) | _ZF[k]
        errors |= _digit_errors(y)
        mantissa = mantissa + _swar8(y) * _E8
    values = mantissa.astype(np.float64)
    if any_dot:
        frac = np.where(has_dot, ends - dot - 1, 0)
        values /= _POW10[np.minimum(frac, 23)]
    bad = (errors != 0) | (ndots > 1) | (ndig > 16) | (mantissa > _MAX_EXACT)
    empty = length == 0
    bad |= (ndig == 0) & ~empty
    values[empty] = np.nan
    return values, bad


def _clip8(values: I64) -> I64:
    """np.clip(values, 0, 8) without np.clip's overhead (it is several times slower)."""
    return np.minimum(np.maximum(values, 0), 8)


def _digits_swar8(t: U64) -> U64:
    """Eight digit values 0-9 (first digit in the lowest byte) -> integer."""
    t = (t * _F1) >> _S8
    t = ((t & _M2) * _F2) >> _S16
    return ((t & _M3) * _F3) >> _S32


def _non_digits(t: U64) -> U64:
    """Non-zero where a byte of ``t`` (= ASCII ^ '0') is not 0-9.

    (b + 0x76) sets bit 7 for b >= 10; b's own bit 7 catches b >= 0x80. A carry out of a bad
    byte can only disturb bytes of a word that is already flagged, so the word test is exact.
    """
    return (t | (t + _C76)) & _HIGH


def decode_decimals(
    data: bytes, buf: npt.NDArray[np.uint8], words: U64, starts: I64, ends: I64
) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """Like :func:`decode_decimals_general`, with a fast lane for the common layout.

    Writers usually print a column with a fixed number of decimals (``%.3f``) or as integers.
    When the dot sits at the same distance from the end of every field, it is squeezed out of
    the last 8-byte word with constant masks, and one more load covers digits 9-16. Fields that
    do not fit the lane are re-decoded by the general decoder.
    """
    n = starts.shape[0]
    if n == 0:
        return np.empty(0), np.zeros(0, dtype=np.bool_)
    s0, e0 = int(starts[0]), int(ends[0])
    dot0 = data.rfind(b".", s0, e0)
    frac = 0 if dot0 < 0 else e0 - dot0 - 1
    if frac > 7:
        return decode_decimals_general(words, starts, ends)
    length = ends - starts
    x = words[ends - 8]
    fits: npt.NDArray[np.bool_] | None = None
    if frac:
        fits = ((x >> np.uint64(8 * (7 - frac))) & _BYTE) == _DOT
        fits &= length > frac
        ndig = length - 1
        x = (x & _HI[8 - frac]) | ((x & _LO[7 - frac]) << _S8)
    else:
        ndig = length
    max_dig = int(ndig.max())
    any_empty = int(length.min()) == 0
    if frac and max_dig >= 8:
        x |= buf[ends - 9].astype(np.uint64)
    if frac and any_empty:
        ndig = np.maximum(ndig, 0)
    k = np.minimum(ndig, 8) if max_dig > 8 else ndig
    t = x ^ _C30
    t &= _KEEP[k]
    check = t + _C76
    check |= t
    mantissa = _digits_swar8(t)
    if max_dig > 8:
        y = words[ends - 17] if frac else words[ends - 16]
        k = _clip8(ndig - 8)
        y ^= _C30
        y &= _KEEP[k]
        check_hi = y + _C76
        check_hi |= y
        check |= check_hi
        mantissa += _digits_swar8(y) * _E8
    values = mantissa.astype(np.float64)
    if frac:
        values /= _POW10[frac]
    empty: npt.NDArray[np.bool_] | None = None
    if any_empty:
        empty = length == 0
        values[empty] = np.nan
    bad: npt.NDArray[np.bool_] | None = None
    if int(np.bitwise_or.reduce(check)) & 0x8080808080808080:
        bad = (check & _HIGH) != 0
    if fits is not None and not bool(fits.all()):
        misfit = ~fits
        bad = misfit if bad is None else bad | misfit
    if max_dig > 8:
        over = (ndig > 16) | (mantissa > _MAX_EXACT)
        bad = over if bad is None else bad | over
    if bad is None:
        return values, np.zeros(n, dtype=np.bool_)
    if empty is not None:
        bad &= ~empty
    if bad.any():
        idx = np.flatnonzero(bad)
        sub_vals, sub_bad = decode_decimals_general(words, starts[idx], ends[idx])
        values[idx] = sub_vals
        bad[idx] = sub_bad
    return values, bad


def decode_flags(
    words: U64, starts: I64, ends: I64
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    length = ends - starts
    key = (words[ends - 8] | _LOWER) & _KEEP[np.minimum(length, 8)]
    slot = (key * _FLAG_MULT_U64) >> _FLAG_SHIFT
    found = _FLAG_KEYS[slot] == key
    out = _FLAG_VALS[slot]
    out[~found] = -1
    empty = length == 0
    bad = ~found & ~empty
    bad |= length > 8
    return out, bad


def decode_iso(
    buf: npt.NDArray[np.uint8], starts: I64, ends: I64
) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """ISO-8601 date-times -> epoch seconds (naive values are taken as UTC)."""
    n = starts.shape[0]
    values = np.full(n, np.nan)
    bad = np.zeros(n, dtype=np.bool_)
    if n == 0:
        return values, bad
    length = ends - starts
    ends = ends.copy()
    offset_min = np.zeros(n, dtype=np.int64)
    last = buf[np.maximum(ends - 1, 0)]
    zulu = ((last == ord("Z")) | (last == ord("z"))) & (length > 10)
    ends[zulu] -= 1

    def digits(pos: I64) -> I64:
        return buf[pos].astype(np.int64) - 48

    for width, colon in ((6, True), (5, False)):
        cand = ~zulu & (length >= 16 + width)
        sign_pos = np.where(cand, ends - width, 0)
        sign = buf[sign_pos]
        cand &= (sign == ord("+")) | (sign == ord("-"))
        if colon:
            cand &= buf[np.where(cand, ends - 3, 0)] == ord(":")
        if not cand.any():
            continue
        idx = np.flatnonzero(cand)
        e = ends[idx]
        mm_at = e - 2
        hh = digits(e - width + 1) * 10 + digits(e - width + 2)
        mm = digits(mm_at) * 10 + digits(mm_at + 1)
        okd = (hh >= 0) & (hh < 24) & (mm >= 0) & (mm < 60)
        sgn = np.where(buf[e - width] == ord("-"), -1, 1)
        offset_min[idx] = np.where(okd, sgn * (hh * 60 + mm), 0)
        bad[idx[~okd]] = True
        ends[idx] -= width
        zulu |= cand
    length = ends - starts
    width = int(length.max())
    if width <= 0 or width > 40:
        bad[:] = True
        return values, bad
    cols = np.arange(width)
    pos = starts[:, None] + cols[None, :]
    mat = buf[np.minimum(pos, buf.shape[0] - 1)]
    mat[cols[None, :] >= length[:, None]] = 0
    strings = np.ascontiguousarray(mat).view(f"S{width}").reshape(n)
    ok = length > 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stamps = strings[ok].astype("datetime64[us]").astype(np.int64)
    except (ValueError, OverflowError, TypeError):
        bad[ok] = True
        return values, bad
    values[ok] = stamps / 1e6 - offset_min[ok] * 60.0
    bad[ok] |= stamps == np.iinfo(np.int64).min  # "NaT"
    return values, bad


def decode_iso_fixed(
    data: bytes, words: U64, starts: I64, ends: I64
) -> tuple[FloatArray, npt.NDArray[np.bool_]] | None:
    """ISO-8601 fields that all share the first field's length and suffix (Z / +HH:MM / none).

    The bytes are fetched with a few 8-byte loads per field instead of one load per character;
    numpy's datetime64 parser does the calendar work. Returns None when the batch does not fit
    (the caller then uses :func:`decode_iso`).
    """
    n = starts.shape[0]
    length = ends - starts
    size = int(length[0])
    if size < 10 or size > 40 or bool((length != size).any()):
        return None
    first = data[int(starts[0]) : int(ends[0])]
    if first[-1:] in (b"Z", b"z"):
        suffix = 1
    elif size >= 22 and first[-6:-5] in (b"+", b"-") and first[-3:-2] == b":":
        suffix = 6
    else:
        suffix = 0
    nwords = (size + 7) // 8
    block = np.empty((n, nwords), dtype=np.uint64)
    for j in range(nwords):
        block[:, nwords - 1 - j] = words[ends - 8 * (j + 1)]
    raw = block.view(np.uint8).reshape(n, nwords * 8)[:, nwords * 8 - size :]
    offset_min: npt.NDArray[np.int64] | None = None
    if suffix == 1:
        if not bool(((raw[:, -1] | 0x20) == ord("z")).all()):
            return None
    elif suffix == 6:
        sign = raw[:, -6]
        if not bool((((sign == 43) | (sign == 45)) & (raw[:, -3] == 58)).all()):
            return None
        digits = raw[:, [-5, -4, -2, -1]].astype(np.int64) - 48
        if bool(((digits < 0) | (digits > 9)).any()):
            return None
        minutes = (digits[:, 0] * 10 + digits[:, 1]) * 60 + digits[:, 2] * 10 + digits[:, 3]
        offset_min = np.where(sign == 45, -minutes, minutes)
    body = np.ascontiguousarray(raw[:, : size - suffix])
    strings = body.view(f"S{size - suffix}").reshape(n)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stamps = strings.astype("datetime64[us]").astype(np.int64)
    except (ValueError, OverflowError, TypeError):
        return None
    if bool((stamps == np.iinfo(np.int64).min).any()):  # NaT
        return None
    values = stamps / 1e6
    if offset_min is not None:
        values -= offset_min * 60.0
    return values, np.zeros(n, dtype=np.bool_)


# ----------------------------------------------------------------------------- readers


def read_columns(
    data: bytes,
    body_start: int,
    header: Sequence[str],
    wanted: Sequence[Column],
    progress: Callable[[float], None] | None = None,
) -> Columns:
    """Decode the wanted columns of a CSV body starting at byte ``body_start``."""
    segments = _split_segments(data, body_start)
    newlines = sum(seg.lines for seg in segments)
    capacity = (newlines or data.count(b"\r", body_start)) + 1
    values: dict[str, np.ndarray] = {}
    for col in wanted:  # every stored row writes every wanted column
        if col.kind == FLAG:
            values[col.name] = np.empty(capacity, dtype=np.int8)
        elif col.kind in (FLOAT, TIME, LIST):
            values[col.name] = np.empty(capacity, dtype=np.float64)
    out = Columns(rows=0, values=values, list_values={}, list_row={})
    fast_ok = (
        b'"' not in data
        and len(data) - body_start > 0
        and body_start >= 17
        and all(c.kind != LIST for c in wanted)
    )
    if fast_ok:
        _read_fast(data, segments, len(header), wanted, out, progress)
    else:
        _read_slow(data, body_start, len(header), wanted, out, progress)
    for name, arr in out.values.items():
        out.values[name] = arr[: out.rows]
    return out


@dataclass(slots=True)
class _Segment:
    start: int
    end: int
    first_row: int  # index of the segment's first row in the output arrays
    first_line: int  # 1-based file line number of that row
    lines: int  # newline characters in the segment
    rows: int = 0  # rows actually stored
    done_bytes: int = 0


def _read_fast(
    data: bytes,
    segments: Sequence[_Segment],
    ncols: int,
    wanted: Sequence[Column],
    out: Columns,
    progress: Callable[[float], None] | None,
) -> None:
    size = len(data)
    body_start = segments[0].start
    stop = _Stop()
    if len(segments) == 1:
        _run_segment(data, segments[0], 0, ncols, wanted, out, stop, progress)
    else:
        with ThreadPoolExecutor(max_workers=len(segments)) as pool:
            futures = [
                pool.submit(_run_segment, data, seg, i, ncols, wanted, out, stop, None)
                for i, seg in enumerate(segments)
            ]
            try:
                pending = set(futures)
                while pending:
                    _, pending = wait(pending, timeout=0.05)
                    if progress is not None:
                        total = sum(seg.done_bytes for seg in segments)
                        progress(min(1.0, (body_start + total) / size))
            except BaseException:
                stop.fail(-1)  # the caller aborted (progress callback): stop every segment
                raise
            for fut in futures:  # the first failure in file order wins
                exc = fut.exception()
                if exc is not None:
                    raise exc
    _compact(out, segments)


class _Stop:
    """Segments after a failed one stop early; earlier ones finish (they may fail earlier)."""

    def __init__(self) -> None:
        self.first_failed = 1 << 62
        self._lock = threading.Lock()

    def fail(self, index: int) -> None:
        with self._lock:
            self.first_failed = min(self.first_failed, index)

    def should_stop(self, index: int) -> bool:
        return self.first_failed < index


def _idle_cpus() -> int:
    """CPUs not busy with other work (threads only pay off on idle cores).

    The 1-minute load average includes this process itself, hence the ``- 1``.
    """
    cpus = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # not available on this platform
        return cpus
    return max(1, int(cpus - max(0.0, load - 1.0) + 0.5))


def _split_segments(data: bytes, body_start: int) -> list[_Segment]:
    size = len(data)
    workers = min(MAX_THREADS, _idle_cpus(), max(1, (size - body_start) // MIN_SEGMENT_BYTES))
    bounds = [body_start]
    for i in range(1, workers):
        target = body_start + (size - body_start) * i // workers
        cut = data.find(b"\n", target)
        if cut < 0 or cut + 1 <= bounds[-1] or cut + 1 >= size:
            break
        bounds.append(cut + 1)
    bounds.append(size)
    segments: list[_Segment] = []
    row = 0
    line = 2
    for a, b in itertools.pairwise(bounds):
        lines = count_newlines(data, a, b)
        segments.append(_Segment(a, b, row, line, lines))
        row += lines
        line += lines
    return segments


def count_newlines(data: bytes, start: int, end: int) -> int:
    buf = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 18
    tmp = np.empty(step, dtype=np.bool_)
    total = 0
    for a in range(start, end, step):
        part = buf[a : min(end, a + step)]
        flags = tmp[: part.shape[0]]
        np.equal(part, 10, out=flags)
        total += int(np.count_nonzero(flags))
    return total


def _compact(out: Columns, segments: Sequence[_Segment]) -> None:
    """Close the gaps left by blank lines so that rows are contiguous."""
    expected = 0
    gaps = False
    for seg in segments:
        if seg.first_row != expected:
            gaps = True
        expected += seg.rows
    if gaps:
        for name, arr in out.values.items():
            out.values[name] = np.concatenate(
                [arr[seg.first_row : seg.first_row + seg.rows] for seg in segments]
            )
    out.rows = expected


def _run_segment(
    data: bytes,
    seg: _Segment,
    index: int,
    ncols: int,
    wanted: Sequence[Column],
    out: Columns,
    stop: _Stop,
    progress: Callable[[float], None] | None,
) -> None:
    try:
        _decode_segment(data, seg, index, ncols, wanted, out, stop, progress)
    except BaseException:
        stop.fail(index)
        raise


def _decode_segment(
    data: bytes,
    seg: _Segment,
    index: int,
    ncols: int,
    wanted: Sequence[Column],
    out: Columns,
    stop: _Stop,
    progress: Callable[[float], None] | None,
) -> None:
    size = len(data)
    buf = np.frombuffer(data, dtype=np.uint8)
    words: U64 = np.ndarray(shape=(size - 7,), dtype="<u8", buffer=data, offset=0, strides=(1,))
    has_cr = b"\r" in data
    pos = seg.start
    row = seg.first_row
    line_no = seg.first_line
    scratch = np.empty(CHUNK_BYTES + 1, dtype=np.bool_)
    scratch_nl = np.empty(CHUNK_BYTES + 1, dtype=np.bool_)
    while pos < seg.end:
        if stop.should_stop(index):
            return
        end = data.rfind(b"\n", pos, min(seg.end, pos + CHUNK_BYTES)) + 1
        if end <= pos:  # a line longer than the chunk, or the unterminated last line
            nxt = data.find(b"\n", pos, seg.end)
            end = seg.end if nxt < 0 else nxt + 1
        chunk = buf[pos:end]
        width = end - pos
        if scratch.shape[0] < width:
            scratch = np.empty(width, dtype=np.bool_)
            scratch_nl = np.empty(width, dtype=np.bool_)
        mask = scratch[:width]
        newline = scratch_nl[:width]
        np.equal(chunk, 10, out=newline)
        np.equal(chunk, 44, out=mask)
        mask |= newline
        seps = np.flatnonzero(mask)
        nrows = seps.shape[0] // ncols
        grid = None
        if (
            data[end - 1] == 10
            and seps.shape[0] == nrows * ncols
            and nrows > 0
            and int(np.count_nonzero(newline)) == nrows
        ):
            cols = np.add(seps.reshape(nrows, ncols).T, pos)  # contiguous per column
            # every ncols-th separator must be the row's newline; as there are exactly nrows
            # newlines, all the other separators are then commas
            if bool((buf[cols[-1]] == 10).all()):
                grid = cols
        if grid is None:
            stored = _slow_segment(data, pos, end, ncols, wanted, out, row, line_no)
            line_no += data.count(b"\n", pos, end)
            row += stored
        else:
            row_starts = np.empty(nrows, dtype=np.int64)
            row_starts[0] = pos
            row_starts[1:] = grid[-1, :-1] + 1
            for col in wanted:
                starts = row_starts if col.index == 0 else grid[col.index - 1] + 1
                ends = grid[col.index]
                if has_cr and col.index == ncols - 1:
                    ends = ends - (buf[ends - 1] == 13)
                _decode_column(
                    data, buf, words, col, starts, ends, out.values[col.name], row, line_no
                )
            row += nrows
            line_no += nrows
        seg.rows = row - seg.first_row
        pos = end
        seg.done_bytes = pos - seg.start
        if progress is not None:
            progress(min(1.0, pos / size))


def _decode_column(
    data: bytes,
    buf: npt.NDArray[np.uint8],
    words: U64,
    col: Column,
    starts: I64,
    ends: I64,
    target: np.ndarray,
    row: int,
    line_no: int,
) -> None:
    n = starts.shape[0]
    if col.kind == FLAG:
        flags, bad = decode_flags(words, starts, ends)
        target[row : row + n] = flags
    elif col.kind == TIME and _looks_iso(data, int(starts[0]), int(ends[0])):
        fixed = decode_iso_fixed(data, words, starts, ends)
        nums, bad = fixed if fixed is not None else decode_iso(buf, starts, ends)
        target[row : row + n] = nums
    else:
        nums, bad = decode_decimals(data, buf, words, starts, ends)
        if col.kind == TIME and bad.any():
            idx = np.flatnonzero(bad)
            iso, iso_bad = decode_iso(buf, starts[idx], ends[idx])
            nums[idx] = iso
            bad[idx] = iso_bad
        target[row : row + n] = nums
    if bad.any():
        for i in np.flatnonzero(bad).tolist():
            text = data[int(starts[i]) : int(ends[i])].decode("utf-8", "replace")
            target[row + i] = _parse_cell(col, text, line_no + i)


def _looks_iso(data: bytes, start: int, end: int) -> bool:
    return end - start >= 10 and data[start + 4 : start + 5] == b"-"


def _parse_cell(col: Column, text: str, row: int) -> float:
    if col.kind == FLAG:
        return parse_flag_cell(text, col.name, row)
    if col.kind == TIME:
        return parse_time_cell(text, col.name, row)
    return parse_float_cell(text, col.name, row)


def _slow_segment(
    data: bytes,
    start: int,
    end: int,
    ncols: int,
    wanted: Sequence[Column],
    out: Columns,
    row: int,
    line_no: int,
) -> int:
    """Parse [start, end) with the csv module into rows starting at ``row``; returns rows stored."""
    text = data[start:end].decode("utf-8", "replace")
    stored = 0
    offset = 0
    try:
        for offset, cells in enumerate(csv.reader(text.splitlines(keepends=True))):
            if _store_row(cells, ncols, wanted, out, row + stored, line_no + offset):
                stored += 1
    except csv.Error as exc:
        raise ParseError(
            f"row {line_no + offset}: malformed CSV ({exc})", format_id="requests-csv"
        ) from None
    return stored


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


def _read_slow(
    data: bytes,
    body_start: int,
    ncols: int,
    wanted: Sequence[Column],
    out: Columns,
    progress: Callable[[float], None] | None,
) -> None:
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
