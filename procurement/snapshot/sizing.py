"""Per quote: memory fit (GPUs per replica) and performance, measured or estimated.

Pure: no Django.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Final, Literal

from core.values import finite_or_none
from engine import fitted
from engine.errors import EngineInputError
from engine.memory.fit import (
    GpuSpec,
)
from engine.performance import InferencePerfInput, estimate_inference, peak_dense_tflops
from engine.serving_engines import canonical, prefix_caching
from procurement.snapshot import evidence
from procurement.snapshot.context import Context, rounded
from procurement.snapshot.facts import EngineExtras, PerfFacts
from procurement.snapshot.ledger import ledger_pairs
from procurement.snapshot.memory import model_of
from procurement.snapshot.schema import AcceleratorRow, FrozenResult, QuoteRow
from procurement.snapshot.workload import tokens_per_request

# The figures a row shows rounded to 0.001 (the throughput and the latencies).
ROUNDED: Final[
    tuple[
        Literal["tokens_per_s", "roofline_tokens_per_s", "ttft_p95_ms", "itl_p95_ms", "e2e_p99_ms"],
        ...,
    ]
] = (
    "tokens_per_s",
    "roofline_tokens_per_s",
    "ttft_p95_ms",
    "itl_p95_ms",
    "e2e_p99_ms",
)


def _estimate(
    ctx: Context,
    gpu: GpuSpec,
    gpus: int,
    cached: float = 0.0,
    shape: tuple[int, int, str] | None = None,
) -> PerfFacts:
    """The roofline estimate at the brief's p95 request and concurrency (or why not), with
    ``cached`` of the input found in the prefix cache; ``shape`` (input and output tokens,
    weight precision) replaces the brief's request."""
    brief = ctx.brief
    tokens_in = int(brief.get("p95_input_tokens") or 1)
    tokens_out = int(brief.get("p95_output_tokens") or 1)
    precision = brief["weight_precision"]
    if shape is not None:
        tokens_in, tokens_out, precision = shape
    try:
        est = estimate_inference(
            InferencePerfInput(
                model=model_of(ctx),
                gpu=gpu,
                weight_precision=precision,
                kv_precision=brief["kv_precision"],
                input_tokens=tokens_in,
                output_tokens=tokens_out,
                concurrency=int(brief.get("concurrency") or brief.get("batch_size") or 1),
                gpus=gpus,
                memory_efficiency=float(ctx.a["memory_efficiency"]),
                compute_efficiency=float(ctx.a["compute_efficiency"]),
                cached_input_share=cached,
            )
        )
    except EngineInputError as exc:
        return {"error": f"cannot estimate: {exc.message}"}
    return {
        "tokens_per_s": est.output_tokens_per_s,
        "ttft_p95_ms": est.ttft_ms,
        "itl_p95_ms": est.itl_ms,
        "e2e_p99_ms": est.e2e_ms,
        "bound": est.bound,
    }


def estimate(ctx: Context, gpu: GpuSpec, gpus: int, cached: float = 0.0) -> PerfFacts:
    """`_estimate`, once per snapshot for each accelerator shape, GPU count and cached share
    (shared by the rows: read it, or copy it into a row's facts)."""
    return ctx.memo(("estimate", gpu, gpus, cached), lambda: _estimate(ctx, gpu, gpus, cached))


def estimate_at(ctx: Context, gpu: GpuSpec, gpus: int, shape: tuple[int, int, str]) -> PerfFacts:
    """`_estimate` at another request shape, once per snapshot."""
    return ctx.memo(
        ("estimate", gpu, gpus, 0.0, shape), lambda: _estimate(ctx, gpu, gpus, 0.0, shape)
    )


# The serving software a fitted row is read with when the brief names none: what MLPerf
# Inference v4.1 submitters ran on each vendor's cards (TensorRT-LLM on NVIDIA, vLLM on AMD).
DEFAULT_SOFTWARE = {"amd": "vllm"}
SOFTWARE_NAMES = dict.fromkeys(("trt-llm", "tensorrtllm", "tensorrt"), "tensorrt-llm")


def _software(ctx: Context, acc: AcceleratorRow) -> str:
    named = str(ctx.brief.get("serving_engine") or "").strip().lower().replace("_", "-")
    if named and ctx.fitted_version == fitted.VERSIONS[0]:
        return SOFTWARE_NAMES.get(named, named)  # as engine 1.8.0 read the name
    if named:
        return canonical(named)  # "vllm-openai" is vLLM: its largest batch applies
    return DEFAULT_SOFTWARE.get(str(acc.get("vendor") or "").lower(), "tensorrt-llm")


def _tpot_limit(ctx: Context) -> float | None:
    """The brief's per-token latency target, the limit a latency-bound batch must keep."""
    itl = finite_or_none(ctx.brief.get("itl_p95_ms"))
    return float(itl) if itl else None


def fitted_case(
    ctx: Context,
    acc: AcceleratorRow,
    gpu: GpuSpec,
    gpus: int,
    shape: tuple[float, float, str] | None = None,
) -> fitted.Case:
    """The fitted estimator's case for a row: at the brief's mean request (the one the cost
    uses, E13) unless ``shape`` (input, output tokens, weight precision) says otherwise."""
    tokens_in, tokens_out = tokens_per_request(ctx.brief)
    precision = ctx.brief["weight_precision"]
    if shape is not None:
        tokens_in, tokens_out, precision = shape
    peak, _ = peak_dense_tflops(gpu, precision)
    return fitted.case_for(
        model_of(ctx),
        gpu,
        weight_precision=precision,
        kv_precision=ctx.brief["kv_precision"],
        peak_tflops=peak,
        gpus=gpus,
        input_tokens=tokens_in or 1.0,
        output_tokens=tokens_out or 1.0,
        tpot_limit_ms=_tpot_limit(ctx),
        group=fitted.group_of(str(acc.get("architecture") or ""), _software(ctx, acc)),
        tdp_w=float(acc.get("tdp_w") or 700.0),
        max_requests=float(ctx.brief.get("concurrency") or ctx.brief.get("batch_size") or 0),
    )


def _family(acc: AcceleratorRow) -> str:
    return fitted.group_of(str(acc.get("architecture") or ""), "").rstrip("/") or acc["slug"]


def fitted_estimate(
    ctx: Context, acc: AcceleratorRow, gpu: GpuSpec, gpus: int, cached: float = 0.0
) -> PerfFacts:
    """The fitted throughput per replica at the brief's mean request, its regime, its
    p10–p90 factors (the fit's out-of-sample error in that regime, P7) and the error group
    rows of one model of error share (engine/montecarlo/throughput_error.py); {} when the
    accelerator lacks a figure the fit reads."""

    version = ctx.fitted_version or fitted.CURRENT

    def build() -> PerfFacts:
        if not gpu.memory_bandwidth_tbps:
            return {}  # the fit reads the bandwidth: the roofline's own error says what is missing
        try:
            found = fitted.estimate(fitted_case(ctx, acc, gpu, gpus), version=version)
        except EngineInputError:
            return {}
        if not (found.tokens_per_gpu_s > 0 and math.isfinite(found.tokens_per_gpu_s)):
            return {}
        low, high = fitted.regime_band(found.regime, version)
        return {
            "tokens_per_s": found.tokens_per_gpu_s * gpus,
            "estimate": {
                "estimator": "fitted",
                "regime": found.regime,
                "band": [min(1.0, low), max(1.0, high)],
                "error_group": (f"{fitted.estimator_name(version)}:{found.regime}|{_family(acc)}"),
                "request": list(tokens_per_request(ctx.brief)),
            },
        }

    facts = ctx.memo(("fitted", acc["slug"], gpu, gpus), build)
    out = facts.copy()
    if out and cached > 0:
        # the fit has no prefix cache: the roofline's share of GPU time the cache saves
        factor, _ = _cache_factor(ctx, gpu, gpus, cached)
        out["tokens_per_s"] = float(out.get("tokens_per_s") or 0.0) * factor
    return out


def _fitted_shape(
    ctx: Context,
    acc: AcceleratorRow,
    gpu: GpuSpec,
    gpus: int,
    result: FrozenResult,
    bench: tuple[float, float, str],
) -> tuple[float, str]:
    """`published_shape` on the fitted estimator (engine 1.8.0 on): its own ratio between the
    brief's mean request under the brief's TPOT target and the benchmark's request under the
    scenario's TPOT limit, at the result's precision."""
    tokens_in, tokens_out = tokens_per_request(ctx.brief)
    limit = finite_or_none(result.get("tpot_limit_ms"))
    mine = (round(tokens_in), round(tokens_out))
    theirs = (round(bench[0]), round(bench[1]))
    if mine == theirs and _tpot_limit(ctx) == limit:
        return 1.0, f"at the benchmark's own request shape ({theirs[0]:,} in, {theirs[1]:,} out)"
    try:
        case = replace(fitted_case(ctx, acc, gpu, gpus, bench), tpot_limit_ms=limit)
        factor = fitted.shape_ratio(
            case,
            tokens_in or 1.0,
            tokens_out or 1.0,
            _tpot_limit(ctx),
            version=ctx.fitted_version or fitted.CURRENT,
        )
    except EngineInputError:
        factor = 0.0
    if not (factor > 0 and math.isfinite(factor)):
        return 1.0, (
            "the fitted estimate cannot scale it to the brief's request: the published "
            "throughput is kept"
        )
    return factor, (
        f"scaled ×{factor:.3f} from the benchmark's request ({theirs[0]:,} in, {theirs[1]:,} "
        f"out) to the brief's mean request ({mine[0]:,} in, {mine[1]:,} out): the fitted "
        "estimate's ratio between the two"
    )


def published_shape(
    ctx: Context, gpu: GpuSpec, gpus: int, result: FrozenResult, acc: AcceleratorRow | None = None
) -> tuple[float, str]:
    """(a published throughput × this, in words): the estimator's own ratio between the
    brief's request (p95 input and output, as the estimate reads it) and the benchmark's
    (its mean output per sample, its stated input), both at the result's precision and the
    brief's concurrency, so only the request shape moves the published figure."""
    tokens_in = finite_or_none(result.get("input_tokens_mean"))
    tokens_out = finite_or_none(result.get("output_tokens_mean"))
    if not tokens_in or not tokens_out:
        return 1.0, "its request shape is not recorded: the published throughput is kept"
    precision = result.get("precision") or ctx.brief["weight_precision"]
    if ctx.fitted and acc is not None:
        return _fitted_shape(ctx, acc, gpu, gpus, result, (tokens_in, tokens_out, precision))
    brief_shape = (
        int(ctx.brief.get("p95_input_tokens") or 1),
        int(ctx.brief.get("p95_output_tokens") or 1),
        precision,
    )
    bench_shape = (round(tokens_in), round(tokens_out), precision)
    if brief_shape == bench_shape:
        return (
            1.0,
            f"at the benchmark's own request shape ({bench_shape[0]:,} in, {bench_shape[1]:,} out)",
        )
    mine, bench = (
        estimate_at(ctx, gpu, gpus, shape).get("tokens_per_s")
        for shape in (brief_shape, bench_shape)
    )
    if not (mine and bench):
        return (
            1.0,
            "the roofline cannot scale it to the brief's request: the published throughput is kept",
        )
    factor = float(mine) / float(bench)
    return factor, (
        f"scaled ×{factor:.3f} from the benchmark's request ({bench_shape[0]:,} in, "
        f"{bench_shape[1]:,} out) to the brief's ({brief_shape[0]:,} in, {brief_shape[1]:,} "
        "out): the roofline's ratio between the two"
    )


def _pct(share: float) -> str:
    return f"{round(share * 100, 1):g} %"


def prefix_cache(ctx: Context, result: FrozenResult | None) -> tuple[float, str]:
    """(the cached share of input tokens the row's prefill skips, what the row says).

    The row's serving engine is the brief's, else the engine its benchmark ran; the share
    counts only when that engine caches prefixes (engine/serving_engines.py)."""
    share = float(ctx.workload.cached_input_fraction or 0.0)
    if share <= 0:
        return 0.0, ""
    engine = str(ctx.brief.get("serving_engine") or "")
    version = str(ctx.brief.get("serving_engine_version") or "")
    if not engine and result is not None:
        engine = str(result.get("serving_engine") or "")
        version = str(result.get("engine_version") or "")
    found = prefix_caching(engine, version)
    if not found.applies:
        return 0.0, (
            f"not applied: {found.words}, so the cached share of input tokens "
            f"({_pct(share)}) lowers model-API prices only"
        )
    return share, (
        f"{found.words}: {_pct(share)} of input tokens found in the prefix cache, prefill "
        f"computed on the other {_pct(1 - share)}"
    )


def _cache_factor(ctx: Context, gpu: GpuSpec, gpus: int, share: float) -> tuple[float, str]:
    """(measured throughput × this, in words) for a cached share: the roofline's GPU time per
    request at the brief's shape with and without the cached prefill."""
    cached, full = estimate(ctx, gpu, gpus, share), estimate(ctx, gpu, gpus)
    with_cache, without = cached.get("tokens_per_s"), full.get("tokens_per_s")
    if not (with_cache and without):
        return 1.0, "; the measured throughput is kept (the roofline cannot split prefill here)"
    factor = float(with_cache) / float(without)
    return factor, (
        f"; measured throughput ×{factor:.3f}, the roofline's GPU time per request at the "
        "brief's shape without the cached prefill (the benchmark's prompts are read as "
        "sharing no prefix)"
    )


def inference_perf(
    ctx: Context, quote: QuoteRow, acc: AcceleratorRow, gpu: GpuSpec, gpus: int
) -> tuple[PerfFacts, EngineExtras]:
    """Throughput per replica and latency: from a benchmark that matches the brief's workload
    (measured, or proxy with its adjustment stated), else estimated (snapshot/evidence.py).
    The brief's cached share of input lowers prefill where the row's engine caches prefixes.

    Returns the row's performance facts and the engine-facing extras (spread widening,
    measured acceptance / failure, evidence key)."""
    perf: PerfFacts = {"throughput_source": "estimated", "latency_source": "estimated"}
    result, match, ignored = evidence.choose(ctx, quote, acc, gpus)
    share, caching = prefix_cache(ctx, result if match is not None else None)
    perf.update(estimate(ctx, gpu, gpus, share))
    extras = EngineExtras()
    if result is not None and match is not None:
        factor = 1.0
        if share > 0:
            factor, why = _cache_factor(ctx, gpu, gpus, share)
            caching += why
        shape = (1.0, "")
        if match.kind == "published":
            shape = published_shape(ctx, gpu, gpus, result, acc)
        extras = evidence.apply(ctx, perf, result, match, gpus, cache_factor=factor * shape[0])
        if shape[1]:
            perf["evidence"]["adjustments"].append(shape[1])
        if match.kind == "measured" and (pairs := ledger_pairs(ctx, result, gpu, gpus)):
            # calibration ledger (engine/calibration.py): one pair per operating point
            perf["calibration"] = {
                "model": ctx.model_row.get("name", ""),
                "precision": ctx.brief.get("weight_precision") or "",
                "workload_class": ctx.brief.get("workload_class") or "",
                "pairs": pairs,
            }
        extras.evidence_key = f"result:{result.get('result_id')}"
    else:
        model = ctx.model_row.get("slug", "")
        extras.evidence_key = f"estimate:{acc['slug']}:{model}"
        if ctx.fitted and (found := fitted_estimate(ctx, acc, gpu, gpus, share)):
            # the throughput is the fitted estimate at the mean request; the latencies stay
            # the roofline's at the p95 request (they meet p95 targets)
            perf["roofline_tokens_per_s"] = perf.get("tokens_per_s")
            perf["tokens_per_s"] = found["tokens_per_s"]
            perf["estimate"] = found["estimate"]
        perf["evidence"] = {"kind": "estimated", "reason": "no benchmark matches the brief"}
        perf["acceptance_source"] = "the brief's assumption"
        evidence.state_brief_rates(ctx, perf)
    if caching:
        perf["prefix_caching"] = caching
    if ignored:
        perf["ignored_evidence"] = ignored
    for key in ROUNDED:
        if (figure := perf.get(key)) is not None:
            perf[key] = rounded(float(figure), 3)
    return perf, extras
