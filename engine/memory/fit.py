"""Memory fit: does a model's inference or training state fit in GPU memory, on how many GPUs?

All sizes are decimal gigabytes (1 GB = 1e9 bytes). The accelerator's ``memory_gb`` is read in
``GpuSpec.memory_unit``: catalog accelerators say "GiB", the unit datasheets give (80 GiB =
85.9 GB; M-2). Sources: docs/domain.md ("memory fit comes first": weights + KV cache + framework
headroom + safety margin; training competes for HBM with gradients, optimizer states and
activations) and PRODUCT.md "The engine".

Inference (per model replica)::

    weights_gb          = params_b × bytes_per_weight        (MoE: *total* params; every expert
                                                              is resident, compute uses active)
      INT8/INT4/FP8/FP4 (M-1): (params − kept) × (bytes + scales) + kept × 2, where kept =
      embeddings + output head (unless tied) + norms, from the vocabulary size; scales are an
      FP16 scale + 4-bit zero per 128 weights (4-bit), an FP16 scale per output channel (INT8)
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

    usable_gb_per_gpu   = capacity_gb × (1 − safety_margin) − overhead_gb
    status              = fits | amber (headroom under the brief's margin) | does_not_fit
    fits                = per_gpu_gb ≤ usable_gb_per_gpu
    headroom_pct        = (usable_gb_per_gpu − per_gpu_gb) / usable_gb_per_gpu × 100
    total_gb            = (per_gpu_gb + overhead_gb) × gpus     (margin excluded)

The search tries tensor-parallel degrees 1, 2, 4, 8 … up to the node size, then whole nodes
(2 × node, 3 × node, … up to ``max_nodes``), and returns the first that fits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.memory.report import _assumptions, _fit_notes
from engine.memory.spec import (
    ADAMW_GRADIENT_BYTES,
    ADAMW_OPTIMIZER_BYTES,
    ADAMW_WEIGHT_BYTES,
    GB,
    QLORA_BASE_BYTES,
    QLORA_CONSTANT_BYTES,
    FitInput,
    FitPoint,
    FitResult,
    _check,
    _Checked,
    activation_bytes_per_sequence,
    candidate_gpu_counts,
    curve_contexts,
    kv_bytes_per_sequence,
    kv_bytes_per_token,
    kv_shards,
    lora_adapter_params,
    quantised_weights_gb,
)
from engine.precision import bytes_per_value

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
        return quantised_weights_gb(inp.model, checked.weight_precision)[0]
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
        margin_gb=gpu.capacity_gb * inp.safety_margin,
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
        status=fit_status(fits, (usable - per_gpu) / usable * 100, inp.headroom_margin_pct),
    )


def fit_status(fits: bool, headroom_pct: float, margin_pct: float) -> str:
    """'fits', 'amber' (fits with headroom under the margin: never a plain green fit) or
    'does_not_fit'."""
    if not fits:
        return "does_not_fit"
    return "amber" if headroom_pct < margin_pct else "fits"
