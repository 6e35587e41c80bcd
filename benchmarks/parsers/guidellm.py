"""GuideLLM ``benchmarks.json`` reports (v0.2/0.3 layout, v0.4+ args/config, metadata v1/v2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import numpy as np

from ._util import (
    Builder,
    ProgressFn,
    combine_runs,
    compare_percentiles,
    get_path,
    maybe_percentiles,
    parse_each,
    percentiles_where,
    to_str,
)
from .registry import JSON_OBJECT, Format
from .types import Metrics, ParsedResult, Percentiles, RequestSamples

FORMAT_ID: Final = "guidellm"
FORMAT_NAME: Final = "GuideLLM benchmark report (JSON)"


def is_guidellm(obj: object) -> bool:
    if not isinstance(obj, dict):
        return False
    benches = obj.get("benchmarks")
    return (
        isinstance(benches, list)
        and bool(benches)
        and isinstance(benches[0], dict)
        and benches[0].get("type_") == "generative_benchmark"
    )


def parse(obj: Mapping[str, Any], progress: ProgressFn | None = None) -> ParsedResult:
    benches = obj.get("benchmarks")
    if not isinstance(benches, list) or not benches:
        raise Builder(FORMAT_ID, FORMAT_NAME).error(f"{FORMAT_NAME}: 'benchmarks' list is empty")
    meta = obj.get("metadata")
    version = to_str(get_path(meta, "guidellm_version"))
    layout = _layout(obj)
    runs = parse_each(
        benches, lambda i, bench: _benchmark(obj, bench, i, version, layout), progress
    )
    return combine_runs(runs, "benchmark (load point)", plural="benchmarks (load points)")


def _layout(obj: Mapping[str, Any]) -> str:
    meta_version = get_path(obj, "metadata", "version")
    if meta_version is not None:
        return f"metadata v{meta_version}"
    if "args" in obj:
        return "v0.4 (args + benchmarks)"
    return "v0.2-v0.3 (benchmarks only)"


def _dist(
    b: Builder, metrics: Mapping[str, Any], name: str, scale: float = 1.0
) -> Percentiles | None:
    summary = get_path(metrics, name, "successful")
    if not isinstance(summary, Mapping):
        return None
    count = summary.get("count")
    if isinstance(count, int | float) and not isinstance(count, bool) and count == 0:
        return None
    kind = "s" if scale != 1.0 else "ms"
    pcts = summary.get("percentiles")
    pcts = pcts if isinstance(pcts, Mapping) else {}

    def get(value: object, label: str) -> float | None:
        number = b.value(value, f"metrics.{name}.successful.{label}", kind)
        return None if number is None else number * scale

    p50 = get(pcts.get("p50"), "percentiles.p50")
    if p50 is None:
        p50 = get(summary.get("median"), "median")
    return maybe_percentiles(
        p50,
        get(pcts.get("p95"), "percentiles.p95"),
        get(pcts.get("p99"), "percentiles.p99"),
        get(summary.get("mean"), "mean"),
    )


def _mean(b: Builder, metrics: Mapping[str, Any], name: str, kind: str) -> float | None:
    return b.value(get_path(metrics, name, "successful", "mean"), f"metrics.{name}", kind)


def _total(b: Builder, metrics: Mapping[str, Any], name: str) -> int | None:
    value = b.value(
        get_path(metrics, name, "successful", "total_sum"), f"metrics.{name}.total_sum", "count"
    )
    return None if value is None else round(value)


def _benchmark(
    root: Mapping[str, Any], bench: object, index: int, version: str | None, layout: str
) -> ParsedResult:
    b = Builder(FORMAT_ID, FORMAT_NAME)
    if not isinstance(bench, dict):
        raise b.error(f"{FORMAT_NAME}: benchmark {index} is not an object")
    metrics = bench.get("metrics")
    if not isinstance(metrics, dict):
        raise b.error(f"{FORMAT_NAME}: benchmark {index} has no 'metrics' object")
    b.note(f"GuideLLM layout: {layout}")
    totals = metrics.get("request_totals")
    if not isinstance(totals, dict):
        totals = bench.get("request_totals")
    totals = totals if isinstance(totals, dict) else {}
    completed = b.int_(totals, "successful", "request_totals.successful")
    errored = b.int_(totals, "errored", "request_totals.errored")
    incomplete = b.int_(totals, "incomplete", "request_totals.incomplete")
    if incomplete:
        b.extra["requests_incomplete"] = incomplete
        b.note(
            f"{incomplete} request(s) incomplete (cancelled at the benchmark's time/number limit)"
        )
    strategy = get_path(bench, "config", "strategy")
    if not isinstance(strategy, dict):
        strategy = get_path(bench, "args", "strategy")
    strategy = strategy if isinstance(strategy, dict) else {}
    kind = to_str(strategy.get("type_")) or to_str(strategy.get("kind"))
    b.extra["strategy"] = kind
    concurrency = None
    if kind == "synchronous":
        concurrency = 1.0
    elif "streams" in strategy:
        concurrency = b.value(strategy.get("streams"), "strategy.streams", "count")
    rate = b.value(strategy.get("rate"), "strategy.rate", "rate") if "rate" in strategy else None
    ttft = _dist(b, metrics, "time_to_first_token_ms")
    tpot = _dist(b, metrics, "inter_token_latency_ms")
    e2e = _dist(b, metrics, "request_latency", 1000.0)
    if tpot is not None:
        b.note(
            "GuideLLM inter_token_latency_ms = (last - first token) / (output_tokens - 1) = vLLM "
            "TPOT, but its distribution is token-weighted (not per request)"
        )
    tpot_incl = _dist(b, metrics, "time_per_output_token_ms")
    if tpot_incl is not None and tpot_incl.mean is not None:
        b.extra["time_per_output_token_ms_mean_incl_ttft"] = tpot_incl.mean
    b.note("warmup/cooldown requests are excluded from GuideLLM metrics")
    samples = _samples(b, bench, completed)
    if samples is not None:
        rec_ttft = percentiles_where(samples.ttft_ms, samples.success)
        rec_e2e = percentiles_where(samples.e2e_ms, samples.success)
        compare_percentiles(b.discrepancies, "ttft_ms", ttft, rec_ttft)
        compare_percentiles(b.discrepancies, "e2e_ms", e2e, rec_e2e)
        ttft = rec_ttft or ttft
        e2e = rec_e2e or e2e
    model = (
        to_str(get_path(bench, "worker", "backend_model"))
        or to_str(get_path(bench, "config", "backend", "model"))
        or to_str(get_path(root, "config", "spec", "backend", "model"))
        or to_str(get_path(root, "args", "model"))
    )
    target = (
        to_str(get_path(bench, "worker", "backend_target"))
        or to_str(get_path(bench, "config", "backend", "target"))
        or to_str(get_path(root, "config", "spec", "backend", "target"))
        or to_str(get_path(root, "args", "target"))
    )
    if target:
        b.extra["backend_target"] = target
    platform = to_str(get_path(root, "metadata", "platform"))
    if platform:
        b.extra["client_platform"] = platform
        b.note("metadata.platform describes the client machine, not the GPU server")
    measured = _mean(b, metrics, "request_concurrency", "count")
    if measured is not None:
        b.extra["mean_in_flight_requests"] = measured
        if kind == "throughput" and concurrency is None:
            # A throughput run sends as many requests as the server takes: the load it was
            # driven at is the concurrency it measured, which the file records.
            concurrency = measured
            b.note(
                f"throughput profile: concurrency is the measured mean in-flight requests "
                f"({measured:g}, GuideLLM request_concurrency)"
            )
    result_metrics = Metrics(
        requests_completed=completed,
        requests_failed=errored,
        duration_s=b.num(bench, "duration", "s"),
        request_throughput_rps=_mean(b, metrics, "requests_per_second", "rate"),
        output_tokens_per_s=_mean(b, metrics, "output_tokens_per_second", "rate"),
        total_tokens_per_s=_mean(b, metrics, "tokens_per_second", "rate"),
        input_tokens_per_s=_mean(b, metrics, "prompt_tokens_per_second", "rate"),
        input_tokens_total=_total(b, metrics, "prompt_token_count"),
        output_tokens_total=_total(b, metrics, "output_token_count"),
        concurrency=concurrency,
        request_rate=rate,
        ttft_ms=ttft,
        tpot_ms=tpot,
        e2e_ms=e2e,
    )
    return b.result(result_metrics, model=model, tool_version=version, per_request=samples)


def _samples(b: Builder, bench: Mapping[str, Any], completed: int | None) -> RequestSamples | None:
    reqs = bench.get("requests")
    if not isinstance(reqs, dict):
        return None
    ok = reqs.get("successful") if isinstance(reqs.get("successful"), list) else []
    bad = [
        r for key in ("errored", "incomplete") if isinstance(reqs.get(key), list) for r in reqs[key]
    ]
    if not ok:
        return None
    if completed is not None and len(ok) > completed:
        b.note(
            f"'requests' lists {len(ok)} successful requests, of which the metrics measure "
            f"{completed}; the other {len(ok) - completed} ran in the warm-up or cool-down "
            "outside the measured window; percentiles come from the file's distribution "
            "summaries"
        )
        return None
    if completed is None or len(ok) != completed:
        shown = f"of {completed} " if completed is not None else ""
        b.note(
            f"'requests' holds a sample of {len(ok)} {shown}successful requests; "
            "percentiles come from the file's distribution summaries"
        )
        return None
    items = ok + bad
    n = len(items)
    ttft = np.full(n, np.nan)
    e2e = np.full(n, np.nan)
    itl = np.full(n, np.nan)
    in_tok = np.full(n, np.nan)
    out_tok = np.full(n, np.nan)
    success = np.zeros(n, dtype=np.bool_)
    success[: len(ok)] = True
    for i, req in enumerate(items):
        if not isinstance(req, dict):
            raise b.error(f"{FORMAT_NAME}: request sample {i} is not an object")
        ttft[i] = _num(b, req, "time_to_first_token_ms", "ms", i)
        e2e[i] = _num(b, req, "request_latency", "s", i) * 1000.0
        itl[i] = _num(b, req, "inter_token_latency_ms", "ms", i)
        in_tok[i] = _num(b, req, "prompt_tokens", "count", i)
        out_tok[i] = _num(b, req, "output_tokens", "count", i)
    if np.isnan(ttft[: len(ok)]).all() and np.isnan(e2e[: len(ok)]).all():
        return None
    b.note(f"percentiles recomputed from all {len(ok)} successful per-request records")
    return RequestSamples(
        ttft_ms=ttft,
        e2e_ms=e2e,
        itl_ms=itl,
        input_tokens=in_tok,
        output_tokens=out_tok,
        success=success,
        tpot_ms=itl,
    )


def _num(b: Builder, req: Mapping[str, Any], key: str, kind: str, i: int) -> float:
    value = b.value(req.get(key), f"requests[{i}].{key}", kind)
    return float("nan") if value is None else value


FORMATS: Final = (
    Format(
        FORMAT_ID,
        FORMAT_NAME,
        "'benchmarks' list of type_ 'generative_benchmark'",
        parse,
        is_guidellm,
        JSON_OBJECT,
        10,
    ),
)
