"""Reads for comparisons: lists, one comparison with its rows, candidate choices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db.models import Count, F, OuterRef, QuerySet, Subquery

from briefs import access as briefs_access
from briefs.models import WorkloadBrief
from catalog.models import CapacityModel
from core import workloads
from core.roles import get_or_404
from procurement import access
from procurement.models import CandidateResult, Comparison

if TYPE_CHECKING:
    from accounts.models import User

TRAINING_OR_MEDIA = workloads.TRAINING | workloads.MEDIA


def default_quotes() -> QuerySet[Any]:
    """Every current quote version (not superseded, not withdrawn)."""
    from catalog.models import Quote

    return Quote.objects.current().select_related("provider", "accelerator")


def default_api_routes(brief: WorkloadBrief) -> QuerySet[Any]:
    """Active API routes that could serve the brief: its model (or an unstated one)."""
    from catalog.models import ModelApiRoute

    qs = ModelApiRoute.objects.filter(is_active=True).select_related("provider", "model_profile")
    if brief.workload_class in TRAINING_OR_MEDIA:
        return qs.none()
    if brief.model_id is not None:
        qs = qs.filter(model_profile_id__in=[brief.model_id]) | qs.filter(
            model_profile__isnull=True
        )
    return qs


def comparisons_list(user: User, filters: dict[str, Any] | None = None) -> QuerySet[Any]:
    """Comparisons the user may see, newest first, with row counts and the recommendation."""
    filters = filters or {}
    recommended = CandidateResult.objects.filter(
        comparison_id=OuterRef("pk"), key=OuterRef("recommended_key")
    ).values("label")[:1]
    qs = (
        access.comparisons_for(user)
        .annotate(candidate_count=Count("candidates"), recommended_label=Subquery(recommended))
        .order_by("-created_at", "-id")
    )
    if filters.get("status"):
        qs = qs.filter(status=filters["status"])
    if filters.get("brief"):
        qs = qs.filter(brief_id=filters["brief"])
    return qs


def comparison_rows(comparison: Comparison) -> list[CandidateResult]:
    """Every row, ranked first (by unit cost), then the ineligible ones."""
    return list(
        CandidateResult.objects.filter(comparison=comparison).order_by(
            F("rank").asc(nulls_last=True), F("unit_cost_usd").asc(nulls_last=True), "key"
        )
    )


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


def candidate_choices(brief: WorkloadBrief) -> list[ProviderGroup]:
    """The default candidates of a brief, grouped by provider, for the new-comparison form."""
    groups: dict[str, ProviderGroup] = {}
    for quote in default_quotes().order_by("provider__name", "accelerator__name", "pk"):
        name = quote.provider.name
        groups.setdefault(name, ProviderGroup(name, [], [])).quotes.append(quote)
    for route in default_api_routes(brief).order_by("provider__name", "model_name", "pk"):
        name = route.provider.name
        groups.setdefault(name, ProviderGroup(name, [], [])).routes.append(route)
    return [groups[k] for k in sorted(groups)]


def default_candidate_ids(brief: WorkloadBrief) -> tuple[list[int], list[int]]:
    quotes = list(default_quotes().order_by("pk").values_list("pk", flat=True))
    routes = list(default_api_routes(brief).order_by("pk").values_list("pk", flat=True))
    return quotes, routes


def comparison_get(user: User, pk: Any) -> Comparison:
    """One comparison the user may see (404 otherwise), with its revision links loaded."""
    qs = access.comparisons_for(user).select_related("brief__model", "supersedes", "superseded_by")
    return get_or_404(qs, pk=pk)


LATENCY_CODES = {"LATENCY_TARGET_UNMET": "misses", "LATENCY_UNMEASURED": "unmeasured"}


def _latency(row: CandidateResult, has_targets: bool) -> str:
    codes = {w.get("code") for w in row.warnings or []}
    if "LATENCY_TARGET_UNMET" in codes:
        return "misses"
    if not has_targets:
        return "no target"
    if "LATENCY_UNMEASURED" in codes:  # D11: never "meets" beside LATENCY_UNMEASURED
        return "unmeasured"
    source = (row.performance or {}).get("latency_source")
    if source is None and row.kind != "api":
        return "unknown"
    return "meets"


def results_context(comparison: Comparison, rows: list[CandidateResult]) -> dict[str, Any]:
    """What the results page shows besides the rows: the recommendation and counts."""
    brief = comparison.brief
    has_targets = any(getattr(brief, f) for f in ("ttft_p95_ms", "itl_p95_ms", "e2e_p99_ms"))
    labels = dict(CapacityModel.choices) | {"api": "Model API"}
    for row in rows:
        # Page-only attributes the results template reads (not model fields).
        row.latency_fit = _latency(row, has_targets)  # type: ignore[attr-defined]
        row.capacity_label = labels.get(row.capacity_model, row.capacity_model)  # type: ignore[attr-defined]
        row.is_recommended = row.key == comparison.recommended_key  # type: ignore[attr-defined]
    recommended = next((r for r in rows if r.key == comparison.recommended_key), None)
    result = comparison.result or {}
    return {
        "rows": rows,
        "recommended": recommended,
        "eligible_count": sum(1 for r in rows if r.eligible),
        "ineligible_count": sum(1 for r in rows if not r.eligible),
        "unit_label": result.get("unit_label", ""),
        "hybrid": result.get("hybrid"),
        "notes": result.get("notes", []),
        "snapshot_as_of": (comparison.snapshot or {}).get("as_of"),
    }
