"""Published results (MLPerf Inference): the list by round, model and accelerator, and the
upload of another round's archive (platform engineers; docs/benchmarks.md)."""

from __future__ import annotations

from django.db import DatabaseError
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from accounts.http import AuthedRequest
from benchmarks import access
from benchmarks.forms import PublishedUploadForm
from benchmarks.parsers.errors import ParseError
from benchmarks.services.published import ImportReport, published_results_upload
from core.roles import STAFF_ROLES, has_role, role_required


@role_required(*STAFF_ROLES)
@require_http_methods(["GET", "POST"])
def published_list(request: AuthedRequest) -> HttpResponse:
    can_upload = has_role(request.user, *access.BENCHMARK_UPLOADERS)
    form = PublishedUploadForm()
    report: ImportReport | None = None
    status = 200
    if request.method == "POST":
        if not can_upload:
            return HttpResponse("Only platform engineers import published results.", status=403)
        form = PublishedUploadForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                report = published_results_upload(
                    acting_user=request.user, upload=form.cleaned_data["archive"]
                )
            except ParseError as exc:
                form.add_error("archive", str(exc))
            except DatabaseError as exc:  # one transaction: nothing of the round was written
                form.add_error("archive", f"Nothing was imported: {exc}")
        if not form.is_valid():
            status = 400
    rows = access.published_for(request.user).order_by(
        "-round", "model_profile__name", "scenario", "accelerator__name", "-throughput_per_gpu"
    )
    return render(
        request,
        "benchmarks/published_list.html",
        {
            "rows": rows,
            "form": form,
            "report": report,
            "can_upload": can_upload,
        },
        status=status,
    )
