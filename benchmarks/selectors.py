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
from benchmarks.sweep_report import compare_axis, flat_figures, load_tag, load_words
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
    return merge_sweeps([_evidence_item(result) for result in found])


_EVIDENCE_FIELDS = (
    *_RESULT_FIELDS,
    *_WORKLOAD_FIELDS,
    "model_profile_id",
    "accelerator__slug",
    "sweep",
)


def _evidence_item(result: BenchmarkResult) -> dict[str, Any]:
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
        model_active_params_b=model_spec_for(model).active_params_b if model is not None else None,
        model_family=model.family if model is not None else "",
        precision=brief.weight_precision or "",
        input_tokens_mean=_float(brief.mean_input_tokens),
        input_tokens_p95=_float(brief.p95_input_tokens),
        output_tokens_mean=_float(brief.mean_output_tokens),
        output_tokens_p95=_float(brief.p95_output_tokens),
        concurrency=_float(brief.concurrency),
        quote_id=quote_id,
        brief_id=brief.pk,
        kv_precision=brief.kv_precision or "",
        serving_engine=brief.serving_engine or "",
        serving_engine_version=brief.serving_engine_version or "",
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
        kv_precision=kv_precision_of(result.metrics or {}),
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
    targets = targets_of(brief)
    sweep_of = sweep_heads(list(results))
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
                "load": load_summary(result.metrics or {}),
                "sweep_id": sweep_of.get(result.pk),
            }
        )
    return rows


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
    concurrency = _float(metrics.get("concurrency"))
    rate = _float(metrics.get("request_rate"))
    if concurrency is not None:
        return f"concurrency {concurrency:g}"
    return f"rate {rate:g}/s" if rate is not None else ""


def _sweep_entries(results: Sequence[BenchmarkResult]) -> list[dict[str, Any]]:
    """The results joined into sweeps by the comparison's own rule (sweep_groups), each
    entry with `members`: its result ids, and `is_sweep`: two files or more, or two load
    levels or more."""
    merged = merge_sweeps([_evidence_item(r) for r in sorted(results, key=lambda r: r.pk)])
    for entry in merged:
        entry["members"] = list(entry.get("sweep_result_ids") or [entry["result_id"]])
        entry["is_sweep"] = len(entry["members"]) > 1 or len(entry["operating_points"]) > 1
    return merged


def sweep_heads(results: Sequence[BenchmarkResult]) -> dict[int, int]:
    """result id → the id of the sweep it belongs to (its first file), for sweeps only."""
    return {
        member: entry["result_id"]
        for entry in _sweep_entries(results)
        if entry["is_sweep"]
        for member in entry["members"]
    }


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
                key=lambda r: (_float((r.metrics or {}).get("concurrency")) or 0.0, r.pk),
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
            output = _float(level.get("output_tokens_per_s"))
            points.append(
                {
                    **flat_figures(level),
                    "label": label,
                    "group": str(head.accelerator),
                    "series": label,
                    "line": label if entry["is_sweep"] else "",
                    "point_label": load_tag(level),
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
