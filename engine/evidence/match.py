"""The evidence rules (the package docstring): match a result to a row, choose and rank."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from engine.evidence.kinds import (
    LENGTH_TOLERANCE,
    PROXY_WIDENING,
    SCALING_WIDENING,
    SIZE_CLASS_RATIO,
    EvidenceMatch,
    EvidenceTarget,
    Published,
    ResultWorkload,
    evidence_strength,
)
from engine.evidence.names import (
    family_of,
    is_moe_name,
    moe_active_from_name,
    normalise_model,
    params_from_name,
)
from engine.evidence_setup import Setup, setup_adjustments, setup_differences
from engine.precision import PRECISIONS

# Weight bytes by precision, with the quantisation formats' own names (4-bit all).
_WEIGHT_BYTES = {
    **{name: p.bytes_per_value for name, p in PRECISIONS.items()},
    **dict.fromkeys(("awq", "gptq", "nvfp4", "mxfp4"), 0.5),
}


def _target_is_moe(target: EvidenceTarget) -> bool:
    active, total = target.model_active_params_b, target.model_params_b
    if active is not None and total is not None and active < total * 0.95:
        return True
    return is_moe_name(target.model_name)


def _precision_factor(result: ResultWorkload, target: EvidenceTarget) -> float | None:
    """target / result throughput from the weight bytes (None: unknown or the same)."""
    theirs = _WEIGHT_BYTES.get((result.precision or "").lower())
    ours = _WEIGHT_BYTES.get((target.precision or "").lower())
    if theirs is None or ours is None or theirs == ours:
        return None
    return theirs / ours


def same_model(result: ResultWorkload, target: EvidenceTarget) -> bool:
    if result.model_profile_id is not None and target.model_profile_id is not None:
        return result.model_profile_id == target.model_profile_id
    return bool(result.model_name) and normalise_model(result.model_name) == normalise_model(
        target.model_name
    )


def _size_class(result: ResultWorkload, target: EvidenceTarget) -> float | None:
    """brief active params / result active params when both are known and in the same size
    class (a MoE's active parameters, its name's "A3B", else the total)."""
    theirs = moe_active_from_name(result.model_name) or params_from_name(result.model_name)
    ours = (
        target.model_active_params_b
        or target.model_params_b
        or moe_active_from_name(target.model_name)
        or params_from_name(target.model_name)
    )
    if not theirs or not ours:
        return None
    ratio = ours / theirs
    return ratio if 1 / SIZE_CLASS_RATIO <= ratio <= SIZE_CLASS_RATIO else None


def _same_family(result: ResultWorkload, target: EvidenceTarget) -> bool:
    theirs = family_of(result.model_name)
    ours = family_of(target.model_name) or family_of(target.model_family)
    return bool(theirs) and theirs == ours


def _length_gap(name: str, measured: float | None, wanted: float | None) -> str | None:
    if wanted is None or wanted <= 0:
        return None
    if measured is None:
        return f"{name} length not recorded"
    if abs(measured - wanted) > LENGTH_TOLERANCE * wanted:
        return f"{name} {measured:,.0f} tokens against the brief's {wanted:,.0f} (±25 %)"
    return None


def shape_differences(result: ResultWorkload, target: EvidenceTarget) -> list[str]:
    """Where the result's workload shape falls outside the tolerances (empty: within)."""
    out: list[str] = []
    for name in ("input", "output"):
        pairs: list[tuple[float | None, float | None]] = [
            (getattr(result, f"{name}_tokens_{stat}"), getattr(target, f"{name}_tokens_{stat}"))
            for stat in ("mean", "p95")
        ]
        # compare like with like: mean with mean when both exist, else p95 with p95,
        # else the result's mean against the brief's p95
        usable = [(m, w) for m, w in pairs if m is not None and w is not None]
        if usable:
            gap = _length_gap(name, *usable[0])
        else:
            wanted = pairs[1][1] or pairs[0][1]
            gap = _length_gap(name, pairs[0][0] or pairs[1][0], wanted)
        if gap:
            out.append(gap)
    if target.concurrency:
        if result.concurrency is None:
            out.append("concurrency not recorded")
        elif result.concurrency < target.concurrency:
            out.append(
                f"measured up to concurrency {result.concurrency:g}, "
                f"the brief needs {target.concurrency:g}"
            )
    if not result.precision:
        out.append("precision not recorded")
    elif target.precision and result.precision.lower() != target.precision.lower():
        out.append(f"measured at {result.precision}, the brief is {target.precision}")
    tp, pp = result.tensor_parallel, result.pipeline_parallel
    if (pp or 1) > 1 or (
        tp is not None and tp != target.gpus and (pp or 1) * tp == result.gpu_count
    ):
        out.append(
            f"measured with TP={tp or 1}, PP={pp or 1}; the row assumes tensor parallel "
            f"over its {target.gpus} GPU{'s' if target.gpus != 1 else ''}"
        )
    return out + setup_differences(*_setups(result, target))


def _setups(result: ResultWorkload, target: EvidenceTarget) -> tuple[Setup, Setup]:
    return (
        (result.serving_engine, result.engine_version, result.kv_precision),
        (target.serving_engine, target.serving_engine_version, target.kv_precision),
    )


def _scaling(result: ResultWorkload, target: EvidenceTarget) -> tuple[float, float, str | None]:
    """(throughput factor, low-spread factor, stated scaling) from N measured to M costed."""
    n, m = max(1, int(result.gpu_count or 1)), max(1, int(target.gpus))
    if n == m:
        return 1.0, 1.0, None
    doublings = abs(math.log2(m / n))
    low = max(0.5, 1.0 - SCALING_WIDENING * doublings)
    shape = ""
    if result.tensor_parallel or result.pipeline_parallel:
        shape = f" (TP={result.tensor_parallel or 1}, PP={result.pipeline_parallel or 1})"
    return (
        m / n,
        low,
        f"measured on {n} GPU{'s' if n > 1 else ''}{shape}, scaled linearly to {m} "
        f"(×{m / n:g}); low spread widened ×{low:.2f}",
    )


def _label(name: str) -> str:
    return name or "an unnamed model"


def _size_words(size: float, result: ResultWorkload, target: EvidenceTarget) -> str:
    return (
        f"scaled by {size:.3f} for the parameter count ({_label(target.model_name)} "
        f"against {_label(result.model_name)})"
    )


def _elsewhere(result: ResultWorkload, target: EvidenceTarget, scope: str) -> str:
    """A measurement taken on the accelerator, not on this offer, says so on the row (it
    still counts as measured: docs/engine/evidence.md, "Whose measurement")."""
    if scope == "quote" and result.measured_on_version is not None:
        return (
            f", on v{result.measured_on_version} of this offer (later versions changed no "
            "hardware or configuration)"
        )
    if scope == "quote" or target.quote_id is None:
        return ""
    if result.quote_id is not None:
        return ", on another offer of this accelerator, not on this one"
    return ", on this accelerator, not on this offer"


def match_result(result: ResultWorkload, target: EvidenceTarget) -> EvidenceMatch:
    """Judge one result for one candidate (see the module docstring)."""
    scope = (
        "quote"
        if result.quote_id is not None and result.quote_id == target.quote_id
        else "accelerator"
    )
    rid = result.result_id
    if result.accelerator != target.accelerator:
        return EvidenceMatch(
            rid,
            "ignored",
            f"benchmark on {result.accelerator} ignored: the row is {target.accelerator}",
            scope=scope,
        )
    if result.brief_id is not None and target.brief_id not in (None, result.brief_id):
        return EvidenceMatch(rid, "ignored", "benchmark of another brief ignored", scope=scope)
    if not result.model_name and result.model_profile_id is None:
        return EvidenceMatch(
            rid,
            "ignored",
            "benchmark ignored: it does not record which model it measured",
            scope=scope,
        )
    if is_moe_name(result.model_name) != _target_is_moe(target) and not same_model(result, target):
        kinds = ("mixture-of-experts", "dense")
        theirs, ours = kinds if is_moe_name(result.model_name) else kinds[::-1]
        return EvidenceMatch(
            rid,
            "ignored",
            f"benchmark of {_label(result.model_name)} ignored: a {theirs} model says nothing "
            f"of the {ours} {_label(target.model_name)}",
            scope=scope,
        )
    if result.published is not None:
        return match_published(result, result.published, target)
    if target.nodes > max(1, result.nodes):
        # Tensor parallel over instances without the node's GPU interconnect is not the
        # measured setup, and no public factor carries one to the other (issue 37, F12).
        measured = "one node" if result.nodes <= 1 else f"{result.nodes} nodes"
        return EvidenceMatch(
            rid,
            "ignored",
            f"benchmark measured on {measured} ignored: the row's {target.gpus} GPUs span "
            f"{target.nodes} nodes, a setup it did not measure",
            scope=scope,
        )
    factor, low, scaling = _scaling(result, target)
    adjustments = [scaling] if scaling else []
    bytes_factor = _precision_factor(result, target)
    if bytes_factor is not None:
        factor *= bytes_factor
        adjustments.append(
            f"scaled ×{bytes_factor:g} from {result.precision} to {target.precision} weights "
            "(decode reads every weight once per token)"
        )
    if same_model(result, target):
        gaps = shape_differences(result, target)
        if not gaps and scaling is None:
            return EvidenceMatch(
                rid,
                "measured",
                f"measured on {_label(result.model_name)} at the brief's shape"
                + _elsewhere(result, target, scope),
                scope=scope,
            )
        adjustments += setup_adjustments(*_setups(result, target))
        gaps += [scaling] if scaling else []
        return EvidenceMatch(
            rid,
            "proxy",
            f"proxy: {_label(result.model_name)} on another shape or setup ({'; '.join(gaps)})",
            adjustments=tuple(adjustments),
            throughput_factor=factor,
            spread_low_factor=low * (1 - PROXY_WIDENING),
            spread_high_factor=1 + PROXY_WIDENING / 3,
            scope=scope,
            differences=tuple(gaps),
        )
    ratio = _size_class(result, target)
    if ratio is not None and _same_family(result, target):
        size = 1 / ratio  # tokens/s ∝ 1 / active params (memory-bound decode)
        adjustments.append(_size_words(size, result, target))
        gaps = shape_differences(result, target)
        adjustments += setup_adjustments(*_setups(result, target))
        return EvidenceMatch(
            rid,
            "proxy",
            f"proxy: {_label(result.model_name)}, same family and size class as "
            f"{_label(target.model_name)}",
            adjustments=tuple(adjustments),
            throughput_factor=factor * size,
            spread_low_factor=low * (1 - PROXY_WIDENING) ** 2,
            spread_high_factor=1 + PROXY_WIDENING / 2,
            scope=scope,
            differences=tuple(gaps),
        )
    return EvidenceMatch(
        rid,
        "ignored",
        f"benchmark of {_label(result.model_name)} ignored: the brief is "
        f"{_label(target.model_name)}",
        scope=scope,
    )


def round_order(name: str) -> tuple[int, ...]:
    """'MLPerf Inference v4.1' → (4, 1): a newer round sorts after an older one."""
    found = re.search(r"v?(\d+(?:\.\d+)*)\s*$", name or "")
    return tuple(int(x) for x in found.group(1).split(".")) if found else ()


def published_label(source: Published) -> str:
    """'published · MLPerf Inference v4.1 · NVIDIA · TensorRT 10.2.0, CUDA 12.4 · Server'."""
    parts = ("published", source.round, source.submitter, source.software, source.scenario)
    return " · ".join(p for p in parts if p)


def regime_gap(source: Published, target: EvidenceTarget) -> str | None:
    """Why the result's scenario is not the brief's regime (None: it is). Offline holds every
    query at once with no latency limit: a batch brief's regime. Server and Interactive hold
    their limits at the 99th percentile, so one counts for a brief whose p95 targets are as
    loose as or looser than those limits (p99 within the limit puts p95 within it too)."""
    if source.scenario.lower() == "offline":
        if target.batch:
            return None
        return (
            "an Offline result (every query at once, no latency limit) says nothing of a "
            "brief with latency targets"
        )
    if target.batch:
        return f"the brief is a batch workload: Offline's regime, not {source.scenario}'s"
    for name, limit, wanted in (
        ("TTFT", source.ttft_limit_ms, target.ttft_target_ms),
        ("time-per-output-token", source.tpot_limit_ms, target.itl_target_ms),
    ):
        if limit is not None and wanted is not None and limit > wanted:
            return (
                f"its {name} limit {limit:,.0f} ms (p99) is looser than the brief's "
                f"{wanted:,.0f} ms target"
            )
    return None


def _quality_note(source: Published, target: EvidenceTarget) -> str:
    if source.division != "closed":
        return f"{source.division} division: its accuracy is not held to the reference"
    brief = f" to the brief's {target.precision}" if target.precision else ""
    return (
        "closed division: accuracy held to at least 99 % of the reference, so its "
        f"{source.precision or 'precision'} counts as quality-equivalent{brief}"
    )


def match_published(
    result: ResultWorkload, source: Published, target: EvidenceTarget
) -> EvidenceMatch:
    """Judge a published result (the accelerator and the model kind already agree): the same
    model, or the same family and size class scaled by active parameters, in the brief's
    regime. Its per-GPU figure is costed on the row's GPUs; its band is the spread of the
    round's submitters on this accelerator. The request shape is the caller's to scale (the
    estimator's ratio between the brief's shape and the benchmark's)."""
    rid = result.result_id
    label = published_label(source)
    adjustments: list[str] = []
    size = 1.0
    if not same_model(result, target):
        ratio = _size_class(result, target)
        if ratio is None or not _same_family(result, target):
            return EvidenceMatch(
                rid,
                "ignored",
                f"{label} ignored: {_label(result.model_name)} is not the brief's "
                f"{_label(target.model_name)}",
                scope="accelerator",
            )
        size = 1 / ratio
        adjustments.append(_size_words(size, result, target))
    if gap := regime_gap(source, target):
        return EvidenceMatch(rid, "ignored", f"{label} ignored: {gap}", scope="accelerator")
    n, m = max(1, int(result.gpu_count or 1)), max(1, int(target.gpus))
    if n != m:
        adjustments.append(
            f"the submission's per-GPU figure ({n} GPUs) costed on the row's {m} "
            f"GPU{'s' if m != 1 else ''}"
        )
    adjustments.append(_quality_note(source, target))
    if source.spread_low < 1 or source.spread_high > 1:
        adjustments.append(
            f"band ×{source.spread_low:.2f}–×{source.spread_high:.2f}: the spread of the "
            "round's submitters on this accelerator"
        )
    return EvidenceMatch(
        rid,
        "published",
        label,
        adjustments=tuple(adjustments),
        throughput_factor=size * m / n,
        spread_low_factor=min(1.0, source.spread_low),
        spread_high_factor=max(1.0, source.spread_high),
        scope="accelerator",
    )


def _published_key(result: ResultWorkload) -> tuple[tuple[int, ...], float, float]:
    """Among published results: the newest round; the loosest scenario the brief allows
    (its throughput is what the brief's targets leave); the one nearest the submitters'
    median (never the highest: an optimistic pick)."""
    source = result.published
    if source is None:
        return (), 0.0, 0.0
    loose = (source.ttft_limit_ms or 0.0) + (source.tpot_limit_ms or 0.0)
    return round_order(source.round), loose, -source.off_median


def choose_evidence(
    results: Sequence[ResultWorkload], target: EvidenceTarget
) -> tuple[EvidenceMatch | None, tuple[EvidenceMatch, ...]]:
    """(the result to use or None, every verdict in input order).

    Preference, best first: measured over proxy over published; this quote's over the
    accelerator's; bound to this brief over unbound; measured at the costed GPU count; fewer
    shape differences; for published results `_published_key`; the newest (largest id).
    Never "the highest tokens/s" (an optimistic pick).
    """
    verdicts = tuple(match_result(r, target) for r in results)
    best: (
        tuple[tuple[int, bool, bool, bool, int, tuple[int, ...], float, float, str], EvidenceMatch]
        | None
    ) = None
    for result, verdict in zip(results, verdicts, strict=True):
        if not verdict.counts:
            continue
        key = (
            -evidence_strength(verdict.kind),
            verdict.scope == "quote",
            result.brief_id is not None,
            # a published per-GPU figure is costed on any GPU count alike
            result.published is None and int(result.gpu_count or 1) == int(target.gpus),
            -len(verdict.differences),
            *_published_key(result),
            str(result.result_id).zfill(12),
        )
        if best is None or key > best[0]:
            best = (key, verdict)
    return (None if best is None else best[1]), verdicts


def rank_evidence(
    results: Sequence[ResultWorkload], target: EvidenceTarget
) -> list[tuple[ResultWorkload, EvidenceMatch]]:
    """Every result that counts for the candidate with its verdict, best first.

    The order is `choose_evidence`'s own, taken again on what is left, so a page or a plan
    that lists results in this order can never disagree with the comparison about which one
    comes first (a few results per candidate: the repeated choice costs nothing).
    """
    remaining = list(results)
    ranked: list[tuple[ResultWorkload, EvidenceMatch]] = []
    while remaining:
        best, _ = choose_evidence(remaining, target)
        if best is None:
            break
        index = next(i for i, r in enumerate(remaining) if r.result_id == best.result_id)
        ranked.append((remaining.pop(index), best))
    return ranked
