"""Reads of benchmark results: the results a comparison freezes, the compare page, and lists.

`evidence_results_for` is called by the comparison snapshot (another area); it returns plain
dicts and runs one query whatever the number of ids. Which result counts for a candidate is
never decided here: the matching rules of `engine.evidence` judge it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet

from benchmarks import access, figures, latency_verdict
from benchmarks.latency_verdict import Targets
from benchmarks.models import BenchmarkResult
from benchmarks.selectors.evidence import (
    counted_results,
    evidence_item,
    evidence_results_for,
    evidence_target,
    evidence_verdict,
    request_sizes_for_brief,
    targets_of,
)
from benchmarks.selectors.hosted import hosted_latency_for
from benchmarks.selectors.published import published_results_for
from benchmarks.sweep_groups import merge_sweeps
from benchmarks.sweep_report import compare_axis, flat_figures, load_words
from catalog.models import CalibrationEntry
from core.values import float_or_none

if TYPE_CHECKING:
    from accounts.models import User

# The evidence reads live in selectors/evidence.py; callers keep importing them from here.
__all__ = [
    "counted_results",
    "evidence_results_for",
    "evidence_target",
    "evidence_verdict",
    "hosted_latency_for",
    "published_results_for",
    "request_sizes_for_brief",
    "targets_of",
]


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
    targets = targets_of(brief)
    entries = _sweep_entries(list(results))
    sweep_of = {m: e["result_id"] for e in entries if e["is_sweep"] for m in e["members"]}
    entry_of = {m: e for e in entries if e["is_sweep"] for m in e["members"]}
    rows = []
    for result in results.select_related("quote__provider", "accelerator", "api_route__provider"):
        item = figures.key_figures(result.metrics or {}, result.gpu_count)
        engine = " ".join(x for x in (result.serving_engine, result.parallelism) if x)
        verdict = latency_verdict.judge(result.metrics or {}, item, targets)
        if verdict.at_point:  # a sweep: the figures its verdict rests on, not the headline's
            item = {**item, **_figures_at(verdict.at_point, result.gpu_count)}
        evidence = evidence_verdict(result, brief, entry_of.get(result.pk))
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
                "load": load_summary(result.metrics or {}),
                "sweep_id": sweep_of.get(result.pk),
            }
        )
    return rows


def _figures_at(point: dict[str, Any], gpu_count: int | None) -> dict[str, Any]:
    """A row's figures at the operating point judged (latency_verdict.judge's `at_point`)."""
    tokens = point.get("output_tokens_per_s")
    return {
        "output_tokens_per_s": tokens,
        "tokens_per_s_per_gpu": tokens / gpu_count if tokens is not None and gpu_count else None,
        "ttft_p95_ms": point.get("ttft_p95_ms"),
        "e2e_p99_ms": point.get("e2e_p99_ms"),
        "figures_at": point.get("label") or "",
    }


def load_summary(metrics: dict[str, Any]) -> str:
    """'concurrency 8', or 'concurrency 1–64 (3 levels)' for a file holding a sweep."""
    points = [p for p in metrics.get("operating_points") or [] if isinstance(p, dict)]
    if len(points) >= 2:
        words = [load_words(p) for p in (points[0], points[-1])]
        kind = words[0].split(" ")[0]
        if all(w.startswith(kind) for w in words):
            lo, hi = (w.split(" ", 1)[1] for w in words)
            return f"{kind} {lo}–{hi} ({len(points)} levels)"
        return f"{len(points)} levels"
    if points:
        return load_words(points[0])
    concurrency = float_or_none(metrics.get("concurrency"), strings=False)
    rate = float_or_none(metrics.get("request_rate"), strings=False)
    if concurrency is not None:
        return f"concurrency {concurrency:g}"
    return f"rate {rate:g}/s" if rate is not None else ""


def _sweep_entries(results: Sequence[BenchmarkResult]) -> list[dict[str, Any]]:
    """The results joined into sweeps by the comparison's own rule (sweep_groups), each
    entry with `members`: its result ids, and `is_sweep`: two files or more, or two load
    levels or more."""
    merged = merge_sweeps([evidence_item(r) for r in sorted(results, key=lambda r: r.pk)])
    for entry in merged:
        entry["members"] = list(entry.get("sweep_result_ids") or [entry["result_id"]])
        entry["is_sweep"] = len(entry["members"]) > 1 or len(entry["operating_points"]) > 1
    return merged


def sweep_of(user: User, result: BenchmarkResult) -> tuple[dict[str, Any], list[Any]] | None:
    """The sweep a parsed result belongs to, read as comparisons read it: (the joined entry,
    its files in load order); None when the result is alone and has one load level.

    Only results sharing the fields of `sweep_groups.configuration` can join, so only those
    are read."""
    if result.status != BenchmarkResult.Status.PARSED or result.accelerator_id is None:
        return None  # a hosted API's run: comparisons join no sweep of those (docs/benchmarks.md)
    kin = access.results_for(user).filter(
        status=BenchmarkResult.Status.PARSED,
        accelerator_id=result.accelerator_id,
        gpu_count=result.gpu_count,
        sweep=result.sweep,
    )
    # a result without a quote (or brief) joins only those without one
    quote_id, brief_id = result.quote_id, result.brief_id
    kin = kin.filter(quote__isnull=True) if quote_id is None else kin.filter(quote_id=quote_id)
    kin = kin.filter(brief__isnull=True) if brief_id is None else kin.filter(brief_id=brief_id)
    members = {r.pk: r for r in kin}
    for entry in _sweep_entries(list(members.values())):
        if result.pk in entry["members"] and entry["is_sweep"]:
            files = sorted(
                (members[i] for i in entry["members"]),
                key=lambda r: (
                    float_or_none((r.metrics or {}).get("concurrency"), strings=False) or 0.0,
                    r.pk,
                ),
            )
            return entry, files
    return None


def compare_lines(user: User, brief: Any, targets: Targets) -> tuple[list[dict[str, Any]], Any]:
    """The compare chart's points, a sweep's on one line, and the target binding the most
    sweeps (its x axis): ([{label, series, line, point_label, result_id,
    tokens_per_s_per_gpu, ttft_p95_ms, itl_p95_ms, e2e_p99_ms, error_rate}], Binding | None).
    A series is one candidate's sweep (or lone result), named by provider, accelerator and
    serving setup."""
    results = list(
        access.results_for(user).filter(brief=brief, status=BenchmarkResult.Status.PARSED)
    )
    by_id = {r.pk: r for r in results}
    entries = _sweep_entries(results)
    labels = {}
    for entry in entries:
        head = by_id[entry["result_id"]]
        engine = " ".join(x for x in (head.serving_engine, head.parallelism) if x)
        labels[head.pk] = candidate_label(head) + (f" ({engine})" if engine else "")
    repeated = {name for name in labels.values() if list(labels.values()).count(name) > 1}
    points: list[dict[str, Any]] = []
    for entry in entries:
        head = by_id[entry["result_id"]]
        label = labels[head.pk]
        if label in repeated:  # two sweeps of one candidate: named by sweep (or file)
            label = f"{label} · {head.sweep or head.original_name}"
        gpus = int(head.gpu_count or 0) or None
        levels = entry["operating_points"] or [_headline_point(head.metrics or {})]
        for level in levels:
            output = float_or_none(level.get("output_tokens_per_s"), strings=False)
            points.append(
                {
                    **flat_figures(level),
                    "label": label,
                    "group": str(head.accelerator),
                    "series": label,
                    "line": label if entry["is_sweep"] else "",
                    "point_label": load_words(level, short=True),
                    "result_id": head.pk,
                    "tokens_per_s_per_gpu": output / gpus if output is not None and gpus else None,
                }
            )
    return points, compare_axis(entries, targets)


def _headline_point(metrics: dict[str, Any]) -> dict[str, Any]:
    """A result stored without operating points, as one (its headline figures)."""
    return {
        "label": "",
        "concurrency": metrics.get("concurrency"),
        "request_rate_per_s": metrics.get("request_rate"),
        "output_tokens_per_s": metrics.get("output_tokens_per_s"),
        **{family: metrics.get(family) for family in ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms")},
    }


def calibration_of(result: BenchmarkResult) -> list[Any]:
    """The calibration-ledger pairs this result measured (estimate, measurement, ratio)."""

    return list(
        CalibrationEntry.objects.filter(benchmark_result_id=result.pk).select_related(
            "accelerator"
        )[:20]
    )
