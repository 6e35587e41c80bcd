"""SGLang ``bench_serving`` results (JSON Lines, one run per line, always appended)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

import numpy as np

from ._util import (
    Builder,
    ProgressFn,
    combine_runs,
    compare,
    compare_percentiles,
    float_array,
    maybe_percentiles,
    parse_each,
    scalars,
    summarize_samples,
    to_str,
    tpot_from,
)
from .registry import JSON_OBJECT, Format
from .types import FloatArray, Metrics, ParsedResult, Percentiles, RequestSamples
from .vllm import NO_SUCCESSFUL_REQUESTS, pooled_itls

FORMAT_ID: Final = "sglang"
FORMAT_NAME: Final = "SGLang bench_serving (JSON Lines)"
PER_REQUEST_KEYS: Final = frozenset(
    {
        "input_lens",
        "output_lens",
        "ttfts",
        "itls",
        "generated_texts",
        "errors",
        "server_info",
        "cache_report",
        "cached_tokens",
    }
)
#: server arguments that state what the model ran at (weights, quantisation, KV cache)
SERVER_PRECISION_KEYS: Final = ("dtype", "quantization", "kv_cache_dtype")
#: server arguments that state the GPUs' topology, under the names every parser's runs use
SERVER_TOPOLOGY_KEYS: Final = {
    "tp_size": "tensor_parallel_size",
    "pp_size": "pipeline_parallel_size",
    "dp_size": "data_parallel_size",
    "nnodes": "number_of_nodes",
}
FAMILIES: Final = {"ttft": "ttft_ms", "tpot": "tpot_ms", "itl": "itl_ms", "e2e_latency": "e2e_ms"}


def is_sglang(obj: object) -> bool:
    return isinstance(obj, dict) and (
        "total_output_tokens_retokenized" in obj
        or ("mean_e2e_latency_ms" in obj and "dataset_name" in obj)
        or ("median_e2e_latency_ms" in obj and "dataset_name" in obj)
    )


def parse_lines(payload: Any, progress: ProgressFn | None = None) -> ParsedResult:
    """JSON Lines of runs, one a line (a lone object: a file of one line)."""
    objs = payload if isinstance(payload, list) else [payload]
    return combine_runs(parse_each(objs, lambda _, obj: parse_one(obj), progress), "run")


def parse_one(obj: Mapping[str, Any]) -> ParsedResult:
    b = Builder(FORMAT_ID, FORMAT_NAME)
    if not isinstance(obj, Mapping):
        raise b.error(f"{FORMAT_NAME}: every line must be a JSON object")
    completed = b.int_(obj, "completed")
    rate_raw = obj.get("request_rate")
    request_rate = None
    if isinstance(rate_raw, float) and math.isinf(rate_raw) and rate_raw > 0:
        b.note("request_rate is Infinity: all prompts were sent at t=0 (burst load)")
        b.extra["request_rate"] = "inf"
    elif isinstance(rate_raw, str) and rate_raw.strip().lower() in {"inf", "infinity"}:
        b.note("request_rate is inf: all prompts were sent at t=0 (burst load)")
    else:
        request_rate = b.num(obj, "request_rate", "rate")
    file_pct: dict[str, Percentiles | None] = {}
    for fam, name in FAMILIES.items():
        p50 = b.num(obj, f"median_{fam}_ms", "ms")
        file_pct[name] = maybe_percentiles(
            p50,
            b.num(obj, f"p95_{fam}_ms", "ms"),
            b.num(obj, f"p99_{fam}_ms", "ms"),
            b.num(obj, f"mean_{fam}_ms", "ms"),
        )
    in_total = b.int_(obj, "total_input_tokens")
    out_total = b.int_(obj, "total_output_tokens")
    retok = b.int_(obj, "total_output_tokens_retokenized")
    if retok is not None:
        b.extra["total_output_tokens_retokenized"] = retok
        if out_total and abs(retok - out_total) > 0.01 * out_total:
            b.note(
                f"server-reported output tokens ({out_total}) and re-tokenized count ({retok}) "
                "differ by more than 1%"
            )
    samples, pooled = _per_request(obj, b)
    metrics_pct = dict(file_pct)
    failed = None
    if samples is not None:
        rec = summarize_samples(samples, pooled)
        for name in FAMILIES.values():
            if rec[name] is not None:
                compare_percentiles(b.discrepancies, name, file_pct[name], rec[name])
                metrics_pct[name] = rec[name]
        compare(b.discrepancies, "requests_completed", completed, rec["requests_completed"])
        failed = rec["requests_failed"]
    else:
        b.note("SGLang does not record failed requests (no 'failed' key, no per-request errors)")
    throughputs = {
        key: b.num(obj, key, "rate")
        for key in (
            "request_throughput",
            "input_throughput",
            "output_throughput",
            "total_throughput",
        )
    }
    if completed == 0:
        b.note("completed == 0: every request failed; statistics are not reported")
        metrics_pct = dict.fromkeys(FAMILIES.values())
        throughputs = dict.fromkeys(throughputs)
        b.extra["outcome"] = NO_SUCCESSFUL_REQUESTS
    if metrics_pct.get("itl_ms") is not None:
        b.note("ITL is the gap between streamed chunks pooled over all requests (not per token)")
    measured = b.num(obj, "concurrency", "count")
    if measured is not None:
        b.extra["mean_in_flight_requests"] = measured
    server = _server_args(obj.get("server_info"))
    model = (
        to_str(obj.get("model_id")) or to_str(obj.get("model")) or to_str(server.get("model_path"))
    )
    version = to_str(server.get("version"))
    if isinstance(obj.get("server_info"), dict) and "prefill" in obj["server_info"]:
        b.note("prefill/decode disaggregated (PD) deployment")
    b.extra.update(scalars(obj, skip=PER_REQUEST_KEYS))
    if server:  # `server_info` is SGLang's own /get_server_info (null for other servers)
        b.extra["serving_engine"] = "SGLang"
        if version:
            b.extra["server_version"] = version[:60]
    for key in SERVER_PRECISION_KEYS:  # what the server ran at, as its arguments say
        if isinstance(value := server.get(key), str) and value.strip():
            b.extra[f"server_{key}"] = value.strip()[:60]
    for key, name in SERVER_TOPOLOGY_KEYS.items():
        if isinstance(value := server.get(key), int) and not isinstance(value, bool):
            b.extra[name] = value
    if "request_rate" in b.extra and request_rate is None:
        b.extra["request_rate"] = "inf"
    metrics = Metrics(
        requests_completed=completed,
        requests_failed=failed,
        duration_s=b.num(obj, "duration", "s"),
        request_throughput_rps=throughputs["request_throughput"],
        output_tokens_per_s=throughputs["output_throughput"],
        total_tokens_per_s=throughputs["total_throughput"],
        input_tokens_per_s=throughputs["input_throughput"],
        input_tokens_total=in_total,
        output_tokens_total=out_total,
        concurrency=b.num(obj, "max_concurrency", "count"),
        request_rate=request_rate,
        ttft_ms=metrics_pct["ttft_ms"],
        itl_ms=metrics_pct["itl_ms"],
        tpot_ms=metrics_pct["tpot_ms"],
        e2e_ms=metrics_pct["e2e_ms"],
    )
    return b.result(metrics, model=model, tool_version=version, per_request=samples)


def _server_args(info: object) -> Mapping[str, Any]:
    """SGLang's server arguments: `server_info` itself, or in a prefill/decode (PD) deployment
    the first prefill server's (else the decode or internal-state entry that names a model)."""
    if not isinstance(info, Mapping):
        return {}
    if "model_path" in info:
        return info
    for part in ("prefill", "decode", "internal_states"):
        entries = info.get(part)
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, Mapping) and to_str(entry.get("model_path")):
                return entry
    return {}


def _per_request(
    obj: Mapping[str, Any], b: Builder
) -> tuple[RequestSamples | None, FloatArray | None]:
    ttfts = obj.get("ttfts")
    if not isinstance(ttfts, list) or not ttfts:
        return None, None
    n = len(ttfts)

    def arr(key: str, kind: str, scale: float = 1.0) -> FloatArray | None:
        value = obj.get(key)
        if value is None:
            return None
        out = b.wrap(lambda: float_array(value, b.where(key), kind, scale=scale))
        if out.shape[0] != n:
            raise b.error(f"{FORMAT_NAME}: '{key}' has {out.shape[0]} entries, 'ttfts' has {n}")
        return out

    ttft = arr("ttfts", "s", 1000.0)
    if ttft is None:
        return None, None
    in_lens = arr("input_lens", "count")
    out_lens = arr("output_lens", "count")
    errors = obj.get("errors")
    if isinstance(errors, list) and len(errors) == n:
        success = np.fromiter((not e for e in errors), dtype=np.bool_, count=n)
    else:
        success = np.ones(n, dtype=np.bool_)
    pooled = None
    itl_mean = np.full(n, np.nan)
    e2e = np.full(n, np.nan)
    itls = obj.get("itls")
    if isinstance(itls, list):
        pooled, itl_mean, sums = pooled_itls(itls, n, success, b)
        e2e = ttft + sums
        b.note("SGLang per-request data has no latencies: e2e = ttft + sum(itls)")
    out_tok = out_lens if out_lens is not None else np.full(n, np.nan)
    tpot = tpot_from(e2e, ttft, out_tok)
    b.note(f"percentiles recomputed from {n} per-request records (--output-details)")
    return (
        RequestSamples(
            ttft_ms=ttft,
            e2e_ms=e2e,
            itl_ms=itl_mean,
            input_tokens=in_lens if in_lens is not None else np.full(n, np.nan),
            output_tokens=out_tok,
            success=success,
            tpot_ms=tpot,
        ),
        pooled,
    )


FORMATS: Final = (
    Format(
        FORMAT_ID,
        FORMAT_NAME,
        "'total_output_tokens_retokenized' or mean_e2e_latency_ms + dataset_name",
        parse_lines,
        is_sglang,
        JSON_OBJECT,
        50,
    ),
)
