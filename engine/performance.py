"""Roofline performance estimates for inference and training, always flagged "estimated".

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

Training::

    step_time_s   = k × active_params × tokens_per_step / (gpus × peak × mfu)    (default 0.4)
    k             = 6 full training (2 forward + 4 backward, Kaplan et al. 2020)
                  = 4 LoRA / QLoRA (no weight gradients for the frozen base)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from engine.errors import EngineInputError
from engine.memory.fit import (
    GB,
    FitInput,
    FitResult,
    GpuSpec,
    ModelSpec,
    jsonable,
    kv_bytes_per_sequence,
    kv_shards,
    memory_fit,
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
DEFAULT_MFU = 0.4  # model FLOPs utilisation of a tuned bf16 training run
TRAINING_FLOPS_PER_PARAM_TOKEN = {"training": 6, "lora": 4, "qlora": 4}
_MAX_TOKENS = 100_000_000


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
class TrainingPerfInput:
    """A training or fine-tuning run on ``gpus`` GPUs."""

    model: ModelSpec
    gpu: GpuSpec
    gpus: int
    tokens_per_step: int  # global batch in tokens (sequence length × global batch)
    precision: str = "bf16"  # compute precision of the matmuls
    mode: str = "training"  # "training" | "lora" | "qlora"
    mfu: float = DEFAULT_MFU
    total_tokens: int | None = None  # tokens of the whole run, for time and GPU-hours


@dataclass(frozen=True, slots=True)
class PerfEstimate:
    """A roofline estimate; fields that do not apply to the mode are None."""

    mode: str  # "inference" | "training" | "lora" | "qlora"
    gpus: int
    tokens_per_s_per_gpu: float  # inference: output tokens; training: trained tokens
    concurrency: int | None = None
    bound: str | None = None  # decode: "memory_bandwidth" | "compute"
    ttft_ms: float | None = None
    itl_ms: float | None = None
    e2e_ms: float | None = None
    prefill_tokens_per_s: float | None = None
    decode_tokens_per_s: float | None = None
    output_tokens_per_s: float | None = None
    memory_max_concurrency: int | None = None
    step_time_s: float | None = None
    training_tokens_per_s: float | None = None
    train_time_h: float | None = None
    gpu_hours: float | None = None
    assumptions: dict[str, object] | None = None
    notes: tuple[str, ...] = ()
    source: str = SOURCE_ESTIMATED

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict."""
        return {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True, slots=True)
class ConcurrencyFit:
    """The largest concurrency one replica serves within the latency targets."""

    max_concurrency: int  # 0: not even one sequence meets the targets
    limited_by: str  # a target name, "memory" or "max_concurrency"
    targets: dict[str, float | None]
    estimate: PerfEstimate | None  # at max_concurrency
    notes: tuple[str, ...] = ()
    source: str = SOURCE_ESTIMATED

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict."""
        return {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}


# --- helpers ------------------------------------------------------------------------------


def _int(field: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngineInputError(field, "must be a whole number")
    if not lo <= value <= hi:
        raise EngineInputError(field, f"must be between {lo:,} and {hi:,}, got {value:,}")
    return value


def _share(field: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EngineInputError(field, "must be a number")
    number = float(value)
    if not (math.isfinite(number) and 0 < number <= 1):
        raise EngineInputError(field, f"must be greater than 0 and at most 1, got {number:g}")
    return number


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


@dataclass(frozen=True, slots=True)
class _Checked:
    weight_precision: str
    kv_precision: str
    compute_precision: str
    memory_bandwidth_tbps: float


def _check_inference(inp: InferencePerfInput) -> _Checked:
    validate_model(inp.model)
    validate_gpu(inp.gpu)
    weight_precision = normalize_precision(inp.weight_precision, field="weight_precision")
    kv_precision = normalize_precision(inp.kv_precision, field="kv_precision")
    compute = inp.compute_precision if inp.compute_precision is not None else weight_precision
    compute_precision = normalize_precision(compute, field="compute_precision")
    _int("input_tokens", inp.input_tokens, 1, _MAX_TOKENS)
    _int("output_tokens", inp.output_tokens, 1, _MAX_TOKENS)
    _int("concurrency", inp.concurrency, 1, 10_000_000)
    _int("gpus", inp.gpus, 1, 100_000)
    _share("memory_efficiency", inp.memory_efficiency)
    _share("compute_efficiency", inp.compute_efficiency)
    cached = inp.cached_input_share
    if isinstance(cached, bool) or not isinstance(cached, int | float) or not 0 <= cached <= 1:
        raise EngineInputError("cached_input_share", "must be a share from 0 to 1")
    if inp.gpu.memory_bandwidth_tbps is None:
        raise EngineInputError("memory_bandwidth_tbps", "is needed for a decode estimate")
    return _Checked(
        weight_precision, kv_precision, compute_precision, inp.gpu.memory_bandwidth_tbps
    )


# --- inference ----------------------------------------------------------------------------


def estimate_inference(inp: InferencePerfInput) -> PerfEstimate:
    """TTFT, inter-token latency, end-to-end latency and tokens/s at ``inp.concurrency``."""
    return _estimate(inp, _check_inference(inp), inp.concurrency)


def _memory_fit(inp: InferencePerfInput, checked: _Checked, concurrency: int) -> FitResult:
    return memory_fit(
        FitInput(
            model=inp.model,
            gpu=inp.gpu,
            mode="inference",
            weight_precision=checked.weight_precision,
            kv_precision=checked.kv_precision,
            context_tokens=inp.input_tokens + inp.output_tokens,
            concurrent_sequences=concurrency,
            gpus=inp.gpus,
        )
    )


def _estimate(inp: InferencePerfInput, checked: _Checked, concurrency: int) -> PerfEstimate:
    model, gpu, gpus = inp.model, inp.gpu, inp.gpus
    weight_precision, kv_precision = checked.weight_precision, checked.kv_precision
    compute_precision = checked.compute_precision
    bandwidth = checked.memory_bandwidth_tbps * 1e12 * inp.memory_efficiency  # bytes/s per GPU
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

    fit = _memory_fit(inp, checked, concurrency)
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


_TARGET_NAMES = ("ttft_p95_ms", "itl_p95_ms", "e2e_p99_ms")


def _failed_target(estimate: PerfEstimate, targets: dict[str, float | None]) -> str | None:
    values = {
        "ttft_p95_ms": estimate.ttft_ms,
        "itl_p95_ms": estimate.itl_ms,
        "e2e_p99_ms": estimate.e2e_ms,
    }
    for name in _TARGET_NAMES:
        target, value = targets[name], values[name]
        if target is not None and value is not None and value > target:
            return name
    return None


def max_concurrency_meeting_targets(
    inp: InferencePerfInput,
    *,
    ttft_p95_ms: float | None = None,
    itl_p95_ms: float | None = None,
    e2e_p99_ms: float | None = None,
    max_concurrency: int | None = None,
) -> ConcurrencyFit:
    """Largest concurrency on one replica whose estimate meets every given target.

    The search is capped by memory (``memory_fit``'s max concurrent sequences at
    input + output tokens on ``inp.gpus``) unless ``max_concurrency`` is given.
    ``inp.concurrency`` is ignored. ITL and end-to-end latency never fall as concurrency
    rises and TTFT does not depend on it, so a binary search is exact.
    """
    checked = _check_inference(inp)
    targets: dict[str, float | None] = {
        "ttft_p95_ms": ttft_p95_ms,
        "itl_p95_ms": itl_p95_ms,
        "e2e_p99_ms": e2e_p99_ms,
    }
    for name, target in targets.items():
        if target is not None and (
            isinstance(target, bool)
            or not isinstance(target, int | float)
            or not math.isfinite(target)
            or target <= 0
        ):
            raise EngineInputError(name, "must be a positive number of milliseconds")
    if max_concurrency is not None:
        cap = _int("max_concurrency", max_concurrency, 0, 10_000_000)
        cap_name = "max_concurrency"
    else:
        cap = _memory_fit(inp, checked, 1).max_concurrent_sequences
        cap_name = "memory"

    def at(concurrency: int) -> PerfEstimate:
        return _estimate(replace(inp, concurrency=concurrency), checked, concurrency)

    if cap == 0:
        return ConcurrencyFit(0, cap_name, targets, None, ("no sequence fits in memory",))
    first = at(1)
    failed = _failed_target(first, targets)
    if failed is not None:
        return ConcurrencyFit(0, failed, targets, None, first.notes)
    low, high = 1, cap  # meets(low) is true; find the largest such value
    while low < high:
        middle = (low + high + 1) // 2
        if _failed_target(at(middle), targets) is None:
            low = middle
        else:
            high = middle - 1
    best = at(low)
    limited_by = cap_name
    if low < cap:
        limited_by = _failed_target(at(low + 1), targets) or cap_name
    return ConcurrencyFit(low, limited_by, targets, best, best.notes)


# --- training -----------------------------------------------------------------------------


def estimate_training(inp: TrainingPerfInput) -> PerfEstimate:
    """Step time and tokens/s of a training run from model FLOPs, peak and MFU."""
    validate_model(inp.model)
    validate_gpu(inp.gpu)
    mode = inp.mode.strip().lower() if isinstance(inp.mode, str) else ""
    if mode not in TRAINING_FLOPS_PER_PARAM_TOKEN:
        raise EngineInputError("mode", "must be one of training, lora, qlora")
    precision = normalize_precision(inp.precision, field="precision")
    gpus = _int("gpus", inp.gpus, 1, 100_000)
    tokens = _int("tokens_per_step", inp.tokens_per_step, 1, 1_000_000_000_000)
    mfu = _share("mfu", inp.mfu)
    if inp.total_tokens is not None:
        _int("total_tokens", inp.total_tokens, 1, 10**16)
    peak_tflops, peak_source = peak_dense_tflops(inp.gpu, precision)
    factor = TRAINING_FLOPS_PER_PARAM_TOKEN[mode]
    active = _active_params_b(inp.model) * GB
    step_s = factor * active * tokens / (gpus * peak_tflops * 1e12 * mfu)
    tokens_per_s = tokens / step_s
    train_time_h = gpu_hours = None
    if inp.total_tokens is not None:
        train_time_h = inp.total_tokens / tokens_per_s / 3600
        gpu_hours = train_time_h * gpus

    notes: list[str] = []
    note = hardware_support_note(precision, inp.gpu.supported_precisions, field="precision")
    if note:
        notes.append(note)
    if gpus > inp.gpu.max_gpus_per_node:
        notes.append(
            "spans nodes: the MFU must already include inter-node communication; a weak "
            "fabric lowers it"
        )
    if mode == "qlora":
        notes.append("QLoRA dequantises the 4-bit base every step; expect a lower MFU than LoRA")
    return PerfEstimate(
        mode=mode,
        gpus=gpus,
        tokens_per_s_per_gpu=tokens_per_s / gpus,
        step_time_s=step_s,
        training_tokens_per_s=tokens_per_s,
        train_time_h=train_time_h,
        gpu_hours=gpu_hours,
        assumptions={
            "method": "model FLOPs / (peak × MFU)",
            "flops_per_param_token": factor,
            "flops_formula": f"{factor} × active_params × tokens",
            "active_params_b": _active_params_b(inp.model),
            "mfu": mfu,
            "peak_tflops": peak_tflops,
            "peak_tflops_source": peak_source,
            "compute_precision": precision,
            "tokens_per_step": tokens,
        },
        notes=tuple(notes),
    )
