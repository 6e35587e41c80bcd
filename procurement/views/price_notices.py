"""The price-change notices a user sees: on a comparison's pages, and on the dashboard for the
comparisons they own or may review. Each flag carries what the user may do with it
(`may_acknowledge`, `open`), decided here and not in the template."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Q, QuerySet

from core.roles import Role, has_role
from procurement import access
from procurement.models import Comparison, PriceChange
from procurement.services.price_changes import may_act_on

if TYPE_CHECKING:
    from accounts.models import User

DASHBOARD_NOTICES = 10
COMPARISON_JSON = ("snapshot", "result", "assumptions", "snapshot_facts")


def _flags() -> QuerySet[PriceChange]:
    return PriceChange.objects.select_related(
        "comparison",
        "comparison__superseded_by",
        "approved_quote__provider",
        "approved_quote__accelerator",
        "acknowledged_by",
    ).defer(*(f"comparison__{name}" for name in COMPARISON_JSON))


def _annotate(user: User, flags: list[PriceChange]) -> list[PriceChange]:
    for flag in flags:
        comparison = flag.comparison
        superseded = getattr(comparison, "superseded_by", None)
        flag.superseded = superseded  # type: ignore[attr-defined]
        flag.open = flag.acknowledged_at is None and superseded is None  # type: ignore[attr-defined]
        # Not before the worker has assessed the impact: within the tolerance or not is
        # only known then (the page says so meanwhile).
        flag.may_acknowledge = (  # type: ignore[attr-defined]
            flag.open  # type: ignore[attr-defined]
            and not flag.impact_pending
            and not flag.impact.get("needs_reapproval", True)
            and may_act_on(user, comparison)
        )
        # Whether to say why Acknowledge is missing: this user could acknowledge a small
        # change, but the impact is not known yet.
        flag.acknowledge_waits = (  # type: ignore[attr-defined]
            flag.open  # type: ignore[attr-defined]
            and flag.impact_pending
            and may_act_on(user, comparison)
        )
        flag.may_recompute = flag.open and has_role(  # type: ignore[attr-defined]
            user, *access.COMPARISON_CREATORS
        )
    return flags


def notices_of(user: User, comparison: Comparison) -> list[PriceChange]:
    """Every price change flagged on this comparison, newest first."""
    return _annotate(user, list(_flags().filter(comparison=comparison)))


def notices_for_dashboard(user: User) -> list[PriceChange]:
    """Open flags on comparisons this user owns, approved, or may decide by role."""
    mine = Q(comparison__created_by=user)
    if access.reviews_any(user):  # a role that never reviews has no approvals to look up
        mine |= Q(comparison__reviews__reviewer=user)
    if has_role(user, Role.FINANCE_REVIEWER):
        mine |= Q(pk__isnull=False)
    elif has_role(user, *access.SECOND_APPROVER_ROLES):
        mine |= Q(comparison__required_approvals__gt=1)
    open_mine = PriceChange.objects.filter(
        mine, acknowledged_at__isnull=True, comparison__superseded_by__isnull=True
    )
    # The usual answer is none: a two-join EXISTS says so. Planning the DISTINCT over seven
    # joins below cost PostgreSQL more than the rest of the dashboard, empty table or not (L5).
    if not open_mine.exists():
        return []
    flags = _flags().filter(pk__in=open_mine.values("pk"))
    return _annotate(user, list(flags[:DASHBOARD_NOTICES]))
