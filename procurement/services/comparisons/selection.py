"""Which candidates a new comparison offers and preselects: the service's rule, read by the
new-comparison page and applied by the API alike.

- **Filters** narrow every current offer: regions (prefixes, any case: `eu-west` matches
  `eu-west-2`), capacity models (`api` keeps the model API routes), accelerators and
  providers (slugs), and RFQs (ids: only the quotes answering them; no API route answers an
  RFQ).
- **Preselected** (the default selection): the current quotes inside the brief's allowed
  regions (geography, `catalog.regions`) and the active API routes that could serve it. A
  quote outside them is listed, never ticked: it could only be an ineligible row.
- **The page's first filters** are the brief's: the regions of current quotes inside its
  allowed regions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q, QuerySet

from briefs.models import WorkloadBrief
from catalog.models import CapacityModel, ModelApiRoute, Quote, Rfq
from catalog.regions import region_allowed
from core.errors import DomainError
from procurement.selectors.comparisons import (
    ProviderGroup,
    default_api_routes,
    default_candidate_ids,
    default_quotes,
    quotes_in_brief_regions,
)

FILTER_KEYS = ("regions", "capacity_models", "accelerators", "providers", "rfqs")
#: quotes, and API routes, one comparison takes by id on every surface (API, form)
MAX_IDS = 5000
#: candidates the new-comparison page lists to tick; past it the page shows a sample of
#: SAMPLE and the comparison takes every match by its filters
LIST_LIMIT = 200
SAMPLE = 20


def clean_filters(raw: Mapping[str, Any] | None) -> dict[str, list[str]]:
    """Candidate filters: each a list of words (region prefixes, capacity models, slugs,
    RFQ ids)."""
    out: dict[str, list[str]] = {}
    for key, values in (raw or {}).items():
        if key not in FILTER_KEYS:
            msg = f"Unknown candidate filter {key!r}: use {', '.join(FILTER_KEYS)}."
            raise DomainError(msg, fields={key: [msg]})
        if isinstance(values, str):
            values = values.split(",")
        words = sorted({str(v).strip() for v in values or [] if str(v).strip()})
        if key == "capacity_models":
            allowed = {*CapacityModel.values, "api"}
            if bad := [w for w in words if w not in allowed]:
                msg = f"Unknown capacity model(s): {', '.join(bad)}."
                raise DomainError(msg, fields={key: [msg]})
        if key == "rfqs" and (bad := [w for w in words if not w.isdigit()]):
            msg = f"RFQs are given by their ids (whole numbers), not {', '.join(bad)}."
            raise DomainError(msg, fields={key: [msg]})
        if words:
            out[key] = words
    return out


def filter_quotes(qs: QuerySet[Any], filters: Mapping[str, list[str]]) -> QuerySet[Any]:
    """Narrow the quotes (module docstring)."""
    if regions := filters.get("regions"):
        match = Q()
        for region in regions:
            match |= Q(region__istartswith=region)
        qs = qs.filter(match)
    if models := filters.get("capacity_models"):
        qs = qs.filter(capacity_model__in=models)
    if accelerators := filters.get("accelerators"):
        qs = qs.filter(accelerator__slug__in=accelerators)
    if providers := filters.get("providers"):
        qs = qs.filter(provider__slug__in=providers)
    if rfqs := filters.get("rfqs"):
        qs = qs.filter(rfq_id__in=[int(r) for r in rfqs])
    return qs


def filter_routes(qs: QuerySet[Any], filters: Mapping[str, list[str]]) -> QuerySet[Any]:
    """API routes pass a capacity filter only with "api" in it, and no accelerator or RFQ
    filter (a route is a price list, not an answer)."""
    if "accelerators" in filters or "rfqs" in filters:
        return qs.none()
    if "capacity_models" in filters and "api" not in filters["capacity_models"]:
        return qs.none()
    if providers := filters.get("providers"):
        qs = qs.filter(provider__slug__in=providers)
    return qs


def brief_rfqs(brief: WorkloadBrief) -> list[Rfq]:
    """The RFQs sent for this brief or an earlier version of it, newest first."""
    versions: list[int] = []
    seen: WorkloadBrief | None = brief
    while seen is not None and len(versions) < 50:
        versions.append(seen.pk)
        seen = seen.supersedes
    return list(Rfq.objects.filter(brief_id__in=versions).order_by("-created_at", "-pk"))


@dataclass(frozen=True)
class FilterChoices:
    """The values each filter of the page offers: (value, label) pairs."""

    regions: list[tuple[str, str]]
    inside: frozenset[str]  # the regions inside the brief's allowed regions
    capacity_models: list[tuple[str, str]]
    accelerators: list[tuple[str, str]]
    providers: list[tuple[str, str]]
    rfqs: list[tuple[str, str]]


def filter_choices(brief: WorkloadBrief) -> FilterChoices:
    """What the current offers hold: their regions, capacity models, accelerators and
    providers, and the brief's RFQs with their answer counts."""
    quotes = default_quotes()
    routes = default_api_routes(brief)
    allowed = list(brief.allowed_regions or [])
    regions = sorted({r for r in quotes.values_list("region", flat=True).distinct() if r})
    inside = frozenset(r for r in regions if allowed and region_allowed(r, allowed))
    offered = set(quotes.values_list("capacity_model", flat=True).distinct())
    capacity = [(value, label) for value, label in CapacityModel.choices if value in offered]
    if routes.exists():
        capacity.append(("api", "Model API"))
    accelerators = sorted(
        set(quotes.values_list("accelerator__slug", "accelerator__name").distinct()),
        key=lambda pair: pair[1].lower(),
    )
    providers = set(quotes.values_list("provider__slug", "provider__name").distinct())
    providers |= set(routes.values_list("provider__slug", "provider__name").distinct())
    answers = _answer_counts(quotes)
    rfqs = [
        (str(rfq.pk), f"RFQ {rfq.pk}: {rfq.title} ({_answers(answers.get(rfq.pk, 0))})")
        for rfq in brief_rfqs(brief)
    ]
    return FilterChoices(
        regions=[(r, r) for r in regions],
        inside=inside,
        capacity_models=capacity,
        accelerators=accelerators,
        providers=sorted(providers, key=lambda pair: pair[1].lower()),
        rfqs=rfqs,
    )


def _answers(count: int) -> str:
    return f"{count} answer{'s' if count != 1 else ''}"


def _answer_counts(quotes: QuerySet[Any]) -> dict[int, int]:
    """RFQ id → its current answers (quotes), counted in the database."""
    rows = (
        quotes.filter(rfq__isnull=False)
        .order_by()
        .values("rfq_id")
        .annotate(n=Count("pk"))
        .values_list("rfq_id", "n")
    )
    return dict(rows)


def first_filters(brief: WorkloadBrief, choices: FilterChoices) -> dict[str, list[str]]:
    """The page's filters before the lead chooses: the brief's regions (module docstring)."""
    return {"regions": sorted(choices.inside)} if choices.inside else {}


def chosen_querysets(
    brief: WorkloadBrief,
    quote_ids: list[int] | None,
    route_ids: list[int] | None,
    filters: Mapping[str, list[str]],
) -> tuple[Any, Any, bool]:
    """(quotes, routes, default?) a comparison takes: both id lists None means every
    candidate that could serve the brief (the default selection), or, with `filters`, every
    current offer they leave; ids take those ids, narrowed by `filters` when given."""
    if quote_ids is None and route_ids is None:
        if not filters:
            quotes = quotes_in_brief_regions(brief, default_quotes())
            return quotes, default_api_routes(brief), True
        quotes = filter_quotes(default_quotes(), filters)
        return quotes, filter_routes(default_api_routes(brief), filters), False
    quotes = filter_quotes(Quote.objects.filter(pk__in=quote_ids or []), filters)
    routes = filter_routes(ModelApiRoute.objects.filter(pk__in=route_ids or []), filters)
    return quotes, routes, False


@dataclass
class CandidateRows:
    """The candidates the filters leave, grouped by provider, and which are preselected."""

    groups: list[ProviderGroup]
    preselected_quotes: set[int] = field(default_factory=set)
    preselected_routes: set[int] = field(default_factory=set)
    outside_regions: set[int] = field(default_factory=set)  # quotes outside the brief's
    # More match than the page lists (L8: 100,000 checkboxes were a 34 MB page that took
    # 35 s, and more than ~995 ticked a blank 400): how many the comparison takes by the
    # filters; `groups` is then a sample, and the form sends the filters, not the ids.
    by_filter: int = 0
    by_default: bool = False  # ... with no filter: the default selection (module docstring)

    @property
    def count(self) -> int:
        return sum(len(g.quotes) + len(g.routes) for g in self.groups)


def _grouped(quotes: list[Any], routes: list[Any]) -> list[ProviderGroup]:
    groups: dict[str, ProviderGroup] = {}
    for quote in quotes:
        name = quote.provider.name
        groups.setdefault(name, ProviderGroup(name, [], [])).quotes.append(quote)
    for route in routes:
        name = route.provider.name
        groups.setdefault(name, ProviderGroup(name, [], [])).routes.append(route)
    return [groups[k] for k in sorted(groups)]


def candidate_rows(brief: WorkloadBrief, filters: Mapping[str, list[str]]) -> CandidateRows:
    """The candidates of the page after its filters, each group by provider name; past
    LIST_LIMIT (counted first) a sample of SAMPLE rows and how many the filters take."""
    quote_qs = filter_quotes(default_quotes(), filters)
    route_qs = filter_routes(default_api_routes(brief), filters)
    matched = quote_qs.count() + route_qs.count()
    quote_order = ("provider__name", "accelerator__name", "pk")
    if matched > LIST_LIMIT:
        taken = matched
        if not filters:  # no filter is the default selection: inside the brief's regions
            quotes, routes, _ = chosen_querysets(brief, None, None, filters)
            taken = quotes.count() + routes.count()
        sample = list(quote_qs.order_by(*quote_order)[:SAMPLE])
        return CandidateRows(groups=_grouped(sample, []), by_filter=taken, by_default=not filters)
    quotes = list(quote_qs.order_by(*quote_order))
    routes = list(route_qs.order_by("provider__name", "model_name"))
    default_quote_ids, default_route_ids = default_candidate_ids(brief)
    in_region = set(default_quote_ids)
    return CandidateRows(
        groups=_grouped(quotes, routes),
        preselected_quotes={q.pk for q in quotes if q.pk in in_region},
        preselected_routes={r.pk for r in routes if r.pk in set(default_route_ids)},
        outside_regions={q.pk for q in quotes if q.pk not in in_region},
    )
