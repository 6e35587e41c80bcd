"""NVIDIA AIPerf: profile_export_aiperf.json (early/current layout), .csv, profile_export.jsonl."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np

from . import _stats
from ._aiperf_columns import JsonlColumns
from ._input_config import record_config
from ._util import (
    Builder,
    ProgressFn,
    get_path,
    percentiles_owned,
    percentiles_where,
    safe_div,
    to_str,
    unit_to_ms,
)
from .registry import CSV_HEADER, JSON_OBJECT, Format
from .types import Metrics, ParsedResult, Percentiles, RequestSamples

JSON_ID: Final = "aiperf-json"
JSON_NAME: Final = "NVIDIA AIPerf summary (profile_export_aiperf.json)"
CSV_ID: Final = "aiperf-csv"
CSV_NAME: Final = "NVIDIA AIPerf summary (profile_export_aiperf.csv)"
JSONL_ID: Final = "aiperf-jsonl"
JSONL_NAME: Final = "NVIDIA AIPerf per-request records (profile_export.jsonl)"

REASONING_NOTE: Final = (
    "output tokens are output_sequence_length (reasoning tokens included); "
    "output_token_count excludes them"
)


def is_json(obj: object) -> bool:
    if not isinstance(obj, dict):
        return False
    if "aiperf_version" in obj:
        return True
    if "schema_version" in obj and any(isinstance(v, dict) and "unit" in v for v in obj.values()):
        return True
    records = obj.get("records")
    return isinstance(records, dict) and any(
        isinstance(v, dict) and ("tag" in v or "header" in v) and "unit" in v
        for v in records.values()
    )


def is_record(obj: object) -> bool:
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("metrics"), dict)
        and isinstance(obj.get("metadata"), dict)
        and "error" in obj
    )


def _metric(table: Mapping[str, Any], *tags: str) -> Any:
    for tag in tags:
        if tag in table:
            return table[tag]
    return None


def parse_json(obj: Mapping[str, Any], progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(JSON_ID, JSON_NAME)
    records = obj.get("records")
    if isinstance(records, dict):
        table: Mapping[str, Any] = records
        b.note("early AIPerf layout (records{...}, v0.1.x)")
    else:
        table = obj

    def pct(*tags: str) -> Percentiles | None:
        return _stats.stat_percentiles(b, _metric(table, *tags), tags[0])

    def val(kind: str, *tags: str) -> float | None:
        return _stats.stat_value(b, _metric(table, *tags), tags[0], kind)

    duration_stats = _metric(table, "benchmark_duration")
    duration = val("s", "benchmark_duration")
    if isinstance(duration_stats, Mapping):
        factor = unit_to_ms(duration_stats.get("unit", "sec"))
        if duration is not None and factor is not None:
            duration = duration * factor / 1000.0
    ttft = pct("ttft", "time_to_first_token")
    tpot = pct("inter_token_latency")
    itl = pct("inter_chunk_latency")
    e2e = pct("request_latency")
    if tpot is not None:
        b.note(_stats.TPOT_NOTE)
    if itl is not None:
        b.note("itl_ms is AIPerf inter_chunk_latency (gap between SSE chunks)")
    if _metric(table, "reasoning_token_count", "total_reasoning_tokens") is not None:
        b.note(REASONING_NOTE)
    completed = val("count", "request_count")
    failed = val("count", "error_request_count")
    b.note("AIPerf request_count counts successful requests only; failures are error_request_count")
    config = obj.get("input_config")
    model = record_config(b, config)
    streaming = get_path(config, "endpoint", "streaming")
    if streaming is False:
        b.note("non-streaming run: TTFT equals request latency and is not reported")
        ttft = None
    if obj.get("was_cancelled") is True:
        b.note("the benchmark was cancelled before it finished")
    errors = obj.get("error_summary")
    if isinstance(errors, list) and errors:
        parts = []
        for item in errors[:5]:
            code = get_path(item, "error_details", "code")
            kind = get_path(item, "error_details", "type")
            count = item.get("count") if isinstance(item, dict) else None
            parts.append(f"{kind or code}: {count}")
        b.extra["error_summary"] = "; ".join(parts)
    for key in ("schema_version", "aiperf_version", "benchmark_id", "start_time", "end_time"):
        value = obj.get(key)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            b.extra[key] = value
    b.extra["streaming"] = streaming if isinstance(streaming, bool) else None
    in_total = val("count", "total_isl")
    out_total = val("count", "total_osl")
    metrics = Metrics(
        requests_completed=_int(completed),
        requests_failed=_int(failed),
        duration_s=duration,
        request_throughput_rps=val("rate", "request_throughput"),
        output_tokens_per_s=val("rate", "output_token_throughput"),
        total_tokens_per_s=val("rate", "total_token_throughput"),
        input_tokens_total=_int(in_total),
        output_tokens_total=_int(out_total),
        concurrency=_load_setting(b, config, "concurrency"),
        request_rate=_load_setting(b, config, "request_rate"),
        ttft_ms=ttft,
        itl_ms=itl,
        tpot_ms=tpot,
        e2e_ms=e2e,
    )
    return b.result(metrics, model=model, tool_version=to_str(obj.get("aiperf_version")))


def _int(value: float | None) -> int | None:
    return None if value is None else round(value)


def _profiling_phase(config: object) -> object:
    """AIPerf 0.10 keeps the load settings per phase in ``input_config.phases``."""
    phases = get_path(config, "phases")
    if isinstance(phases, dict):
        return phases.get("profiling")
    if not isinstance(phases, list):
        return None
    found = None
    for phase in phases:
        if not isinstance(phase, dict):
            continue
        kinds = {str(phase.get(k, "")).lower() for k in ("name", "phase", "type", "kind")}
        if "profiling" in kinds:
            return phase
        found = phase if "warmup" not in kinds else found
    return found


def _load_setting(b: Builder, config: object, key: str) -> float | None:
    value = _config_number(b, config, "loadgen", key)
    if value is None:
        phase = _profiling_phase(config)
        if isinstance(phase, dict) and isinstance(phase.get(key), int | float):
            value = b.value(phase.get(key), f"input_config.phases[profiling].{key}", "rate")
    return value


def _config_number(b: Builder, config: object, *path: str) -> float | None:
    value = get_path(config, *path)
    if isinstance(value, dict | list):
        return None
    return b.value(value, "input_config." + ".".join(path), "rate")


# ----------------------------------------------------------------------------- CSV


def parse_csv(text: str, progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(CSV_ID, CSV_NAME)
    stats = _stats.read_stats_csv(text)
    if not stats.distributions and not stats.values:
        raise b.error(f"{CSV_NAME}: no 'Metric,avg,...' or 'Metric,Value' rows found")
    metrics = metrics_from_csv(b, stats)
    return b.result(metrics)


def metrics_from_csv(b: Builder, stats: _stats.StatsCsv) -> Metrics:
    ttft = _stats.csv_percentiles(b, stats, "time to first token")
    tpot = _stats.csv_percentiles(b, stats, "inter token latency")
    itl = _stats.csv_percentiles(b, stats, "inter chunk latency")
    if tpot is not None:
        b.note(_stats.TPOT_NOTE)
    if itl is not None:
        b.note("itl_ms is AIPerf inter_chunk_latency (gap between SSE chunks)")
    if "reasoning token count" in stats.distributions:
        b.note(REASONING_NOTE)
    known = {
        "time to first token",
        "inter token latency",
        "inter chunk latency",
        "request latency",
        "benchmark duration",
        "request count",
        "request throughput",
        "output token throughput",
    }
    if not known & (stats.distributions.keys() | stats.values.keys()):
        found = ", ".join(sorted(stats.distributions.keys() | stats.values.keys())[:8])
        raise b.error(
            f"{b.format_name}: no known metric rows (Time to First Token, Request Latency, "
            f"Request Throughput, ...); found: {found or 'none'}"
        )
    b.note("CSV values are rounded to 2 decimals; prefer the JSON export")
    duration = _stats.csv_value(b, stats, "benchmark duration", "s")
    completed = _stats.csv_value(b, stats, "request count", "count")
    failed = _stats.csv_value(b, stats, "error request count", "count")
    in_total = _stats.csv_value(b, stats, "total input sequence length", "count")
    out_total = _stats.csv_value(b, stats, "total output sequence length", "count")
    return Metrics(
        requests_completed=_int(completed),
        requests_failed=_int(failed),
        duration_s=duration,
        request_throughput_rps=_stats.csv_value(b, stats, "request throughput", "rate"),
        output_tokens_per_s=_stats.csv_value(b, stats, "output token throughput", "rate"),
        total_tokens_per_s=_stats.csv_value(b, stats, "total token throughput", "rate"),
        input_tokens_total=_int(in_total),
        output_tokens_total=_int(out_total),
        ttft_ms=ttft,
        itl_ms=itl,
        tpot_ms=tpot,
        e2e_ms=_stats.csv_percentiles(b, stats, "request latency"),
    )


# ----------------------------------------------------------------------------- JSONL


def parse_jsonl(
    records: Sequence[Any] | JsonlColumns, progress: ProgressFn | None = None
) -> ParsedResult:
    b = Builder(JSONL_ID, JSONL_NAME)
    cols = records if isinstance(records, JsonlColumns) else _record_columns(b, records, progress)
    if cols.warmup:
        b.note(f"{cols.warmup} warmup record(s) excluded")
    n = len(cols.success)
    if n == 0:
        raise b.error(f"{JSONL_NAME}: no profiling records (only warmup)")
    ttft, e2e, tpot, itl_mean = cols.ttft, cols.e2e, cols.tpot, cols.itl_mean
    in_tok, out_tok, success = cols.in_tok, cols.out_tok, cols.success
    pooled, first_req, last_resp = cols.pooled, cols.first_req, cols.last_resp
    ok = success
    with np.errstate(invalid="ignore", divide="ignore"):
        computed = np.where(out_tok > 1, (e2e - ttft) / (out_tok - 1.0), np.nan)
    tpot = np.where(np.isnan(tpot), computed, tpot)
    duration = None
    if first_req is not None and last_resp is not None and last_resp > first_req:
        duration = (last_resp - first_req) / 1e9
    completed = int(ok.sum())
    out_total = float(np.nansum(out_tok[ok])) if completed else None
    in_total = float(np.nansum(in_tok[ok])) if completed else None
    b.note(_stats.TPOT_NOTE)
    b.note("itl_ms is pooled inter_chunk_latency of successful requests (gap between SSE chunks)")
    b.note(REASONING_NOTE)
    b.note(f"percentiles recomputed from {n} per-request records (failed requests excluded)")
    metrics_out = Metrics(
        requests_completed=completed,
        requests_failed=n - completed,
        duration_s=duration,
        request_throughput_rps=safe_div(float(completed), duration),
        output_tokens_per_s=safe_div(out_total, duration),
        total_tokens_per_s=safe_div(
            None if out_total is None else out_total + (in_total or 0.0), duration
        ),
        input_tokens_total=None if in_total is None else round(in_total),
        output_tokens_total=None if out_total is None else round(out_total),
        ttft_ms=percentiles_where(ttft, ok),
        e2e_ms=percentiles_where(e2e, ok),
        tpot_ms=percentiles_where(tpot, ok),
        itl_ms=percentiles_owned(np.array(pooled, dtype=np.float64)) if len(pooled) else None,
    )
    samples = RequestSamples(
        ttft_ms=ttft,
        e2e_ms=e2e,
        itl_ms=itl_mean,
        input_tokens=in_tok,
        output_tokens=out_tok,
        success=success,
        tpot_ms=tpot,
    )
    return b.result(metrics_out, per_request=samples)


def _record_columns(
    b: Builder, records: Sequence[Any], progress: ProgressFn | None
) -> JsonlColumns:
    """The per-request arrays, one record at a time (messages name the record)."""
    kept: list[Mapping[str, Any]] = []
    warmup = 0
    for i, rec in enumerate(records):
        if not is_record(rec):
            raise b.error(
                f"{JSONL_NAME}: line {i + 1} is not a {{metadata, metrics, error}} record"
            )
        if get_path(rec, "metadata", "credit_phase") == "warmup":
            warmup += 1
            continue
        kept.append(rec)
    n = len(kept)
    ttft = np.full(n, np.nan)
    e2e = np.full(n, np.nan)
    tpot = np.full(n, np.nan)
    itl_mean = np.full(n, np.nan)
    in_tok = np.full(n, np.nan)
    out_tok = np.full(n, np.nan)
    success = np.zeros(n, dtype=np.bool_)
    pooled: list[float] = []
    first_req: int | None = None
    last_resp: int | None = None
    for i, rec in enumerate(kept):
        metrics = rec["metrics"]
        success[i] = rec.get("error") is None
        ttft[i] = _rec_ms(b, metrics, i, "ttft", "time_to_first_token")
        e2e[i] = _rec_ms(b, metrics, i, "request_latency")
        tpot[i] = _rec_ms(b, metrics, i, "inter_token_latency")
        in_tok[i] = _rec_count(b, metrics, i, "input_sequence_length")
        out_tok[i] = _rec_count(b, metrics, i, "output_sequence_length", "output_token_count")
        chunks = metrics.get("inter_chunk_latency")
        if isinstance(chunks, dict):
            gaps = _rec_list_ms(b, chunks, i)
            if gaps:
                itl_mean[i] = math.fsum(gaps) / len(gaps)
                if success[i]:
                    pooled.extend(gaps)
        if success[i]:
            start = _rec_ns(b, metrics, i, "min_request_timestamp")
            end = _rec_ns(b, metrics, i, "max_response_timestamp")
            if start is not None:
                first_req = start if first_req is None else min(first_req, start)
            if end is not None:
                last_resp = end if last_resp is None else max(last_resp, end)
        if progress is not None and i % 20000 == 0:
            progress(0.5 + 0.5 * i / n)
    return JsonlColumns(
        ttft,
        e2e,
        tpot,
        itl_mean,
        in_tok,
        out_tok,
        success,
        np.asarray(pooled, dtype=np.float64),
        first_req,
        last_resp,
        warmup,
    )


def _rec_entry(metrics: Mapping[str, Any], *tags: str) -> Mapping[str, Any] | None:
    for tag in tags:
        entry = metrics.get(tag)
        if isinstance(entry, Mapping):
            return entry
    return None


def _rec_ms(b: Builder, metrics: Mapping[str, Any], i: int, *tags: str) -> float:
    entry = _rec_entry(metrics, *tags)
    if entry is None:
        return math.nan
    factor = unit_to_ms(entry.get("unit", "ms"))
    if factor is None:
        raise b.error(
            f"{JSONL_NAME}: record {i + 1} '{tags[0]}' has unknown unit {entry.get('unit')!r}"
        )
    value = b.value(
        entry.get("value"), f"record {i + 1} {tags[0]}", "ns" if factor < 1e-3 else "ms"
    )
    return math.nan if value is None else value * factor


def _rec_count(b: Builder, metrics: Mapping[str, Any], i: int, *tags: str) -> float:
    entry = _rec_entry(metrics, *tags)
    if entry is None:
        return math.nan
    value = b.value(entry.get("value"), f"record {i + 1} {tags[0]}", "count")
    return math.nan if value is None else value


def _rec_ns(b: Builder, metrics: Mapping[str, Any], i: int, tag: str) -> int | None:
    entry = _rec_entry(metrics, tag)
    if entry is None:
        return None
    value = entry.get("value")
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**20:
        return value
    number = b.value(value, f"record {i + 1} {tag}", "any")
    if number is None or number < 0:
        return None
    return int(number)


def _rec_list_ms(b: Builder, entry: Mapping[str, Any], i: int) -> list[float]:
    factor = unit_to_ms(entry.get("unit", "ms"))
    if factor is None:
        raise b.error(f"{JSONL_NAME}: record {i + 1} inter_chunk_latency has an unknown unit")
    values = entry.get("value")
    if not isinstance(values, list):
        values = [values]
    out = []
    for value in values:
        number = b.value(value, f"record {i + 1} inter_chunk_latency", "ms")
        if number is not None:
            out.append(number * factor)
    return out


def is_csv_header(header: list[str]) -> bool:
    """``Metric,avg,...`` (ascending percentiles; GenAI-Perf's descending ones are tried first)."""
    lower = [h.strip().lower() for h in header]
    return lower[:1] == ["metric"] and "avg" in lower


FORMATS: Final = (
    Format(
        JSON_ID,
        JSON_NAME,
        "'aiperf_version'/'schema_version' + metric objects, or 'records' with tag/unit",
        parse_json,
        is_json,
        JSON_OBJECT,
        20,
    ),
    Format(
        CSV_ID,
        CSV_NAME,
        "CSV 'Metric,avg,min,max,[sum,]p1,p5,...' (ascending percentiles)",
        parse_csv,
        is_csv_header,
        CSV_HEADER,
        30,
    ),
    Format(
        JSONL_ID,
        JSONL_NAME,
        "JSON Lines of {metadata, metrics, error} records",
        parse_jsonl,
        is_record,
        JSON_OBJECT,
        120,
    ),
)
