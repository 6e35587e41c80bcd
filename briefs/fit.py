"""Catalog and brief rows → the memory-fit engine's frozen dataclasses (the "fetch" step).

The engine (`engine.memory.fit`) never imports Django; this module is the one
place that knows how a `ModelProfile`, an `Accelerator` or a `WorkloadBrief` maps onto
`ModelSpec`, `GpuSpec` and `FitInput`. Other areas import `model_spec_for(profile)` and
`gpu_spec_for(accelerator)` from here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core import workloads
from core.values import float_or_none
from engine.errors import EngineInputError
from engine.memory.context import fit_contexts
from engine.memory.fit import memory_fit
from engine.memory.spec import FitInput, FitResult, GpuSpec, ModelSpec

if TYPE_CHECKING:
    from briefs.models import WorkloadBrief
    from catalog.models import Accelerator, ModelProfile

# Workload class → engine mode. Adapter fine-tuning is QLoRA when the base is 4-bit.
_TRAINING_MODES = dict.fromkeys(workloads.TRAINING_RUN, "training")
_FOUR_BIT = {"int4", "fp4"}


def model_spec_for(profile: ModelProfile) -> ModelSpec:
    """The architecture numbers of a catalog model profile, as the engine wants them."""
    active = profile.params_active_b
    return ModelSpec(
        params_b=float(profile.params_total_b),
        layers=int(profile.layers),
        kv_heads=int(profile.kv_heads),
        head_dim=int(profile.head_dim),
        # Dense models store active == total; the engine wants None for "dense".
        active_params_b=(
            float(active) if active is not None and active < profile.params_total_b else None
        ),
        hidden_size=profile.hidden_size,
        attention_heads=profile.attention_heads,
        mla_latent_dim=profile.mla_latent_dim,
        sliding_window=profile.sliding_window,
        sliding_window_layers=int(profile.sliding_window_layers or 0),
        max_context=profile.max_context,
        vocab_size=getattr(profile, "vocab_size", None),
        tied_embeddings=bool(getattr(profile, "tied_embeddings", False)),
    )


def gpu_spec_for(accelerator: Accelerator) -> GpuSpec:
    """Datasheet figures of one catalog accelerator (per GPU, dense)."""
    return GpuSpec(
        memory_gb=float(accelerator.memory_gb),
        max_gpus_per_node=int(accelerator.max_gpus_per_node or 8),
        memory_bandwidth_tbps=float_or_none(accelerator.memory_bandwidth_tbps),
        bf16_dense_tflops=float_or_none(accelerator.bf16_dense_tflops),
        fp8_dense_tflops=float_or_none(accelerator.fp8_dense_tflops),
        fp4_dense_tflops=float_or_none(accelerator.fp4_dense_tflops),
        interconnect_gbps=float_or_none(accelerator.interconnect_gbps),
        supported_precisions=tuple(str(p) for p in (accelerator.supported_precisions or ())),
        # datasheet "80 GB" is GiB-sized (nvidia-smi: 81,559 MiB): read it as GiB (M-2)
        memory_unit="GiB",
    )


def mode_for(brief: WorkloadBrief) -> str:
    """The engine mode a brief's workload class implies (inference for serving and media)."""
    if brief.workload_class in _TRAINING_MODES:
        return _TRAINING_MODES[brief.workload_class]
    if brief.workload_class in workloads.ADAPTER:
        return "qlora" if brief.weight_precision in _FOUR_BIT else "lora"
    return "inference"


def context_tokens_for(brief: WorkloadBrief) -> int | None:
    """Inference: p95 input + p95 output tokens; training modes: the sequence length."""
    if mode_for(brief) != "inference":
        return brief.sequence_length or brief.context_window_tokens
    # A blank p95 input falls back to the context window (never read as 0 tokens)
    return fit_contexts(
        brief.p95_input_tokens, brief.p95_output_tokens, brief.context_window_tokens
    ).context_tokens


def context_source_for(brief: WorkloadBrief) -> str:
    """Where the fit's context length comes from, in words (the fallback is said)."""
    if mode_for(brief) != "inference":
        return "the sequence length" if brief.sequence_length else "the context window"
    return fit_contexts(
        brief.p95_input_tokens, brief.p95_output_tokens, brief.context_window_tokens
    ).source


def concurrency_for(brief: WorkloadBrief) -> int:
    """Sequences resident at once: concurrency, else batch size, else one."""
    return int(brief.concurrency or brief.batch_size or 1)


def fit_input_for_brief(
    brief: WorkloadBrief,
    accelerator: Accelerator,
    *,
    model_spec: ModelSpec | None = None,
    **overrides: Any,
) -> FitInput:
    """The memory-fit question a brief asks of one accelerator.

    Pass `model_spec` when fitting many accelerators, to build it once. `overrides` replace
    any FitInput field (e.g. `gpus=8`, `context_tokens=32768`).
    """
    if brief.model is None:
        raise ValueError("the brief has no model, so there is nothing to fit")
    mode = mode_for(brief)
    values: dict[str, Any] = {
        "model": model_spec or model_spec_for(brief.model),
        "gpu": gpu_spec_for(accelerator),
        "mode": mode,
        "weight_precision": brief.weight_precision,
        "kv_precision": brief.kv_precision,
        "context_tokens": context_tokens_for(brief) or 1,
        "concurrent_sequences": concurrency_for(brief),
    }
    if mode != "inference":
        values["micro_batch"] = int(brief.batch_size or 1)
        if brief.lora_rank:
            values["lora_rank"] = int(brief.lora_rank)
        values["zero_stage"] = _zero_stage(brief.sharding)
    values.update(overrides)
    return FitInput(**values)


def _zero_stage(sharding: str) -> int:
    """Map the brief's free-text sharding ("zero3", "fsdp", "ddp", "zero-1") to a ZeRO stage."""
    text = (sharding or "").lower().replace("-", "").replace("_", "").replace(" ", "")
    if text in ("ddp", "none", "zero0", "dataparallel"):
        return 0
    for stage in (1, 2, 3):
        if text in (f"zero{stage}", f"stage{stage}"):
            return stage
    return 3  # FSDP full shard / ZeRO-3 is the common default


@dataclass(frozen=True, slots=True)
class AcceleratorFit:
    """One accelerator's memory fit for a brief (or why it could not be computed)."""

    slug: str
    name: str
    vendor: str
    memory_gb: float
    result: FitResult | None
    error: str = ""

    @property
    def fits(self) -> bool:
        return self.result is not None and self.result.fits

    @property
    def status(self) -> str:
        """'fits', 'amber' (headroom under the margin: never a plain green fit) or
        'does_not_fit'."""
        return self.result.status if self.result is not None else "does_not_fit"

    def sort_key(self) -> tuple[int, int, float, str]:
        """Fitting rows first, by GPUs required, then memory per GPU (smallest first)."""
        gpus = self.result.gpus_required if self.result is not None else 1 << 30
        return (0 if self.fits else 1, gpus, self.memory_gb, self.name)


def fit_accelerators(
    brief: WorkloadBrief, accelerators: Iterable[Accelerator]
) -> list[AcceleratorFit]:
    """Memory fit of the brief on every accelerator, sorted (fitting, fewest GPUs, memory)."""
    spec = model_spec_for(brief.model) if brief.model is not None else None
    rows = []
    for acc in accelerators:
        result, error = None, ""
        try:
            result = memory_fit(fit_input_for_brief(brief, acc, model_spec=spec))
        except (EngineInputError, ValueError) as exc:
            error = str(exc)
        rows.append(
            AcceleratorFit(acc.slug, acc.name, acc.vendor, float(acc.memory_gb), result, error)
        )
    return sorted(rows, key=AcceleratorFit.sort_key)
