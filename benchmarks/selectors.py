"""Reads of benchmark results: the measured performance the comparison engine uses, and lists.

`measured_performance_for` is called by the comparison snapshot (another area); it returns
plain dicts and runs a constant number of queries whatever the number of ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db.models import Q, QuerySet

from benchmarks import figures, latency_verdict
from benchmarks.latency_verdict import Targets
from benchmarks.models import BenchmarkResult
from benchmarks.sweep_groups import merge_sweeps
from core import workloads

if TYPE_CHECKING:
    from accounts.models import User

# Sort key of a result, higher is better (see `_rank`).
_RankKey = tuple[int, int, float, datetime, int]

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


def _brief_targets(brief_id: int | None) -> Targets:
    if brief_id is None:
        return Targets()
    from briefs.models import WorkloadBrief

    row = (
        WorkloadBrief.objects.filter(pk=brief_id)
        .values("ttft_p95_ms", "itl_p95_ms", "e2e_p99_ms", "workload_class")
        .first()
    )
    return _targets_of(row) if row else Targets()


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


def _rank(
    item: dict[str, Any],
    result: BenchmarkResult,
    brief_id: int | None,
    targets: Targets,
) -> _RankKey:
    """Sort key, higher is better: for the brief > meets its latency targets > tokens/s per GPU.

    A sweep meets them when one of its operating points does (as the comparison reads it)."""
    meets = latency_verdict.judge(result.metrics or {}, item, targets).meets
    per_gpu = item["tokens_per_s_per_gpu"]
    return (
        1 if brief_id is not None and result.brief_id == brief_id else 0,
        {True: 1, None: 0, False: -1}[meets],
        per_gpu if per_gpu is not None else float("-inf"),
        result.created_at,
        result.pk,
    )


def _best(
    candidates: Iterable[tuple[_RankKey, dict[str, Any]]],
) -> dict[str, Any] | None:
    best = max(candidates, key=lambda pair: pair[0], default=None)
    return best[1] if best else None


def measured_performance_for(
    quote_ids: Sequence[int], accelerator_ids: Sequence[int], brief_id: int | None
) -> dict[str, dict[int, dict[str, Any]]]:
    """The best parsed result's normalised figures, per quote id and per accelerator id.

    Returns `{"by_quote": {quote_id: figures}, "by_accelerator": {accelerator_id: figures}}`;
    ids without a parsed result are absent. `figures` holds `output_tokens_per_s`,
    `request_throughput_rps`, `ttft_p95_ms`, `e2e_p99_ms`, `tokens_per_s_per_gpu`,
    `acceptance_rate`, `gpu_count`, `result_id`, `has_acceptance_data` (plus `itl_p95_ms`,
    `tpot_p95_ms`, `concurrency`, `brief_id`, `format_id`, `parsed_at`); a figure the file
    does not carry is None.

    With a brief, only results for that brief or for no brief count, and the brief's own ones
    win; then results meeting the brief's p95 TTFT / p95 ITL / p99 E2E targets (a sweep at its
    best operating point); then the highest output tokens/s per GPU; then the newest. By
    accelerator, every parsed result measured on that accelerator counts (any provider's
    quote, or none). Two queries at most.
    """
    quote_ids = [int(q) for q in quote_ids]
    accelerator_ids = [int(a) for a in accelerator_ids]
    out: dict[str, dict[int, dict[str, Any]]] = {"by_quote": {}, "by_accelerator": {}}
    if not quote_ids and not accelerator_ids:
        return out
    targets = _brief_targets(brief_id)
    qs = BenchmarkResult.objects.filter(status=BenchmarkResult.Status.PARSED).filter(
        Q(quote_id__in=quote_ids) | Q(accelerator_id__in=accelerator_ids)
    )
    if brief_id is not None:
        qs = qs.filter(Q(brief_id=brief_id) | Q(brief__isnull=True))
    by_quote: dict[int, list[tuple[_RankKey, dict[str, Any]]]] = {}
    by_accelerator: dict[int, list[tuple[_RankKey, dict[str, Any]]]] = {}
    wanted_quotes, wanted_accelerators = set(quote_ids), set(accelerator_ids)
    for result in qs.only(*_RESULT_FIELDS):
        item = _figures_of(result)
        ranked = (_rank(item, result, brief_id, targets), item)
        if result.quote_id in wanted_quotes:
            by_quote.setdefault(result.quote_id, []).append(ranked)
        if result.accelerator_id in wanted_accelerators:
            by_accelerator.setdefault(result.accelerator_id, []).append(ranked)
    out["by_quote"] = {k: v for k, items in by_quote.items() if (v := _best(items))}
    out["by_accelerator"] = {k: v for k, items in by_accelerator.items() if (v := _best(items))}
    return out


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
                "accelerator": result.accelerator.slug,
                "requests_completed": metrics.get("requests_completed"),
                "failure_rate": _failure_rate(metrics),
                "operating_points": list(metrics.get("operating_points") or []),
                "sweep": result.sweep,
            }
        )
    return merge_sweeps(out)


def results_list(user: User, filters: dict[str, Any] | None = None) -> QuerySet[BenchmarkResult]:
    """Results the user may see, newest first, with what the list pages show preloaded."""
    from benchmarks import access

    qs = access.results_for(user).select_related("brief__model", "model_profile")
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
    from benchmarks import access

    qs = access.results_for(user).order_by().values_list("format_id", flat=True).distinct()
    return sorted(f for f in qs if f)


def candidate_label(result: BenchmarkResult) -> str:
    """`Provider · Accelerator ×N` (or `Accelerator ×N` when no quote was given)."""
    where = f"{result.quote.provider} · " if result.quote is not None else ""
    return f"{where}{result.accelerator} ×{result.gpu_count}"


def compare_rows(user: User, brief: Any) -> list[dict[str, Any]]:
    """One row per parsed result for the brief, with its figures and whether it meets targets
    (a sweep at the operating point the comparison would cost it, named in `judged_at`)."""
    from benchmarks import access

    results = (
        access.results_for(user)
        .filter(brief=brief, status=BenchmarkResult.Status.PARSED)
        .order_by("accelerator__name", "-created_at")
    )
    targets = _targets_of(brief)
    rows = []
    for result in results:
        item = figures.key_figures(result.metrics or {}, result.gpu_count)
        engine = " ".join(x for x in (result.serving_engine, result.parallelism) if x)
        verdict = latency_verdict.judge(result.metrics or {}, item, targets)
        rows.append(
            {
                **item,
                "result": result,
                "result_id": result.pk,
                "label": candidate_label(result) + (f" ({engine})" if engine else ""),
                "group": str(result.accelerator),
                "meets": verdict.meets,
                "checks": verdict.checks,
                "judged_at": verdict.point,
            }
        )
    return rows


def calibration_of(result: BenchmarkResult) -> list[Any]:
    """The calibration-ledger pairs this result measured (estimate, measurement, ratio)."""
    from catalog.models import CalibrationEntry

    return list(
        CalibrationEntry.objects.filter(benchmark_result_id=result.pk).select_related(
            "accelerator"
        )[:20]
    )
