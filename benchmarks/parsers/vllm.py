"""vLLM benchmark results: serving (old/new key sets, sweep, JSON Lines), latency, throughput."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np

from ._head import FlatLists
from ._util import (
    Builder,
    ProgressFn,
    check_array,
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
from .registry import JSON_LIST, JSON_OBJECT, Format
from .types import FloatArray, Metrics, ParsedResult, Percentiles, RequestSamples

SERVE_ID: Final = "vllm-serve"
SERVE_NAME: Final = "vLLM serving benchmark (JSON)"
SWEEP_ID: Final = "vllm-sweep"
#: what a run in which every request failed records instead of throughput figures
NO_SUCCESSFUL_REQUESTS: Final = "no successful requests"
SWEEP_NAME: Final = "vLLM bench sweep summary (JSON array)"
PYTORCH_ID: Final = "vllm-pytorch"
PYTORCH_NAME: Final = "vLLM benchmark, PyTorch OSS benchmark format (JSON)"

PER_REQUEST_KEYS: Final = frozenset(
    {
        "input_lens",
        "output_lens",
        "ttfts",
        "itls",
        "latencies",
        "start_times",
        "queue_times",
        "generated_texts",
        "errors",
    }
)
FAMILIES: Final = {"ttft": "ttft_ms", "tpot": "tpot_ms", "itl": "itl_ms", "e2el": "e2e_ms"}


# ----------------------------------------------------------------------------- detection


def normalise_keys(obj: Mapping[str, Any]) -> dict[str, Any]:
    """Strip the trailing ':' of ``"request_goodput:"`` (≈v0.6.4-0.8 typo) and similar."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        clean = key.rstrip(":") if isinstance(key, str) else key
        if clean not in out or clean == key:
            out[clean] = value
    return out


def is_serve(obj: object) -> bool:
    if not isinstance(obj, dict):
        return False
    thr = obj.get("request_throughput")
    numeric = isinstance(thr, int | float) and not isinstance(thr, bool)
    has_latency = "mean_ttft_ms" in obj or "output_throughput" in obj or "mean_e2el_ms" in obj
    has_count = "completed" in obj or "num_prompts" in obj
    return numeric and has_latency and has_count


def is_sweep_summary(obj: object) -> bool:
    return isinstance(obj, list) and bool(obj) and all(is_serve(x) for x in obj)


def is_pytorch(obj: object) -> bool:
    if not isinstance(obj, list) or not obj:
        return False
    first = obj[0]
    return (
        isinstance(first, dict)
        and isinstance(first.get("benchmark"), dict)
        and isinstance(first.get("metric"), dict)
        and "benchmark_values" in first["metric"]
    )


# ----------------------------------------------------------------------------- serving


def parse_serve(payload: Any, progress: ProgressFn | None = None) -> ParsedResult:
    """One serving result, or JSON Lines of them (``--append-result``)."""
    if not isinstance(payload, list):
        return _serve(payload, Builder(SERVE_ID, SERVE_NAME), progress)
    runs = parse_each(
        payload, lambda _, o: _serve(o, Builder(SERVE_ID, SERVE_NAME), None), progress
    )
    return combine_runs(runs, "run", ["JSON Lines file (vLLM --append-result): one run per line"])


def parse_sweep(objs: Sequence[Mapping[str, Any]], progress: ProgressFn | None) -> ParsedResult:
    runs = parse_each(objs, lambda _, o: _serve(o, Builder(SWEEP_ID, SWEEP_NAME), None), progress)
    return combine_runs(runs, "sweep run")


def parse_pytorch(objs: Sequence[Any], progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(PYTORCH_ID, PYTORCH_NAME)
    flat: dict[str, Any] = {}
    for i, item in enumerate(objs):
        if not isinstance(item, dict):
            raise b.error(f"{PYTORCH_NAME}: item {i} is not an object")
        metric = item.get("metric")
        if not isinstance(metric, dict) or not isinstance(metric.get("name"), str):
            raise b.error(f"{PYTORCH_NAME}: item {i} has no metric.name")
        values = metric.get("benchmark_values")
        if isinstance(values, list) and values:
            flat[metric["name"]] = values[0]
        model = item.get("model")
        if isinstance(model, dict) and "model_id" not in flat:
            flat["model_id"] = model.get("name")
    b.note("PyTorch OSS benchmark format: only the first benchmark value of each metric is used")
    return _serve(flat, b, progress, require=False)


def _serve(
    raw: Mapping[str, Any], b: Builder, progress: ProgressFn | None, require: bool = True
) -> ParsedResult:
    if not isinstance(raw, Mapping):
        raise b.error(f"{b.format_name}: expected a JSON object")
    obj = normalise_keys(raw)
    if require and not is_serve(obj):
        raise b.error(
            f"{b.format_name}: missing required keys (numeric request_throughput, "
            "mean_ttft_ms or output_throughput, completed or num_prompts)"
        )
    completed = b.int_(obj, "completed")
    failed = b.int_(obj, "failed")
    duration = b.num(obj, "duration", "s")
    rate_raw = obj.get("request_rate")
    request_rate: float | None = None
    if isinstance(rate_raw, str) and rate_raw.strip().lower() in {"inf", "infinity"}:
        b.note("request_rate is inf: all prompts were sent at t=0 (closed-loop/burst load)")
    elif isinstance(rate_raw, float) and math.isinf(rate_raw):
        b.note("request_rate is Infinity: all prompts were sent at t=0 (burst load)")
    else:
        request_rate = b.num(obj, "request_rate", "rate")
    concurrency = b.num(obj, "max_concurrency", "count")
    if "max_concurrency" in obj and obj.get("max_concurrency") is None:
        b.note("max_concurrency is null: concurrency was not limited")
    total_tok_s = b.num(obj, "total_token_throughput", "rate")
    out_tok_s = b.num(obj, "output_throughput", "rate")
    in_tok_s = b.num(obj, "input_throughput", "rate")
    if total_tok_s is None and in_tok_s is not None and out_tok_s is not None:
        total_tok_s = in_tok_s + out_tok_s
        b.note("old file: total_token_throughput computed as input_throughput + output_throughput")
    file_pct = {name: _file_percentiles(b, obj, fam) for fam, name in FAMILIES.items()}
    old_e2e = _file_percentiles(b, obj, "latency")  # 2024 files: mean/median/p99_latency_ms
    if old_e2e is not None:
        if file_pct["e2e_ms"] is None:
            file_pct["e2e_ms"] = old_e2e
            b.note("end-to-end latency read from the 2024 keys *_latency_ms")
        else:
            compare_percentiles(
                b.discrepancies, "e2e_ms (file *_latency_ms)", file_pct["e2e_ms"], old_e2e
            )

    samples, pooled_itl = _per_request(obj, b)
    if progress is not None:
        progress(0.7)
    if failed is None and samples is not None:
        failed = int((~samples.success).sum())
    elif failed is None:
        num_prompts = b.int_(obj, "num_prompts")
        if num_prompts is not None and completed is not None and num_prompts >= completed:
            failed = num_prompts - completed
            b.note(
                "no 'failed' key (pre-Oct-2025 file): failed = num_prompts - completed (approx.)"
            )

    metrics_pct: dict[str, Percentiles | None] = dict(file_pct)
    in_total = b.int_(obj, "total_input_tokens")
    out_total = b.int_(obj, "total_output_tokens")
    if samples is not None:
        rec = summarize_samples(samples, pooled_itl)
        for name in FAMILIES.values():
            if rec[name] is not None:
                compare_percentiles(b.discrepancies, name, file_pct[name], rec[name])
                metrics_pct[name] = rec[name]
        compare(b.discrepancies, "requests_completed", completed, rec["requests_completed"])
        if samples.success.shape[0] and not np.isnan(samples.input_tokens).all():
            compare(b.discrepancies, "input_tokens_total", in_total, rec["input_tokens_total"])
        if samples.success.shape[0] and not np.isnan(samples.output_tokens).all():
            compare(
                b.discrepancies,
                "output_tokens_total",
                out_total,
                rec["output_tokens_total"],
            )
        if completed is None or b.extra.get("no_token_requests"):
            completed = rec["requests_completed"]
            failed = rec["requests_failed"]
    request_tput = b.num(obj, "request_throughput", "rate")
    if completed == 0:
        b.note(
            "completed == 0: every request failed; the file's statistics are 0.0 placeholders "
            "and are not reported"
        )
        metrics_pct = dict.fromkeys(FAMILIES.values())
        # No successful request measured no throughput: 0.0 would read as a measured zero.
        request_tput = out_tok_s = total_tok_s = None
        b.extra["outcome"] = NO_SUCCESSFUL_REQUESTS
    if not any(k in obj for k in ("mean_ttft_ms", "median_ttft_ms")) and samples is None:
        b.note("no TTFT/TPOT/ITL statistics (pooling run or --skip-tokenizer-init)")
    if metrics_pct.get("itl_ms") is not None:
        b.note("ITL is the gap between streamed chunks pooled over all requests (not per token)")
    if metrics_pct.get("tpot_ms") is not None:
        b.note("TPOT excludes the first token: (latency - ttft) / (output_tokens - 1), per request")
    goodput = b.num(obj, "request_goodput", "rate")
    if goodput is not None:
        b.extra["request_goodput_rps"] = goodput
    b.extra.update(scalars(obj, skip=PER_REQUEST_KEYS))
    if "run_number" in obj:
        b.note(f"from `vllm bench sweep` (run_number {obj.get('run_number')!r})")
    metrics = Metrics(
        requests_completed=completed,
        requests_failed=failed,
        duration_s=duration,
        request_throughput_rps=request_tput,
        output_tokens_per_s=out_tok_s,
        total_tokens_per_s=total_tok_s,
        input_tokens_total=in_total,
        output_tokens_total=out_total,
        concurrency=concurrency,
        request_rate=request_rate,
        ttft_ms=metrics_pct["ttft_ms"],
        itl_ms=metrics_pct["itl_ms"],
        tpot_ms=metrics_pct["tpot_ms"],
        e2e_ms=metrics_pct["e2e_ms"],
    )
    return b.result(
        metrics,
        model=to_str(obj.get("model_id")),
        tool_version=to_str(obj.get("vllm_version")),
        per_request=samples,
    )


def _file_percentiles(b: Builder, obj: Mapping[str, Any], family: str) -> Percentiles | None:
    def get(key: str) -> float | None:
        return b.num(obj, key, "ms")

    p50 = get(f"p50_{family}_ms")
    if p50 is None:
        p50 = get(f"median_{family}_ms")
    return maybe_percentiles(
        p50, get(f"p95_{family}_ms"), get(f"p99_{family}_ms"), get(f"mean_{family}_ms")
    )


def _per_request(
    obj: Mapping[str, Any], b: Builder
) -> tuple[RequestSamples | None, FloatArray | None]:
    has_ttfts = isinstance(obj.get("ttfts"), list | np.ndarray)
    has_lat = isinstance(obj.get("latencies"), list | np.ndarray)
    if not has_ttfts and not has_lat:
        return None, None
    anchor = "ttfts" if has_ttfts else "latencies"
    n = len(obj[anchor])
    if n == 0:
        return None, None

    def arr(key: str, kind: str, scale: float = 1.0) -> FloatArray | None:
        value = obj.get(key)
        if value is None:
            return None
        if isinstance(value, np.ndarray):  # decoded straight from the file's bytes
            b.wrap(lambda: check_array(value, b.where(key), kind, allow_nan=False))
            out = value * scale if scale != 1.0 else value
        else:
            out = b.wrap(lambda: float_array(value, b.where(key), kind, scale=scale))
        if out.shape[0] != n:
            raise b.error(
                f"{b.format_name}: per-request array '{key}' has {out.shape[0]} entries, "
                f"'{anchor}' has {n}"
            )
        return out

    ttft = arr("ttfts", "s", 1000.0)
    latency = arr("latencies", "s", 1000.0)
    in_lens = arr("input_lens", "count")
    out_lens = arr("output_lens", "count")
    starts = arr("start_times", "any")
    errors = obj.get("errors")
    if isinstance(errors, list):
        if len(errors) != n:
            raise b.error(
                f"{b.format_name}: 'errors' has {len(errors)} entries, '{anchor}' has {n}"
            )
        success = np.fromiter((not e for e in errors), dtype=np.bool_, count=n)
    elif out_lens is not None:
        success = out_lens > 0
        b.note("no 'errors' array: requests with output_lens == 0 are treated as failed")
    else:
        success = np.ones(n, dtype=np.bool_)
    itl_mean = np.full(n, np.nan)
    pooled: FloatArray | None = None
    itls = obj.get("itls")
    if isinstance(itls, list | FlatLists):
        pooled, itl_mean, itl_sum = pooled_itls(itls, n, success, b)
        if latency is None and ttft is not None:
            latency = ttft + itl_sum
            b.note("no per-request 'latencies': e2e = ttft + sum(itls)")
    elif itls is not None:
        raise b.error(f"{b.format_name}: 'itls' must be a list of lists")
    nan = np.full(n, np.nan)
    success = _no_token_failed(
        b, success, ttft, itl_mean, out_lens, isinstance(itls, list | FlatLists)
    )
    ttft_ms = ttft if ttft is not None else nan
    e2e_ms = latency if latency is not None else nan.copy()
    out_tok = out_lens if out_lens is not None else nan.copy()
    tpot = tpot_from(e2e_ms, ttft_ms, out_tok)
    samples = RequestSamples(
        ttft_ms=ttft_ms,
        e2e_ms=e2e_ms,
        itl_ms=itl_mean,
        input_tokens=in_lens if in_lens is not None else nan.copy(),
        output_tokens=out_tok,
        success=success,
        tpot_ms=tpot,
        start_s=starts,
    )
    b.note(f"percentiles recomputed from {n} per-request records (failed requests excluded)")
    return samples, pooled


def _no_token_failed(
    b: Builder,
    success: np.ndarray,
    ttft: FloatArray | None,
    itl_mean: FloatArray,
    out_lens: FloatArray | None,
    has_itls: bool,
) -> np.ndarray:
    """A request that produced no token (TTFT 0, no gaps, or 0 output tokens) failed."""
    no_token = np.zeros_like(success)
    if ttft is not None and has_itls:
        no_token |= (ttft <= 0.0) & np.isnan(itl_mean)
    if out_lens is not None:
        no_token |= out_lens == 0
    no_token &= success
    count = int(no_token.sum())
    if count:
        b.extra["no_token_requests"] = count
        b.note(
            f"{count} request(s) produced no token but carry no error: counted as failed, not "
            "as 0 ms successes (the file's own TTFT/latency statistics include them)"
        )
        failed_removed: np.ndarray = success & ~no_token
        return failed_removed
    return success


def pooled_itls(
    itls: list[Any] | FlatLists, n: int, success: np.ndarray, b: Builder
) -> tuple[FloatArray, FloatArray, FloatArray]:
    if len(itls) != n:
        raise b.error(f"{b.format_name}: 'itls' has {len(itls)} entries, expected {n}")
    if isinstance(itls, FlatLists):
        return _pool(itls.flat, itls.counts, n, success, b)
    if not all(isinstance(x, list) for x in itls):
        raise b.error(f"{b.format_name}: every 'itls' entry must be a list of seconds")
    counts = np.fromiter(map(len, itls), dtype=np.int64, count=n)
    total = int(counts.sum())
    try:
        flat = np.fromiter(itertools.chain.from_iterable(itls), dtype=np.float64, count=total)
    except (TypeError, ValueError, OverflowError):
        flat = np.array(
            [b.value(v, "itls[]", "s") for v in itertools.chain.from_iterable(itls)],
            dtype=np.float64,
        ).reshape(-1)
        if np.isnan(flat).any():
            raise b.error(f"{b.format_name}: field 'itls' holds null values") from None
    if any(isinstance(v, bool) for row in itls[:50] for v in row):
        raise b.error(f"{b.format_name}: field 'itls' holds booleans, expected seconds")
    return _pool(flat, counts, n, success, b)


def _pool(
    flat: FloatArray, counts: np.ndarray, n: int, success: np.ndarray, b: Builder
) -> tuple[FloatArray, FloatArray, FloatArray]:
    total = int(flat.shape[0])
    b.wrap(lambda: check_array(flat, b.where("itls"), "s", allow_nan=False))
    flat_ms = flat * 1000.0
    sums = np.zeros(n)
    filled = counts > 0
    if total:
        starts = np.cumsum(counts) - counts
        sums[filled] = np.add.reduceat(flat_ms, starts[filled])
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(filled, sums / np.maximum(counts, 1), np.nan)
    if total and not success.all():
        flat_ms = flat_ms[np.repeat(success, counts)]
    return flat_ms, means, sums


FORMATS: Final = (
    Format(
        SERVE_ID,
        SERVE_NAME,
        "numeric request_throughput + mean_ttft_ms/output_throughput + completed/num_prompts",
        parse_serve,
        lambda o: is_serve(normalise_keys(o)),
        JSON_OBJECT,
        60,
    ),
    Format(
        SWEEP_ID,
        SWEEP_NAME,
        "array of vLLM serving results",
        parse_sweep,
        lambda items: is_sweep_summary(
            [normalise_keys(x) if isinstance(x, dict) else x for x in items]
        ),
        JSON_LIST,
        20,
    ),
    Format(
        PYTORCH_ID,
        PYTORCH_NAME,
        "array of {benchmark, model, metric{benchmark_values}}",
        parse_pytorch,
        is_pytorch,
        JSON_LIST,
        30,
    ),
)
