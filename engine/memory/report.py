"""Memory fit: the notes and the stated assumptions of an answer (see memory_fit.py)."""

from __future__ import annotations

from typing import Any

from engine.memory.spec import (
    ADAMW_GRADIENT_BYTES,
    ADAMW_OPTIMIZER_BYTES,
    ADAMW_WEIGHT_BYTES,
    LORA_TARGET_MATRICES,
    OVERHEAD_REASON,
    QLORA_BASE_BYTES,
    QLORA_CONSTANT_BYTES,
    SAFETY_MARGIN_REASON,
    FitInput,
    _Checked,
    hidden_size,
    lora_adapter_params,
    quantised_weights_gb,
    tensor_parallel_degree,
)
from engine.precision import bytes_per_value, hardware_support_note


def _fit_notes(
    notes: list[str],
    inp: FitInput,
    checked: _Checked,
    gpus: int,
    fits: bool,
    smallest: int | None,
    largest: int,
    demand: Any,
    nodes: int,
) -> None:
    model, gpu = inp.model, inp.gpu
    for modes, name, field in (
        (("inference", "lora"), checked.weight_precision, "weight_precision"),
        (("inference",), checked.kv_precision, "kv_precision"),
    ):
        if checked.mode in modes and (
            note := hardware_support_note(name, gpu.supported_precisions, field=field)
        ):
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
        "capacity_unit": (
            f"{inp.gpu.memory_gb:g} {inp.gpu.memory_unit} (datasheet) = "
            f"{inp.gpu.capacity_gb:.2f} GB"
        ),
        "overhead_gb_per_gpu": inp.overhead_gb,
        "overhead_reason": OVERHEAD_REASON,
        "safety_margin": inp.safety_margin,
        "safety_margin_reason": SAFETY_MARGIN_REASON,
        "usable_formula": "capacity_gb × (1 − safety_margin) − overhead_gb",
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
                "weights_counted": quantised_weights_gb(model, checked.weight_precision)[1],
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
