"""HTML views of sweeps: one sweep's report (GuideLLM's manner: the workload, a table per
load level, curves against the load with the brief's targets) and the comparison of every
result for one brief, a sweep's points joined into one line."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from accounts.http import AuthedRequest
from benchmarks import access, charts, figures, selectors
from benchmarks.sweep_charts import sweep_figures
from benchmarks.sweep_report import sweep_report
from benchmarks.views.results import READERS, UPLOADERS
from benchmarks.workload import workload_summary_of
from briefs import access as briefs_access
from core.roles import has_role, role_required

SHAPE_FIELDS = (
    "model_name",
    "precision",
    "gpu_count",
    "tensor_parallel",
    "pipeline_parallel",
    "input_tokens_mean",
    "output_tokens_mean",
    "serving_engine",
    "engine_version",
)


@require_GET
@role_required(*READERS)
def sweep_detail(request: AuthedRequest, result_id: int) -> HttpResponse:
    """The sweep a result belongs to, at the address of its first file (the others redirect
    there); a result alone with one load level has no sweep page and goes to its own."""
    result = access.access_result(request.user, result_id)
    found = selectors.sweep_of(request.user, result)
    if found is None:
        return redirect(result.get_absolute_url())
    entry, files = found
    if entry["result_id"] != result.pk:
        return redirect(reverse("benchmarks:sweep-detail", args=[entry["result_id"]]))
    targets = selectors.targets_of(result.brief)
    report = sweep_report(entry, targets)
    per_gpu = bool(result.gpu_count)
    context = {
        "result": result,
        "files": files,
        "entry": entry,
        "report": report,
        "figures": sweep_figures(report, targets, per_gpu=per_gpu),
        "per_gpu": per_gpu,
        # the shape the files share; their loads are the table's rows
        "workload": workload_summary_of(
            {**{f: getattr(result, f) for f in SHAPE_FIELDS}, "concurrency": None}
        ),
        "shape": figures.workload_shape(result.metrics or {}),
        "can_upload": has_role(request.user, *UPLOADERS),
    }
    return render(request, "benchmarks/sweep_detail.html", context)


@require_GET
@role_required(*READERS)
def result_compare(request: AuthedRequest) -> HttpResponse:
    """Every parsed result for one brief: throughput per GPU against the latency of the
    brief's binding target (p99 E2E when none binds), a sweep's points on one line."""
    briefs = briefs_access.briefs_for(request.user).order_by("-created_at")
    brief = (
        briefs_access.access_brief(request.user, request.GET["brief"])
        if request.GET.get("brief")
        else None
    )
    rows = selectors.compare_rows(request.user, brief) if brief else []
    figure, binding, unplotted = None, None, 0
    if rows and brief is not None:
        targets = selectors.targets_of(brief)
        points, binding = selectors.compare_lines(request.user, brief, targets)
        axis_key = binding.key if binding is not None else "e2e_p99_ms"
        figure = charts.compare_scatter_figure(
            points,
            axis_key=axis_key,
            target=binding.target if binding is not None else brief.e2e_p99_ms,
            target_words=f"brief: {binding.words}" if binding is not None else "",
        )
        unplotted = sum(
            1 for p in points if p.get(axis_key) is None or p["tokens_per_s_per_gpu"] is None
        )
    context = {
        "can_upload": has_role(request.user, *UPLOADERS),
        "briefs": briefs,
        "brief": brief,
        "rows": rows,
        "figure": figure,
        "binding": binding,
        "unplotted": unplotted,
    }
    return render(request, "benchmarks/result_compare.html", context)
