"""Bulk import of public list prices, and the downloadable CSV template."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render

from accounts.http import AuthedRequest
from catalog import services
from catalog.errors import ImportRejected
from catalog.forms import ImportForm
from catalog.importers.common import MAX_BYTES
from catalog.importers.price_list import COLUMNS, template_csv
from catalog.views.common import form_error, writer_required
from core.errors import DomainError


@writer_required
def import_page(request: AuthedRequest) -> HttpResponse:
    form = ImportForm(request.POST or None, request.FILES or None)
    outcome, errors = None, []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            if upload.size > MAX_BYTES:
                raise ImportRejected(
                    [
                        {
                            "row": None,
                            "column": None,
                            "message": f"The file is larger than {MAX_BYTES // 1_000_000} MB.",
                        }
                    ]
                )
            outcome = services.catalog_import(
                acting_user=request.user,
                kind=form.cleaned_data["kind"],
                data=upload.read(),
                filename=upload.name or "upload",
                captured_on=form.cleaned_data["captured_on"],
                provider=form.cleaned_data["provider"],
                only_providers=list(form.cleaned_data["only_providers"]) or None,
            )
        except ImportRejected as exc:
            errors = exc.errors
        except DomainError as exc:
            form_error(form, exc)
    failed = request.method == "POST" and (bool(errors) or not form.is_valid())
    context = {"form": form, "outcome": outcome, "errors": errors, "columns": COLUMNS}
    return render(request, "catalog/import.html", context, status=400 if failed else 200)


@writer_required
def import_template(request: AuthedRequest) -> HttpResponse:
    response = HttpResponse(template_csv(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="quote-price-list-template.csv"'
    return response
