"""Accelerator catalog, side-by-side comparison, model profiles."""

from __future__ import annotations

import csv
from dataclasses import fields

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render

from accounts.http import AuthedRequest
from catalog import charts, ledger, selectors, services
from catalog.access import staff_required
from catalog.forms.reference import AcceleratorListForm, CompareForm, ModelProfileForm
from catalog.models import Accelerator
from catalog.views.quote_csv import csv_cell
from core.forms import form_status, saved
from core.listing import Column, paginate, query_without, sort_headers
from core.roles import get_or_404, has_role, role_required
from core.values import money_decimal, plain_number

# (label, attribute, unit, which way is better) for the comparison table.
COMPARE_ROWS = [
    ("Vendor", "vendor", "", None),
    ("Architecture", "architecture", "", None),
    ("Form factor", "form_factor", "", None),
    ("Memory", "memory_gb", "GB", "high"),
    ("Memory type", "memory_type", "", None),
    ("Memory bandwidth", "memory_bandwidth_tbps", "TB/s", "high"),
    ("BF16 dense", "bf16_dense_tflops", "TFLOPS", "high"),
    ("FP8 dense", "fp8_dense_tflops", "TFLOPS", "high"),
    ("FP4 dense", "fp4_dense_tflops", "TFLOPS", "high"),
    ("INT8 dense", "int8_dense_tops", "TOPS", "high"),
    ("Interconnect", "interconnect", "", None),
    ("Interconnect bandwidth", "interconnect_gbps", "GB/s", "high"),
    ("PCIe generation", "pcie_gen", "", None),
    ("Power (TDP)", "tdp_w", "W", "low"),
    ("MIG / partitions", "mig_instances", "", None),
    ("GPUs per node", "max_gpus_per_node", "", None),
    ("Segment", "segment", "", None),
    ("Launch year", "launch_year", "", None),
]
SORTABLE = [(key, heading) for key, (_, heading) in selectors.ACCELERATOR_SORTS.items()]
# The column chooser: vendor and name always show; the rest can be hidden. The choice
# lives in the URL (?cols=…, shareable) and is remembered in a cookie for the next visit.
OPTIONAL_COLUMNS = [
    *((key, label) for key, label in SORTABLE if key not in ("vendor", "name")),
    ("precisions", "Precisions"),
    ("segment", "Segment"),
]
COLUMNS_COOKIE = "catalog_cols"
DEFAULT_SORT = "vendor"


def _visible_columns(request: AuthedRequest) -> tuple[list[str], bool]:
    """The columns to show and whether the URL chose them (then the cookie is updated)."""
    known = [key for key, _ in OPTIONAL_COLUMNS]
    chosen = [key for key in request.GET.getlist("cols") if key in known]
    if chosen:
        return chosen, True
    remembered = [key for key in request.COOKIES.get(COLUMNS_COOKIE, "").split(",") if key]
    return [key for key in remembered if key in known] or known, False


# The export's (header, attribute): every sortable column's field, the offers behind its
# price, the segment.
CSV_COLUMNS = [
    *((field, field) for field, _ in selectors.ACCELERATOR_SORTS.values()),
    ("current_usd_offers", "usd_offers"),
    ("segment", "segment"),
]
CSV_MONEY = {"lowest_usd_per_gpu_hour"}


def _point(a: Accelerator) -> charts.AcceleratorPoint:
    """The chart's figures of an accelerator: its attributes of the same names."""
    names = (f.name for f in fields(charts.AcceleratorPoint))
    return charts.AcceleratorPoint(**{name: getattr(a, name) for name in names})


@staff_required
def accelerator_list(request: AuthedRequest) -> HttpResponse:
    form = AcceleratorListForm(request.GET or None, vendors=selectors.accelerator_vendors())
    filters = form.cleaned_data if form.is_bound and form.is_valid() else {}
    accelerators = list(selectors.accelerators_list(filters))
    if request.GET.get("format") == "csv" and (not form.is_bound or form.is_valid()):
        return _catalog_csv(accelerators)
    query = query_without(request, "format", "page")  # the export is every page
    visible, chosen_now = _visible_columns(request)
    # With no sort chosen the rows are in the model's order (vendor, then name): say so.
    columns = [Column(key, label, key, key not in ("vendor", "name")) for key, label in SORTABLE]
    headers = sort_headers(request, columns, filters.get("sort") or DEFAULT_SORT)
    page = paginate(accelerators, request.GET.get("page"))
    context = {
        "csv_query": f"{query}&format=csv".lstrip("&"),
        "filtered": bool(query_without(request, "format", "sort", "cols", "page")),
        "form": form,
        "accelerators": page.object_list,
        "page": page,
        "page_query": query_without(request, "page", "format"),
        "headers": [h for h in headers if h.key in ("vendor", "name") or h.key in visible],
        "visible": visible,
        "optional_columns": OPTIONAL_COLUMNS,
        "compare_form": CompareForm(),
        "fig": charts.memory_vs_bandwidth([_point(a) for a in accelerators]),
    }
    response = render(
        request,
        "catalog/accelerator_list.html",
        context,
        status=200 if not form.is_bound or form.is_valid() else 400,
    )
    if chosen_now:
        response.set_cookie(
            COLUMNS_COOKIE,
            ",".join(visible),
            max_age=365 * 24 * 3600,
            samesite="Lax",
            httponly=True,
            secure=request.is_secure(),
        )
    return response


def _csv_value(attr: str, value: object) -> object:
    """Numbers as a reader types them: money with two decimals or the source's (2.4900 →
    2.49, 0.7052 stays), datasheet figures without float noise (192.0 → 192, 1307.4 stays)."""
    if attr in CSV_MONEY:
        return money_decimal(value)
    if isinstance(value, float):
        return plain_number(value)
    return value


def _catalog_csv(accelerators: list[Accelerator]) -> HttpResponse:
    """The current view (filters and sort) as CSV, one row per accelerator."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="accelerators.csv"'
    writer = csv.writer(response)
    writer.writerow([header for header, _ in CSV_COLUMNS])
    for a in accelerators:
        row = [_csv_value(attr, getattr(a, attr, None)) for _, attr in CSV_COLUMNS]
        writer.writerow([csv_cell(value) for value in row])
    return response


@staff_required
def accelerator_detail(request: AuthedRequest, slug: str) -> HttpResponse:
    accelerator = get_or_404(Accelerator.objects.all(), slug=slug)
    everyone = [_point(a) for a in Accelerator.objects.all()]
    quotes = selectors.current_quotes_for_accelerator(request.user, accelerator)[:25]
    context = {
        "accelerator": accelerator,
        "fig": charts.memory_vs_bandwidth(everyone, highlight=accelerator.slug),
        "quotes": quotes,
        "calibration": ledger.calibration_entries_for([accelerator.pk])[:50],
        "billed_months": ledger.cost_entries_for([accelerator.pk])[:50],
        "calibration_summary": ledger.calibration_summaries([accelerator.pk]).get(accelerator.slug),
    }
    return render(request, "catalog/accelerator_detail.html", context)


def _compare_rows(accelerators: list[Accelerator]) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for label, attr, unit, better in COMPARE_ROWS:
        values = [getattr(a, attr) for a in accelerators]
        numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
        best = None
        if better and len(numbers) > 1 and len(set(numbers)) > 1:
            best = max(numbers) if better == "high" else min(numbers)
        cells = [{"value": v, "best": best is not None and v == best} for v in values]
        rows.append({"label": label, "unit": unit, "cells": cells})
    return rows


@staff_required
def accelerator_compare(request: AuthedRequest) -> HttpResponse:
    chosen = [request.GET.get(k) for k in "abcd" if request.GET.get(k)]
    # Fewer than two picked (e.g. "Compare with…" from a detail page): prefill, no error yet.
    form = CompareForm(request.GET) if len(chosen) >= 2 else CompareForm(initial=request.GET)
    if not form.is_bound or not form.is_valid():
        status = 400 if form.is_bound else 200
        return render(request, "catalog/compare.html", {"form": form}, status=status)
    accelerators = selectors.accelerators_by_slugs(form.cleaned_data["slugs"])
    context = {
        "form": form,
        "accelerators": accelerators,
        "rows": _compare_rows(accelerators),
        "fig": charts.compare_compute([_point(a) for a in accelerators]),
        "fig_scatter": charts.memory_vs_bandwidth([_point(a) for a in accelerators]),
    }
    return render(request, "catalog/compare.html", context)


@staff_required
def model_list(request: AuthedRequest) -> HttpResponse:
    context = {
        "models": selectors.model_profiles_list(),
        "can_add": has_role(request.user, *services.MODEL_WRITERS),
    }
    return render(request, "catalog/model_list.html", context)


@role_required(*services.MODEL_WRITERS)
def model_create(request: AuthedRequest) -> HttpResponse:
    form = ModelProfileForm(request.POST or None)
    create = services.model_profile_create
    if profile := saved(request, form, lambda data: create(acting_user=request.user, data=data)):
        messages.success(request, f"Model {profile.name} added.")
        return redirect("catalog:model-list")
    context = {
        "form": form,
        "title": "Add a custom model",
        "submit": "Save the model",
        "cancel": "catalog:model-list",
    }
    return render(request, "catalog/simple_form.html", context, status=form_status(request))
