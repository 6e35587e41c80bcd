"""Memory fit: its dataclasses, constants, validation and building blocks (see memory_fit.py)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
from numbers import Integral, Real

from engine.errors import EngineInputError
from engine.limits import MAX_NODES
from engine.precision import bytes_per_value, normalize_precision

GB = 1e9
GIB = 2**30  # datasheet HBM figures (80, 141, 24) are GiB-sized: nvidia-smi shows 81,559 MiB
MEMORY_UNITS = {"GiB": GIB / GB, "GB": 1.0}
# Quantised checkpoints (AWQ, GPTQ, FP4/NVFP4 alike): one FP16 scale and a packed 4-bit zero
# per group of 128 weights = 2.5 / 128 bytes per weight; INT8 keeps one FP16 scale per output
# channel (2 / hidden bytes per weight); FP8 per-tensor scales are negligible.
GROUP_SIZE = 128
FOUR_BIT_SCALE_BYTES = (2 + 0.5) / GROUP_SIZE
SIXTEEN_BIT_BYTES = 2.0
MODES: tuple[str, ...] = ("inference", "training", "lora", "qlora")
DEFAULT_OVERHEAD_GB = 2.0
DEFAULT_SAFETY_MARGIN = 0.10
DEFAULT_MAX_NODES = 64
DEFAULT_HEADROOM_MARGIN_PCT = 10.0  # headroom below this reads amber, not "fits"
FIT_CURVE_CONTEXTS: tuple[int, ...] = (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)
OVERHEAD_REASON = (
    "per-GPU runtime memory the model cannot use: CUDA context and cuBLAS/NCCL workspaces "
    "(~0.5-1 GB), serving/training framework allocator, activation and sampling workspace, "
    "CUDA graphs"
)
SAFETY_MARGIN_REASON = (
    "share of GPU memory kept free for allocation spikes and fragmentation; a fit that uses "
    "every byte OOMs in production"
)
# Mixed-precision AdamW, bytes per trained parameter.
ADAMW_WEIGHT_BYTES = 2.0
ADAMW_GRADIENT_BYTES = 2.0
ADAMW_OPTIMIZER_BYTES = 12.0
# QLoRA NF4 with double quantisation: 8-bit constant per 64 weights, fp32 per 256 constants.
QLORA_BASE_BYTES = 0.5
QLORA_CONSTANT_BYTES = (8 / 64 + 32 / (64 * 256)) / 8
LORA_TARGET_MATRICES: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj")
ACTIVATION_BYTES_PER_LAYER_TOKEN_HIDDEN = 34  # Korthikanti et al. 2022, 16-bit, no s² term
CHECKPOINT_BYTES_PER_LAYER_TOKEN_HIDDEN = 2  # the bf16 layer input kept per layer

# Sanity bounds: inputs outside them are typos, not models.
_MAX_PARAMS_B = 100_000.0
_MAX_LAYERS = 10_000
_MAX_DIM = 1_000_000
MAX_TOKENS = 100_000_000
_MAX_SEQUENCES = 10_000_000
_MAX_GPUS = 100_000


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """The architecture numbers memory and speed depend on (params in billions)."""

    params_b: float
    layers: int
    kv_heads: int
    head_dim: int
    active_params_b: float | None = None  # MoE: params used per token; None = dense
    hidden_size: int | None = None
    attention_heads: int | None = None
    mla_latent_dim: int | None = None  # compressed KV width incl. rope part (DeepSeek-V3: 576)
    sliding_window: int | None = None  # tokens a sliding-window layer attends to
    sliding_window_layers: int = 0  # how many layers use the window
    max_context: int | None = None
    vocab_size: int | None = None  # embeddings and output head stay 16-bit when quantised
    tied_embeddings: bool = False  # the output head shares the embedding matrix


@dataclass(frozen=True, slots=True)
class GpuSpec:
    """One accelerator as the engine sees it (datasheet, dense figures)."""

    memory_gb: float
    max_gpus_per_node: int = 8
    memory_bandwidth_tbps: float | None = None
    bf16_dense_tflops: float | None = None
    fp8_dense_tflops: float | None = None
    fp4_dense_tflops: float | None = None
    interconnect_gbps: float | None = None  # GB/s per GPU inside the node
    supported_precisions: tuple[str, ...] = ()
    memory_unit: str = "GB"  # unit of memory_gb: "GiB" for datasheet figures (catalog), "GB"

    @property
    def capacity_gb(self) -> float:
        """HBM in 1e9-byte GB, the unit every other memory figure uses (80 GiB = 85.9 GB)."""
        return self.memory_gb * MEMORY_UNITS.get(self.memory_unit, 1.0)


@dataclass(frozen=True, slots=True)
class FitInput:
    """A memory-fit question. ``gpus`` set: evaluate exactly that count; None: search."""

    model: ModelSpec
    gpu: GpuSpec
    mode: str  # "inference" | "training" | "lora" | "qlora"
    weight_precision: str
    kv_precision: str
    context_tokens: int  # inference: p95 input + output; training: sequence length
    concurrent_sequences: int  # inference only; training uses micro_batch
    gpus: int | None = None
    overhead_gb: float = DEFAULT_OVERHEAD_GB  # per GPU
    safety_margin: float = DEFAULT_SAFETY_MARGIN  # share of GPU memory kept free
    micro_batch: int = 1  # training: sequences per GPU per step
    zero_stage: int = 3
    activation_checkpointing: bool = True
    lora_rank: int = 16
    max_nodes: int = DEFAULT_MAX_NODES
    headroom_margin_pct: float = DEFAULT_HEADROOM_MARGIN_PCT


@dataclass(frozen=True, slots=True)
class FitPoint:
    """Fit at one context length: GPUs needed at the requested concurrency, and what the
    evaluated GPU count holds (per-GPU need, fit, and how many sequences it can take)."""

    context_tokens: int
    gpus_required: int | None  # None: no count up to max_nodes fits
    fits: bool  # on the result's evaluated GPU count
    per_gpu_gb: float
    max_concurrent_sequences: int


@dataclass(frozen=True, slots=True)
class FitResult:
    """Memory fit of one model on one accelerator; per-GPU figures are for ``gpus_required``."""

    mode: str
    weights_gb: float
    kv_bytes_per_token: int
    kv_cache_gb: float
    overhead_gb: float  # per GPU
    margin_gb: float  # per GPU, kept free
    total_gb: float
    per_gpu_gb: float
    usable_gb_per_gpu: float
    gpus_required: int
    nodes_required: int
    crosses_nodes: bool
    fits: bool
    headroom_pct: float
    max_concurrent_sequences: int
    fit_curve: tuple[FitPoint, ...]
    breakdown: dict[str, float]  # per GPU: weights, kv, gradients, optimizer, activations, adapters
    assumptions: dict[str, object]
    notes: tuple[str, ...] = ()
    status: str = ""  # "fits" | "amber" (fits, headroom under the margin) | "does_not_fit"

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict (floats rounded to 6 decimals, tuples as lists)."""
        return {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}


def jsonable(value: object, digits: int = 6) -> object:
    """Turn engine dataclasses, tuples and floats into JSON-ready values."""
    if value is None or isinstance(value, bool | str | int):
        return value
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v, digits) for k, v in value.items()}
    if isinstance(value, list | tuple | frozenset | set):
        return [jsonable(v, digits) for v in value]
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name), digits) for f in fields(value)}
    raise TypeError(f"cannot make {type(value).__name__} JSON-ready")


# --- validation ---------------------------------------------------------------------------


def checked_int(field: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise EngineInputError(field, "must be a whole number")
    number = int(value)
    if not lo <= number <= hi:
        raise EngineInputError(field, f"must be between {lo:,} and {hi:,}, got {number:,}")
    return number


def checked_real(
    field: str, value: object, lo: float, hi: float, *, lo_open: bool = False
) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise EngineInputError(field, "must be a number")
    number = float(value)
    if not math.isfinite(number):
        raise EngineInputError(field, "must be a finite number")
    if number < lo or (lo_open and number == lo) or number > hi:
        low = f"greater than {lo:g}" if lo_open else f"at least {lo:g}"
        raise EngineInputError(field, f"must be {low} and at most {hi:g}, got {number:g}")
    return number


def validate_model(model: ModelSpec) -> None:
    """Reject model numbers no real transformer has (EngineInputError names the field)."""
    params = checked_real("params_b", model.params_b, 0.0, _MAX_PARAMS_B, lo_open=True)
    layers = checked_int("layers", model.layers, 1, _MAX_LAYERS)
    kv_heads = checked_int("kv_heads", model.kv_heads, 1, _MAX_DIM)
    checked_int("head_dim", model.head_dim, 1, _MAX_DIM)
    if model.active_params_b is not None:
        checked_real("active_params_b", model.active_params_b, 0.0, params, lo_open=True)
    if model.hidden_size is not None:
        checked_int("hidden_size", model.hidden_size, 1, _MAX_DIM)
    if model.attention_heads is not None:
        heads = checked_int("attention_heads", model.attention_heads, 1, _MAX_DIM)
        if model.mla_latent_dim is None and heads < kv_heads:
            raise EngineInputError("kv_heads", "cannot exceed attention_heads")
    if model.mla_latent_dim is not None:
        checked_int("mla_latent_dim", model.mla_latent_dim, 1, _MAX_DIM)
    if model.sliding_window is not None:
        checked_int("sliding_window", model.sliding_window, 1, MAX_TOKENS)
    window_layers = checked_int("sliding_window_layers", model.sliding_window_layers, 0, layers)
    if window_layers and model.sliding_window is None:
        raise EngineInputError("sliding_window", "is required when sliding_window_layers > 0")
    if model.max_context is not None:
        checked_int("max_context", model.max_context, 1, MAX_TOKENS)
    if model.vocab_size is not None:
        checked_int("vocab_size", model.vocab_size, 1, 10_000_000)


def validate_gpu(gpu: GpuSpec) -> None:
    """Reject impossible accelerator numbers."""
    checked_real("memory_gb", gpu.memory_gb, 0.0, 100_000.0, lo_open=True)
    checked_int("max_gpus_per_node", gpu.max_gpus_per_node, 1, 4096)
    for name in (
        "memory_bandwidth_tbps",
        "bf16_dense_tflops",
        "fp8_dense_tflops",
        "fp4_dense_tflops",
        "interconnect_gbps",
    ):
        value = getattr(gpu, name)
        if value is not None:
            checked_real(name, value, 0.0, 1e9, lo_open=True)
    if not isinstance(gpu.supported_precisions, tuple | list) or not all(
        isinstance(p, str) for p in gpu.supported_precisions
    ):
        raise EngineInputError("supported_precisions", "must be a list of precision ids")


@dataclass(frozen=True, slots=True)
class _Checked:
    """FitInput after validation, with normalised ids."""

    mode: str
    weight_precision: str
    kv_precision: str
    usable_gb_per_gpu: float


def _check(inp: FitInput) -> _Checked:
    validate_model(inp.model)
    validate_gpu(inp.gpu)
    mode = inp.mode.strip().lower() if isinstance(inp.mode, str) else ""
    if mode not in MODES:
        raise EngineInputError("mode", f"unknown mode {inp.mode!r}; use one of {', '.join(MODES)}")
    weight_precision = normalize_precision(inp.weight_precision, field="weight_precision")
    kv_precision = normalize_precision(inp.kv_precision, field="kv_precision")
    checked_int("context_tokens", inp.context_tokens, 1, MAX_TOKENS)
    checked_int("concurrent_sequences", inp.concurrent_sequences, 1, _MAX_SEQUENCES)
    if inp.gpus is not None:
        checked_int("gpus", inp.gpus, 1, _MAX_GPUS)
    overhead = checked_real("overhead_gb", inp.overhead_gb, 0.0, 100_000.0)
    margin = checked_real("safety_margin", inp.safety_margin, 0.0, 0.9)
    checked_int("micro_batch", inp.micro_batch, 1, _MAX_SEQUENCES)
    checked_int("zero_stage", inp.zero_stage, 0, 3)
    if not isinstance(inp.activation_checkpointing, bool):
        raise EngineInputError("activation_checkpointing", "must be true or false")
    checked_int("lora_rank", inp.lora_rank, 1, 65_536)
    checked_int("max_nodes", inp.max_nodes, 1, MAX_NODES)
    if inp.gpu.memory_unit not in MEMORY_UNITS:
        raise EngineInputError("memory_unit", f"must be one of {', '.join(MEMORY_UNITS)}")
    usable = inp.gpu.capacity_gb * (1 - margin) - overhead
    if usable <= 0:
        raise EngineInputError(
            "overhead_gb",
            f"{overhead:g} GB overhead and a {margin:.0%} margin leave no usable memory "
            f"on a {inp.gpu.memory_gb:g} GB GPU",
        )
    return _Checked(mode, weight_precision, kv_precision, usable)


# --- building blocks (public: performance.py reuses them) ---------------------------------


def _kv_bytes_per_layer_token(model: ModelSpec, kv_bytes: float) -> float:
    if model.mla_latent_dim is not None:
        return model.mla_latent_dim * kv_bytes
    return 2 * model.kv_heads * model.head_dim * kv_bytes


def kv_bytes_per_token(model: ModelSpec, kv_precision: str) -> int:
    """KV bytes one token adds across all layers, before any sliding-window cap (rounded up)."""
    kv_bytes = bytes_per_value(kv_precision, field="kv_precision")
    return math.ceil(_kv_bytes_per_layer_token(model, kv_bytes) * model.layers)


def kv_bytes_per_sequence(model: ModelSpec, kv_precision: str, context_tokens: float) -> float:
    """KV bytes one sequence of ``context_tokens`` holds; window layers stop at the window.

    Assumes the serving stack frees KV that falls outside a layer's window (vLLM's hybrid
    allocator, SGLang); without that every layer grows with the full context.
    """
    kv_bytes = bytes_per_value(kv_precision, field="kv_precision")
    per_layer_token = _kv_bytes_per_layer_token(model, kv_bytes)
    window_layers = model.sliding_window_layers if model.sliding_window is not None else 0
    window = model.sliding_window if model.sliding_window is not None else 0
    full_layers = model.layers - window_layers
    return per_layer_token * (
        full_layers * context_tokens + window_layers * min(context_tokens, window)
    )


def tensor_parallel_degree(gpus: int, max_gpus_per_node: int) -> int:
    """Tensor parallelism stays inside a node; beyond it, nodes form pipeline stages."""
    return min(gpus, max_gpus_per_node)


def kv_shards(model: ModelSpec, gpus: int, max_gpus_per_node: int) -> float:
    """How many ways the KV cache is split over ``gpus`` (per-GPU KV = total / this)."""
    tp = tensor_parallel_degree(gpus, max_gpus_per_node)
    pipeline_stages = gpus / tp
    if model.mla_latent_dim is not None:
        head_split = 1.0  # the latent is shared by all heads, so every TP rank holds it
    else:
        head_split = model.kv_heads / math.ceil(model.kv_heads / tp)
    return head_split * pipeline_stages


def hidden_size(model: ModelSpec) -> tuple[int, str]:
    """The hidden size and where it came from (given, heads × head_dim, or estimated)."""
    if model.hidden_size is not None:
        return model.hidden_size, "given"
    if model.attention_heads is not None:
        return model.attention_heads * model.head_dim, "attention_heads × head_dim"
    # A dense transformer block holds ~12·h² params (4h² attention + 8h² MLP).
    params = model.active_params_b if model.active_params_b is not None else model.params_b
    estimate = max(1, round(math.sqrt(params * GB / (12 * model.layers))))
    return estimate, "estimated as sqrt(active params / (12 × layers))"


def activation_bytes_per_sequence(model: ModelSpec, seq_len: int, checkpointing: bool) -> float:
    """Training activations one sequence keeps on a GPU (formula in the module docstring)."""
    h, _ = hidden_size(model)
    one_layer = ACTIVATION_BYTES_PER_LAYER_TOKEN_HIDDEN * seq_len * h
    if checkpointing:
        kept = CHECKPOINT_BYTES_PER_LAYER_TOKEN_HIDDEN * seq_len * h * model.layers
        return float(kept + one_layer)
    return float(one_layer * model.layers)


def lora_adapter_params(model: ModelSpec, rank: int) -> int:
    """rank × (d_in + d_out) for q, k, v and o in every layer."""
    h, _ = hidden_size(model)
    q_dim = model.attention_heads * model.head_dim if model.attention_heads is not None else h
    kv_dim = model.kv_heads * model.head_dim
    per_layer = rank * ((h + q_dim) + 2 * (h + kv_dim) + (q_dim + h))
    return per_layer * model.layers


def candidate_gpu_counts(max_gpus_per_node: int, max_nodes: int) -> tuple[int, ...]:
    """1, 2, 4, … below the node size, the node size, then whole nodes."""
    counts: list[int] = []
    tp = 1
    while tp < max_gpus_per_node:
        counts.append(tp)
        tp *= 2
    counts.append(max_gpus_per_node)
    counts.extend(k * max_gpus_per_node for k in range(2, max_nodes + 1))
    return tuple(counts)


def curve_contexts(max_context: int | None) -> tuple[int, ...]:
    """1k … 128k, capped at the model's max context (which is added as the last point)."""
    if max_context is None:
        return FIT_CURVE_CONTEXTS
    points = [c for c in FIT_CURVE_CONTEXTS if c < max_context]
    if max_context <= FIT_CURVE_CONTEXTS[-1]:
        points.append(max_context)
    return tuple(points)


def sixteen_bit_params_b(model: ModelSpec) -> float | None:
    """Billions of params a quantised checkpoint keeps in 16 bits: embeddings, the output head
    (unless tied) and the norms (2 per layer + 1 final). None: vocabulary size unknown."""
    if model.vocab_size is None:
        return None
    h, _ = hidden_size(model)
    matrices = 1 if model.tied_embeddings else 2
    return (matrices * model.vocab_size * h + (2 * model.layers + 1) * h) / GB


def quantised_weights_gb(model: ModelSpec, precision: str) -> tuple[float, str]:
    """(weights GB, how they were counted) at ``precision`` for inference (M-1)."""
    per = bytes_per_value(precision)
    if per >= SIXTEEN_BIT_BYTES:
        return model.params_b * per, f"{model.params_b:g}B params × {per:g} bytes"
    kept = sixteen_bit_params_b(model)
    h, _ = hidden_size(model)
    if precision in ("int4", "fp4"):
        scale = FOUR_BIT_SCALE_BYTES
        scale_words = f"FP16 scale + 4-bit zero per {GROUP_SIZE} weights"
    elif precision == "int8":
        scale = SIXTEEN_BIT_BYTES / h
        scale_words = "FP16 scale per output channel"
    else:
        scale = 0.0
        scale_words = "per-tensor scales (negligible)"
    if kept is None:
        quantised = model.params_b
        weights = quantised * (per + scale)
        return weights, (
            f"all {model.params_b:g}B params at {per:g} bytes + {scale_words}; vocabulary size "
            "unknown, so the 16-bit embeddings and output head are NOT counted (under-count)"
        )
    quantised = max(0.0, model.params_b - kept)
    weights = quantised * (per + scale) + kept * SIXTEEN_BIT_BYTES
    return weights, (
        f"{quantised:.3f}B params at {per:g} bytes + {scale_words}; {kept:.3f}B params "
        "(embeddings, output head, norms) kept in 16 bits"
    )
