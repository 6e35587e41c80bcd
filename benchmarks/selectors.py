"""Reads of benchmark results: the results a comparison freezes, the compare page, and lists.

`evidence_results_for` is called by the comparison snapshot (another area); it returns plain
dicts and runs one query whatever the number of ids. Which result counts for a candidate is
never decided here: the matching rules of `engine.evidence` judge it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.db.models import Q, QuerySet

from benchmarks import access, figures, latency_verdict
from benchmarks.latency_verdict import Targets
from benchmarks.models import BenchmarkResult
from benchmarks.sweep_groups import merge_sweeps
from briefs.fit import fit_input_for_brief, model_spec_for
from briefs.models import WorkloadBrief
from catalog.models import CalibrationEntry
from core import workloads
from engine.errors import EngineInputError
from engine.evidence import (
    EvidenceMatch,
    EvidenceTarget,
    ResultWorkload,
    match_result,
    rank_evidence,
)
from engine.memory.fit import memory_fit

if TYPE_CHECKING:
    from accounts.models import User
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
    "a run against a hosted API: shown with its latency; comparisons cost the API route from "
    "its price and its stated latency, not from this result yet"
)


def _targets_of(brief: Any) -> Targets:
    """A brief (model or its values dict) → its latency targets."""

    def get(name: str) -> Any:
        return brief.get(name) if isinstance(brief, dict) else getattr(brief, name, None)

    return Targets(
        ttft_p95_ms=get("ttft_p95_ms"),
        itl_p95_ms=get("itl_p95_ms"),
        e2e_p99_ms=get("e2e_p99_ms"),
        realtime=get("workload_class") in workloads.REALTIME,
    )


def _figures_of(result: BenchmarkResult) -> dict[str, Any]:
    return {
        **figures.key_figures(result.metrics or {}, result.gpu_count),
        "result_id": result.pk,
        "brief_id": result.brief_id,
        "format_id": result.format_id,
        "parsed_at": result.parsed_at.isoformat() if result.parsed_at else None,
    }


_WORKLOAD_FIELDS = (
    "model_name",
    "precision",
    "tensor_parallel",
    "pipeline_parallel",
    "input_tokens_mean",
    "input_tokens_p95",
    "output_tokens_mean",
    "output_tokens_p95",
    "concurrency",
    "request_rate",
    "serving_engine",
    "engine_version",
)


def _failure_rate(metrics: dict[str, Any]) -> float | None:
    done, failed = metrics.get("requests_completed"), metrics.get("requests_failed")
    if isinstance(done, int | float) and isinstance(failed, int | float) and done + failed > 0:
        return float(failed) / float(done + failed)
    return None


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
    out = []
    fields = (
        *_RESULT_FIELDS,
        *_WORKLOAD_FIELDS,
        "model_profile_id",
        "accelerator__slug",
        "sweep",
    )
    for result in qs.select_related("accelerator").only(*fields).order_by("id"):
        metrics = result.metrics or {}
        out.append(
            {
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
            }
        )
    return merge_sweeps(out)


def _float(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


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
        model_family=model.family if model is not None else "",
        precision=brief.weight_precision or "",
        input_tokens_mean=_float(brief.mean_input_tokens),
        input_tokens_p95=_float(brief.p95_input_tokens),
        output_tokens_mean=_float(brief.mean_output_tokens),
        output_tokens_p95=_float(brief.p95_output_tokens),
        concurrency=_float(brief.concurrency),
        quote_id=quote_id,
        brief_id=brief.pk,
    )


def result_workload(result: BenchmarkResult) -> ResultWorkload:
    """What a stored result measured, as the matching rules read it (a sweep's concurrency is
    its highest point's, as in the comparison's snapshot)."""
    points = (result.metrics or {}).get("operating_points") or []
    swept = [c for p in points if isinstance(p, dict) and (c := _float(p.get("concurrency")))]
    return ResultWorkload(
        result_id=result.pk,
        accelerator=result.accelerator.slug if result.accelerator else "",
        model_name=result.model_name or "",
        model_profile_id=result.model_profile_id,
        precision=result.precision or "",
        gpu_count=int(result.gpu_count or 1),
        tensor_parallel=result.tensor_parallel,
        pipeline_parallel=result.pipeline_parallel,
        input_tokens_mean=_float(result.input_tokens_mean),
        input_tokens_p95=_float(result.input_tokens_p95),
        output_tokens_mean=_float(result.output_tokens_mean),
        output_tokens_p95=_float(result.output_tokens_p95),
        concurrency=max(swept) if swept else _float(result.concurrency),
        request_rate_per_s=_float(result.request_rate),
        serving_engine=result.serving_engine or "",
        engine_version=result.engine_version or "",
        quote_id=result.quote_id,
        brief_id=result.brief_id,
    )


def evidence_verdict(result: BenchmarkResult, brief: WorkloadBrief) -> EvidenceMatch:
    """How the comparison would read this result for a row on its own hardware and offer:
    measured, proxy (with the adjustment) or ignored, with the reason in words."""
    if result.accelerator is None:  # a hosted API's run: no hardware to match against
        return EvidenceMatch(result.pk, "ignored", HOSTED_API_REASON)
    target = evidence_target(brief, result.accelerator, quote_id=result.quote_id)
    return match_result(result_workload(result), target)


def counted_results(
    results: Sequence[BenchmarkResult],
    brief: WorkloadBrief,
    accelerator: Accelerator,
    *,
    quote_id: int | None,
) -> list[tuple[BenchmarkResult, EvidenceMatch]]:
    """The results that count for the candidate, best first, each with its verdict: the
    comparison's own rule (engine/evidence.py), so a plan never rests on a result the
    comparison ignores."""
    by_id = {r.pk: r for r in results}
    target = evidence_target(brief, accelerator, quote_id=quote_id)
    ranked = rank_evidence([result_workload(r) for r in results], target)
    return [(by_id[int(w.result_id)], match) for w, match in ranked]


def results_list(user: User, filters: dict[str, Any] | None = None) -> QuerySet[BenchmarkResult]:
    """Results the user may see, newest first, with what the list pages show preloaded."""

    qs = access.results_for(user).select_related(
        "brief__model", "model_profile", "quote__provider", "accelerator", "api_route__provider"
    )
    filters = filters or {}
    if filters.get("status"):
        qs = qs.filter(status=filters["status"])
    if filters.get("format"):
        qs = qs.filter(format_id=filters["format"])
    if filters.get("brief"):
        qs = qs.filter(brief_id=filters["brief"])
    if filters.get("quote"):
        qs = qs.filter(quote_id=filters["quote"])
    if filters.get("accelerator"):
        value = str(filters["accelerator"])
        qs = (
            qs.filter(accelerator_id=value)
            if value.isdigit()
            else qs.filter(accelerator__slug=value)
        )
    return qs.order_by("-created_at", "-id")


def formats_in_use(user: User) -> list[str]:
    """Format ids among the results the user may see (for the list filter)."""

    qs = access.results_for(user).order_by().values_list("format_id", flat=True).distinct()
    return sorted(f for f in qs if f)


def candidate_label(result: BenchmarkResult) -> str:
    """`Provider · Accelerator ×N` (or `Accelerator ×N` when no quote was given), or
    `Provider · model (API)` for a run against a hosted API."""
    if result.api_route is not None:
        return f"{result.api_route.provider} · {result.api_route.model_name} (API)"
    where = f"{result.quote.provider} · " if result.quote is not None else ""
    return f"{where}{result.accelerator} ×{result.gpu_count}"


def compare_rows(user: User, brief: Any) -> list[dict[str, Any]]:
    """One row per parsed result for the brief, with its figures, whether it meets targets
    (a sweep at the operating point the comparison would cost it, named in `judged_at`) and
    how the comparison's matching rules count it on its own hardware (`evidence_kind`:
    measured, proxy or ignored, and `evidence_reason`)."""

    results = (
        access.results_for(user)
        .filter(brief=brief, status=BenchmarkResult.Status.PARSED)
        .order_by("accelerator__name", "-created_at")
    )
    targets = _targets_of(brief)
    rows = []
    for result in results.select_related("quote__provider", "accelerator", "api_route__provider"):
        item = figures.key_figures(result.metrics or {}, result.gpu_count)
        engine = " ".join(x for x in (result.serving_engine, result.parallelism) if x)
        verdict = latency_verdict.judge(result.metrics or {}, item, targets)
        evidence = evidence_verdict(result, brief)
        rows.append(
            {
                **item,
                "result": result,
                "result_id": result.pk,
                "label": candidate_label(result) + (f" ({engine})" if engine else ""),
                "group": "hosted APIs" if result.api_route_id else str(result.accelerator),
                "meets": verdict.meets,
                "checks": verdict.checks,
                "judged_at": verdict.point,
                "evidence_kind": evidence.kind,
                "evidence_reason": evidence.reason,
            }
        )
    return rows


def calibration_of(result: BenchmarkResult) -> list[Any]:
    """The calibration-ledger pairs this result measured (estimate, measurement, ratio)."""

    return list(
        CalibrationEntry.objects.filter(benchmark_result_id=result.pk).select_related(
            "accelerator"
        )[:20]
    )
