"""Reading JSON without decoding all of it: the head of a large file, per-request arrays.

* :func:`close_prefix` turns the first :data:`HEAD_BYTES` of a large JSON document into a
  valid, smaller document (cut after the last complete value, open brackets closed), so that
  format detection runs the usual key checks on the head alone;
* :func:`load_serve` reads a vLLM serving result with simdjson: the summary keys become Python
  values, the per-request arrays become numpy arrays straight from simdjson's buffers (no
  Python object per value). It returns None when the file needs the standard loader.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from collections.abc import Iterable, Sized
from typing import Any, Final, cast

import numpy as np
import simdjson

from .errors import ParseError
from .types import FloatArray

#: format detection of a large file reads at most this many bytes
HEAD_BYTES: Final = 65536
#: no supported format nests deeper than a handful of levels; the API bodies' limit too
MAX_DEPTH: Final = 64

_TOKEN: Final = re.compile(rb'"(?:[^"\\]|\\.)*"|"|[{}\[\],]')
_CLOSER: Final = {ord("{"): b"}", ord("["): b"]"}
_NUMERIC: Final = ("ttfts", "latencies", "input_lens", "output_lens", "start_times", "queue_times")


def decode_head(data: bytes) -> str:
    """The first HEAD_BYTES as text (a character cut at the end is dropped)."""
    return data[:HEAD_BYTES].decode("utf-8-sig", "ignore")


class TooDeepError(ParseError):
    """Nested past MAX_DEPTH: final, whatever else the head might look like."""


def close_prefix(head: bytes) -> bytes | None:
    """The longest prefix of ``head`` that ends after a complete value, brackets closed.

    One pass, linear in the head: every bracket or comma moves the cut, and only those change
    the stack, so the brackets open at the cut are the stack at the end. A head nested deeper
    than MAX_DEPTH is refused here, before any recursive decoder sees it (L6: 100,000 levels
    cost a web worker seconds when the stack was copied at every token)."""
    stack: list[bytes] = []
    cut = -1
    for match in _TOKEN.finditer(head):
        first = head[match.start()]
        if first == 0x22:  # '"'
            if match.end() - match.start() == 1:
                break  # a string cut off by the end of the head
            continue
        if first in _CLOSER:
            stack.append(_CLOSER[first])
            if len(stack) > MAX_DEPTH:
                raise TooDeepError(
                    f"JSON nesting is too deep (more than {MAX_DEPTH} levels); "
                    "no supported format nests that far"
                )
            cut = match.end()
        elif first in (0x7D, 0x5D):  # '}' ']'
            if not stack:
                return None
            stack.pop()
            cut = match.end()
        else:  # ',' ends the value before it
            cut = match.start()
    if cut < 0:
        return None
    return head[:cut] + b"".join(reversed(stack))


class FlatLists:
    """A list of lists of numbers as one flat array plus the length of every list."""

    __slots__ = ("counts", "flat")

    def __init__(self, flat: FloatArray, counts: np.ndarray) -> None:
        self.flat = flat
        self.counts = counts

    def __len__(self) -> int:
        return int(self.counts.shape[0])


def _numbers(value: Any) -> FloatArray | None:
    if not isinstance(value, simdjson.Array):
        return None
    try:
        return np.frombuffer(value.as_buffer(of_type="d"), dtype=np.float64)
    except (TypeError, ValueError):
        return None  # nulls, strings, booleans: the standard loader reports them


def load_serve(data: bytes) -> dict[str, Any] | None:
    """A vLLM serving result with its per-request arrays as numpy arrays, or None."""
    parser = simdjson.Parser()
    try:
        doc = parser.parse(data)
    except (ValueError, RuntimeError, MemoryError):
        return None  # NaN/Infinity tokens, JSON Lines, invalid JSON: the standard loader
    if not isinstance(doc, simdjson.Object):
        return None
    keys = list(doc.keys())
    if len(set(keys)) != len(keys):
        return None  # duplicate keys: the standard loader refuses them with a message
    out: dict[str, Any] = {}
    for key in keys:
        value = doc[key]
        if key in _NUMERIC:
            numbers = _numbers(value)
            if numbers is None and isinstance(value, simdjson.Array):
                return None
            out[key] = numbers if numbers is not None else value
        elif key == "itls" and isinstance(value, simdjson.Array):
            flat = _numbers(value)
            if flat is None:
                return None
            try:
                # Each item should be a list; a number raises TypeError in len (handled below).
                rows = cast("Iterable[Sized]", value)
                counts = np.fromiter(map(len, rows), dtype=np.int64, count=len(value))
            except TypeError:
                return None  # a number where a list was expected
            if int(counts.sum()) != flat.shape[0]:
                return None  # deeper nesting than a list of lists
            out[key] = FlatLists(flat, counts)
        elif key == "generated_texts":
            continue  # never used; not decoded
        elif isinstance(value, simdjson.Array):
            out[key] = value.as_list()
        elif isinstance(value, simdjson.Object):
            out[key] = value.as_dict()
        else:
            out[key] = value
    return out


# ----------------------------------------------------------------------------- decoding


def decode(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise ParseError("file has a UTF-16 byte-order mark but is not valid UTF-16") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(
            f"file is not UTF-8 text (invalid byte at offset {exc.start}); tried every format, "
            "all of them are UTF-8 text"
        ) from None


def check_utf8(data: bytes, label: str) -> None:
    """Refuse a non-UTF-8 byte anywhere, in 1 MiB steps (no decoded copy of a large file)."""
    if data.isascii():  # one C pass; ASCII is UTF-8
        return
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    step = 1 << 20
    for start in range(0, len(data), step):
        try:
            decoder.decode(view[start : start + step], final=start + step >= len(data))
        except UnicodeDecodeError as exc:
            offset = start + exc.start
            line_start = data.rfind(b"\n", 0, offset) + 1
            cell = data[line_start:offset].rsplit(b",", 1)[-1][-20:].decode("utf-8", "replace")
            line = data.count(b"\n", 0, offset) + 1
            raise ParseError(
                f"file{label} is not UTF-8 text (invalid byte at offset {offset}, line "
                f"{line}, in the cell starting {cell!r}); "
                "every supported format is UTF-8 text"
            ) from None


def _json_constant(token: str) -> float:
    # Python's json accepts NaN/Infinity (SGLang writes a bare Infinity); keep them, the
    # parsers reject them where a finite value is required.
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[token]


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise ParseError(
            f"JSON object has a duplicate key {dup!r}: which value is meant is ambiguous"
        )
    return obj


def loads(text: str | bytes) -> Any:
    return json.loads(text, parse_constant=_json_constant, object_pairs_hook=_no_duplicate_keys)
