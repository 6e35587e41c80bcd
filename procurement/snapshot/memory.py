"""Per quote: the memory fit — GPUs per replica at the brief's context, the configuration's
facts — inference and training (the snapshot's sizing reads it).

Pure: no Django.
"""

from __future__ import annotations

import math

from core import workloads
from engine.errors import EngineInputError
from engine.memory.context import fit_contexts
from engine.memory.fit import memory_fit
from engine.memory.spec import DEFAULT_MAX_NODES, FitInput, FitResult, GpuSpec, ModelSpec
from procurement.snapshot.context import Context, rounded
from procurement.snapshot.facts import FitFacts

# Memory-fit mode per class: a whole-model training run sizes as "training".
TRAINING_MODES = dict.fromkeys(workloads.TRAINING_RUN, "training")
FOUR_BIT = {"int4", "fp4"}


def model_of(ctx: Context) -> ModelSpec:
    if ctx.model is None:
        raise EngineInputError("model", "the brief names no model to size")
    return ctx.model


def _fit_facts(fit: FitResult, *, context: int, sequences: int, offered: int | None) -> FitFacts:
    return {
        "gpus_required": fit.gpus_required,
        "fits": fit.fits,
        "headroom_pct": rounded(fit.headroom_pct, 1),
        "per_gpu_gb": rounded(fit.per_gpu_gb),
        "usable_gb_per_gpu": rounded(fit.usable_gb_per_gpu),
        "weights_gb": rounded(fit.weights_gb),
        "kv_cache_gb": rounded(fit.kv_cache_gb),
        "max_concurrent_sequences": fit.max_concurrent_sequences,
        "nodes_required": fit.nodes_required,
        "crosses_nodes": fit.crosses_nodes,
        "context_tokens": context,
        "concurrent_sequences": sequences,
        "offered_gpus": offered,
        "notes": list(fit.notes),
    }


def inference_fit(
    ctx: Context, gpu: GpuSpec, node: int, cap: int | None, at: int | None = None
) -> tuple[int, bool, FitFacts, list[str]]:
    """(GPUs per replica, fits within the offer, fit facts, reasons): the smallest fit, or
    the fit at ``at`` GPUs per replica (a measured or a larger configuration)."""
    gpus, fits, facts, reasons = ctx.memo(
        ("inference_fit", gpu, node, cap, at), lambda: _inference_fit(ctx, gpu, node, cap, at)
    )
    return gpus, fits, facts.copy(), list(reasons)


def _inference_fit(
    ctx: Context, gpu: GpuSpec, node: int, cap: int | None, at: int | None
) -> tuple[int, bool, FitFacts, list[str]]:
    brief = ctx.brief
    model = model_of(ctx)
    contexts = fit_contexts(
        brief.get("p95_input_tokens"),
        brief.get("p95_output_tokens"),
        brief.get("context_window_tokens"),
    )
    if contexts.context_tokens is None:
        raise EngineInputError("p95_input_tokens", contexts.source)
    context = contexts.context_tokens
    sequences = int(brief.get("concurrency") or brief.get("batch_size") or 1)
    max_nodes = max(1, math.ceil(cap / node)) if cap else DEFAULT_MAX_NODES
    margin = float(ctx.a.get("headroom_margin_pct", 10.0))

    def fit_at(tokens: int, gpus: int | None = None) -> FitResult:
        return memory_fit(
            FitInput(
                model=model,
                gpu=gpu,
                mode="inference",
                weight_precision=brief["weight_precision"],
                kv_precision=brief["kv_precision"],
                context_tokens=max(1, tokens),
                concurrent_sequences=sequences,
                gpus=gpus,
                overhead_gb=float(ctx.a["overhead_gb"]),
                safety_margin=float(ctx.a["safety_margin"]),
                max_nodes=max_nodes,
                headroom_margin_pct=margin,
            )
        )

    fit = fit_at(context, at)
    facts = _fit_facts(fit, context=context, sequences=sequences, offered=cap)
    facts["context_source"] = contexts.source
    reasons: list[str] = []
    fits = fit.fits and (cap is None or fit.gpus_required <= cap)
    gpus = fit.gpus_required if cap is None else min(fit.gpus_required, cap)
    if fit.fits and not fits:
        reasons.append(
            f"needs {fit.gpus_required} GPUs per replica at p95 context ({context} "
            f"tokens × {sequences} sequences); the quote offers at most {cap}"
        )
    facts["fits"] = fits
    facts["status"] = fit.status if fits else "does_not_fit"
    facts["headroom_margin_pct"] = margin  # the page says why a fit is amber, with this figure
    if contexts.window_tokens is not None and fits:
        at_window = fit_at(contexts.window_tokens, gpus=max(1, gpus))
        facts["fits_at_context_window"] = at_window.fits
        facts["context_window_tokens"] = contexts.window_tokens
        facts["headroom_pct_at_context_window"] = rounded(at_window.headroom_pct, 1)
    return max(1, gpus), fits, facts, reasons


def training_fit(
    ctx: Context, gpu: GpuSpec, node: int, cap: int | None
) -> tuple[int, bool, FitFacts, list[str]]:
    brief = ctx.brief
    model = model_of(ctx)
    gpus = int(brief.get("target_gpus") or 1)
    mode = TRAINING_MODES.get(brief["workload_class"]) or (
        "qlora" if brief["weight_precision"] in FOUR_BIT else "lora"
    )
    sharding = (brief.get("sharding") or "").lower().replace("-", "").replace("_", "")
    stage = (
        0
        if sharding in ("ddp", "none", "zero0")
        else next((s for s in (1, 2) if sharding in (f"zero{s}", f"stage{s}")), 3)
    )
    seq = int(brief.get("sequence_length") or 2048)
    fit = memory_fit(
        FitInput(
            model=model,
            gpu=gpu,
            mode=mode,
            weight_precision=brief["weight_precision"],
            kv_precision=brief["kv_precision"],
            context_tokens=seq,
            concurrent_sequences=1,
            gpus=gpus,
            micro_batch=int(brief.get("batch_size") or 1),
            zero_stage=stage,
            lora_rank=int(brief.get("lora_rank") or 16),
            overhead_gb=float(ctx.a["overhead_gb"]),
            safety_margin=float(ctx.a["safety_margin"]),
            max_nodes=max(DEFAULT_MAX_NODES, math.ceil(gpus / node)),
        )
    )
    facts = _fit_facts(fit, context=seq, sequences=1, offered=cap)
    reasons = []
    if cap is not None and gpus > cap:
        reasons.append(f"the brief targets {gpus} GPUs; the quote offers at most {cap}")
    fits = fit.fits and not reasons
    facts["fits"] = fits
    return gpus, fits, facts, reasons
