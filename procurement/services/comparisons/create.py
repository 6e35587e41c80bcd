"""Creating a comparison (and a new revision of one): validate, freeze, queue on commit."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from briefs.errors import BriefIncomplete
from briefs.models import WorkloadBrief
from catalog import access as catalog_access
from catalog.models import ModelApiRoute, Quote
from core.audit import audit_record
from core.errors import Conflict, DomainError
from core.roles import require_role
from engine.comparison import ENGINE_VERSION
from engine.errors import EngineInputError
from procurement import access
from procurement.models import Comparison
from procurement.selectors.comparisons import (
    default_api_routes,
    default_candidate_ids,
    default_quotes,
)
from procurement.services.comparisons.queue import Queued, enqueue_on_commit
from procurement.services.comparisons.selection import clean_filters, filter_quotes, filter_routes
from procurement.snapshot import assumptions as assumption_rules
from procurement.snapshot import freeze
from procurement.snapshot.schema import Selection, Snapshot
from procurement.snapshot.workload import workload_input

MAX_SEED = 2**63 - 1


def _ids(raw: Sequence[Any] | None, field: str) -> list[int] | None:
    if raw is None:
        return None
    ids: list[int] = []
    bad: list[str] = []
    for value in raw:
        try:
            ids.append(int(value))
        except (TypeError, ValueError):
            bad.append(repr(value))
    if bad:
        raise DomainError(
            f"{field}: not ids: {', '.join(bad)}.", fields={field: [f"Not ids: {', '.join(bad)}."]}
        )
    return sorted(set(ids))


def _explicit_quotes(user: User, ids: list[int]) -> list[Any]:
    found = {q.pk: q for q in catalog_access.quotes_for(user).filter(pk__in=ids)}
    unknown = [i for i in ids if i not in found]
    if unknown:
        raise DomainError(
            f"Unknown quote id(s): {', '.join(map(str, unknown))}.",
            fields={"quotes": [f"Unknown quote id(s): {', '.join(map(str, unknown))}."]},
        )
    current = set(default_quotes().filter(pk__in=ids).values_list("pk", flat=True))
    old = [i for i in ids if i not in current]
    if old:
        msg = (
            f"Quote id(s) {', '.join(map(str, old))} are withdrawn or superseded by a newer "
            "version: compare the current version."
        )
        raise DomainError(msg, fields={"quotes": [msg]})
    return [found[i] for i in ids]


def _explicit_routes(user: User, ids: list[int]) -> list[Any]:
    found = {r.pk: r for r in catalog_access.api_routes_for(user).filter(pk__in=ids)}
    unknown = [i for i in ids if i not in found]
    if unknown:
        msg = f"Unknown API route id(s): {', '.join(map(str, unknown))}."
        raise DomainError(msg, fields={"api_routes": [msg]})
    inactive = [i for i in ids if not found[i].is_active]
    if inactive:
        msg = f"API route id(s) {', '.join(map(str, inactive))} are not active."
        raise DomainError(msg, fields={"api_routes": [msg]})
    return [found[i] for i in ids]


def _candidates(
    user: User,
    brief: WorkloadBrief,
    quote_ids: list[int] | None,
    route_ids: list[int] | None,
    filters: dict[str, list[str]] | None = None,
) -> tuple[list[Any], list[Any], bool]:
    """(quotes, routes, default?) — both None means every candidate that could serve it,
    narrowed by `filters` when given."""
    filters = filters or {}
    if quote_ids is None and route_ids is None:
        if not filters:  # the default selection (selection.py)
            default_q, default_r = default_candidate_ids(brief)
            quotes = list(default_quotes().filter(pk__in=default_q).order_by("pk"))
            routes = list(default_api_routes(brief).filter(pk__in=default_r).order_by("pk"))
            return quotes, routes, True
        quotes = list(filter_quotes(default_quotes(), filters).order_by("pk"))
        routes = list(filter_routes(default_api_routes(brief), filters).order_by("pk"))
        return quotes, routes, False
    quotes = _explicit_quotes(user, quote_ids or [])
    routes = _explicit_routes(user, route_ids or [])
    if filters:
        keep_q = set(
            filter_quotes(Quote.objects.filter(pk__in=[q.pk for q in quotes]), filters).values_list(
                "pk", flat=True
            )
        )
        keep_r = set(
            filter_routes(
                ModelApiRoute.objects.filter(pk__in=[r.pk for r in routes]), filters
            ).values_list("pk", flat=True)
        )
        quotes = [q for q in quotes if q.pk in keep_q]
        routes = [r for r in routes if r.pk in keep_r]
    return quotes, routes, False


def _as_default(
    brief: WorkloadBrief, quote_list: list[int] | None, route_list: list[int] | None
) -> tuple[list[int] | None, list[int] | None]:
    """A chosen set that is exactly every default candidate is the default selection.

    The service decides it, not the page: a form with every box left ticked and an API call
    listing every default id store the same `selection.default`, so a recompute of either
    takes today's defaults again rather than the newest versions of yesterday's quotes.
    """
    if quote_list is None and route_list is None:
        return None, None
    default_q, default_r = default_candidate_ids(brief)
    if (quote_list or []) == default_q and (route_list or []) == default_r:
        return None, None
    return quote_list, route_list


def _seed(seed: Any) -> int:
    if seed is None or seed == "":
        return secrets.randbits(32)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        msg = f"The seed must be a whole number from 0 to {MAX_SEED}."
        raise DomainError(msg, fields={"seed": [msg]})
    checked: int = seed
    return checked


def _check_workload(snapshot: Snapshot) -> None:
    """Reject a brief the engine cannot read before anything is saved or queued."""
    try:
        workload_input(snapshot)
    except EngineInputError as exc:
        msg = f"The brief cannot be compared: {exc.field}: {exc.message}"
        raise DomainError(msg, fields={exc.field: [exc.message]}) from exc


def comparison_create(
    *,
    acting_user: User,
    brief: WorkloadBrief,
    quote_ids: Sequence[Any] | None = None,
    api_route_ids: Sequence[Any] | None = None,
    assumptions: dict[str, Any] | None = None,
    seed: int | None = None,
    title: str | None = None,
    supersedes: Comparison | None = None,
    enqueue: bool = True,
    candidate_filters: Mapping[str, Any] | None = None,
) -> Queued:
    """Freeze the inputs of a new comparison and queue it (lead or admin).

    Omit both id lists for the default selection (every current quote inside the brief's
    allowed regions and every active API route that could serve it, selection.py); give one
    or both to choose (exactly the default set counts as the default
    selection). Nothing is saved or queued on any error. Returns the saved comparison with
    the outcome of queueing it.
    `enqueue=False` leaves the run to the caller (the demo computes in-process).
    `candidate_filters` ({"regions", "capacity_models", "accelerators", "providers", "rfqs"}:
    lists) narrows every current offer before it is frozen (selection.py); they are kept in
    the snapshot's selection and applied again by a recompute.
    """
    require_role(acting_user, *access.COMPARISON_CREATORS)
    if missing := brief.missing_fields():
        raise BriefIncomplete(missing)
    overrides, errors = assumption_rules.validate_overrides(assumptions)
    if errors:
        first = next(iter(errors.items()))
        raise DomainError(f"{first[0]}: {first[1][0]}", fields=errors)
    chosen_seed = _seed(seed)
    quote_list = _ids(quote_ids, "quotes")
    route_list = _ids(api_route_ids, "api_routes")
    quote_list, route_list = _as_default(brief, quote_list, route_list)
    filters = clean_filters(candidate_filters)
    quotes, routes, default = _candidates(acting_user, brief, quote_list, route_list, filters)
    if not quotes and not routes:
        msg = "There is nothing to compare: choose at least one current quote or active API route."
        chose_some = bool(quote_list or route_list)
        if filters and (chose_some or (quote_list is None and route_list is None)):
            msg = "No current quote or active API route matches these filters."
        raise DomainError(msg, fields={"quotes": [msg]})
    now = timezone.now()
    selection = Selection(
        default=default, quote_ids=[q.pk for q in quotes], api_route_ids=[r.pk for r in routes]
    )
    if filters:
        selection["filters"] = filters
        if quote_list is None and route_list is None:
            selection["filtered_defaults"] = True
    snapshot = freeze(
        brief=brief,
        quotes=quotes,
        api_routes=routes,
        overrides=overrides,
        selection=selection,
        as_of=now,
    )
    _check_workload(snapshot)
    with transaction.atomic():
        comparison = Comparison.objects.create(
            title=(title or "").strip()[:200]
            or f"{brief.title} v{brief.version} — {now:%Y-%m-%d %H:%M} UTC",
            brief=brief,
            status=Comparison.Status.QUEUED,
            seed=chosen_seed,
            samples=settings.MONTE_CARLO_SAMPLES,
            engine_version=ENGINE_VERSION,
            assumptions=overrides,
            snapshot=snapshot,
            snapshot_facts=Comparison.facts_of(snapshot),
            created_by=acting_user,
            queued_at=now,
            revision=supersedes.revision + 1 if supersedes else 1,
            supersedes=supersedes,
        )
        comparison.quotes.set(quotes)
        comparison.api_routes.set(routes)
        audit_record(
            actor=acting_user,
            action="comparison.create",
            obj=comparison,
            summary={
                "brief": brief.pk,
                "quotes": len(quotes),
                "api_routes": len(routes),
                "seed": chosen_seed,
                "revision": comparison.revision,
                "supersedes": supersedes.pk if supersedes else None,
            },
        )
        outcome = enqueue_on_commit(comparison) if enqueue else None
    return Queued(comparison, outcome)


def _current_versions(quote_ids: list[int]) -> list[int]:
    """The newest version of each quote lineage (one query per revision level)."""

    current = {i: i for i in quote_ids}
    pending = set(quote_ids)
    while pending:
        newer = dict(
            Quote.objects.filter(supersedes_id__in=pending).values_list("supersedes_id", "pk")
        )
        for origin, head in list(current.items()):
            if head in newer:
                current[origin] = newer[head]
        pending = set(newer.values())
    return sorted(set(current.values()))


def comparison_recompute(*, acting_user: User, comparison: Comparison) -> Queued:
    """A new revision from the same brief with fresh quotes (supersedes this comparison).

    A comparison built from the default candidates takes today's defaults again; one built
    from chosen candidates takes the newest version of each chosen quote (withdrawn ones
    drop out) and the chosen routes that are still active. Same assumptions and seed.
    """
    require_role(acting_user, *access.COMPARISON_CREATORS)
    if not comparison.is_finished:
        raise Conflict("This comparison is still being computed; recompute it once it is done.")
    if Comparison.objects.filter(supersedes=comparison).exists():
        raise Conflict("This comparison already has a newer revision; recompute that one.")
    selection = comparison.snapshot.get("selection") or {}
    quote_ids: list[int] | None = None
    route_ids: list[int] | None = None
    filters = selection.get("filters") or None
    if not selection.get("default", False) and not selection.get("filtered_defaults", False):
        fresh = _current_versions([int(i) for i in selection.get("quote_ids", [])])
        quote_ids = list(default_quotes().filter(pk__in=fresh).values_list("pk", flat=True))
        route_ids = list(
            ModelApiRoute.objects.filter(
                pk__in=selection.get("api_route_ids", []), is_active=True
            ).values_list("pk", flat=True)
        )
    try:
        return comparison_create(
            acting_user=acting_user,
            brief=comparison.brief,
            quote_ids=quote_ids,
            api_route_ids=route_ids,
            assumptions=comparison.assumptions,
            seed=comparison.seed,
            title=comparison.title,
            supersedes=comparison,
            candidate_filters=filters,
        )
    except IntegrityError as exc:  # a concurrent recompute won the one-to-one `supersedes`
        raise Conflict("This comparison already has a newer revision; recompute that one.") from exc
