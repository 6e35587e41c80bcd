"""Roofline performance estimates for inference, always flagged "estimated".

A measured benchmark result supersedes every figure here (PRODUCT.md "Performance":
"measured from benchmark results when present, otherwise a stated roofline estimate").
Units: ms, tokens/s, TB/s (1e12 bytes/s), TFLOPS (1e12 FLOP/s), dense datasheet peaks.

Inference, one model replica on ``gpus`` GPUs (weights and KV split as in ``memory_fit``),
``B`` concurrent sequences, prompt ``in`` (p95) and ``out`` output tokens::

    touched(B)    = 1 − (1 − active/total)^B     share of weight bytes a decode step reads
                                                  (dense: 1; MoE: B tokens routed at random
                                                  touch more experts as B grows)
    bytes/GPU     = weight_bytes × touched(B) / gpus + B × kv_bytes_per_seq(in + out/2) / kv_shards
    t_memory      = bytes/GPU / (memory_bandwidth × memory_efficiency)          (default 0.6)
    t_compute     = 2 × active_params × B / gpus / (peak_tflops × compute_efficiency)  (0.4)
    ITL = step    = max(t_memory, t_compute)  (memory-bound until batching makes it compute-bound)
    TTFT          = prefill of the p95 input's uncached tokens, in' = max(1, in × (1 − cached))
                  = max(2 × active_params × in' / gpus / (peak × compute_efficiency),
                        weight_bytes × touched(in') / gpus / (bandwidth × memory_efficiency))
    end-to-end    = TTFT + out × ITL
    decode tok/s  = B / ITL
    output tok/s  = B × out / (B × TTFT + out × ITL)    (prefill time counted as GPU time)

``cached`` is the share of input tokens an engine that caches prefixes finds in its KV cache
(vLLM's automatic prefix caching, SGLang's RadixAttention: engine/serving_engines.py): their
prefill is skipped, while their KV cache is still held and read (the decode terms keep the
whole context). 0 by default: every prompt is prefilled in full.

Not modelled (so the estimate is optimistic): queueing and prefill interference under load,
tail latency (the steady-state figure is compared directly with p95/p99 targets),
attention FLOPs (matter for long prefill), tensor-parallel all-reduce and pipeline bubbles.

Peak TFLOPS at a precision: fp4 → ``fp4_dense_tflops``; fp8 and int8 → ``fp8_dense_tflops``
(int8 tensor throughput equals fp8 on Hopper/Ada/Blackwell); both only when the accelerator
supports them, else bf16; bf16, fp16, int4 (weight-only, 16-bit activations) →
``bf16_dense_tflops``; fp32 → bf16 / 2 (TF32 dense is half of BF16 dense on A100/H100).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import EngineInputError
from engine.memory.fit import memory_fit
from engine.memory.spec import (
    GB,
    MAX_TOKENS,
    FitInput,
    GpuSpec,
    ModelSpec,
    checked_int,
    checked_real,
    kv_bytes_per_sequence,
    kv_shards,
    validate_gpu,
    validate_model,
)
from engine.precision import (
    bytes_per_value,
    hardware_support_note,
    is_supported_by,
    normalize_precision,
)

SOURCE_ESTIMATED = "estimated"
DEFAULT_MEMORY_EFFICIENCY = 0.6  # share of datasheet HBM bandwidth decode kernels achieve
DEFAULT_COMPUTE_EFFICIENCY = 0.4  # share of dense peak prefill / large-batch GEMMs achieve


@dataclass(frozen=True, slots=True)
class InferencePerfInput:
    """One replica serving ``concurrency`` sequences of ``input_tokens`` + ``output_tokens``."""

    model: ModelSpec
    gpu: GpuSpec
    weight_precision: str
    kv_precision: str
    input_tokens: int  # p95 prompt length
    output_tokens: int
    concurrency: int = 1
    gpus: int = 1  # GPUs per replica
    memory_efficiency: float = DEFAULT_MEMORY_EFFICIENCY
    compute_efficiency: float = DEFAULT_COMPUTE_EFFICIENCY
    compute_precision: str | None = None  # None: follows weight_precision
    cached_input_share: float = 0.0  # share of input tokens found in the prefix cache


@dataclass(frozen=True, slots=True)
class PerfEstimate:
    """A roofline estimate of inference on one replica."""

    mode: str  # "inference"
    gpus: int
    tokens_per_s_per_gpu: float  # output tokens
    concurrency: int | None = None
    bound: str | None = None  # decode: "memory_bandwidth" | "compute"
    ttft_ms: float | None = None
    itl_ms: float | None = None
    e2e_ms: float | None = None
    prefill_tokens_per_s: float | None = None
    decode_tokens_per_s: float | None = None
    output_tokens_per_s: float | None = None
    memory_max_concurrency: int | None = None
    assumptions: dict[str, object] | None = None
    notes: tuple[str, ...] = ()
    source: str = SOURCE_ESTIMATED


# --- helpers ------------------------------------------------------------------------------


def peak_dense_tflops(gpu: GpuSpec, precision: str) -> tuple[float, str]:
    """Dense peak TFLOPS the matmuls of ``precision`` run at, and which figure was used."""
    name = normalize_precision(precision, field="compute_precision")
    supported = gpu.supported_precisions
    if name == "fp4" and gpu.fp4_dense_tflops and is_supported_by("fp4", supported):
        return gpu.fp4_dense_tflops, "fp4_dense_tflops"
    if (
        name in ("fp4", "fp8", "int8")
        and gpu.fp8_dense_tflops
        and is_supported_by("fp8", supported)
    ):
        return gpu.fp8_dense_tflops, "fp8_dense_tflops"
    if gpu.bf16_dense_tflops is None:
        raise EngineInputError("bf16_dense_tflops", "is needed for a compute estimate")
    if name == "fp32":
        return gpu.bf16_dense_tflops / 2, "bf16_dense_tflops / 2 (TF32)"
    return gpu.bf16_dense_tflops, "bf16_dense_tflops"


def _active_params_b(model: ModelSpec) -> float:
    return model.active_params_b if model.active_params_b is not None else model.params_b


def _touched_share(model: ModelSpec, tokens: float) -> float:
    """Share of weight bytes read when ``tokens`` tokens pass through the model at once."""
    routed = _active_params_b(model) / model.params_b
    if routed >= 1:
        return 1.0
    return float(1 - (1 - routed) ** tokens)


def _check_inference(inp: InferencePerfInput) -> tuple[str, str, str, float]:
    """(weight, KV and compute precision ids, HBM TB/s) of a valid input."""
    validate_model(inp.model)
    validate_gpu(inp.gpu)
    weight_precision = normalize_precision(inp.weight_precision, field="weight_precision")
    kv_precision = normalize_precision(inp.kv_precision, field="kv_precision")
    compute = inp.compute_precision if inp.compute_precision is not None else weight_precision
    compute_precision = normalize_precision(compute, field="compute_precision")
    checked_int("input_tokens", inp.input_tokens, 1, MAX_TOKENS)
    checked_int("output_tokens", inp.output_tokens, 1, MAX_TOKENS)
    checked_int("concurrency", inp.concurrency, 1, 10_000_000)
    checked_int("gpus", inp.gpus, 1, 100_000)
    checked_real("memory_efficiency", inp.memory_efficiency, 0.0, 1.0, lo_open=True)
    checked_real("compute_efficiency", inp.compute_efficiency, 0.0, 1.0, lo_open=True)
    checked_real("cached_input_share", inp.cached_input_share, 0.0, 1.0)
    if inp.gpu.memory_bandwidth_tbps is None:
        raise EngineInputError("memory_bandwidth_tbps", "is needed for a decode estimate")
    return weight_precision, kv_precision, compute_precision, inp.gpu.memory_bandwidth_tbps


# --- inference ----------------------------------------------------------------------------


def estimate_inference(inp: InferencePerfInput) -> PerfEstimate:
    """TTFT, inter-token latency, end-to-end latency and tokens/s at ``inp.concurrency``."""
    weight_precision, kv_precision, compute_precision, tbps = _check_inference(inp)
    model, gpu, gpus, concurrency = inp.model, inp.gpu, inp.gpus, inp.concurrency
    bandwidth = tbps * 1e12 * inp.memory_efficiency  # bytes/s per GPU
    peak_tflops, peak_source = peak_dense_tflops(gpu, compute_precision)
    flops_per_s = peak_tflops * 1e12 * inp.compute_efficiency  # per GPU
    weight_bytes = model.params_b * GB * bytes_per_value(weight_precision)
    active = _active_params_b(model) * GB

    mean_context = inp.input_tokens + inp.output_tokens / 2
    kv_per_seq_gpu = kv_bytes_per_sequence(model, kv_precision, mean_context) / kv_shards(
        model, gpus, gpu.max_gpus_per_node
    )
    step_bytes = weight_bytes * _touched_share(model, concurrency) / gpus
    t_memory = (step_bytes + concurrency * kv_per_seq_gpu) / bandwidth
    t_compute = 2 * active * concurrency / gpus / flops_per_s
    step_s = max(t_memory, t_compute)

    prefilled = max(1.0, inp.input_tokens * (1 - float(inp.cached_input_share)))
    prefill_compute = 2 * active * prefilled / gpus / flops_per_s
    prefill_memory = weight_bytes * _touched_share(model, prefilled) / gpus / bandwidth
    ttft_s = max(prefill_compute, prefill_memory)
    e2e_s = ttft_s + inp.output_tokens * step_s
    output_per_s = (
        concurrency * inp.output_tokens / (concurrency * ttft_s + inp.output_tokens * step_s)
    )

    fit = memory_fit(
        FitInput(
            model=model,
            gpu=gpu,
            mode="inference",
            weight_precision=weight_precision,
            kv_precision=kv_precision,
            context_tokens=inp.input_tokens + inp.output_tokens,
            concurrent_sequences=concurrency,
            gpus=gpus,
        )
    )
    notes = [
        note
        for name, field in ((weight_precision, "weight_precision"), (kv_precision, "kv_precision"))
        if (note := hardware_support_note(name, gpu.supported_precisions, field=field))
    ]
    if compute_precision in ("fp8", "fp4") and peak_source == "bf16_dense_tflops":
        notes.append(f"no native {compute_precision} compute: matmuls estimated at bf16 peak")
    if not fit.fits:
        notes.append(
            f"concurrency {concurrency} does not fit in memory on {gpus} GPU(s) "
            f"(at most {fit.max_concurrent_sequences})"
        )
    if gpus > gpu.max_gpus_per_node:
        notes.append("the replica spans nodes: pipeline traffic crosses the inter-node fabric")
    if gpus > 1:
        notes.append("tensor/pipeline-parallel communication is not modelled")

    return PerfEstimate(
        mode="inference",
        gpus=gpus,
        tokens_per_s_per_gpu=output_per_s / gpus,
        concurrency=concurrency,
        bound="compute" if t_compute > t_memory else "memory_bandwidth",
        ttft_ms=ttft_s * 1e3,
        itl_ms=step_s * 1e3,
        e2e_ms=e2e_s * 1e3,
        prefill_tokens_per_s=inp.input_tokens / ttft_s,
        decode_tokens_per_s=concurrency / step_s,
        output_tokens_per_s=output_per_s,
        memory_max_concurrency=fit.max_concurrent_sequences,
        assumptions={
            "method": "roofline",
            "memory_efficiency": inp.memory_efficiency,
            "compute_efficiency": inp.compute_efficiency,
            "peak_tflops": peak_tflops,
            "peak_tflops_source": peak_source,
            "compute_precision": compute_precision,
            "memory_bandwidth_tbps": gpu.memory_bandwidth_tbps,
            "active_params_b": _active_params_b(model),
            "decode_kv_context_tokens": mean_context,
            "weight_bytes_read_share": _touched_share(model, concurrency),
            "ttft": "prefill of the p95 input alone; no queueing or prefill interference",
            "cached_input_share": float(inp.cached_input_share),
            "e2e": "TTFT + output_tokens × ITL; steady state compared with p95/p99 targets",
            "output_tokens_per_s": "B × out / (B × TTFT + out × ITL)",
            "memory_fit": "default overhead 2.0 GB/GPU and 10% safety margin",
        },
        notes=tuple(notes),
    )
