"""Bulk import of public list prices, and the downloadable CSV template."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from accounts.http import AuthedRequest
from catalog import services
from catalog.access import writer_required
from catalog.errors import ImportRejected
from catalog.forms.reference import ImportForm
from catalog.importers.common import MAX_BYTES, RowError
from catalog.importers.price_list import COLUMNS, template_csv
from catalog.models import CatalogImportJob
from catalog.services.import_jobs import BACKGROUND_FROM_BYTES, import_job_create
from core.errors import DomainError
from core.forms import apply_domain_error


@writer_required
def import_page(request: AuthedRequest) -> HttpResponse:
    form = ImportForm(request.POST or None, request.FILES or None)
    outcome, errors = None, []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            if upload.size > MAX_BYTES:
                limit = f"The file is larger than {MAX_BYTES // 1_000_000} MB."
                raise ImportRejected([RowError(None, None, limit).as_dict()])
            arguments = {
                "acting_user": request.user,
                "kind": form.cleaned_data["kind"],
                "data": upload.read(),
                "filename": upload.name or "upload",
                "captured_on": form.cleaned_data["captured_on"],
                "provider": form.cleaned_data["provider"],
                "only_providers": list(form.cleaned_data["only_providers"]) or None,
                "all_or_nothing": form.cleaned_data["all_or_nothing"] or None,
            }
            if form.cleaned_data["background"] or upload.size > BACKGROUND_FROM_BYTES:
                return redirect(import_job_create(**arguments))
            outcome = services.catalog_import(**arguments)
        except ImportRejected as exc:
            errors = exc.errors
        except DomainError as exc:
            apply_domain_error(form, exc)
    failed = request.method == "POST" and (bool(errors) or not form.is_valid())
    context = {"form": form, "outcome": outcome, "errors": errors, "columns": COLUMNS}
    return render(request, "catalog/import.html", context, status=400 if failed else 200)


@writer_required
def import_template(request: AuthedRequest) -> HttpResponse:
    response = HttpResponse(template_csv(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="quote-price-list-template.csv"'
    return response


@writer_required
def import_job(request: HttpRequest, pk: int) -> HttpResponse:
    """A background import: progress while it runs (the page refreshes), then its outcome."""
    job = get_object_or_404(CatalogImportJob.objects.defer("data"), pk=pk)
    running = job.status in (CatalogImportJob.Status.QUEUED, CatalogImportJob.Status.RUNNING)
    context = {"job": job, "running": running, "outcome": job.outcome or None}
    return render(request, "catalog/import_job.html", context)
