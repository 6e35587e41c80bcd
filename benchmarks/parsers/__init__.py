"""Pure parsers for benchmark result files (no Django): ``parse``, ``detect``, ``FORMATS``.

The format is detected from the content; the file name is only used in messages and as a
tie-breaker. Every failure is reported as :class:`ParseError`.
"""

from __future__ import annotations

import csv
import json
import logging
from dataclasses import dataclass
from typing import Any, Final

from . import (
    _aiperf_columns,
    _head,
    aiperf,
    amd_smi,
    console,
    genai_perf,
    guidellm,
    llmperf,
    mlperf,
    requests_csv,
    run_json,
    sglang,
    telemetry,
    training_log,
    vllm,
    vllm_offline,
)
from .errors import ParseError
from .registry import CSV_HEADER, JSON_LIST, JSON_OBJECT, TEXT, Format, ProgressFn
from .types import ParsedResult, Percentiles

HEAD_BYTES: Final = _head.HEAD_BYTES

__all__ = [
    "FORMATS",
    "HEAD_BYTES",
    "ParseError",
    "ParsedResult",
    "Percentiles",
    "detect",
    "parse",
]

_MODULES: Final = (
    vllm,
    vllm_offline,
    genai_perf,
    aiperf,
    guidellm,
    sglang,
    llmperf,
    mlperf,
    telemetry,
    amd_smi,
    requests_csv,
    run_json,
    training_log,
    console,
)
#: every format, as its module declares it (one entry per format, not parallel tables)
REGISTRY: Final[dict[str, Format]] = {f.id: f for m in _MODULES for f in m.FORMATS}
FORMATS: Final[dict[str, str]] = {f.id: f.name for f in REGISTRY.values()}


def _ordered(*inputs: str) -> list[Format]:
    return [
        f
        for kind in inputs
        for f in sorted(REGISTRY.values(), key=lambda f: f.order)
        if f.input == kind
    ]


_JSON: Final = _ordered(JSON_OBJECT, JSON_LIST)
_TEXT: Final = _ordered(TEXT, CSV_HEADER)
#: what each detector looks for (used in "format not recognised" messages)
JSON_RULES: Final[dict[str, str]] = {f.id: f.rule for f in _JSON}
TEXT_RULES: Final[dict[str, str]] = {f.id: f.rule for f in _TEXT}


@dataclass(slots=True)
class _Sniffed:
    format_id: str
    payload: Any  # parsed JSON, list of JSON lines, or text
    data: bytes


class _CallbackError(Exception):
    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original


def _label(filename: str | None) -> str:
    return f" '{filename}'" if filename else ""


def _tried(rules: dict[str, str]) -> str:
    return "; ".join(f"{fid} ({rule})" for fid, rule in rules.items())


def _first(kind: str, value: Any) -> str | None:
    for f in _JSON if kind in (JSON_OBJECT, JSON_LIST) else _TEXT:
        if f.input == kind and f.sniff is not None and f.sniff(value):
            return f.id
    return None


def _cut_off(exc: json.JSONDecodeError, text: str) -> bool:
    """The JSON ends before its values close: an unterminated string (no closing quote up to
    the end) or an error at the very end of the text. That is a file cut off mid-way."""
    return exc.msg.startswith("Unterminated string") or exc.pos >= len(text.rstrip())


def _cut_off_error(text: str, label: str) -> ParseError:
    # One plain sentence, not the list of format signatures (nothing was recognised).
    size = len(text.encode("utf-8"))
    return ParseError(
        f"The file{label} ends mid-way, at byte {size:,}, so it is not valid JSON: it looks "
        "cut off. Export or copy it again in full and upload that."
    )


def _sniff_json(text: str, label: str) -> tuple[str, Any]:
    try:
        obj = _head.loads(text)
    except RecursionError:
        raise ParseError(f"file{label}: JSON nesting is too deep") from None
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data" and _cut_off(exc, text):
            raise _cut_off_error(text, label) from None
        if exc.msg != "Extra data":
            raise ParseError(
                f"file{label} starts like JSON but is not valid JSON ({exc.msg} at line "
                f"{exc.lineno}, column {exc.colno}); tried: {_tried(JSON_RULES)}"
            ) from None
        return _sniff_json_lines(text, label)
    return _classify_doc(obj, label)


def _classify_doc(obj: Any, label: str) -> tuple[str, Any]:
    if isinstance(obj, dict):
        fid = _first(JSON_OBJECT, obj)
        if fid is not None:
            return fid, ([obj] if fid in (sglang.FORMAT_ID, aiperf.JSONL_ID) else obj)
        keys = ", ".join(list(map(str, obj.keys()))[:12]) or "none"
        raise ParseError(
            f"unrecognised JSON object{label} (top-level keys: {keys}); tried: {_tried(JSON_RULES)}"
        )
    if isinstance(obj, list):
        if not obj:
            raise ParseError(f"file{label} is an empty JSON array; tried: {_tried(JSON_RULES)}")
        fid = _first(JSON_LIST, obj)
        if fid is not None:
            return fid, obj
        first = obj[0]
        what = (
            "objects with keys " + ", ".join(list(map(str, first.keys()))[:12])
            if isinstance(first, dict)
            else type(first).__name__ + " items"
        )
        raise ParseError(f"unrecognised JSON array{label} of {what}; tried: {_tried(JSON_RULES)}")
    raise ParseError(
        f"file{label} is a bare JSON {type(obj).__name__}; tried: {_tried(JSON_RULES)}"
    )


def _sniff_json_lines(text: str, label: str) -> tuple[str, Any]:
    objs: list[Any] = []
    lines = text.splitlines()
    last = max((i for i, line in enumerate(lines, start=1) if line.strip()), default=0)
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped:
            continue
        try:
            objs.append(_head.loads(stripped))
        except RecursionError:
            raise ParseError(f"file{label}: JSON nesting too deep on line {number}") from None
        except json.JSONDecodeError as exc:
            if number == last and objs and _cut_off(exc, stripped):
                raise _cut_off_error(text, label) from None
            raise ParseError(
                f"file{label} looks like JSON Lines but line {number} is not valid JSON "
                f"({exc.msg}); tried: {_tried(JSON_RULES)}"
            ) from None
    return _classify_lines(objs, label)


def _classify_lines(objs: list[Any], label: str) -> tuple[str, Any]:
    if objs and all(aiperf.is_record(o) for o in objs):
        return aiperf.JSONL_ID, objs
    if objs and all(sglang.is_sglang(o) for o in objs):
        return sglang.FORMAT_ID, objs
    if objs and all(isinstance(o, dict) and vllm.is_serve(vllm.normalise_keys(o)) for o in objs):
        return vllm.SERVE_ID, objs
    kinds = {_first(JSON_OBJECT, o) if isinstance(o, dict) else None for o in objs}
    raise ParseError(
        f"unrecognised JSON Lines file{label}: lines are not all AIPerf records, SGLang results or "
        f"vLLM serving results (per-line formats: {sorted(str(k) for k in kinds)})"
    )


def _sniff_text(text: str, label: str) -> str:
    head = text[:65536]
    fid = _first(TEXT, head)
    if fid is not None:
        return fid
    first_line = head.split("\n", 1)[0].rstrip("\r")
    try:
        header = next(csv.reader([first_line]), [])
    except csv.Error:
        header = []
    fid = _first(CSV_HEADER, header)
    if fid is not None:
        return fid
    shown = first_line[:120]
    raise ParseError(
        f"unrecognised text file{label} (first line: {shown!r}); tried: {_tried(TEXT_RULES)}"
    )


def _sniff_head_json(data: bytes, label: str) -> str:
    """Format of a large JSON (Lines) file from its first HEAD_BYTES alone."""
    head = data[: _head.HEAD_BYTES].lstrip(b"\xef\xbb\xbf \t\r\n")
    lines = head.split(b"\n")
    complete = [ln.strip() for ln in lines[:-1] if ln.strip()]
    if len(complete) >= 2 or (complete and not lines[-1].strip()):
        try:
            objs = [_head.loads(ln) for ln in complete]
        except (ValueError, RecursionError):  # incl. JSONDecodeError, UnicodeDecodeError
            objs = []
        if len(objs) >= 2:
            return _classify_lines(objs, label)[0]
    prefix = _head.close_prefix(head)
    if prefix is None:
        raise ParseError(f"file{label} starts like JSON but its first 64 KB hold no JSON value")
    try:
        obj = _head.loads(prefix)
    except RecursionError:
        raise ParseError(f"file{label}: JSON nesting is too deep") from None
    except UnicodeDecodeError as exc:
        raise ParseError(
            f"file{label} is not UTF-8 text (invalid byte at offset {exc.start}); "
            "every supported format is UTF-8 text"
        ) from None
    except json.JSONDecodeError as exc:
        raise ParseError(
            f"file{label} starts like JSON but is not valid JSON ({exc.msg} at line "
            f"{exc.lineno}, column {exc.colno}); tried: {_tried(JSON_RULES)}"
        ) from None
    return _classify_doc(obj, label)[0]


def _sniff(
    data: bytes, filename: str | None, head_only: bool = False, partial: bool = False
) -> _Sniffed:
    """The format and its payload; ``head_only`` (detection) reads at most HEAD_BYTES.

    ``partial``: ``data`` is only the head of a larger file (detection only).
    """
    label = _label(filename)
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ParseError(f"expected bytes, got {type(data).__name__}")
    data = bytes(data)
    if not data or data.isspace():
        raise ParseError(f"file{label} is empty; tried: {_tried(JSON_RULES)}; {_tried(TEXT_RULES)}")
    # Cheap check on the head first: large CSVs are not decoded as a whole.
    head_bytes = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head_bytes[:1] in (b"{", b"[") and (len(data) > _head.HEAD_BYTES or partial):
        try:
            fid = _sniff_head_json(data, label)
        except _head.TooDeepError:
            raise
        except ParseError:
            if head_only and not head_bytes.startswith(b"["):
                raise
            fid = ""
        if head_only and fid:
            return _Sniffed(fid, None, data)
        if fid == vllm.SERVE_ID:
            fast = _head.load_serve(data)
            if fast is not None and vllm.is_serve(vllm.normalise_keys(fast)):
                return _Sniffed(fid, fast, data)
        if fid == aiperf.JSONL_ID:
            _head.check_utf8(data, label)  # pyarrow.json does not check the text it skips
            if cols := _aiperf_columns.read_columns(data, "record"):
                return _Sniffed(fid, cols, data)
        if head_only:  # "[titan] ..." logs start with '[' too
            return _Sniffed(_sniff_text(_head.decode_head(data), label), None, data)
    if head_bytes[:1] in (b"{", b"["):
        text = _head.decode(data)
        try:
            fid, payload = _sniff_json(text.strip(), label)
        except ParseError as json_error:
            if not head_bytes.startswith(b"["):
                raise
            # "[titan] ...", "[2025-...] iteration ..." logs also start with '['
            try:
                fid = _sniff_text(text[:65536], label)
            except ParseError:
                raise json_error from None
            return _Sniffed(fid, text, data)
        return _Sniffed(fid, payload, data)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = _head.decode(data)
        return _sniff(text.encode("utf-8"), filename, head_only, partial)
    head = data[:65536]
    try:
        head_text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not just a multi-byte char cut at the boundary
            raise ParseError(
                f"file{label} is not UTF-8 text (invalid byte at offset {exc.start}); "
                "every supported format is UTF-8 text"
            ) from None
        head_text = head[: exc.start].decode("utf-8-sig")
    fid = _sniff_text(head_text, label)
    if fid == requests_csv.FORMAT_ID:
        if not head_only:
            _head.check_utf8(data, label)
        return _Sniffed(fid, None, data)  # parsed from bytes, never decoded as a whole
    return _Sniffed(fid, None if head_only else _head.decode(data), data)


def detect(data: bytes, filename: str | None = None, *, partial: bool = False) -> str:
    """Return the format id of ``data`` (see :data:`FORMATS`); raise ParseError if unknown.

    Only the first :data:`HEAD_BYTES` are read (a large JSON file is never decoded whole);
    ``partial=True`` says that ``data`` is just that head of a larger file.
    """
    if partial:
        data = data[: _head.HEAD_BYTES]
    try:
        return _sniff(data, filename, head_only=True, partial=partial).format_id
    except ParseError:
        raise
    except (RecursionError, MemoryError):
        raise ParseError(f"file{_label(filename)} is too deeply nested or too large") from None


def _dispatch(s: _Sniffed, progress: ProgressFn | None) -> ParsedResult:
    f = REGISTRY[s.format_id]
    return f.parse(s.data if f.raw else s.payload, progress)


class _Progress:
    """Monotonic, clamped progress reporting; callback exceptions are passed through."""

    def __init__(self, callback: ProgressFn) -> None:
        self.callback = callback
        self.last = -1.0

    def __call__(self, fraction: float) -> None:
        value = min(1.0, max(0.0, float(fraction)))
        if value <= self.last:
            return
        self.last = value
        try:
            self.callback(value)
        except BaseException as exc:
            raise _CallbackError(exc) from exc


def parse(
    data: bytes, filename: str | None = None, *, progress: ProgressFn | None = None
) -> ParsedResult:
    """Detect the format of ``data`` and parse it into a normalised :class:`ParsedResult`.

    ``progress(fraction)`` is called with increasing values in [0, 1] during the parse (from
    the calling thread); an exception raised by it aborts the parse and propagates unchanged.
    """
    tracker = _Progress(progress) if progress is not None else None
    fid: str | None = None
    try:
        if tracker is not None:
            tracker(0.0)
        sniffed = _sniff(data, filename)
        fid = sniffed.format_id
        if tracker is not None:
            tracker(0.05)
        result = _dispatch(sniffed, tracker)
        if tracker is not None:
            tracker(1.0)
        return result
    except _CallbackError as exc:
        raise exc.original from None
    except ParseError as exc:
        if exc.format_id is None and fid is not None:
            exc.format_id = fid
        raise
    except (RecursionError, MemoryError):
        raise ParseError(
            f"file{_label(filename)} is too deeply nested or too large", format_id=fid
        ) from None
    except (
        csv.Error,
        TypeError,
        ValueError,
        KeyError,
        IndexError,
        AttributeError,
        OverflowError,
        ZeroDivisionError,
        ArithmeticError,
    ) as exc:
        name = FORMATS.get(fid or "", "the detected format")
        # The user sees the kind of error, never the interpreter's own text (logged).
        logging.getLogger(__name__).info("parse of %r failed: %r", filename, exc)
        raise ParseError(
            f"internal error while reading{_label(filename)} as {name} "
            f"({type(exc).__name__}): the file has a value this parser cannot read",
            format_id=fid,
        ) from exc
