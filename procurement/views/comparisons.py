"""Comparison pages: list, new, detail (with live progress), retry and recompute."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.cache import cache
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_http_methods, require_POST

from accounts.http import AuthedRequest
from briefs import access as briefs_access
from catalog import selectors as catalog_selectors
from core import submissions
from core.errors import DomainError
from core.forms import apply_domain_error
from core.listing import Column, headers_for_query, list_page, paginate
from core.roles import STAFF_ROLES, has_role, role_required
from procurement import access, charts, point_charts
from procurement.charts_plan import plan_figure, plan_noun, plan_title
from procurement.forms.comparisons import (
    CandidateFilterForm,
    ComparisonCreateForm,
    ComparisonFilterForm,
)
from procurement.selectors import comparisons as selectors_comparisons
from procurement.selectors.reviews.rows import reviews_of
from procurement.selectors.trace import trace_sizing_of
from procurement.services import comparisons as services_comparisons
from procurement.views.price_notices import notices_of

PAGE_SIZE = 25
LIST_COLUMNS = (
    Column("title", "Comparison", "title"),
    Column("brief", "Brief", ("brief__title", "brief__version")),
    Column("status", "Status", "status"),
    Column("candidates", "Candidates", "candidate_count", numeric=True),
    Column("recommended", "Recommended", "recommended_label"),
    Column("created", "Created", "created_at"),
)


@role_required(*STAFF_ROLES)
def comparison_list(request: AuthedRequest) -> HttpResponse:
    form = ComparisonFilterForm(request.GET or None)
    filters = form.cleaned_data if form.is_valid() else {}
    qs = selectors_comparisons.comparisons_list(request.user, filters)
    listing = list_page(request, qs, LIST_COLUMNS, default_sort="-created", per_page=PAGE_SIZE)
    return render(
        request,
        "procurement/comparison_list.html",
        {
            "form": form,
            "listing": listing,
            "page": listing.page,
            "filters": filters,
            "filtered": any(v not in (None, "", [], False) for v in filters.values()),
            "can_create": has_role(request.user, *access.COMPARISON_CREATORS),
        },
    )


def _ints(values: Any) -> set[int]:
    """The ids a re-shown form had ticked (anything else is no id: never ticked)."""
    return {int(value) for value in values or [] if str(value).isdigit()}


def _filters(
    request: AuthedRequest, brief: Any, choices: services_comparisons.FilterChoices
) -> tuple[CandidateFilterForm, dict[str, list[str]]]:
    """The page's filter form and the filters the rows are listed with: the lead's (a GET
    with `filtered`, or the hidden fields of a post), else the service's first ones."""
    source = request.POST if request.method == "POST" else request.GET
    chosen = request.method == "POST" or source.get("filtered")
    first = services_comparisons.first_filters(brief, choices)
    form = CandidateFilterForm(
        source if chosen else None,
        filter_choices=choices,
        initial={"brief": brief.pk, "filtered": True, **first},
    )
    if not chosen:
        return form, first
    return form, form.filters() if form.is_valid() else {}


def _new_context(
    request: AuthedRequest,
    brief: Any,
    form: ComparisonCreateForm,
    filter_form: CandidateFilterForm,
    rows: services_comparisons.CandidateRows,
) -> dict[str, Any]:
    overrides = [form[name] for name in form.override_field_names()]
    bound = form.is_bound
    return {
        "brief": brief,
        "form": form,
        "filter_form": filter_form,
        "submission": submissions.token_for(request),
        "groups": rows.groups,
        "shown_count": rows.count,
        "outside_regions": rows.outside_regions,
        "by_filter": rows.by_filter,
        "by_default": rows.by_default,
        "list_limit": services_comparisons.LIST_LIMIT,
        "excluded_answers": [
            row
            for rfq in brief.rfqs.all()
            for row in catalog_selectors.rfq_answers_excluded(
                rfq, catalog_selectors.quotes_for_rfq(request.user, rfq)
            )
        ],
        "selected_quotes": _ints(form["quotes"].value()) if bound else rows.preselected_quotes,
        "selected_routes": (
            _ints(form["api_routes"].value()) if bound else rows.preselected_routes
        ),
        "override_fields": overrides,
        "override_errors": any(field.errors for field in overrides),
    }


@role_required(*access.COMPARISON_CREATORS)
@require_http_methods(["GET", "POST"])
def comparison_new(request: AuthedRequest) -> HttpResponse:
    """Step 1: a brief. Step 2 (`?brief=`): filters first (the brief's regions to start
    with), then the candidates they leave, preselected by the service's rule."""
    brief_id = request.POST.get("brief") or request.GET.get("brief")
    brief = briefs_access.access_brief(request.user, brief_id) if brief_id else None
    if brief is None:
        briefs = selectors_comparisons.complete_briefs(request.user)
        return render(request, "procurement/comparison_new.html", {"briefs": briefs})
    choices = services_comparisons.filter_choices(brief)
    filter_form, filters = _filters(request, brief, choices)
    rows = services_comparisons.candidate_rows(brief, filters)
    # The ids a post may send: of those it sent, the ones offered (never every current quote,
    # 100,000 at ten times today's size, on each view).
    offered_quotes, offered_routes = selectors_comparisons.offered_candidate_ids(
        brief, among=(request.POST.getlist("quotes"), request.POST.getlist("api_routes"))
    )
    form = ComparisonCreateForm(
        request.POST or None,
        quote_ids=offered_quotes,
        route_ids=offered_routes,
        filter_choices=choices,
        initial={"brief": brief.pk, "by_filters": bool(rows.by_filter), **filters},
    )
    if request.method == "POST" and form.is_valid():
        try:
            # A double click or a replay of this form makes one comparison, not two.
            with submissions.once(request) as slot:
                if slot.done_url:
                    return redirect(slot.done_url)
                by_filters = form.cleaned_data["by_filters"]
                queued = services_comparisons.comparison_create(
                    acting_user=request.user,
                    brief=brief,
                    quote_ids=None if by_filters else form.cleaned_data["quotes"],
                    api_route_ids=None if by_filters else form.cleaned_data["api_routes"],
                    assumptions=form.assumptions(),
                    seed=form.cleaned_data["seed"],
                    title=form.cleaned_data["title"],
                    candidate_filters=form.candidate_filters(),
                )
                slot.made(queued.comparison.get_absolute_url())
        except DomainError as exc:
            apply_domain_error(form, exc, summary=exc.code == "brief_incomplete")
        else:
            _enqueue_message(request, queued)
            return redirect(queued.comparison.get_absolute_url())
    status = 400 if request.method == "POST" else 200  # a re-shown form: the input was refused
    return render(
        request,
        "procurement/comparison_new.html",
        _new_context(request, brief, form, filter_form, rows),
        status=status,
    )


def _enqueue_message(request: AuthedRequest, queued: services_comparisons.Queued) -> None:
    if queued.queue_unavailable:
        messages.warning(request, services_comparisons.QUEUE_UNAVAILABLE_MESSAGE)
    else:
        messages.success(request, "Comparison queued; the results appear here when ready.")


@role_required(*STAFF_ROLES)
def comparison_detail(request: AuthedRequest, pk: int) -> HttpResponse:
    comparison = selectors_comparisons.comparison_get(request.user, pk)
    context: dict[str, Any] = {
        "comparison": comparison,
        "can_manage": has_role(request.user, *access.COMPARISON_CREATORS),
    }
    if getattr(request, "htmx", False) and request.GET.get("partial") == "status":
        response = render(request, "procurement/comparison_detail.html#status", context)
        if comparison.is_finished:
            response.status_code = 286  # htmx: stop polling
            response["HX-Refresh"] = "true"  # and reload the page with the results
        return response
    if comparison.is_finished:
        sort = selectors_comparisons.results_sort(request.GET.get("sort", ""))
        context["results_html"] = _results_html(comparison, _page_number(request), sort)
        context["reviews"] = reviews_of(comparison)  # The reviewers' words reach the lead
        if getattr(comparison, "has_price_changes", False):
            context["price_changes"] = notices_of(request.user, comparison)
    return render(request, "procurement/comparison_detail.html", context)


RESULTS_CACHE_SECONDS = 24 * 3600
RESULTS_PAGE_SIZE = 50  # candidate rows per results page, eligible first


def _page_number(request: AuthedRequest) -> int:
    raw = request.GET.get("page", "1")
    return int(raw) if raw.isdigit() and 0 < int(raw) < 10**6 else 1


def _results_html(
    comparison: Any, page_number: int = 1, sort: str = selectors_comparisons.RESULTS_DEFAULT_SORT
) -> str:
    """One page of the results section (summary, table, charts) of a finished comparison.

    A finished comparison never changes (a recompute is a new revision, a retry a new
    `finished_at`), and nothing in the section depends on the viewer, so each page is
    rendered once and then served from the cache. "" if there are no rows.
    The rows are paginated (eligible first), counted in the database, and the frozen
    snapshot is never loaded whole: the section shows only its FX rates.
    `sort` is already valid (results_sort), so the cache holds at most one entry per
    header direction and page; the links carry only the sort, never the viewer's query.
    """
    finished = comparison.finished_at.timestamp() if comparison.finished_at else 0
    key = f"comparison-results:{comparison.pk}:{comparison.status}:{finished}:{page_number}:{sort}"
    html: str | None = cache.get(key)
    if html is None:
        html = ""
        total, eligible = selectors_comparisons.candidate_counts(comparison)
        if total:
            page = paginate(range(total), page_number, per_page=RESULTS_PAGE_SIZE)
            offset = (page.number - 1) * RESULTS_PAGE_SIZE
            rows = selectors_comparisons.comparison_rows(
                comparison, offset, RESULTS_PAGE_SIZE, sort
            )
            # The charts show the cheapest rows whatever order the table is in.
            ranked_first_page = offset == 0 and sort == selectors_comparisons.RESULTS_DEFAULT_SORT
            top = (
                rows
                if ranked_first_page
                else selectors_comparisons.comparison_rows(comparison, 0, RESULTS_PAGE_SIZE)
            )
            recommended = selectors_comparisons.recommended_row(comparison)
            context = selectors_comparisons.results_context(
                comparison, rows, recommended=recommended, counts=(total, eligible)
            )
            context["comparison"] = comparison
            context["page"] = page
            context["sort_headers"] = {
                h.key: h for h in headers_for_query("", selectors_comparisons.RESULT_COLUMNS, sort)
            }
            is_default = sort == selectors_comparisons.RESULTS_DEFAULT_SORT
            context["page_query"] = "" if is_default else f"sort={sort}"
            context["figures"] = charts.comparison_figures(comparison, top)
            context["plan_chart"] = plan_figure(comparison.result or {})
            context["trace_sizing"] = trace_sizing_of(comparison)
            stored_plan = (comparison.result or {}).get("plan") or {}
            context["mixed_plan_title"] = plan_title(stored_plan)
            context["plan_noun"] = plan_noun(stored_plan)
            unit = (comparison.result or {}).get("unit_label", "")
            across = point_charts.across_figure(top, unit, recommended)
            if across is not None:
                context["figures"]["fig-points"] = across
            slo = point_charts.service_level_of(comparison.brief)
            context["point_sections"] = point_charts.point_sections(rows, unit, slo)
            if "snapshot" in comparison.get_deferred_fields():
                # Only what the section shows of the snapshot (never saved: a read-only page).
                comparison.snapshot = comparison.shown_snapshot_facts()
            html = render_to_string("procurement/comparison_detail.html#results", context)
        cache.set(key, html, RESULTS_CACHE_SECONDS)
    return html


def _requeue(service: str) -> Callable[..., HttpResponseBase]:
    """Retry (the same comparison) or recompute (a new revision): queued, then its page."""

    @require_POST
    @role_required(*access.COMPARISON_CREATORS)
    def view(request: AuthedRequest, pk: int) -> HttpResponse:
        comparison = access.access_comparison(request.user, pk)
        try:
            queue = getattr(services_comparisons, service)  # read per call: patchable
            queued = queue(acting_user=request.user, comparison=comparison)
        except DomainError as exc:
            messages.error(request, exc.message)
            return redirect(comparison.get_absolute_url())
        _enqueue_message(request, queued)
        return redirect(queued.comparison.get_absolute_url())

    return view


comparison_retry = _requeue("comparison_retry")
comparison_recompute = _requeue("comparison_recompute")
