"""Creating a comparison (and a new revision of one): check, save the choice, queue on commit
(the worker freezes the snapshot, freezing.py)."""

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
from catalog.models import ModelApiRoute, Quote
from core.audit import audit_record
from core.errors import Conflict, DomainError
from core.roles import require_role
from engine.comparison import ENGINE_VERSION
from procurement import access
from procurement.models import Comparison
from procurement.selectors.comparisons import default_candidate_ids, default_quotes
from procurement.services.comparisons.freezing import check_chosen, check_workload, chosen_record
from procurement.services.comparisons.queue import Queued, enqueue_on_commit
from procurement.services.comparisons.selection import clean_filters
from procurement.snapshot import assumptions as assumption_rules

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
    """Check and save the choice of a new comparison and queue it (lead or admin); the
    worker freezes the snapshot from it (freezing.py) before it computes.

    Omit both id lists for the default selection (every current quote inside the brief's
    allowed regions and every active API route that could serve it, selection.py); give one
    or both to choose (exactly the default set counts as the default
    selection). Nothing is saved or queued on any error the request can see (unknown, withdrawn
    or inactive ids, nothing left after the filters, a brief the engine cannot read), in a
    bounded number of queries whatever the selection's size. Returns the saved comparison with
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
    n_quotes, n_routes = check_chosen(acting_user, brief, quote_list, route_list, filters)
    check_workload(brief, overrides)
    now = timezone.now()
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
            chosen=chosen_record(
                as_of=now, quote_ids=quote_list, route_ids=route_list, filters=filters
            ),
            created_by=acting_user,
            queued_at=now,
            revision=supersedes.revision + 1 if supersedes else 1,
            supersedes=supersedes,
        )
        audit_record(
            actor=acting_user,
            action="comparison.create",
            obj=comparison,
            summary={
                "brief": brief.pk,
                "quotes": n_quotes,
                "api_routes": n_routes,
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


def _chosen_again(comparison: Comparison) -> tuple[bool, list[int], list[int], dict[str, Any]]:
    """(chosen by ids?, quote ids, route ids, filters) as the lead chose: from `chosen` (also
    when the worker could not freeze it), else from the snapshot of a comparison frozen in
    the request, before L9."""
    chosen = comparison.chosen or {}
    if chosen:
        quotes, routes = chosen.get("quote_ids"), chosen.get("api_route_ids")
        by_ids = quotes is not None or routes is not None
        return by_ids, list(quotes or []), list(routes or []), chosen.get("filters") or {}
    selection = comparison.snapshot.get("selection") or {}
    by_ids = not selection.get("default", False) and not selection.get("filtered_defaults", False)
    quotes = [int(i) for i in selection.get("quote_ids", [])]
    return by_ids, quotes, list(selection.get("api_route_ids", [])), selection.get("filters") or {}


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
    chosen_by_ids, chosen_quotes, chosen_routes, filters = _chosen_again(comparison)
    quote_ids: list[int] | None = None
    route_ids: list[int] | None = None
    if chosen_by_ids:
        fresh = _current_versions(chosen_quotes)
        quote_ids = list(default_quotes().filter(pk__in=fresh).values_list("pk", flat=True))
        route_ids = list(
            ModelApiRoute.objects.filter(pk__in=chosen_routes, is_active=True).values_list(
                "pk", flat=True
            )
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
            candidate_filters=filters or None,
        )
    except IntegrityError as exc:  # a concurrent recompute won the one-to-one `supersedes`
        raise Conflict("This comparison already has a newer revision; recompute that one.") from exc
