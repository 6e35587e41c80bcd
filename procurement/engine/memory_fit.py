"""Memory fit: does a model's inference or training state fit in GPU memory, on how many GPUs?

All sizes are decimal gigabytes (1 GB = 1e9 bytes). Sources: DOMAIN.md ("memory fit comes
first": weights + KV cache + framework headroom + safety margin; training competes for HBM
with gradients, optimizer states and activations) and PRODUCT.md "The engine".

Inference (per model replica)::

    weights_gb          = params_b × bytes_per_weight        (MoE: *total* params; every expert
                                                              is resident, compute uses active)
    kv_bytes_per_token  = 2 × layers × kv_heads × head_dim × kv_bytes      (K and V, GQA/MHA)
                        = mla_latent_dim × layers × kv_bytes               (MLA, e.g. DeepSeek-V3:
                                                                            512 latent + 64 rope)
    kv_bytes_per_seq    = per_layer_token × (full_layers × ctx + window_layers × min(ctx, window))
    kv_cache_gb         = kv_bytes_per_seq × concurrent_sequences / 1e9
    ctx                 = context_tokens (p95 input + output)

Per GPU on n GPUs (tensor parallel tp = min(n, node) inside a node, pipeline across nodes
pp = n / tp)::

    weights per GPU     = weights_gb / n
    kv per GPU          = kv_cache_gb / (head_split × pp)
    head_split          = kv_heads / ceil(kv_heads / tp)   (tp > kv_heads replicates KV heads)
                        = 1 for MLA (the latent is replicated on every tensor-parallel rank)

Training (pure data parallel with ZeRO / FSDP over n GPUs, mixed-precision AdamW)::

    bytes/param         = 2 weights (bf16) + 2 gradients (bf16) + 12 optimizer
                          (fp32 master 4 + Adam m 4 + Adam v 4) = 16          (ZeRO paper, 2020)
    ZeRO stage 1 shards optimizer / n, stage 2 also gradients, stage 3 (= FSDP full shard)
    also weights; stage 0 replicates everything.
    activations/seq     = layers × 34 × s × h                      checkpointing off
                        = layers × 2 × s × h + 34 × s × h          checkpointing on (layer inputs
                          kept in bf16, one layer recomputed at a time)
      (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
      Models", 16-bit activations, FlashAttention so the 5·a·s²·b score term is not stored;
      logits and MoE expert activations are not modelled.)
    LoRA:  frozen base at weight_precision (normally bf16) + adapters of
           rank × (d_in + d_out) params on q, k, v, o of every layer, adapters trained with
           the same 16 bytes/param recipe.
    QLoRA: frozen base in 4-bit NF4 = 0.5 bytes/param + quantisation constants with double
           quantisation (8-bit constant per 64 values + fp32 per 256 constants
           = 0.127 bits/param, Dettmers et al. 2023) = 0.515869 bytes/param.

Per GPU, the runtime overhead (default 2.0 GB: CUDA context and cuBLAS/NCCL workspaces
~0.5-1 GB, framework allocator and activation/sampling workspace, CUDA graphs) is taken out
first, and a safety margin (default 10 % of GPU memory) is kept free for spikes and
fragmentation::

    usable_gb_per_gpu   = memory_gb × (1 − safety_margin) − overhead_gb
    fits                = per_gpu_gb ≤ usable_gb_per_gpu
    headroom_pct        = (usable_gb_per_gpu − per_gpu_gb) / usable_gb_per_gpu × 100
    total_gb            = (per_gpu_gb + overhead_gb) × gpus     (margin excluded)

The search tries tensor-parallel degrees 1, 2, 4, 8 … up to the node size, then whole nodes
(2 × node, 3 × node, … up to ``max_nodes``), and returns the first that fits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
from numbers import Integral, Real

from procurement.engine.errors import EngineInputError
from procurement.engine.precision import bytes_per_value, hardware_support_note, normalize_precision

GB = 1e9
MODES: tuple[str, ...] = ("inference", "training", "lora", "qlora")
DEFAULT_OVERHEAD_GB = 2.0
DEFAULT_SAFETY_MARGIN = 0.10
DEFAULT_MAX_NODES = 64
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
_MAX_TOKENS = 100_000_000
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


def _int(field: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise EngineInputError(field, "must be a whole number")
    number = int(value)
    if not lo <= number <= hi:
        raise EngineInputError(field, f"must be between {lo:,} and {hi:,}, got {number:,}")
    return number


def _real(field: str, value: object, lo: float, hi: float, *, lo_open: bool = False) -> float:
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
    params = _real("params_b", model.params_b, 0.0, _MAX_PARAMS_B, lo_open=True)
    layers = _int("layers", model.layers, 1, _MAX_LAYERS)
    kv_heads = _int("kv_heads", model.kv_heads, 1, _MAX_DIM)
    _int("head_dim", model.head_dim, 1, _MAX_DIM)
    if model.active_params_b is not None:
        _real("active_params_b", model.active_params_b, 0.0, params, lo_open=True)
    if model.hidden_size is not None:
        _int("hidden_size", model.hidden_size, 1, _MAX_DIM)
    if model.attention_heads is not None:
        heads = _int("attention_heads", model.attention_heads, 1, _MAX_DIM)
        if model.mla_latent_dim is None and heads < kv_heads:
            raise EngineInputError("kv_heads", "cannot exceed attention_heads")
    if model.mla_latent_dim is not None:
        _int("mla_latent_dim", model.mla_latent_dim, 1, _MAX_DIM)
    if model.sliding_window is not None:
        _int("sliding_window", model.sliding_window, 1, _MAX_TOKENS)
    window_layers = _int("sliding_window_layers", model.sliding_window_layers, 0, layers)
    if window_layers and model.sliding_window is None:
        raise EngineInputError("sliding_window", "is required when sliding_window_layers > 0")
    if model.max_context is not None:
        _int("max_context", model.max_context, 1, _MAX_TOKENS)


def validate_gpu(gpu: GpuSpec) -> None:
    """Reject impossible accelerator numbers."""
    _real("memory_gb", gpu.memory_gb, 0.0, 100_000.0, lo_open=True)
    _int("max_gpus_per_node", gpu.max_gpus_per_node, 1, 4096)
    for name in (
        "memory_bandwidth_tbps",
        "bf16_dense_tflops",
        "fp8_dense_tflops",
        "fp4_dense_tflops",
        "interconnect_gbps",
    ):
        value = getattr(gpu, name)
        if value is not None:
            _real(name, value, 0.0, 1e9, lo_open=True)
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
    _int("context_tokens", inp.context_tokens, 1, _MAX_TOKENS)
    _int("concurrent_sequences", inp.concurrent_sequences, 1, _MAX_SEQUENCES)
    if inp.gpus is not None:
        _int("gpus", inp.gpus, 1, _MAX_GPUS)
    overhead = _real("overhead_gb", inp.overhead_gb, 0.0, 100_000.0)
    margin = _real("safety_margin", inp.safety_margin, 0.0, 0.9)
    _int("micro_batch", inp.micro_batch, 1, _MAX_SEQUENCES)
    _int("zero_stage", inp.zero_stage, 0, 3)
    if not isinstance(inp.activation_checkpointing, bool):
        raise EngineInputError("activation_checkpointing", "must be true or false")
    _int("lora_rank", inp.lora_rank, 1, 65_536)
    _int("max_nodes", inp.max_nodes, 1, 10_000)
    usable = inp.gpu.memory_gb * (1 - margin) - overhead
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


# --- per-GPU demand -----------------------------------------------------------------------

_BREAKDOWN_KEYS = ("weights", "kv", "gradients", "optimizer", "activations", "adapters")


@dataclass(frozen=True, slots=True)
class _Demand:
    """Per-GPU GB on one GPU count: fixed parts plus a per-sequence part."""

    fixed: dict[str, float]
    per_sequence_key: str  # "kv" (inference) or "activations" (training)
    per_sequence_gb: float

    def per_gpu_gb(self, sequences: int) -> float:
        return math.fsum(self.fixed.values()) + self.per_sequence_gb * sequences

    def breakdown(self, sequences: int) -> dict[str, float]:
        parts = dict.fromkeys(_BREAKDOWN_KEYS, 0.0)
        parts.update(self.fixed)
        parts[self.per_sequence_key] = self.per_sequence_gb * sequences
        return parts

    def max_sequences(self, usable_gb: float) -> int:
        room = usable_gb - math.fsum(self.fixed.values())
        if room < 0:
            return 0
        count = int(room // self.per_sequence_gb)
        # Agree exactly with the `fits` comparison despite float rounding.
        while count > 0 and self.per_gpu_gb(count) > usable_gb:
            count -= 1
        while self.per_gpu_gb(count + 1) <= usable_gb:
            count += 1
        return count


def _weights_gb(inp: FitInput, checked: _Checked) -> float:
    params = inp.model.params_b  # GB, since params are in billions
    if checked.mode == "inference":
        return params * bytes_per_value(checked.weight_precision)
    if checked.mode == "training":
        return params * ADAMW_WEIGHT_BYTES
    if checked.mode == "lora":
        return params * bytes_per_value(checked.weight_precision)
    return params * (QLORA_BASE_BYTES + QLORA_CONSTANT_BYTES)


def _demand(inp: FitInput, checked: _Checked, gpus: int, context_tokens: int) -> _Demand:
    model = inp.model
    weights = _weights_gb(inp, checked)
    if checked.mode == "inference":
        kv_per_seq = kv_bytes_per_sequence(model, checked.kv_precision, context_tokens) / GB
        shards = kv_shards(model, gpus, inp.gpu.max_gpus_per_node)
        return _Demand({"weights": weights / gpus}, "kv", kv_per_seq / shards)

    stage = inp.zero_stage

    def shard(gb: float, from_stage: int) -> float:
        return gb / gpus if stage >= from_stage else gb

    if checked.mode == "training":
        params = model.params_b
        fixed = {
            "weights": shard(weights, 3),
            "gradients": shard(params * ADAMW_GRADIENT_BYTES, 2),
            "optimizer": shard(params * ADAMW_OPTIMIZER_BYTES, 1),
        }
    else:
        adapter_b = lora_adapter_params(model, inp.lora_rank) / GB
        fixed = {
            "weights": shard(weights, 3),
            "adapters": shard(adapter_b * ADAMW_WEIGHT_BYTES, 3),
            "gradients": shard(adapter_b * ADAMW_GRADIENT_BYTES, 2),
            "optimizer": shard(adapter_b * ADAMW_OPTIMIZER_BYTES, 1),
        }
    activations = activation_bytes_per_sequence(model, context_tokens, inp.activation_checkpointing)
    return _Demand(fixed, "activations", activations / GB)


def _sequences(inp: FitInput, checked: _Checked) -> int:
    return inp.concurrent_sequences if checked.mode == "inference" else inp.micro_batch


def _smallest_fit(
    inp: FitInput, checked: _Checked, context_tokens: int, candidates: tuple[int, ...]
) -> int | None:
    sequences = _sequences(inp, checked)
    for gpus in candidates:
        demand = _demand(inp, checked, gpus, context_tokens)
        if demand.per_gpu_gb(sequences) <= checked.usable_gb_per_gpu:
            return gpus
    return None


# --- entry point --------------------------------------------------------------------------


def memory_fit(inp: FitInput) -> FitResult:
    """Fit ``inp.model`` on ``inp.gpu``: the smallest GPU count (or the given ``gpus``)."""
    checked = _check(inp)
    model, gpu = inp.model, inp.gpu
    usable = checked.usable_gb_per_gpu
    node = gpu.max_gpus_per_node
    candidates = candidate_gpu_counts(node, inp.max_nodes)
    sequences = _sequences(inp, checked)
    notes: list[str] = []

    smallest = _smallest_fit(inp, checked, inp.context_tokens, candidates)
    if inp.gpus is not None:
        gpus = inp.gpus
    else:
        gpus = smallest if smallest is not None else candidates[-1]
    demand = _demand(inp, checked, gpus, inp.context_tokens)
    per_gpu = demand.per_gpu_gb(sequences)
    fits = per_gpu <= usable
    nodes = math.ceil(gpus / node)
    inference = checked.mode == "inference"

    weights = _weights_gb(inp, checked)
    kv_per_token = kv_bytes_per_token(model, checked.kv_precision) if inference else 0
    kv_cache = (
        kv_bytes_per_sequence(model, checked.kv_precision, inp.context_tokens) * sequences / GB
        if inference
        else 0.0
    )

    curve = []
    for context in curve_contexts(model.max_context):
        point_demand = _demand(inp, checked, gpus, context)
        curve.append(
            FitPoint(
                context_tokens=context,
                gpus_required=_smallest_fit(inp, checked, context, candidates),
                fits=point_demand.per_gpu_gb(sequences) <= usable,
                per_gpu_gb=point_demand.per_gpu_gb(sequences),
                max_concurrent_sequences=point_demand.max_sequences(usable),
            )
        )

    _fit_notes(notes, inp, checked, gpus, fits, smallest, candidates[-1], demand, nodes)
    return FitResult(
        mode=checked.mode,
        weights_gb=weights,
        kv_bytes_per_token=kv_per_token,
        kv_cache_gb=kv_cache,
        overhead_gb=inp.overhead_gb,
        margin_gb=gpu.memory_gb * inp.safety_margin,
        total_gb=(per_gpu + inp.overhead_gb) * gpus,
        per_gpu_gb=per_gpu,
        usable_gb_per_gpu=usable,
        gpus_required=gpus,
        nodes_required=nodes,
        crosses_nodes=nodes > 1,
        fits=fits,
        headroom_pct=(usable - per_gpu) / usable * 100,
        max_concurrent_sequences=demand.max_sequences(usable),
        fit_curve=tuple(curve),
        breakdown=demand.breakdown(sequences),
        assumptions=_assumptions(inp, checked, gpus, candidates),
        notes=tuple(notes),
    )


def _fit_notes(
    notes: list[str],
    inp: FitInput,
    checked: _Checked,
    gpus: int,
    fits: bool,
    smallest: int | None,
    largest: int,
    demand: _Demand,
    nodes: int,
) -> None:
    model, gpu = inp.model, inp.gpu
    if checked.mode in ("inference", "lora"):
        note = hardware_support_note(
            checked.weight_precision, gpu.supported_precisions, field="weight_precision"
        )
        if note:
            notes.append(note)
    if checked.mode == "inference":
        note = hardware_support_note(
            checked.kv_precision, gpu.supported_precisions, field="kv_precision"
        )
        if note:
            notes.append(note)
    if checked.mode == "training" and checked.weight_precision not in ("bf16", "fp16", "fp32"):
        notes.append(
            f"training state is counted with the mixed-precision AdamW recipe (16 bytes/param); "
            f"weight_precision {checked.weight_precision} is not applied"
        )
    if checked.mode == "qlora" and checked.weight_precision not in ("int4", "fp4"):
        notes.append(
            f"QLoRA stores the frozen base in 4-bit NF4; weight_precision "
            f"{checked.weight_precision} is not applied"
        )
    if model.max_context is not None and inp.context_tokens > model.max_context:
        notes.append(
            f"context_tokens {inp.context_tokens:,} exceeds the model's max context "
            f"{model.max_context:,}"
        )
    if model.sliding_window is not None and model.sliding_window_layers == 0:
        notes.append("sliding_window is set but sliding_window_layers is 0: no layer is capped")
    if smallest is None:
        what = ""
        if demand.per_sequence_key == "activations" and (
            demand.per_sequence_gb * inp.micro_batch > checked.usable_gb_per_gpu
        ):
            what = "activations alone exceed usable memory per GPU; "
        notes.append(
            f"does not fit on up to {largest:,} GPUs ({inp.max_nodes} nodes); {what}reduce "
            "context, concurrency or precision, or pick a larger-memory GPU"
        )
    elif inp.gpus is not None and not fits:
        notes.append(f"does not fit on {gpus} GPUs; the smallest count that fits is {smallest}")
    elif inp.gpus is not None and smallest < gpus:
        notes.append(f"also fits on {smallest} GPU(s)")
    if nodes > 1:
        fabric = ""
        if gpu.interconnect_gbps:
            fabric = f" (vs {gpu.interconnect_gbps:g} GB/s per GPU inside the node)"
        notes.append(
            f"spans {nodes} nodes: the inter-node fabric carries pipeline and gradient traffic"
            f"{fabric}; topology is part of the GPU choice"
        )
    if checked.mode == "inference":
        tp = tensor_parallel_degree(gpus, gpu.max_gpus_per_node)
        if model.mla_latent_dim is not None and tp > 1:
            notes.append(
                f"MLA latent KV is replicated on each of the {tp} tensor-parallel GPUs "
                "(data-parallel attention would shard it)"
            )
        elif model.mla_latent_dim is None and tp > model.kv_heads:
            notes.append(
                f"tensor-parallel degree {tp} exceeds the {model.kv_heads} KV heads: KV heads "
                "are replicated and the KV cache stops shrinking per GPU"
            )


def _describe_candidates(candidates: tuple[int, ...], node: int) -> str:
    within = [c for c in candidates if c <= node]
    text = ", ".join(str(c) for c in within)
    if candidates[-1] > node:
        text += f", then whole nodes of {node} up to {candidates[-1]:,} GPUs"
    return text


def _assumptions(
    inp: FitInput, checked: _Checked, gpus: int, candidates: tuple[int, ...]
) -> dict[str, object]:
    model = inp.model
    out: dict[str, object] = {
        "gb": "1e9 bytes",
        "overhead_gb_per_gpu": inp.overhead_gb,
        "overhead_reason": OVERHEAD_REASON,
        "safety_margin": inp.safety_margin,
        "safety_margin_reason": SAFETY_MARGIN_REASON,
        "usable_formula": "memory_gb × (1 − safety_margin) − overhead_gb",
        "total_formula": "(per_gpu_gb + overhead_gb) × gpus; margin excluded",
        "gpus": "given" if inp.gpus is not None else "smallest fitting count searched",
        "gpu_counts_searched": _describe_candidates(candidates, inp.gpu.max_gpus_per_node),
        "max_nodes": inp.max_nodes,
        "params_in_memory_b": model.params_b,
    }
    if model.active_params_b is not None and model.active_params_b < model.params_b:
        out["moe"] = (
            f"all {model.params_b:g}B params (every expert) are held in memory; "
            f"{model.active_params_b:g}B active params drive compute"
        )
    if checked.mode == "inference":
        out.update(
            {
                "weight_precision": checked.weight_precision,
                "weight_bytes_per_param": bytes_per_value(checked.weight_precision),
                "kv_precision": checked.kv_precision,
                "kv_bytes_per_value": bytes_per_value(checked.kv_precision),
                "kv_formula": (
                    "mla_latent_dim × layers × kv_bytes"
                    if model.mla_latent_dim is not None
                    else "2 × layers × kv_heads × head_dim × kv_bytes"
                ),
                "context_tokens": inp.context_tokens,
                "concurrent_sequences": inp.concurrent_sequences,
                "parallelism": (
                    "tensor parallel inside a node, pipeline stages across nodes; weights split "
                    "evenly; KV split by KV heads (MLA latent replicated) and pipeline stages"
                ),
            }
        )
        if model.sliding_window is not None and model.sliding_window_layers:
            out["sliding_window"] = (
                f"{model.sliding_window_layers} of {model.layers} layers keep at most "
                f"{model.sliding_window:,} tokens of KV; the serving stack frees the rest"
            )
        return out
    h, h_source = hidden_size(model)
    out.update(
        {
            "optimizer": "AdamW, mixed precision",
            "bytes_per_trained_param": {
                "weights": ADAMW_WEIGHT_BYTES,
                "gradients": ADAMW_GRADIENT_BYTES,
                "optimizer": ADAMW_OPTIMIZER_BYTES,
            },
            "zero_stage": inp.zero_stage,
            "sharding": (
                "data parallel over all GPUs; ZeRO 1 shards optimizer, 2 also gradients, "
                "3 (FSDP full shard) also weights"
            ),
            "sequence_length": inp.context_tokens,
            "micro_batch": inp.micro_batch,
            "activation_checkpointing": inp.activation_checkpointing,
            "activation_formula": (
                "layers × 2·s·h + 34·s·h bytes per sequence (checkpointing on)"
                if inp.activation_checkpointing
                else "layers × 34·s·h bytes per sequence (checkpointing off)"
            ),
            "activation_source": "Korthikanti et al. 2022, FlashAttention (no s² scores)",
            "hidden_size": h,
            "hidden_size_source": h_source,
            "not_modelled": "logits (s × vocab × 4 bytes), MoE expert activations, "
            "tensor/sequence parallelism, CPU offload",
        }
    )
    if checked.mode in ("lora", "qlora"):
        out.update(
            {
                "lora_rank": inp.lora_rank,
                "lora_target_matrices": list(LORA_TARGET_MATRICES),
                "lora_adapter_params": lora_adapter_params(model, inp.lora_rank),
                "adapter_formula": "rank × (d_in + d_out) per adapted matrix per layer",
            }
        )
    if checked.mode == "lora":
        out["base_bytes_per_param"] = bytes_per_value(checked.weight_precision)
        out["base"] = f"frozen, {checked.weight_precision}"
    if checked.mode == "qlora":
        out["base_bytes_per_param"] = QLORA_BASE_BYTES + QLORA_CONSTANT_BYTES
        out["base"] = (
            "frozen, 4-bit NF4 (0.5 bytes/param) + double-quantised constants "
            f"({QLORA_CONSTANT_BYTES:.6f} bytes/param = 0.127 bits); embeddings and norms "
            "counted as 4-bit too"
        )
    return out
