"""LLMPerf (ray-project/llmperf ``token_benchmark_ray.py``) summary and individual responses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, Final

import numpy as np

from ._points import operating_point
from ._util import (
    Builder,
    ProgressFn,
    combine_runs,
    maybe_percentiles,
    percentiles_of,
    scalars,
    to_number,
    to_str,
)
from .registry import JSON_LIST, JSON_OBJECT, Format
from .types import Metrics, ParsedResult, Percentiles, RequestSamples

SUMMARY_ID: Final = "llmperf-summary"
SUMMARY_NAME: Final = "LLMPerf summary (JSON)"
INDIVIDUAL_ID: Final = "llmperf-individual"
INDIVIDUAL_NAME: Final = "LLMPerf individual responses (JSON)"

ITL_NOTE: Final = (
    "LLMPerf inter_token_latency (sum of chunk gaps incl. TTFT / number of chunks) is reported "
    "as TPOT; it is only roughly comparable with vLLM TPOT"
)
TOKENIZER_NOTE: Final = (
    "LLMPerf counts tokens with the Llama-2 tokenizer regardless of the target model"
)
REQUIRED_INDIVIDUAL: Final = ("ttft_s", "end_to_end_latency_s", "error_code")


def is_summary(obj: object) -> bool:
    return (
        isinstance(obj, dict)
        and str(obj.get("version", "")).startswith("2023-08-31")
        and any(isinstance(k, str) and k.startswith("results_") for k in obj)
    )


def is_summary_set(obj: object) -> bool:
    """One JSON object holding several LLMPerf summaries (keyed by concurrency)."""
    if not isinstance(obj, dict) or not obj or is_summary(obj):
        return False
    members = [v for v in obj.values() if isinstance(v, dict)]
    return bool(members) and all(is_summary(v) for v in members)


def is_individual(obj: object) -> bool:
    if not isinstance(obj, list) or not obj:
        return False
    first = obj[0]
    return isinstance(first, dict) and all(k in first for k in REQUIRED_INDIVIDUAL)


def _summary_pct(b: Builder, obj: Mapping[str, Any], metric: str) -> Percentiles | None:
    def get(suffix: str) -> float | None:
        value = b.num(obj, f"results_{metric}_{suffix}", "s")
        return None if value is None else value * 1000.0

    return maybe_percentiles(
        get("quantiles_p50"), get("quantiles_p95"), get("quantiles_p99"), get("mean")
    )


def parse_summary(obj: Mapping[str, Any], progress: ProgressFn | None = None) -> ParsedResult:
    if is_summary_set(obj):
        return _parse_summary_set(obj, progress)
    return _summary(obj, progress)


def _parse_summary_set(obj: Mapping[str, Any], progress: ProgressFn | None) -> ParsedResult:
    runs = []
    for key, member in obj.items():
        if not isinstance(member, dict):
            continue
        run = _summary(member, None)
        if run.metrics.concurrency is None:
            b = Builder(SUMMARY_ID, SUMMARY_NAME)
            level = b.wrap(partial(to_number, str(key).split("_")[-1], "key", "count"))
            metrics = replace(run.metrics, concurrency=level)
            run = replace(run, metrics=metrics, operating_points=(operating_point(metrics, None),))
        runs.append(replace(run, extra={**run.extra, "member_key": str(key)}))
    note = f"one JSON object holding {len(runs)} LLMPerf summaries, one run per member"
    return combine_runs(runs, "LLMPerf summary", [note], plural="LLMPerf summaries")


def _summary(obj: Mapping[str, Any], progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(SUMMARY_ID, SUMMARY_NAME)
    per_min = b.num(obj, "results_num_completed_requests_per_min", "rate")
    tpot = _summary_pct(b, obj, "inter_token_latency_s")
    if tpot is not None:
        b.note(ITL_NOTE)
    b.note(TOKENIZER_NOTE)
    b.note("LLMPerf quantiles cover successful requests only (error_code null)")
    freq = obj.get("results_error_code_frequency")
    if isinstance(freq, str):
        b.extra["error_code_frequency"] = freq
    b.extra.update(scalars(obj))
    metrics = Metrics(
        requests_completed=b.int_(obj, "results_num_completed_requests"),
        requests_failed=b.int_(obj, "results_number_errors"),
        request_throughput_rps=None if per_min is None else per_min / 60.0,
        output_tokens_per_s=b.num(obj, "results_mean_output_throughput_token_per_s", "rate"),
        concurrency=b.num(obj, "num_concurrent_requests", "count"),
        ttft_ms=_summary_pct(b, obj, "ttft_s"),
        e2e_ms=_summary_pct(b, obj, "end_to_end_latency_s"),
        tpot_ms=tpot,
    )
    return b.result(
        metrics, model=to_str(obj.get("model")), tool_version=to_str(obj.get("version"))
    )


def parse_individual(items: Sequence[Any], progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(INDIVIDUAL_ID, INDIVIDUAL_NAME)
    n = len(items)
    ttft = np.full(n, np.nan)
    e2e = np.full(n, np.nan)
    itl = np.full(n, np.nan)
    in_tok = np.full(n, np.nan)
    out_tok = np.full(n, np.nan)
    success = np.zeros(n, dtype=np.bool_)
    codes: dict[str, int] = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise b.error(f"{INDIVIDUAL_NAME}: item {i} is not an object")
        missing = [k for k in REQUIRED_INDIVIDUAL if k not in item]
        if missing:
            raise b.error(f"{INDIVIDUAL_NAME}: item {i} lacks {', '.join(missing)}")
        code = item.get("error_code")
        ok = code is None
        success[i] = ok
        if not ok:
            key = str(code)
            codes[key] = codes.get(key, 0) + 1

        ttft[i] = _num(b, item, i, "ttft_s", "s") * 1000.0
        e2e[i] = _num(b, item, i, "end_to_end_latency_s", "s") * 1000.0
        itl[i] = _num(b, item, i, "inter_token_latency_s", "s") * 1000.0
        in_tok[i] = _num(b, item, i, "number_input_tokens", "count")
        out_tok[i] = _num(b, item, i, "number_output_tokens", "count")
        if progress is not None and i % 10000 == 0:
            progress(i / max(n, 1))
    completed = int(success.sum())
    if codes:
        b.extra["error_code_frequency"] = ", ".join(f"{k}: {v}" for k, v in sorted(codes.items()))
        b.note("failed requests keep placeholder values and are excluded from the statistics")
    b.note(ITL_NOTE)
    b.note(TOKENIZER_NOTE)
    b.note(
        f"percentiles recomputed from {n} per-request records; no timestamps, so no duration or "
        "throughput"
    )
    ok_tok_in = in_tok[success]
    ok_tok_out = out_tok[success]
    metrics = Metrics(
        requests_completed=completed,
        requests_failed=n - completed,
        input_tokens_total=round(float(np.nansum(ok_tok_in))) if completed else None,
        output_tokens_total=round(float(np.nansum(ok_tok_out))) if completed else None,
        ttft_ms=percentiles_of(ttft[success]),
        e2e_ms=percentiles_of(e2e[success]),
        tpot_ms=percentiles_of(itl[success]),
    )
    samples = RequestSamples(
        ttft_ms=ttft,
        e2e_ms=e2e,
        itl_ms=itl,
        input_tokens=in_tok,
        output_tokens=out_tok,
        success=success,
        tpot_ms=itl,
    )
    return b.result(metrics, per_request=samples)


def _num(b: Builder, item: Mapping[str, Any], index: int, key: str, kind: str) -> float:
    value = b.value(item.get(key), f"[{index}].{key}", kind)
    return np.nan if value is None else value


FORMATS: Final = (
    Format(
        SUMMARY_ID,
        SUMMARY_NAME,
        "version '2023-08-31' + results_* keys, or an object of such summaries by concurrency",
        parse_summary,
        lambda o: is_summary(o) or is_summary_set(o),
        JSON_OBJECT,
        90,
    ),
    Format(
        INDIVIDUAL_ID,
        INDIVIDUAL_NAME,
        "array of objects with ttft_s, end_to_end_latency_s, error_code",
        parse_individual,
        is_individual,
        JSON_LIST,
        10,
    ),
)
