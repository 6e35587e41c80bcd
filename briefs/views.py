"""HTML pages for workload briefs and the memory-fit calculator.

Staff read briefs; procurement leads and admins write them; vendors get 404 on every brief
page. The calculator is open to anyone logged in, like its API: it reveals only catalog data.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts.http import AuthedRequest
from briefs import access
from briefs import charts as charts_briefs
from briefs import selectors as selectors_briefs
from briefs import services as services_briefs
from briefs.fit import context_source_for, context_tokens_for, mode_for
from briefs.fit_words import assumption_rows
from briefs.forms import BriefForm, MemoryFitForm, TrafficTraceForm, brief_initial
from briefs.models import TrafficTrace, WorkloadBrief, WorkloadClass
from briefs.rules import GROUPS, field_label, groups_for, missing_labels
from briefs.services import traces as services_traces
from briefs.volume import fleets_words
from catalog import access as catalog_access
from core.errors import DomainError
from core.forms import apply_domain_error, saved
from core.roles import Role, has_role
from engine.memory.spec import DEFAULT_HEADROOM_MARGIN_PCT

read_required = access.read_required
write_required = access.write_required


@read_required
def brief_list(request: AuthedRequest) -> HttpResponse:
    all_versions = request.GET.get("all_versions") == "1"
    workload_class = request.GET.get("workload_class") or None
    briefs = selectors_briefs.briefs_list(
        request.user, current_only=not all_versions, workload_class=workload_class
    )
    context = {
        "briefs": briefs,
        "all_versions": all_versions,
        "workload_class": workload_class,
        "classes": WorkloadClass.choices,
        "can_write": has_role(request.user, *access.BRIEF_WRITERS),
    }
    return render(request, "briefs/brief_list.html", context)


@write_required
def brief_create(request: AuthedRequest) -> HttpResponse:
    form = BriefForm(request.POST or None)
    create = services_briefs.brief_create
    if brief := saved(request, form, lambda data: create(**_brief_input(request, form))):
        messages.success(request, f"Brief “{brief.title}” saved as version 1.")
        return redirect(brief)
    context = {"form": form, "fieldsets": form.fieldsets(), "mode": "create"}
    return render(request, "briefs/brief_form.html", context, status=_status(form))


@read_required
def brief_detail(request: AuthedRequest, pk: int) -> HttpResponse:
    brief = selectors_briefs.brief_get(request.user, pk)
    return render(request, "briefs/brief_detail.html", _detail_context(request, brief))


def _detail_context(
    request: AuthedRequest, brief: WorkloadBrief, trace_form: TrafficTraceForm | None = None
) -> dict[str, Any]:
    rows = selectors_briefs.brief_fit_rows(brief)
    short = selectors_briefs.shortlist(rows)
    training = mode_for(brief) != "inference"
    context = {
        "brief": brief,
        "missing": missing_labels(brief),
        "groups": _detail_groups(brief),
        "versions": selectors_briefs.brief_versions(brief),
        "rows": rows,
        "fit_context_tokens": _display(context_tokens_for(brief)),
        "fit_context_source": context_source_for(brief),
        "fit_mode": mode_for(brief),
        "fit_margin_pct": DEFAULT_HEADROOM_MARGIN_PCT,
        "assumptions": assumption_rows(
            next((r.result.assumptions for r in rows if r.result), None)
        ),
        "fig_breakdown": charts_briefs.memory_breakdown_figure(
            short, title=f"Memory per GPU at the brief's context ({context_source_for(brief)})"
        )
        if short
        else None,
        "fig_curve": charts_briefs.concurrency_curve_figure(short, training=training)
        if short
        else None,
        "can_revise": has_role(request.user, *access.BRIEF_WRITERS)
        and not hasattr(brief, "superseded_by"),
        # What next from a brief (the comparison creators are the lead and the admin).
        "can_send_rfq": has_role(request.user, *catalog_access.CATALOG_WRITERS),
        "can_compare": has_role(request.user, Role.PROCUREMENT_LEAD, Role.ADMIN),
    }
    context["volume"], fleets = services_briefs.brief_volume(brief)
    context["fleet_words"] = fleets_words(fleets)
    context.update(_trace_context(request, brief, trace_form))
    return context


def _trace_context(
    request: AuthedRequest, brief: WorkloadBrief, form: TrafficTraceForm | None = None
) -> dict[str, Any]:
    traces = selectors_briefs.traces_of(brief)
    ready = next((t for t in traces if t.status == TrafficTrace.Status.READY), None)
    can_upload = has_role(request.user, *access.TRACE_UPLOADERS)
    return {
        "traces": traces,
        "trace_ready": ready,
        "trace_form": form or (TrafficTraceForm() if can_upload else None),
        "fig_arrivals": charts_briefs.arrivals_figure(
            ready.summary.get("requests_per_minute", []),
            title=f"Requests a minute in {ready.original_name}",
        )
        if ready
        else None,
    }


@access.trace_upload_required
def trace_upload(request: AuthedRequest, pk: int) -> HttpResponse:
    brief = selectors_briefs.brief_get(request.user, pk)
    form = TrafficTraceForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            trace = services_traces.traffic_trace_upload(
                brief=brief,
                upload=form.cleaned_data["file"],
                window=form.cleaned_data["window"],
                acting_user=request.user,
            )
        except DomainError as exc:
            apply_domain_error(form, exc)
        else:
            messages.success(
                request, f"“{trace.original_name}” is uploaded; a worker reads it now."
            )
            return redirect(f"{brief.get_absolute_url()}#traffic")
    if request.method != "POST":
        return redirect(f"{brief.get_absolute_url()}#traffic")
    context = _detail_context(request, brief, form)
    return render(request, "briefs/brief_detail.html", context, status=400)


@write_required
def brief_revise(request: AuthedRequest, pk: int) -> HttpResponse:
    brief = selectors_briefs.brief_get(request.user, pk)
    latest = getattr(brief, "superseded_by", None)
    if latest is not None:
        messages.info(request, f"Version {brief.version} has been revised; showing the latest.")
        return redirect("briefs:brief-revise", pk=selectors_briefs.brief_versions(brief)[-1].pk)
    form = BriefForm(request.POST or None, initial=brief_initial(brief))
    revise = services_briefs.brief_revise
    if new := saved(request, form, lambda _: revise(brief=brief, **_brief_input(request, form))):
        messages.success(request, f"Saved version {new.version}; version {brief.version} is kept.")
        return redirect(new)
    context = {"form": form, "fieldsets": form.fieldsets(), "mode": "revise", "brief": brief}
    return render(request, "briefs/brief_form.html", context, status=_status(form))


@require_POST
@write_required
def volume_check(request: AuthedRequest) -> HttpResponse:
    """The volume echo and the volume guard's verdict for the brief form as typed (htmx,
    U11): the same judgement saving makes, before saving. Fields not valid yet are left out."""
    form = BriefForm(request.POST)
    form.is_valid()  # only to read the fields that are already valid
    values = dict(form.cleaned_data)
    echo, fleets, verdict = services_briefs.volume_check(values)
    context = {
        "echo": echo,
        "fleet_words": fleets_words(fleets),
        "verdict": verdict,
        "confirm_shown": bool(request.POST.get("volume_confirm_shown")),
        "confirmed": bool(request.POST.get("confirm_volume")),
    }
    return render(request, "briefs/_volume_check.html", context)


def memory_fit(request: AuthedRequest) -> HttpResponse:
    models, accelerators = selectors_briefs.calculator_choices(request.user)
    bound = request.POST if request.method == "POST" else (request.GET or None)
    form = MemoryFitForm(bound, models=models, accelerators=accelerators)
    result = None
    if bound is not None and form.is_valid():
        try:
            result = services_briefs.memory_fit_calculate(
                data=form.to_data(), acting_user=request.user
            )
        except DomainError as exc:
            apply_domain_error(form, exc)
    context = {
        "form": form,
        "result": result,
        "breakdown": _breakdown_rows(result),
        "assumptions": assumption_rows(result.get("assumptions") if result else None),
        "fit_margin_pct": DEFAULT_HEADROOM_MARGIN_PCT,
    }
    return render(request, "briefs/memory_fit.html", context, status=_status(form))


# --- small helpers for the templates ------------------------------------------------------


def _brief_input(request: AuthedRequest, form: BriefForm) -> dict[str, Any]:
    """What the brief form gives the create and revise services."""
    confirmed = bool(form.cleaned_data.get("confirm_volume"))
    return {"acting_user": request.user, "data": form.to_data(), "volume_confirmed": confirmed}


def _status(form: Any) -> int:
    return 400 if form.is_bound and form.errors else 200


def _detail_groups(brief: WorkloadBrief) -> list[dict[str, Any]]:
    """The fieldsets that matter for the brief's class, with display values."""
    out = []
    for group in groups_for(brief.workload_class) if brief.workload_class else GROUPS:
        items = []
        for name in group.fields:
            value = getattr(brief, name, None)
            display = getattr(brief, f"get_{name}_display", None)
            if callable(display):
                value = display()
            if name == "allowed_regions":
                value = ", ".join(brief.allowed_regions or [])
            items.append({"name": name, "label": field_label(name), "value": _display(value)})
        out.append({"title": group.title, "items": items})
    return out


def _display(value: Any) -> str | None:
    """A readable value: yes/no, thousands separators, no trailing zeros; None when empty."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Decimal):
        return format(value.normalize(), ",f")
    if isinstance(value, int | float):
        if float(value).is_integer():
            return f"{int(value):,}"
        return f"{value:,.6g}" if abs(value) >= 1000 else f"{value:g}"
    return str(value)


def _breakdown_rows(result: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not result:
        return []
    return [{"part": part, "gb": gb} for part, gb in result.get("breakdown", {}).items() if gb]
