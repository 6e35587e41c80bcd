"""HTML views of benchmark results: list, detail (with progress polling) and download (the
upload page: views/uploads.py; sweeps and the compare page: views/sweeps.py)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path, PurePath
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from accounts.http import AuthedRequest
from benchmarks import access, charts, figures, parsers, selectors, services
from benchmarks.errors import UploadRejected
from benchmarks.file_figures import extra_rows
from benchmarks.forms import ResultModelForm
from benchmarks.models import BenchmarkResult
from benchmarks.services.asked import result_asks
from benchmarks.workload import model_warning, workload_summary
from briefs import access as briefs_access
from core.listing import Column, json_number, list_page
from core.roles import STAFF_ROLES, has_role, role_required

READERS = tuple(STAFF_ROLES)
UPLOADERS = tuple(access.BENCHMARK_UPLOADERS)
LIST_FILTERS = ("status", "format", "brief", "accelerator", "quote")
LIST_COLUMNS = (
    Column("file", "File", "original_name"),
    Column("status", "Status", "status"),
    Column("format", "Model and workload", "model_name"),
    Column("candidate", "Candidate", ("accelerator__name", "gpu_count")),
    Column("brief", "Brief", ("brief__title", "brief__version")),
    Column("output", "Output tok/s", json_number("metrics", "output_tokens_per_s"), numeric=True),
    Column("per_gpu", "tok/s per GPU", numeric=True),
    Column("ttft", "TTFT p95", json_number("metrics", "ttft_ms", "p95"), numeric=True),
    Column("e2e", "E2E p99", json_number("metrics", "e2e_ms", "p99"), numeric=True),
    Column("accepted", "Accepted", numeric=True),
    Column("uploaded", "Uploaded", "created_at"),
)
FINAL_STATES = {BenchmarkResult.Status.PARSED, BenchmarkResult.Status.FAILED}
HTMX_STOP_POLLING = 286


@require_GET
@role_required(*READERS)
def result_list(request: AuthedRequest) -> HttpResponse:
    filters = {key: request.GET.get(key, "").strip() for key in LIST_FILTERS}
    bad = [  # A NUL byte or a non-numeric id is a clear 400, not a database error
        key
        for key, value in filters.items()
        if "\x00" in value or (key in ("quote", "brief") and value and not value.isdigit())
    ]
    if bad:
        return HttpResponse(
            f"Invalid filter value for: {', '.join(bad)}.", status=400, content_type="text/plain"
        )
    results = selectors.results_list(request.user, filters)
    listing = list_page(request, results, LIST_COLUMNS, default_sort="-uploaded")
    page = listing.page
    rows = [
        {
            "result": r,
            "figures": figures.key_figures(r.metrics, r.gpu_count),
            "all_failed": figures.all_requests_failed(r.metrics or {}),
            "workload": workload_summary(r),
            "model_warning": model_warning(r),
        }
        for r in page
    ]
    context = {
        "listing": listing,
        "page": page,
        "rows": rows,
        "filters": filters,
        "statuses": BenchmarkResult.Status.choices,
        "formats": selectors.formats_in_use(request.user),
        "briefs": briefs_access.briefs_for(request.user).order_by("-created_at"),
        "can_upload": has_role(request.user, *UPLOADERS),
        "query": urlencode({k: v for k, v in filters.items() if v}),
    }
    return render(request, "benchmarks/result_list.html", context)


def _detail_context(user: Any, result: BenchmarkResult) -> dict[str, Any]:
    metrics = result.metrics or {}
    brief = result.brief
    dists = result.distributions or {}
    ttft_target = brief.ttft_p95_ms if brief else None
    e2e_target = brief.e2e_p99_ms if brief else None
    charts_out = {
        "percentiles": charts.latency_percentiles_figure(metrics),
        "ttft": dists.get("ttft_ms")
        and charts.distribution_figure(
            dists["ttft_ms"], title="Time to first token", target_ms=ttft_target,
            target_label=f"brief: TTFT p95 ≤ {ttft_target or 0:,} ms",
        ),
        "e2e": dists.get("e2e_ms")
        and charts.distribution_figure(
            dists["e2e_ms"], title="End-to-end latency", target_ms=e2e_target,
            target_label=f"brief: E2E p99 ≤ {e2e_target or 0:,} ms",
        ),
    }  # fmt: skip
    in_sweep = selectors.sweep_of(user, result) if result.status == "parsed" else None
    return {
        "result": result,
        "figures": figures.key_figures(metrics, result.gpu_count),
        "shape": figures.workload_shape(metrics),
        "all_failed": figures.all_requests_failed(metrics),
        "percentile_rows": figures.percentile_rows(metrics),
        "metrics": metrics,
        "runs": metrics.get("runs") or [],
        "extra": extra_rows(metrics.get("extra")),
        "sweep": in_sweep
        and {
            "id": in_sweep[0]["result_id"],
            "files": len(in_sweep[1]),
            "levels": len(in_sweep[0].get("operating_points") or []),
        },
        "charts": {k: v for k, v in charts_out.items() if v},
        "is_final": result.status in FINAL_STATES,
        "workload": workload_summary(result),
        "model_warning": model_warning(result),
        "calibration": selectors.calibration_of(result),
        "asks": (asks := result_asks(result)),
        "model_form": ResultModelForm() if asks else None,
    }


@require_GET
@role_required(*READERS)
def result_detail(request: AuthedRequest, result_id: int) -> HttpResponse:
    result = access.access_result(request.user, result_id)
    if request.htmx:  # the status partial polls every second while the worker parses
        is_final = result.status in FINAL_STATES
        response = render(
            request,
            "benchmarks/result_detail.html#status",
            {"result": result, "is_final": is_final},
        )
        if is_final:
            response.status_code = HTMX_STOP_POLLING
            response["HX-Refresh"] = "true"
        return response
    context = {
        **_detail_context(request.user, result),
        "existing": request.GET.get("existing") == "1",
        "can_upload": has_role(request.user, *UPLOADERS),
    }
    return render(request, "benchmarks/result_detail.html", context)


@require_http_methods(["POST"])
@role_required(*UPLOADERS)
def result_model_set(request: AuthedRequest, result_id: int) -> HttpResponse:
    """Say which model a parsed file measured and at which precision, when the file does not
    (large files are asked after their parse on a worker)."""
    result = access.access_result(request.user, result_id)
    form = ResultModelForm(request.POST)
    if form.is_valid():
        try:
            services.benchmark_result_model_set(
                acting_user=request.user,
                result=result,
                model_profile=form.cleaned_data["model_profile"],
                precision=form.cleaned_data["precision"],
            )
        except UploadRejected as exc:
            messages.error(request, exc.message)
    else:
        messages.error(request, "Choose the model profile and the precision the file measured.")
    return redirect(result.get_absolute_url())


def download_name(name: str) -> str:
    """The uploaded name made harmless for Content-Disposition: ASCII letters, digits and
    ``._ ()-`` only (no path, quote, semicolon or control character)."""
    base = PurePath(name.replace("\\", "/")).name
    base = unicodedata.normalize("NFKD", base).encode("ascii", "ignore").decode("ascii")
    base = re.sub(r"[^A-Za-z0-9._ ()-]+", "_", base).strip(" ._")
    return base[:150] or "benchmark-result"


@require_GET
@role_required(*READERS)
def result_download(request: AuthedRequest, result_id: int) -> FileResponse:
    """The raw file as uploaded, only after the access check, always as an attachment."""
    result = access.access_result(request.user, result_id)
    response = FileResponse(
        result.raw_file.open("rb"),
        as_attachment=True,
        filename=download_name(result.original_name),
        content_type="application/octet-stream",
    )
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, no-store"
    return response


TEMPLATES_DIR = Path(parsers.__file__).resolve().parent / "templates"
FILE_TEMPLATES = ("requests_template.csv", "run_template.json")


@require_GET
@role_required(*READERS)
def file_template(request: AuthedRequest, name: str) -> FileResponse:
    """Our own formats' templates, for accepted outputs and runs no tool writes for you."""
    if name not in FILE_TEMPLATES:
        raise Http404
    return FileResponse((TEMPLATES_DIR / name).open("rb"), as_attachment=True, filename=name)
