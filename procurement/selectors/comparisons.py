"""Reads for comparisons: lists, one comparison with its rows, candidate choices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db.models import Count, Exists, F, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from briefs import access as briefs_access
from briefs.models import WorkloadBrief
from catalog.models import CapacityModel, ModelApiRoute, Quote
from catalog.regions import region_allowed
from core import workloads
from core.listing import Column, valid_sort
from core.roles import get_or_404
from procurement import access
from procurement.models import CandidateResult, Comparison, PriceChange
from procurement.selectors.frozen_inputs import applied_words, overrides_words

if TYPE_CHECKING:
    from accounts.models import User

TRAINING_OR_MEDIA = workloads.TRAINING | workloads.MEDIA


def default_quotes() -> QuerySet[Any]:
    """Every current quote version (not superseded, not withdrawn)."""

    return Quote.objects.current().select_related("provider", "accelerator", "rfq")


def default_api_routes(brief: WorkloadBrief) -> QuerySet[Any]:
    """Active API routes that could serve the brief: its model (or an unstated one)."""

    qs = ModelApiRoute.objects.filter(is_active=True).select_related("provider", "model_profile")
    if brief.workload_class in TRAINING_OR_MEDIA:
        return qs.none()
    if brief.model_id is not None:
        qs = qs.filter(model_profile_id__in=[brief.model_id]) | qs.filter(
            model_profile__isnull=True
        )
    return qs


# Never loaded where they are not shown: at 20,000 candidates the snapshot is ~30 MB.
LARGE_FIELDS = ("snapshot", "result", "chosen")  # chosen: up to 5,000 ids a side


def _candidate_count() -> Coalesce:
    """The stored count; PostgreSQL evaluates COALESCE's arguments only until one is not
    null, so the counting subquery runs only for a comparison without one (L10)."""
    counted = (
        CandidateResult.objects.filter(comparison_id=OuterRef("pk"))
        .order_by()
        .values("comparison_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(F("stored_candidate_count"), Subquery(counted, output_field=IntegerField()), 0)


def _recommended_label() -> Subquery:
    return Subquery(
        CandidateResult.objects.filter(
            comparison_id=OuterRef("pk"), key=OuterRef("recommended_key")
        ).values("label")[:1]
    )


def comparisons_list(user: User, filters: dict[str, Any] | None = None) -> QuerySet[Any]:
    """Comparisons the user may see, newest first, with row counts and the recommendation.

    The count is a correlated subquery (no GROUP BY over every selected column) and the
    snapshot and result JSON are left out.
    """
    filters = filters or {}
    qs = (
        access.comparisons_for(user)
        .defer(*LARGE_FIELDS)
        .annotate(candidate_count=_candidate_count(), recommended_label=_recommended_label())
        .order_by("-created_at", "-id")
    )
    if filters.get("status"):
        qs = qs.filter(status=filters["status"])
    if filters.get("brief"):
        qs = qs.filter(brief_id=filters["brief"])
    return qs


def comparison_for_api(user: Any, pk: Any) -> Comparison:
    """One comparison for rendering its API body (404 otherwise): with its counts and the
    result (the body shows it), never the snapshot."""
    qs = (
        access.comparisons_for(user)
        .defer("snapshot", "chosen")
        .annotate(candidate_count=_candidate_count(), recommended_label=_recommended_label())
    )
    return get_or_404(qs, pk=pk)


def comparison_state(user: Any, pk: Any, fields: tuple[str, ...]) -> Comparison:
    """One comparison the user may see (404 otherwise), with only `fields` loaded, no joins."""
    return get_or_404(access.comparisons_for(user).select_related(None).only(*fields), pk=pk)


# The results table's sortable headers. Every order keeps eligible rows first, so the
# ineligible ones still collapse together at the end, and breaks ties by rank: the sort runs in
# the database with LIMIT, never over a 20,000-row list in Python.
RESULT_COLUMNS = (
    Column("rank", "Rank", "rank", numeric=True),
    Column("unit_cost", "Unit cost", "unit_cost_usd", numeric=True),
    Column("hourly", "Per GPU-hour", "hourly_price_usd", numeric=True),
    Column("prob_cheapest", "P(cheapest)", "prob_cheapest", numeric=True),
    Column("provider", "Provider", "provider_name"),
)
RESULTS_DEFAULT_SORT = "rank"


def results_sort(asked: str) -> str:
    """The results table's sort from the URL; an unknown key falls back to rank."""
    return valid_sort(RESULT_COLUMNS, asked, RESULTS_DEFAULT_SORT)


def _ranked(comparison: Comparison, sort: str = RESULTS_DEFAULT_SORT) -> QuerySet[CandidateResult]:
    sort = results_sort(sort)
    column = next(c for c in RESULT_COLUMNS if c.key == sort.lstrip("-"))
    return CandidateResult.objects.filter(comparison=comparison).order_by(
        F("eligible").desc(),
        *column.ordering(descending=sort.startswith("-")),
        F("rank").asc(nulls_last=True),
        F("unit_cost_usd").asc(nulls_last=True),
        "key",
    )


def comparison_rows(
    comparison: Comparison,
    offset: int = 0,
    limit: int | None = None,
    sort: str = RESULTS_DEFAULT_SORT,
) -> list[CandidateResult]:
    """The rows, eligible first (by rank, then unit cost, unless `sort` names a column of
    RESULT_COLUMNS, ``-key`` descending), then the ineligible ones in the same order.

    `offset`/`limit` take one page; without a limit, every row from `offset`.
    """
    qs = _ranked(comparison, sort)
    return list(qs[offset : offset + limit] if limit is not None else qs[offset:])


def recommended_row(comparison: Comparison) -> CandidateResult | None:
    if not comparison.recommended_key:
        return None
    return CandidateResult.objects.filter(
        comparison=comparison, key=comparison.recommended_key
    ).first()


def candidate_counts(comparison: Comparison) -> tuple[int, int]:
    """(every row, eligible rows) of a comparison, counted in the database."""
    qs = CandidateResult.objects.filter(comparison=comparison)
    return qs.count(), qs.filter(eligible=True).count()


def complete_briefs(user: User) -> list[WorkloadBrief]:
    """Briefs the user may compare: complete, newest version first."""
    briefs = (
        briefs_access.briefs_for(user).filter(superseded_by__isnull=True).order_by("-created_at")
    )
    return [b for b in briefs[:200] if b.is_complete]


@dataclass
class ProviderGroup:
    provider: str
    quotes: list[Any]
    routes: list[Any]


def quotes_in_brief_regions(brief: WorkloadBrief, qs: QuerySet[Any]) -> QuerySet[Any]:
    """The quotes whose region lies inside the brief's allowed regions (geography,
    `catalog.regions`; a quote stating no region is not shown inside); all of them when the
    brief allows every region. Each distinct region is judged once."""
    allowed = [a for a in brief.allowed_regions or [] if a and a.strip()]
    if not allowed:
        return qs
    regions = set(qs.order_by().values_list("region", flat=True).distinct())
    return qs.filter(region__in=[r for r in regions if r and region_allowed(r, allowed)])


def default_candidate_ids(brief: WorkloadBrief) -> tuple[list[int], list[int]]:
    """The default selection: every current quote inside the brief's allowed regions and
    every active API route that could serve the brief (a quote outside them could only be
    an ineligible row). The page preselects it; the API takes it when given no ids."""
    in_regions = quotes_in_brief_regions(brief, default_quotes())
    quotes = list(in_regions.order_by("pk").values_list("pk", flat=True))
    routes = list(default_api_routes(brief).order_by("pk").values_list("pk", flat=True))
    return quotes, routes


def offered_candidate_ids(
    brief: WorkloadBrief, among: tuple[list[str], list[str]] = ([], [])
) -> tuple[list[int], list[int]]:
    """Of the quote and route ids `among` (a post's), those the new-comparison form may be
    sent: current quotes (inside the brief's regions or not) and active API routes that
    could serve the brief."""
    quote_ids = [int(i) for i in among[0] if i.isdigit()]
    route_ids = [int(i) for i in among[1] if i.isdigit()]
    quotes = default_quotes().filter(pk__in=quote_ids).order_by("pk") if quote_ids else None
    routes = default_api_routes(brief).filter(pk__in=route_ids) if route_ids else None
    return (
        list(quotes.values_list("pk", flat=True)) if quotes is not None else [],
        list(routes.order_by("pk").values_list("pk", flat=True)) if routes is not None else [],
    )


def comparison_get(user: User, pk: Any) -> Comparison:
    """One comparison the user may see (404 otherwise), with its revision links loaded and
    `has_price_changes` (whether a price it rests on changed since), read in the same query."""
    qs = (
        access.comparisons_for(user)
        .select_related("brief__model", "supersedes", "superseded_by")
        .annotate(has_price_changes=Exists(PriceChange.objects.filter(comparison=OuterRef("pk"))))
        .defer(
            *LARGE_FIELDS,
            *(f"{rel}__{name}" for rel in ("supersedes", "superseded_by") for name in LARGE_FIELDS),
        )
    )
    return get_or_404(qs, pk=pk)


def recommendation_notes_of(comparison: Comparison) -> list[str]:
    """What the recommendation says in words (ties, proxy against measured, closest latency,
    substitution): the engine's `recommendation_notes`, empty before engine 1.x stored them."""
    return [str(note) for note in (comparison.result or {}).get("recommendation_notes") or []]


def _latency(row: CandidateResult, has_targets: bool) -> str:
    codes = {w.get("code") for w in row.warnings or []}
    if "LATENCY_TARGET_UNMET" in codes:
        return "misses"
    if not has_targets:
        return "no target"
    if "LATENCY_UNMEASURED" in codes:  # Never "meets" beside LATENCY_UNMEASURED
        return "unmeasured"
    source = (row.performance or {}).get("latency_source")
    if source is None and row.kind != "api":
        return "unknown"
    return "meets"


def results_context(
    comparison: Comparison,
    rows: list[CandidateResult],
    *,
    recommended: CandidateResult | None = None,
    counts: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """What the results page shows besides the rows: the recommendation and counts.

    `rows` may be one page; then give the recommended row and the (all, eligible) counts.
    """
    brief = comparison.brief
    has_targets = any(getattr(brief, f) for f in ("ttft_p95_ms", "itl_p95_ms", "e2e_p99_ms"))
    labels = dict(CapacityModel.choices) | {"api": "Model API"}
    if recommended is None:
        recommended = next((r for r in rows if r.key == comparison.recommended_key), None)
    # Page-only attributes the results template reads (not model fields).
    for row in [*rows, *([recommended] if recommended is not None else [])]:
        row.latency_fit = _latency(row, has_targets)  # type: ignore[attr-defined]
        row.capacity_label = labels.get(row.capacity_model, row.capacity_model)  # type: ignore[attr-defined]
        row.is_recommended = row.key == comparison.recommended_key  # type: ignore[attr-defined]
    total, eligible = counts if counts is not None else (len(rows), sum(r.eligible for r in rows))
    result = comparison.result or {}
    as_of = comparison.shown_snapshot_facts().get("as_of")
    return {
        "rows": rows,
        "recommended": recommended,
        "eligible_count": eligible,
        "ineligible_count": total - eligible,
        "candidate_count": total,
        "unit_label": result.get("unit_label", ""),
        "unit_basis": result.get("unit_basis", ""),
        "mixed_plan": result.get("plan"),
        "notes": result.get("notes", []),
        "recommendation_notes": recommendation_notes_of(comparison),
        "snapshot_as_of": as_of,
        "assumptions_applied": applied_words(comparison),
        "overrides": overrides_words(comparison.assumptions),
    }
