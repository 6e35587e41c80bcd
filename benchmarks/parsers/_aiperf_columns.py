"""AIPerf ``profile_export.jsonl`` read column-wise with ``pyarrow.json`` (no Python object per
value): the per-request arrays the AIPerf parser needs, or None when the file needs the
record-by-record reader (unknown units, unexpected shapes; it gives the messages)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pajson

from ._csvread import numpy_nulls, numpy_values
from ._util import check_array, unit_to_ms
from .types import BoolArray, FloatArray


@dataclass(slots=True)
class JsonlColumns:
    """Per-request arrays of the profiling records (warm-up records already dropped)."""

    ttft: FloatArray
    e2e: FloatArray
    tpot: FloatArray
    itl_mean: FloatArray
    in_tok: FloatArray
    out_tok: FloatArray
    success: BoolArray
    pooled: FloatArray
    first_req: int | None
    last_resp: int | None
    warmup: int


class _Fallback(Exception):
    pass


def read_columns(data: bytes, where: str) -> JsonlColumns | None:
    try:
        table = pajson.read_json(
            pa.BufferReader(data), read_options=pajson.ReadOptions(use_threads=False)
        )
        return _columns(table.combine_chunks(), where)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, _Fallback):
        return None
    except UnicodeDecodeError:  # pyarrow.json does not validate UTF-8; the full path says where
        return None


def _struct(table: pa.Table, name: str) -> pa.StructArray:
    if name not in table.column_names:
        raise _Fallback
    col = table.column(name).chunk(0) if table.num_rows else None
    if col is None or not pa.types.is_struct(col.type):
        raise _Fallback
    return col


def _field(parent: pa.Array, name: str) -> pa.Array | None:
    if not pa.types.is_struct(parent.type) or parent.type.get_field_index(name) < 0:
        return None
    return pc.struct_field(parent, name)


def _floats(arr: pa.Array) -> FloatArray:
    arr = pc.cast(arr, pa.float64(), safe=False)  # ns timestamps exceed 2**53
    out = np.array(numpy_values(arr, np.float64), dtype=np.float64)
    if arr.null_count:
        out[numpy_nulls(arr)] = np.nan
    return out


def _factors(entry: pa.Array) -> FloatArray:
    """Per-record factor to milliseconds from the ``unit`` field ("ms" when absent)."""
    unit = _field(entry, "unit")
    if unit is None:
        return np.ones(len(entry))
    encoded = pc.dictionary_encode(pc.fill_null(pc.cast(unit, pa.string()), "ms"))
    factors = [unit_to_ms(u) for u in encoded.dictionary.to_pylist()]
    if any(f is None for f in factors):
        raise _Fallback
    per_record: FloatArray = np.asarray(factors, dtype=np.float64)[
        numpy_values(encoded.indices, np.int32)
    ]
    return per_record


def _metric(metrics: pa.Array, tags: tuple[str, ...], kind: str, where: str) -> FloatArray:
    n = len(metrics)
    for tag in tags:
        entry = _field(metrics, tag)
        if entry is None:
            continue
        value = _field(entry, "value")
        if value is None or not (
            pa.types.is_integer(value.type) or pa.types.is_floating(value.type)
        ):
            raise _Fallback
        values = _floats(value)
        if kind == "ms":
            values = values * _factors(entry)
        check_array(values, f"{where} {tag}", kind)
        return values
    return np.full(n, np.nan)


def _stamps(metrics: pa.Array, tag: str, success: BoolArray) -> np.ndarray:
    """Epoch-ns timestamps of the successful requests, exact (int64, beyond 2**53)."""
    entry = _field(metrics, tag)
    value = None if entry is None else _field(entry, "value")
    if value is None:
        return np.empty(0, dtype=np.int64)
    if not pa.types.is_int64(value.type):
        raise _Fallback
    stamps = numpy_values(value, np.int64)
    keep = success & ~numpy_nulls(value) if value.null_count else success
    stamps = stamps[keep]
    if stamps.size and int(stamps.min()) < 0:
        raise _Fallback
    return stamps


def _gaps(metrics: pa.Array, success: BoolArray) -> tuple[FloatArray, FloatArray]:
    n = len(metrics)
    entry = _field(metrics, "inter_chunk_latency")
    if entry is None:
        return np.full(n, np.nan), np.empty(0)
    value = _field(entry, "value")
    if value is None or not pa.types.is_list(value.type):
        raise _Fallback
    factors = _factors(entry)
    value = pc.fill_null(value, pa.scalar([], value.type))
    offsets = np.asarray(numpy_values(value.offsets, np.int32), dtype=np.int64)
    counts = np.diff(offsets)
    raw = _floats(value.values[int(offsets[0]) : int(offsets[-1])])
    if np.isnan(raw).any():
        raise _Fallback
    flat = raw * np.repeat(factors, counts)
    check_array(flat, "inter_chunk_latency", "ms")
    sums = np.zeros(n)
    filled = counts > 0
    if flat.size:
        sums[filled] = np.add.reduceat(flat, (offsets[:-1] - offsets[0])[filled])
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(filled, sums / np.maximum(counts, 1), np.nan)
    return means, flat[np.repeat(success, counts)]


def _columns(table: pa.Table, where: str) -> JsonlColumns:
    metadata = _struct(table, "metadata")
    metrics = _struct(table, "metrics")
    if metadata.null_count or metrics.null_count:
        raise _Fallback  # a line that is not a record: the record reader says which
    if "error" not in table.column_names:
        raise _Fallback
    phase = _field(metadata, "credit_phase")
    keep = np.ones(table.num_rows, dtype=np.bool_)
    if phase is not None:
        warm = pc.fill_null(pc.equal(pc.cast(phase, pa.string()), "warmup"), False)
        keep = ~np.asarray(numpy_values(pc.cast(warm, pa.int8()), np.int8), dtype=np.bool_)
    warmup = int((~keep).sum())
    if warmup:
        mask = pa.array(keep)
        metrics = metrics.filter(mask)
        error = table.column("error").chunk(0).filter(mask)
    else:
        error = table.column("error").chunk(0)
    if pa.types.is_null(error.type):
        success = np.ones(len(error), dtype=np.bool_)
    elif error.null_count:
        success = numpy_nulls(error)
    else:
        success = np.zeros(len(error), dtype=np.bool_)
    itl_mean, pooled = _gaps(metrics, success)
    starts = _stamps(metrics, "min_request_timestamp", success)
    ends = _stamps(metrics, "max_response_timestamp", success)
    return JsonlColumns(
        ttft=_metric(metrics, ("ttft", "time_to_first_token"), "ms", where),
        e2e=_metric(metrics, ("request_latency",), "ms", where),
        tpot=_metric(metrics, ("inter_token_latency",), "ms", where),
        itl_mean=itl_mean,
        in_tok=_metric(metrics, ("input_sequence_length",), "count", where),
        out_tok=_metric(metrics, ("output_sequence_length", "output_token_count"), "count", where),
        success=success,
        pooled=pooled,
        first_req=int(starts.min()) if starts.size else None,
        last_resp=int(ends.max()) if ends.size else None,
        warmup=warmup,
    )
