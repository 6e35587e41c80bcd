"""HTML pages of the FinOps app: decisions, a decision's FOCUS files, bills, counts and
reconciliation. Function views: access → service/selector → render."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.http import AuthedRequest
from core.errors import DomainError
from core.forms import apply_domain_error
from core.roles import STAFF_ROLES, role_required
from finops import access, selectors, services
from finops.focus.actuals import (
    ActualsError,
    MonthCount,
    month_from_scrapes,
    parse_actuals_csv,
    parse_vllm_metrics,
)
from finops.focus.charts import MonthPoint, unit_cost_by_month
from finops.focus.spec import FOCUS_VERSION
from finops.forms import ActualOutputsForm, ActualsUploadForm, BillingImportForm
from finops.models import ActualOutputs
from procurement.models import Comparison

UPLOAD_READ_MAX = 20 * 1000 * 1000  # a counts CSV or a metrics scrape is small


@role_required(*STAFF_ROLES)
def decision_list(request: AuthedRequest) -> HttpResponse:
    decisions = access.decisions_for(request.user).order_by("-decided_at", "-pk")
    only_drift = request.GET.get("drift") == "1"
    if only_drift:
        decisions = selectors.drifting_decisions(request.user).order_by("-decided_at", "-pk")
    rows = list(decisions.prefetch_related("superseded_decisions")[:200])
    commitments = selectors.decision_commitments(rows)  # a plan's total, not its row's (U18)
    listed = [(row, commitments[row.pk]) for row in rows]
    drifting = set(selectors.drifting_decisions(request.user).values_list("pk", flat=True))
    return render(
        request,
        "finops/decision_list.html",
        {"decisions": listed, "drifting": drifting, "only_drift": only_drift},
    )


def _forms_initial(lines: list[selectors.DecisionLine]) -> dict[str, Any]:
    if not lines:
        return {}
    providers = list(dict.fromkeys(line.row.provider_name for line in lines))
    initial: dict[str, Any] = {"provider_names": ", ".join(providers)}
    row = lines[0].row
    if len(lines) == 1 and row.quote is not None:
        # A bill carries the provider's own SKU ids, never ours: the SKU box starts empty (a
        # pre-filled product id matched nothing on a real bill, U7).
        initial["gpus_per_instance"] = row.quote.gpus_per_node
    return initial


def _context(request: AuthedRequest, comparison: Comparison, **forms: Any) -> dict[str, Any]:
    lines = selectors.decision_lines(comparison)
    reconciliations = list(selectors.reconciliations_of(comparison))
    points = [
        MonthPoint(f"{r.month:%Y-%m}", r.forecast_unit_cost_usd, r.actual_unit_cost_usd, r.drift)
        for r in reconciliations
    ]
    imports = list(selectors.imports_of(comparison)[:20])
    initial = _forms_initial(lines)
    return {
        "comparison": comparison,
        "lines": lines,
        "in_plan": bool(lines) and lines[0].in_plan,
        "commitments": selectors.commitment_rows(comparison),
        "imports": imports,
        "importing": any(not i.is_finished for i in imports),
        "outputs": list(
            ActualOutputs.objects.filter(comparison=comparison).select_related("entered_by")[:24]
        ),
        "reconciliations": reconciliations,
        "fig": unit_cost_by_month(points, "USD") if points else None,
        "tolerance": services.drift_tolerance(),
        "focus_version": FOCUS_VERSION,
        "can_import": access.can_import_bill(request.user) and bool(lines),
        "can_count": access.can_count_outputs(request.user) and bool(lines),
        "import_form": forms.get("import_form") or BillingImportForm(initial=initial),
        "outputs_form": forms.get("outputs_form") or ActualOutputsForm(),
        "upload_form": forms.get("upload_form") or ActualsUploadForm(),
    }


@role_required(*STAFF_ROLES)
def decision_detail(request: AuthedRequest, pk: int) -> HttpResponse:
    comparison = access.access_comparison(request.user, pk)
    context = _context(request, comparison)
    if request.htmx:
        status = 200 if context["importing"] else 286  # htmx: stop polling once all are done
        return render(request, "finops/decision_detail.html#imports", context, status=status)
    return render(request, "finops/decision_detail.html", context)


def _export(request: AuthedRequest, pk: int, dataset: str) -> HttpResponse:
    comparison = access.access_comparison(request.user, pk)
    file_format = "parquet" if request.GET.get("format") == "parquet" else "csv"
    try:
        focus = services.focus_export(
            acting_user=request.user,
            comparison=comparison,
            dataset=dataset,
            file_format=file_format,
        )
    except DomainError as exc:
        return HttpResponse(
            exc.message, status=exc.status_code, content_type="text/plain; charset=utf-8"
        )
    response = HttpResponse(focus.body, content_type=focus.content_type)
    response["Content-Disposition"] = f'attachment; filename="{focus.filename}"'
    return response


@role_required(*STAFF_ROLES)
def focus_commitments(request: AuthedRequest, pk: int) -> HttpResponse:
    return _export(request, pk, "commitments")


@role_required(*STAFF_ROLES)
def focus_prices(request: AuthedRequest, pk: int) -> HttpResponse:
    return _export(request, pk, "prices")


def _refused(
    request: AuthedRequest, comparison: Comparison, exc: DomainError, **forms: Any
) -> HttpResponse:
    context = _context(request, comparison, **forms)
    context["refusal"] = exc.message
    return render(request, "finops/decision_detail.html", context, status=exc.status_code)


INVALID = "Correct the fields marked below; nothing was saved."


@require_POST
@role_required(*STAFF_ROLES)
def billing_import_new(request: AuthedRequest, pk: int) -> HttpResponse:
    comparison = access.access_comparison(request.user, pk)
    form = BillingImportForm(request.POST, request.FILES)
    try:
        services.billing_import_check(acting_user=request.user, comparison=comparison)
        if not form.is_valid():
            return _refused(request, comparison, DomainError(INVALID), import_form=form)
        services.billing_import_submit(
            acting_user=request.user, comparison=comparison, data=form.cleaned_data
        )
    except DomainError as exc:
        apply_domain_error(form, exc)
        return _refused(request, comparison, exc, import_form=form)
    return redirect(f"{_page(comparison)}#imports")


def _page(comparison: Comparison) -> str:
    return reverse("finops:decision-detail", args=[comparison.pk])


@require_POST
@role_required(*STAFF_ROLES)
def actuals_new(request: AuthedRequest, pk: int) -> HttpResponse:
    comparison = access.access_comparison(request.user, pk)
    form = ActualOutputsForm(request.POST)
    try:
        services.actual_outputs_check(acting_user=request.user, comparison=comparison)
        if not form.is_valid():
            return _refused(request, comparison, DomainError(INVALID), outputs_form=form)
        data = form.cleaned_data
        services.actual_outputs_record(
            acting_user=request.user,
            comparison=comparison,
            counts=[MonthCount(data["month"], data["accepted_outputs"], data["acceptance_share"])],
            source=ActualOutputs.Source.FORM,
        )
    except DomainError as exc:
        apply_domain_error(form, exc)
        return _refused(request, comparison, exc, outputs_form=form)
    return redirect(f"{_page(comparison)}#reconciliation")


def _read(upload: Any) -> bytes:
    if upload.size and upload.size > UPLOAD_READ_MAX:
        raise ActualsError(f"The file is larger than {UPLOAD_READ_MAX // 1_000_000} MB.")
    return bytes(upload.read())


def _counts_from(data: dict[str, Any]) -> list[MonthCount]:
    if data["kind"] == "csv":
        return parse_actuals_csv(_read(data["file"]))
    end = parse_vllm_metrics(_read(data["file"]))
    start = parse_vllm_metrics(_read(data["start_file"])) if data.get("start_file") else None
    return [month_from_scrapes(data["month"], data["acceptance_share"], end, start)]


@require_POST
@role_required(*STAFF_ROLES)
def actuals_upload(request: AuthedRequest, pk: int) -> HttpResponse:
    comparison = access.access_comparison(request.user, pk)
    form = ActualsUploadForm(request.POST, request.FILES)
    try:
        services.actual_outputs_check(acting_user=request.user, comparison=comparison)
        if not form.is_valid():
            return _refused(request, comparison, DomainError(INVALID), upload_form=form)
        data = form.cleaned_data
        try:
            counts = _counts_from(data)
        except (ActualsError, ValueError) as exc:
            raise DomainError(str(exc), fields={"file": [str(exc)]}) from None
        services.actual_outputs_record(
            acting_user=request.user,
            comparison=comparison,
            counts=counts,
            source=ActualOutputs.Source.CSV if data["kind"] == "csv" else ActualOutputs.Source.VLLM,
            original_name=data["file"].name or "",
        )
    except DomainError as exc:
        apply_domain_error(form, exc)
        return _refused(request, comparison, exc, upload_form=form)
    return redirect(f"{_page(comparison)}#reconciliation")
