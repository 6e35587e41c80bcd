"""NVIDIA GenAI-Perf *_genai_perf.json / .csv and raw Perf Analyzer profile_export.json."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import numpy as np

from . import _stats
from ._input_config import record_config
from ._util import (
    Builder,
    ProgressFn,
    combine_runs,
    get_path,
    parse_each,
    percentiles_owned,
    percentiles_where,
    safe_div,
    scalars,
    to_str,
)
from .aiperf import metrics_from_csv
from .registry import CSV_HEADER, JSON_OBJECT, Format
from .types import Metrics, ParsedResult, RequestSamples

JSON_ID: Final = "genai-perf-json"
JSON_NAME: Final = "NVIDIA GenAI-Perf summary (*_genai_perf.json)"
CSV_ID: Final = "genai-perf-csv"
CSV_NAME: Final = "NVIDIA GenAI-Perf summary (*_genai_perf.csv)"
PA_ID: Final = "perf-analyzer-json"
PA_NAME: Final = "NVIDIA Perf Analyzer raw export (profile_export.json)"

NON_STREAMING_NOTE: Final = (
    "non-streaming run: time_to_first_token equals request latency and is not reported"
)
TOKENIZER_NOTE: Final = (
    "token counts come from GenAI-Perf's client-side tokenizer, not from the server"
)


def is_json(obj: object) -> bool:
    if not isinstance(obj, dict) or "aiperf_version" in obj or "input_config" not in obj:
        return False
    return any(
        isinstance(v, dict) and "unit" in v and "avg" in v
        for k, v in obj.items()
        if k != "input_config"
    )


def is_perf_analyzer(obj: object) -> bool:
    if not isinstance(obj, dict):
        return False
    exps = obj.get("experiments")
    if not isinstance(exps, list) or not exps or not isinstance(exps[0], dict):
        return False
    reqs = exps[0].get("requests")
    return isinstance(reqs, list) and (
        not reqs or (isinstance(reqs[0], dict) and "timestamp" in reqs[0])
    )


def _streaming(config: object) -> bool | None:
    for path in (("endpoint", "streaming"), ("streaming",)):
        value = get_path(config, *path)
        if isinstance(value, bool):
            return value
    return None


def _stimulus(b: Builder, config: object, key: str) -> float | None:
    for path in (("perf_analyzer", "stimulus", key), (key,)):
        value = get_path(config, *path)
        if value is not None and not isinstance(value, dict | list):
            return b.value(value, "input_config." + ".".join(path), "rate")
    return None


def parse_json(obj: Mapping[str, Any], progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(JSON_ID, JSON_NAME)
    config = obj.get("input_config")
    streaming = _streaming(config)
    ttft = _stats.stat_percentiles(b, obj.get("time_to_first_token"), "time_to_first_token")
    tpot = _stats.stat_percentiles(b, obj.get("inter_token_latency"), "inter_token_latency")
    e2e = _stats.stat_percentiles(b, obj.get("request_latency"), "request_latency")
    if streaming is False:
        b.note(NON_STREAMING_NOTE)
        ttft = None
    if tpot is not None:
        b.note(_stats.TPOT_NOTE)
    b.note(TOKENIZER_NOTE)
    b.note("GenAI-Perf records no failed-request count and no benchmark duration")
    count = _stats.stat_value(b, obj.get("request_count"), "request_count", "count")
    goodput = _stats.stat_value(b, obj.get("request_goodput"), "request_goodput", "rate")
    if goodput is not None:
        b.extra["request_goodput_rps"] = goodput
    osl = _stats.stat_value(b, obj.get("output_sequence_length"), "output_sequence_length", "count")
    isl = _stats.stat_value(b, obj.get("input_sequence_length"), "input_sequence_length", "count")
    if osl is not None:
        b.extra["output_sequence_length_mean"] = osl
    if isl is not None:
        b.extra["input_sequence_length_mean"] = isl
    b.extra["streaming"] = streaming
    model = record_config(b, config)
    if isinstance(config, dict):
        b.extra.update({f"input_config.{k}": v for k, v in scalars(config).items()})
        if get_path(config, "endpoint", "url") or config.get("u"):
            b.note("input_config holds the endpoint URL (may be an internal hostname)")
    if isinstance(obj.get("telemetry_stats"), dict):
        b.note("GPU telemetry present (telemetry_stats) but not normalised")
    metrics = Metrics(
        requests_completed=None if count is None else round(count),
        request_throughput_rps=_stats.stat_value(
            b, obj.get("request_throughput"), "request_throughput", "rate"
        ),
        output_tokens_per_s=_stats.stat_value(
            b, obj.get("output_token_throughput"), "output_token_throughput", "rate"
        ),
        concurrency=_stimulus(b, config, "concurrency"),
        request_rate=_stimulus(b, config, "request_rate"),
        ttft_ms=ttft,
        tpot_ms=tpot,
        e2e_ms=e2e,
    )
    return b.result(metrics, model=model)


def parse_csv(text: str, progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(CSV_ID, CSV_NAME)
    stats = _stats.read_stats_csv(text)
    if not stats.distributions and not stats.values:
        raise b.error(f"{CSV_NAME}: no 'Metric,avg,...' or 'Metric,Value' rows found")
    metrics = metrics_from_csv(b, stats)
    if metrics.ttft_ms is None:
        b.note("no TTFT row: probably a non-streaming run")
    b.note(TOKENIZER_NOTE)
    return b.result(metrics)


def parse_perf_analyzer(obj: Mapping[str, Any], progress: ProgressFn | None = None) -> ParsedResult:
    exps = obj.get("experiments")
    if not isinstance(exps, list):
        raise Builder(PA_ID, PA_NAME).error(f"{PA_NAME}: 'experiments' must be a list")
    runs = parse_each(exps, lambda i, exp: _experiment(obj, exp, i), progress)
    if not runs:
        raise Builder(PA_ID, PA_NAME).error(f"{PA_NAME}: no experiments in the file")
    return combine_runs(runs, "experiment")


def _experiment(obj: Mapping[str, Any], exp: object, index: int) -> ParsedResult:
    b = Builder(PA_ID, PA_NAME)
    if not isinstance(exp, dict) or not isinstance(exp.get("requests"), list):
        raise b.error(f"{PA_NAME}: experiment {index} has no 'requests' list")
    reqs = exp["requests"]
    n = len(reqs)
    ttft = np.full(n, np.nan)
    e2e = np.full(n, np.nan)
    itl_mean = np.full(n, np.nan)
    success = np.ones(n, dtype=np.bool_)
    gaps: list[np.ndarray] = []
    first: int | None = None
    last: int | None = None
    single_response = 0
    for i, req in enumerate(reqs):
        if not isinstance(req, dict):
            raise b.error(f"{PA_NAME}: request {i} is not an object")
        start = req.get("timestamp")
        stamps = req.get("response_timestamps")
        if (
            not isinstance(start, int)
            or not _is_int(start)
            or not isinstance(stamps, list)
            or not all(map(_is_int, stamps))
        ):
            raise b.error(
                f"{PA_NAME}: request {i} needs integer 'timestamp' and 'response_timestamps' (ns)"
            )
        if not stamps:
            success[i] = False
            continue
        rel = np.asarray([s - start for s in stamps], dtype=np.float64) / 1e6
        if (rel < 0).any() or rel.max() > 1e9 or start < 0:
            raise b.error(f"{PA_NAME}: request {i} has timestamps before its start or absurd ones")
        ttft[i] = rel[0]
        e2e[i] = rel[-1]
        if rel.shape[0] > 1:
            diff = np.diff(rel)
            gaps.append(diff)
            itl_mean[i] = float(diff.mean())
        else:
            single_response += 1
        first = start if first is None else min(first, start)
        last = stamps[-1] if last is None else max(last, stamps[-1])
    ok = success
    duration = (
        (last - first) / 1e9 if first is not None and last is not None and last > first else None
    )
    completed = int(ok.sum())
    b.note("metrics recomputed from raw timestamps; token counts need a tokenizer and are absent")
    if single_response == completed and completed:
        b.note(NON_STREAMING_NOTE)
    mode = get_path(exp, "experiment", "mode")
    value = get_path(exp, "experiment", "value")
    concurrency = None
    rate = None
    if mode == "concurrency":
        concurrency = b.value(value, "experiment.value", "count")
    elif mode == "request_rate":
        rate = b.value(value, "experiment.value", "rate")
    for key in ("version", "service_kind", "endpoint"):
        text = to_str(obj.get(key))
        if text is not None:
            b.extra[key] = text
    streaming = single_response != completed
    metrics = Metrics(
        requests_completed=completed,
        requests_failed=n - completed,
        duration_s=duration,
        request_throughput_rps=safe_div(float(completed), duration),
        concurrency=concurrency,
        request_rate=rate,
        ttft_ms=percentiles_where(ttft, ok) if streaming else None,
        itl_ms=percentiles_owned(np.concatenate(gaps)) if gaps else None,
        e2e_ms=percentiles_where(e2e, ok),
    )
    nan = np.full(n, np.nan)
    samples = RequestSamples(
        ttft_ms=ttft,
        e2e_ms=e2e,
        itl_ms=itl_mean,
        input_tokens=nan,
        output_tokens=nan.copy(),
        success=success,
    )
    return b.result(metrics, per_request=samples, tool_version=to_str(obj.get("version")))


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63


def is_csv_header(header: list[str]) -> bool:
    """``Metric,avg,...`` with descending percentiles (p99 before p50)."""
    lower = [h.strip().lower() for h in header]
    return (
        lower[:1] == ["metric"]
        and "avg" in lower
        and "p99" in lower
        and "p50" in lower
        and lower.index("p99") < lower.index("p50")
    )


FORMATS: Final = (
    Format(
        JSON_ID,
        JSON_NAME,
        "'input_config' + metric objects {unit, avg, ...}",
        parse_json,
        is_json,
        JSON_OBJECT,
        30,
    ),
    Format(
        CSV_ID,
        CSV_NAME,
        "CSV 'Metric,avg,min,max,p99,p95,...' (descending percentiles)",
        parse_csv,
        is_csv_header,
        CSV_HEADER,
        20,
    ),
    Format(
        PA_ID,
        PA_NAME,
        "'experiments' with requests[].timestamp/response_timestamps",
        parse_perf_analyzer,
        is_perf_analyzer,
        JSON_OBJECT,
        40,
    ),
)
