"""The benchmark results as the comparison reads them, and how its matching rules judge one
for a candidate: `evidence_results_for` (called by the comparison snapshot; plain dicts, one
query whatever the number of ids), the evidence target of a brief on an accelerator, and the
verdicts the compare page and the benchmark plans show. Which result counts is never decided
here: `engine.evidence` judges it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from django.db.models import Q

from benchmarks import figures
from benchmarks.latency_verdict import Targets
from benchmarks.models import BenchmarkResult
from benchmarks.parsers.identity import stated_workload
from benchmarks.sweep_groups import merge_sweeps
from benchmarks.workload import WORKLOAD_FIELDS
from briefs.fit import fit_input_for_brief, model_spec_for
from briefs.models import WorkloadBrief
from core import workloads
from core.values import float_or_none
from engine.errors import EngineInputError
from engine.evidence import (
    EvidenceMatch,
    EvidenceTarget,
    ResultWorkload,
    evidence_strength,
    match_result,
    rank_evidence,
    workload_of,
)
from engine.memory.fit import memory_fit

if TYPE_CHECKING:
    from briefs.models import WorkloadBrief
    from catalog.models import Accelerator

_RESULT_FIELDS = (
    "id",
    "quote_id",
    "accelerator_id",
    "brief_id",
    "gpu_count",
    "metrics",
    "format_id",
    "created_at",
    "parsed_at",
)

# Why a hosted API's result does not count for a row (docs/benchmarks.md, "Hosted APIs").
HOSTED_API_REASON = (
    "a run against a hosted API: it judges its API route's latency in comparisons, not a GPU "
    "offer's"
)


def targets_of(brief: Any) -> Targets:
    """A brief (model or its values dict) → its latency targets (none without a brief)."""

    def get(name: str) -> Any:
        return brief.get(name) if isinstance(brief, dict) else getattr(brief, name, None)

    return Targets(
        ttft_p95_ms=get("ttft_p95_ms"),
        itl_p95_ms=get("itl_p95_ms"),
        e2e_p99_ms=get("e2e_p99_ms"),
        realtime=get("workload_class") in workloads.REALTIME if brief is not None else True,
        max_error_rate=get("max_error_rate"),
    )


def _figures_of(result: BenchmarkResult) -> dict[str, Any]:
    return {
        **figures.key_figures(result.metrics or {}, result.gpu_count),
        "result_id": result.pk,
        "brief_id": result.brief_id,
        "format_id": result.format_id,
        "parsed_at": result.parsed_at.isoformat() if result.parsed_at else None,
    }


_WORKLOAD_FIELDS = ("model_name", *WORKLOAD_FIELDS)


def _failure_rate(metrics: dict[str, Any]) -> float | None:
    done, failed = metrics.get("requests_completed"), metrics.get("requests_failed")
    if isinstance(done, int | float) and isinstance(failed, int | float) and done + failed > 0:
        return float(failed) / float(done + failed)
    return None


# Where a file states its KV cache's dtype (vLLM `--metadata kv_cache_dtype=…`, SGLang's
# server arguments): the matching rules compare it with the brief's (engine/evidence_setup.py).
_KV_KEYS = ("kv_precision", "kv_cache_dtype", "server_kv_cache_dtype")


def kv_precision_of(metrics: dict[str, Any]) -> str:
    """The KV-cache dtype the file states ("" when it does not)."""
    extra = metrics.get("extra") if isinstance(metrics.get("extra"), dict) else {}
    for key in _KV_KEYS:
        value = extra.get(key) if extra else None
        if isinstance(value, str) and value.strip():
            return value.strip()[:30]
    return ""


def evidence_results_for(
    quote_ids: Sequence[int], accelerator_ids: Sequence[int], brief_id: int | None
) -> list[dict[str, Any]]:
    """Every parsed result on these quotes or accelerators, with the workload it measured
    (model, precision, parallelism, lengths, concurrency) and its figures and operating
    points: the comparison's matching rules decide which one counts (engine/evidence.py).
    One query; results bound to another brief are left out."""
    quote_ids = [int(q) for q in quote_ids]
    accelerator_ids = [int(a) for a in accelerator_ids]
    if not quote_ids and not accelerator_ids:
        return []
    qs = BenchmarkResult.objects.filter(status=BenchmarkResult.Status.PARSED).filter(
        Q(quote_id__in=quote_ids) | Q(accelerator_id__in=accelerator_ids)
    )
    if brief_id is not None:
        qs = qs.filter(Q(brief_id=brief_id) | Q(brief__isnull=True))
    found = qs.select_related("accelerator").only(*_EVIDENCE_FIELDS).order_by("id")
    return merge_sweeps([evidence_item(result) for result in found])


_EVIDENCE_FIELDS = (
    *_RESULT_FIELDS,
    *_WORKLOAD_FIELDS,
    "model_profile_id",
    "accelerator__slug",
    "sweep",
)


def evidence_item(result: BenchmarkResult) -> dict[str, Any]:
    """A result as the comparison reads it (and as sweep_groups joins it into a sweep)."""
    metrics = result.metrics or {}
    return {
        **_figures_of(result),
        **{name: getattr(result, name) for name in _WORKLOAD_FIELDS},
        "quote_id": result.quote_id,
        "model_profile_id": result.model_profile_id,
        # found by quote or accelerator, so never a hosted API's (no accelerator)
        "accelerator": result.accelerator.slug if result.accelerator else "",
        "requests_completed": metrics.get("requests_completed"),
        "failure_rate": _failure_rate(metrics),
        "operating_points": list(metrics.get("operating_points") or []),
        "sweep": result.sweep,
        "kv_precision": kv_precision_of(metrics),
        "workload": stated_workload(
            metrics["extra"] if isinstance(metrics.get("extra"), dict) else {}
        ),
    }


def request_sizes_for_brief(brief_id: int) -> list[dict[str, Any]]:
    """The request sizes measured by the parsed uploads made for this brief (bound to it),
    oldest first: ``[{"result_id", "request_sizes"}]`` (``distributions.request_sizes``).
    The comparison freezes them; its cheapest plan splits its buckets with them. One query."""
    rows = (
        BenchmarkResult.objects.filter(
            status=BenchmarkResult.Status.PARSED,
            brief_id=brief_id,
            distributions__has_key="request_sizes",
        )
        .order_by("id")
        .values_list("id", "distributions__request_sizes")
    )
    return [{"result_id": pk, "request_sizes": sizes} for pk, sizes in rows if sizes]


def _gpus_for(brief: WorkloadBrief, accelerator: Accelerator) -> int:
    """GPUs per replica the brief needs on the accelerator, as the comparison sizes a row:
    the training brief's target, else the memory fit (one when it cannot be fitted)."""
    if brief.workload_class in workloads.TRAINING and brief.target_gpus:
        return int(brief.target_gpus)
    try:
        return memory_fit(fit_input_for_brief(brief, accelerator)).gpus_required
    except (EngineInputError, ValueError):
        return 1


def evidence_target(
    brief: WorkloadBrief, accelerator: Accelerator, *, quote_id: int | None
) -> EvidenceTarget:
    """The candidate's side of the matching rules (engine/evidence.py): the brief's model,
    precision and shape on this accelerator, for this quote (None: the accelerator alone)."""
    model = brief.model
    return EvidenceTarget(
        accelerator=accelerator.slug,
        gpus=_gpus_for(brief, accelerator),
        model_name=model.name if model is not None else "",
        model_profile_id=model.pk if model is not None else None,
        model_params_b=model_spec_for(model).params_b if model is not None else None,
        model_active_params_b=model_spec_for(model).active_params_b if model is not None else None,
        model_family=model.family if model is not None else "",
        precision=brief.weight_precision or "",
        input_tokens_mean=float_or_none(brief.mean_input_tokens),
        input_tokens_p95=float_or_none(brief.p95_input_tokens),
        output_tokens_mean=float_or_none(brief.mean_output_tokens),
        output_tokens_p95=float_or_none(brief.p95_output_tokens),
        concurrency=float_or_none(brief.concurrency),
        quote_id=quote_id,
        brief_id=brief.pk,
        kv_precision=brief.kv_precision or "",
        serving_engine=brief.serving_engine or "",
        serving_engine_version=brief.serving_engine_version or "",
    )


def result_workload(result: BenchmarkResult) -> ResultWorkload:
    """What a stored result measured, as the matching rules read it: the comparison's own
    reading of its evidence item (`engine.evidence.workload_of`)."""
    return workload_of(evidence_item(result))


def judged_gpus(
    brief: WorkloadBrief, accelerator: Accelerator, result: BenchmarkResult, cap: int | None
) -> int:
    """The GPUs per replica the comparison judges a result at: its own count when that is a
    configuration of its own on the offer (the model fits at it and the offer has that many
    GPUs: procurement/snapshot/deployments.py), so a measurement is never scaled to another
    shape; else the brief's smallest memory fit, which the result is scaled to."""
    smallest = _gpus_for(brief, accelerator)
    own = int(result.gpu_count or 0)
    serving = brief.workload_class not in workloads.TRAINING
    if serving and own >= smallest and (cap is None or own <= cap):
        return own
    return smallest


def evidence_verdict(
    result: BenchmarkResult, brief: WorkloadBrief, sweep: dict[str, Any] | None = None
) -> EvidenceMatch:
    """How the comparison would read this result for a row on its own hardware and offer:
    measured, proxy (with the adjustment) or ignored, with the reason in words. ``sweep``:
    the joined entry of the sweep it belongs to (`sweep_groups.merge_sweeps`), judged as the
    comparison judges it, so one file of a sweep that reaches the brief's concurrency is not
    "proxy" on one page and "measured" on the next (issue 37, U9)."""
    if result.accelerator is None:  # a hosted API's run: no hardware to match against
        return EvidenceMatch(result.pk, "ignored", HOSTED_API_REASON)
    cap = result.quote.max_gpus_available if result.quote_id and result.quote else None
    target = replace(
        evidence_target(brief, result.accelerator, quote_id=result.quote_id),
        gpus=judged_gpus(brief, result.accelerator, result, cap),
    )
    workload = workload_of(sweep) if sweep is not None else result_workload(result)
    return match_result(workload, target)


def counted_results(
    results: Sequence[BenchmarkResult],
    brief: WorkloadBrief,
    accelerator: Accelerator,
    *,
    quote_id: int | None,
    cap: int | None = None,
) -> list[tuple[BenchmarkResult, EvidenceMatch]]:
    """The results that count for the candidate, strongest evidence first, each with its
    verdict: the comparison's own rule (engine/evidence.py), each result judged in the
    configuration the comparison would cost it in (`judged_gpus`), so a plan never rests on a
    result the comparison ignores nor calls a measured configuration a proxy."""
    by_id = {r.pk: r for r in results}
    by_gpus: dict[int, list[BenchmarkResult]] = {}
    for result in results:
        by_gpus.setdefault(judged_gpus(brief, accelerator, result, cap), []).append(result)
    base = evidence_target(brief, accelerator, quote_id=quote_id)
    ranked: list[tuple[BenchmarkResult, EvidenceMatch]] = []
    for gpus, group in by_gpus.items():
        target = replace(base, gpus=gpus)
        judged = rank_evidence([result_workload(r) for r in group], target)
        ranked.extend((by_id[int(w.result_id)], match) for w, match in judged)
    # stable: within one kind, each configuration keeps the comparison's own order
    return sorted(ranked, key=lambda pair: evidence_strength(pair[1].kind))
