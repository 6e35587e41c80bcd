"""What each role sees first on the dashboard: its own queue of work."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import BooleanField, Count, ExpressionWrapper, OuterRef, Q, Subquery
from django.db.models.functions import Now

from benchmarks import access as benchmarks_access
from briefs import access as briefs_access
from briefs.models import WorkloadBrief
from catalog import access as catalog_access
from core.roles import Role, role_of
from procurement import access
from procurement.models import CandidateResult, Comparison, PriceChange, Review, WorkerProbe

AWAITING_LIMIT = 20

# Cards of apps above this one (registered in their AppConfig.ready): each provider gets the
# user and role and returns its cards ({"label", "value", "url"}, optional "flag"), or none.
CardProvider = Callable[[Any, str | None], list[dict[str, Any]]]
_card_providers: list[CardProvider] = []


def on_dashboard_cards(provider: CardProvider) -> CardProvider:
    """Register a card provider; registering the same function twice is a no-op."""
    if provider not in _card_providers:
        _card_providers.append(provider)
    return provider


def awaiting_decision(user: Any, comparisons: Any) -> list[Comparison]:
    """The ready comparisons this user did not create and has not reviewed, soonest
    due first (then the one waiting longest); the view keeps those the user may decide.

    Each carries `approvals_so_far`, `is_overdue` and `commitment_terms` (the recommended
    row's `detail.commitment`, for "12-month commitment") read in the same query.
    """
    recommended_terms = CandidateResult.objects.filter(
        comparison_id=OuterRef("pk"), key=OuterRef("recommended_key")
    ).values("detail__commitment")[:1]
    ready = (
        comparisons.filter(status=Comparison.Status.READY)
        .exclude(created_by=user)
        .exclude(reviews__reviewer=user)
        .select_related("brief", "created_by")
        .annotate(
            approvals_so_far=Count("reviews", filter=Q(reviews__decision="approve")),
            is_overdue=ExpressionWrapper(Q(review_due_at__lt=Now()), output_field=BooleanField()),
            commitment_terms=Subquery(recommended_terms),
        )
        .order_by("review_due_at", "finished_at", "pk")
    )
    return list(ready[:AWAITING_LIMIT])


# The cards' counts are the same for every user of a role (a vendor: for that vendor) and
# were most of the dashboard's time under load: each is kept this long, so a count may lag
# by at most that; the recent comparisons below them are always read fresh.
CARDS_CACHE_SECONDS = 15

# What the dashboard's comparison tables and the review check (access.can_review) read.
DASHBOARD_COLUMNS = (
    "title",
    "revision",
    "status",
    "created_at",
    "finished_at",
    "review_due_at",
    "recommended_key",
    "commitment_usd",
    "required_approvals",
    "brief",
    "brief__title",
    "brief__version",
    "created_by",
    "created_by__username",
)


# The tables whose rows the dashboard's recent comparisons and price notices show.
STAMPED = (Comparison, WorkloadBrief, Review, PriceChange)


def tables_stamp() -> str | None:
    """A value that changes with every committed insert, update or delete in the tables the
    dashboard's lists show, read in one small query: each table's row count and the sum of
    its rows' transaction ids (PostgreSQL's `xmin`, new for a row on every update, however
    it was written: `.update()` sends no signal). None where there is no `xmin` (SQLite):
    the lists are then read fresh on every view, as when DASHBOARD_LISTS_CACHE_SECONDS is 0."""
    if connection.vendor != "postgresql" or not settings.DASHBOARD_LISTS_CACHE_SECONDS:
        return None
    quote = connection.ops.quote_name
    parts = " || ':' || ".join(
        f"(SELECT count(*) || '.' || coalesce(sum(xmin::text::bigint), 0) "  # noqa: S608  # nosec B608
        f"FROM {quote(model._meta.db_table)})"  # table names from the models, nothing typed
        for model in STAMPED
    )
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {parts}")
        row = cursor.fetchone()
    return str(row[0])


def per_user(user: Any, name: str, stamp: str | None, build: Callable[[], Any]) -> Any:
    """`build()`, kept for this user and role while the tables' stamp is unchanged, for
    DASHBOARD_LISTS_CACHE_SECONDS at most (reading and compiling the recent comparisons and
    the price notices were half the dashboard's CPU under load); built fresh when there is
    no stamp or the setting is 0."""
    seconds = settings.DASHBOARD_LISTS_CACHE_SECONDS
    if stamp is None or not seconds:
        return build()
    key = f"dashboard:{name}:{user.pk}:{role_of(user)}:{stamp}"
    found = cache.get(key)
    if found is None:
        found = build()
        cache.set(key, found, seconds)
    return found


def dashboard_context(user: Any, stamp: str | None = None) -> dict[str, Any]:
    role = role_of(user)
    key = f"dashboard-cards:{role}:{user.pk if role == Role.VENDOR else ''}"
    cards = cache.get(key)
    if cards is None:
        cards = _cards(user, role)
        cache.set(key, cards, CARDS_CACHE_SECONDS)
    ctx: dict[str, Any] = {"cards": cards}
    if role == Role.VENDOR:
        return ctx
    comparisons = access.comparisons_for(user)
    # The tables show title, brief, status and dates: only those columns are read (the
    # snapshot and result JSON, at 500 candidates, were most of the dashboard's time under
    # load; the other columns' SQL compilation was most of what was left).
    recent = comparisons.only(*DASHBOARD_COLUMNS)
    # A role that never reviews has nothing awaiting its decision: no query for it.
    reviews = access.reviews_any(user)
    ctx["awaiting_decision"] = awaiting_decision(user, recent) if reviews else []
    ctx["recent_comparisons"] = per_user(
        user, "recent", stamp, lambda: list(recent.order_by("-created_at")[:8])
    )
    if role == Role.ADMIN:
        ctx["probes"] = list(WorkerProbe.objects.order_by("-requested_at")[:5])
    return ctx


def _card(label: str, value: int, url: str) -> dict[str, Any]:
    return {"label": label, "value": value, "url": url}


def _cards(user: Any, role: str | None) -> list[dict[str, Any]]:
    quotes = catalog_access.quotes_for(user)
    if role == Role.VENDOR:
        open_rfqs = catalog_access.rfqs_for(user).filter(status="open")
        return [
            _card("Open RFQs for you", open_rfqs.count(), "/vendor/"),
            _card("Your quotes (current)", quotes.current().count(), "/vendor/"),
        ]
    ready = access.comparisons_for(user).filter(status=Comparison.Status.READY)
    return [
        _card("Workload briefs", briefs_access.briefs_for(user).count(), "/briefs/"),
        _card("Current quotes", quotes.current().count(), "/catalog/quotes/"),
        _card("Stale quotes", quotes.current().stale().count(), "/catalog/quotes/?stale=1"),
        _card("Awaiting review", ready.count(), "/comparisons/?status=ready"),
        _card("Benchmark results", benchmarks_access.results_for(user).count(), "/benchmarks/"),
        *(card for provider in _card_providers for card in provider(user, role)),
    ]
