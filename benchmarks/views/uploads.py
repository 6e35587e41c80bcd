"""The upload page: one result file or several (the files of one sweep), with or without
JavaScript, and the check that tells the page what a chosen file states before it is sent.

Without JavaScript the form posts every chosen file at once; the page answers with each
file's outcome. With JavaScript (static/js/benchmarks.js) each file is sent on its own, with
its own progress bar, and answered in JSON (`Accept: application/json`); a single file is
still answered as before (the result page, or the form with what it asks).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.contrib import messages
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods, require_POST

from accounts.http import AuthedRequest
from benchmarks import services
from benchmarks.errors import UploadRejected
from benchmarks.forms import SERVING_ENGINES, UploadForm
from benchmarks.services import FileOutcome
from benchmarks.services.uploads import clean_filename
from benchmarks.upload_handlers import (
    declared_length_too_large,
    install_capped_handler,
    upload_cap_bytes,
)
from benchmarks.views.results import UPLOADERS
from benchmarks.workload import model_warning, workload_summary
from core.forms import apply_domain_error
from core.roles import role_required


def _wants_json(request: AuthedRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _upload_page(
    request: AuthedRequest,
    form: UploadForm,
    status: int = 200,
    error: str = "",
    outcomes: list[dict[str, Any]] | None = None,
) -> HttpResponse:
    context = {
        "can_upload": True,
        "form": form,
        "max_bytes": upload_cap_bytes(),
        "max_label": f"{upload_cap_bytes() / 1e6:,.0f} MB",
        "max_files": services.MAX_FILES_PER_UPLOAD,
        "engines": SERVING_ENGINES,
        "upload_error": error,
        "outcomes": outcomes or [],
    }
    return render(request, "benchmarks/result_upload.html", context, status=status)


def _outcome(outcome: FileOutcome) -> dict[str, Any]:
    """One file's outcome, for the page and for the JSON answer."""
    out: dict[str, Any] = {"name": outcome.filename, "status": outcome.status}
    if outcome.result is not None:
        result = outcome.result
        out |= {
            "id": result.pk,
            "url": result.get_absolute_url(),
            "workload": workload_summary(result),
            "model_warning": model_warning(result),
        }
    return out | outcome.refusal_fields()


def _json_refusal(name: str, exc: UploadRejected) -> JsonResponse:
    return JsonResponse(_outcome(FileOutcome(name, refusal=exc)), status=exc.status_code)


def _form_refusal(form: UploadForm) -> UploadRejected:
    fields = {
        name: [str(e["message"]) for e in errors]
        for name, errors in form.errors.get_json_data().items()
    }
    return UploadRejected("Please correct the fields marked.", fields=fields)


def _refuse(request: AuthedRequest, form: UploadForm, exc: UploadRejected) -> HttpResponse:
    apply_domain_error(form, exc)  # each field the file does not say is asked at once
    return _upload_page(request, form, status=exc.status_code)


def _one_file(request: AuthedRequest, form: UploadForm, upload: Any, meta: Any) -> HttpResponse:
    try:
        outcome = services.benchmark_result_ingest(
            acting_user=request.user, upload=upload, meta=meta
        )
    except UploadRejected as exc:
        if _wants_json(request):
            return _json_refusal(clean_filename(getattr(upload, "name", None)), exc)
        return _refuse(request, form, exc)
    if _wants_json(request):
        done = FileOutcome(outcome.result.original_name, outcome.result, outcome.created)
        return JsonResponse(_outcome(done), status=201 if outcome.created else 200)
    if warning := model_warning(outcome.result):  # at once, not after a recompute
        messages.warning(request, warning)
    url = outcome.result.get_absolute_url()
    return redirect(url if outcome.created else f"{url}?existing=1", permanent=False)


def _many_files(
    request: AuthedRequest, form: UploadForm, uploads: list[Any], meta: Any
) -> HttpResponse:
    try:
        outcomes = services.benchmark_results_ingest_many(
            acting_user=request.user, uploads=uploads, meta=meta
        )
    except UploadRejected as exc:  # none was tried: too many files
        if _wants_json(request):
            return _json_refusal("", exc)
        return _refuse(request, form, exc)
    rows = [_outcome(o) for o in outcomes]
    stored = any(o.refusal is None for o in outcomes)
    if _wants_json(request):
        return JsonResponse({"files": rows}, status=200 if stored else 400)
    return _upload_page(request, form, status=200 if stored else 400, outcomes=rows)


@csrf_protect
def _result_upload(request: AuthedRequest, handler: Any) -> HttpResponse:
    user = request.user
    if request.method != "POST":
        initial = {k: request.GET.get(k) for k in ("quote", "brief") if request.GET.get(k)}
        return _upload_page(request, UploadForm(user=user, initial=initial))
    form = UploadForm(request.POST, request.FILES, user=user)
    if handler.too_large:
        exc = services.benchmark_upload_too_large(acting_user=user, size=None)
        return _json_refusal("", exc) if _wants_json(request) else _refuse(request, form, exc)
    if not form.is_valid():
        if _wants_json(request):
            return _json_refusal("", _form_refusal(form))
        return _upload_page(request, form, status=400)
    data = form.cleaned_data
    uploads = data["file"]
    meta = services.UploadMeta(**{k: v for k, v in data.items() if k != "file"})
    if len(uploads) == 1:
        return _one_file(request, form, uploads[0], meta)
    return _many_files(request, form, uploads, meta)


@csrf_exempt  # the upload handlers must be set before CSRF reads the body; checked inside
@require_http_methods(["GET", "POST"])
@role_required(*UPLOADERS)
def result_upload(request: AuthedRequest) -> HttpResponse:
    """Drag-and-drop of one file or several (XHR with progress per file, see benchmarks.js)
    or a plain form post without JS."""
    if request.method == "POST" and declared_length_too_large(request):
        size = int(request.META["CONTENT_LENGTH"])
        exc = services.benchmark_upload_too_large(acting_user=request.user, size=size)
        if _wants_json(request):
            return _json_refusal("", exc)
        return _upload_page(request, UploadForm(user=request.user), status=413, error=exc.message)
    handler = install_capped_handler(request) if request.method == "POST" else None
    return _result_upload(request, handler)


@csrf_protect
def _result_upload_check(request: AuthedRequest, handler: Any) -> JsonResponse:
    upload = request.FILES.get("file")
    if handler.too_large or upload is None:
        message = "Choose one file to check." if upload is None else "The file is too large."
        return JsonResponse({"status": "refused", "detail": message}, status=400)
    try:
        check = services.benchmark_upload_check(acting_user=request.user, upload=upload)
    except UploadRejected as exc:  # the check succeeded: its answer is "will be refused"
        return JsonResponse(_outcome(FileOutcome(clean_filename(upload.name), refusal=exc)))
    return JsonResponse({"status": "checked", **asdict(check)})


@csrf_exempt  # as the upload: the capped handler is set before CSRF reads the body
@require_POST
@role_required(*UPLOADERS)
def result_upload_check(request: AuthedRequest) -> JsonResponse:
    """What a chosen file states (format, model, precision, load) and what its upload would
    ask, before it is uploaded: the page asks for the precision up front. Stores nothing."""
    if declared_length_too_large(request):
        return JsonResponse({"status": "refused", "detail": "The file is too large."}, status=413)
    return _result_upload_check(request, install_capped_handler(request))
