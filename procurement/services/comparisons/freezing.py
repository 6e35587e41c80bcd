"""The chosen candidates: checked in the request, frozen on the worker (L9).

The request checks what the lead chose (ids known and current, something left after the
filters) in a few queries whatever the selection's size, and saves it as `Comparison.chosen`;
the worker reads the candidates again and freezes the snapshot from them before it computes.
Freezing 20,000 candidates took 14-39 s; 40,000 passed gunicorn's timeout and saved nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import User
from briefs.models import WorkloadBrief
from catalog import access as catalog_access
from core import jobs
from core.errors import DomainError
from engine.errors import EngineInputError
from procurement.models import Comparison
from procurement.selectors.comparisons import default_quotes
from procurement.services.comparisons.selection import chosen_querysets
from procurement.snapshot import freeze
from procurement.snapshot.freeze import workload_part
from procurement.snapshot.schema import Overrides, Selection, Snapshot
from procurement.snapshot.workload import workload_input

NOTHING_CHOSEN = (
    "There is nothing to compare: choose at least one current quote or active API route."
)
NOTHING_MATCHES = "No current quote or active API route matches these filters."


def _check_quote_ids(user: User, ids: list[int]) -> None:
    found = set(catalog_access.quotes_for(user).filter(pk__in=ids).values_list("pk", flat=True))
    if unknown := [i for i in ids if i not in found]:
        msg = f"Unknown quote id(s): {', '.join(map(str, unknown))}."
        raise DomainError(msg, fields={"quotes": [msg]})
    current = set(default_quotes().filter(pk__in=ids).values_list("pk", flat=True))
    if old := [i for i in ids if i not in current]:
        msg = (
            f"Quote id(s) {', '.join(map(str, old))} are withdrawn or superseded by a newer "
            "version: compare the current version."
        )
        raise DomainError(msg, fields={"quotes": [msg]})


def _check_route_ids(user: User, ids: list[int]) -> None:
    found = dict(
        catalog_access.api_routes_for(user).filter(pk__in=ids).values_list("pk", "is_active")
    )
    if unknown := [i for i in ids if i not in found]:
        msg = f"Unknown API route id(s): {', '.join(map(str, unknown))}."
        raise DomainError(msg, fields={"api_routes": [msg]})
    if inactive := [i for i in ids if not found[i]]:
        msg = f"API route id(s) {', '.join(map(str, inactive))} are not active."
        raise DomainError(msg, fields={"api_routes": [msg]})


def check_chosen(
    user: User,
    brief: WorkloadBrief,
    quote_ids: list[int] | None,
    route_ids: list[int] | None,
    filters: dict[str, list[str]],
) -> tuple[int, int]:
    """Refuse what cannot be frozen (unknown, withdrawn or inactive ids; nothing left), in a
    bounded number of queries. Returns how many quotes and routes the choice holds now."""
    if quote_ids is not None or route_ids is not None:
        _check_quote_ids(user, quote_ids or [])
        _check_route_ids(user, route_ids or [])
    quotes, routes, _ = chosen_querysets(brief, quote_ids, route_ids, filters)
    counts = (quotes.order_by().count(), routes.order_by().count())
    if counts == (0, 0):
        chose_some = bool(quote_ids or route_ids)
        by_filters = filters and (chose_some or (quote_ids is None and route_ids is None))
        msg = NOTHING_MATCHES if by_filters else NOTHING_CHOSEN
        raise DomainError(msg, fields={"quotes": [msg]})
    return counts


def check_workload(brief: WorkloadBrief, overrides: Overrides) -> None:
    """Reject a brief the engine cannot read before anything is saved or queued."""
    check_snapshot_workload(workload_part(brief, overrides))


def check_snapshot_workload(snapshot: Snapshot) -> None:
    try:
        workload_input(snapshot)
    except EngineInputError as exc:
        msg = f"The brief cannot be compared: {exc.field}: {exc.message}"
        raise DomainError(msg, fields={exc.field: [exc.message]}) from exc


def chosen_record(
    *,
    as_of: datetime,
    quote_ids: list[int] | None,
    route_ids: list[int] | None,
    filters: dict[str, list[str]],
) -> dict[str, Any]:
    """`Comparison.chosen`: what the worker freezes."""
    return {"as_of": as_of.isoformat(), "quote_ids": quote_ids, "api_route_ids": route_ids} | (
        {"filters": filters} if filters else {}
    )


def freeze_chosen(comparison: Comparison) -> tuple[Snapshot, list[Any], list[Any]]:
    """The snapshot of the comparison's chosen candidates, read now, and those candidates.
    Raises DomainError (the comparison fails with its message) when the choice cannot be
    frozen any more: a quote withdrawn or superseded, a route deactivated since, none left."""
    chosen = comparison.chosen
    user, brief = comparison.created_by, comparison.brief
    quote_ids, route_ids = chosen.get("quote_ids"), chosen.get("api_route_ids")
    filters = chosen.get("filters") or {}
    check_chosen(user, brief, quote_ids, route_ids, filters)
    quote_qs, route_qs, default = chosen_querysets(brief, quote_ids, route_ids, filters)
    quotes = list(quote_qs.select_related("provider", "accelerator", "rfq").order_by("pk"))
    routes = list(route_qs.select_related("provider", "model_profile").order_by("pk"))
    selection = Selection(
        default=default, quote_ids=[q.pk for q in quotes], api_route_ids=[r.pk for r in routes]
    )
    if filters:
        selection["filters"] = filters
        if quote_ids is None and route_ids is None:
            selection["filtered_defaults"] = True
    snapshot = freeze(
        brief=brief,
        quotes=quotes,
        api_routes=routes,
        overrides=comparison.assumptions,
        selection=selection,
        as_of=datetime.fromisoformat(chosen["as_of"]),
    )
    check_snapshot_workload(snapshot)
    return snapshot, quotes, routes


def freeze_and_store(comparison: Comparison, mine: QuerySet[Comparison]) -> bool:
    """Freeze the chosen candidates (the worker, before it computes) and store the snapshot
    with the candidate links, guarded by the run's claim (`mine`: the row while this run
    holds it); False when the claim was lost. A side thread keeps the claim fresh meanwhile
    (20,000 candidates take seconds)."""
    with jobs.heartbeat_while(
        Comparison, comparison.pk, running=Comparison.Status.RUNNING, attempt=comparison.attempts
    ):
        snapshot, quotes, routes = freeze_chosen(comparison)
    with transaction.atomic():
        if not mine.update(
            snapshot=snapshot,
            snapshot_facts=Comparison.facts_of(snapshot),
            claimed_at=timezone.now(),
        ):
            return False
        comparison.quotes.set(quotes)
        comparison.api_routes.set(routes)
    comparison.snapshot = snapshot
    comparison.snapshot_facts = Comparison.facts_of(snapshot)
    return True
