"""The memory fit's stated assumptions in words for the brief page and the calculator (pure).

The engine names its assumptions by key (`overhead_gb_per_gpu`, `kv_formula`); the API
keeps those keys, the pages read them as labels, with the key kept in the title.
"""

from __future__ import annotations

from collections.abc import Mapping

# Keys whose label is not the key in words ("hidden_size" → "Hidden size", label_of).
LABELS = {
    "gb": "GB",
    "capacity_unit": "Memory per GPU",
    "overhead_gb_per_gpu": "Runtime overhead per GPU (GB)",
    "overhead_reason": "Why that overhead",
    "safety_margin": "Safety margin (share of memory kept free)",
    "safety_margin_reason": "Why that margin",
    "usable_formula": "Usable memory per GPU",
    "total_formula": "Total memory",
    "gpus": "GPU count",
    "gpu_counts_searched": "GPU counts tried",
    "max_nodes": "Most nodes tried",
    "params_in_memory_b": "Parameters held in memory (billions)",
    "moe": "Mixture of experts",
    "weight_bytes_per_param": "Bytes per weight",
    "kv_precision": "KV-cache precision",
    "kv_bytes_per_value": "Bytes per KV-cache value",
    "kv_formula": "KV cache per token",
    "context_tokens": "Context (tokens)",
    "bytes_per_trained_param": "Bytes per trained parameter",
    "zero_stage": "ZeRO stage",
    "sequence_length": "Sequence length (tokens)",
    "micro_batch": "Micro-batch",
    "activation_formula": "Activations",
    "activation_source": "Activation estimate from",
    "hidden_size_source": "Hidden size from",
    "lora_rank": "LoRA rank",
    "lora_target_matrices": "LoRA target matrices",
    "lora_adapter_params": "LoRA adapter parameters",
    "adapter_formula": "Adapter parameters",
    "accelerator_memory_gb": "Accelerator memory (GB, as the catalog states it)",
}


def label_of(key: str) -> str:
    """The label of an assumption; a key the engine adds later reads as words."""
    if key in LABELS:
        return LABELS[key]
    words = key.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def assumption_rows(assumptions: Mapping[str, object] | None) -> list[tuple[str, str, object]]:
    """(key, label, value) for each assumption, in the engine's order."""
    return [(key, label_of(key), value) for key, value in (assumptions or {}).items()]
