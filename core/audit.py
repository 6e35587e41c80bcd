"""Writing to the append-only audit trail (one function, used by every service), and
verifying its hash chain.

Each row's hash (version 2, M6) is an HMAC, keyed with ``AUDIT_HMAC_KEY`` (never in the
database), over its time, actor id and name, action, object type, id and label, summary,
outcome and the previous row's hash. Rows written before version 2 keep verifying under
their own scheme, but no version-1 row may follow a version-2 one (no downgrade).

Verification is incremental (M7): a keyed checkpoint records the last event verified, and
`/audit/` verifies only the events after it; `audit_chain_verify(full=True)` (the
`audit_verify` command) re-reads everything.
"""

from __future__ import annotations

import hmac
from typing import Any, cast

from django.core.paginator import Paginator
from django.db import connection, transaction
from django.db.models import Model, OuterRef, QuerySet, Subquery
from django.utils import timezone
from django.utils.functional import cached_property

from core.models import HASH_VERSION, AuditCheckpoint, AuditEvent

_AUDIT_LOCK_KEY = 727_001  # advisory lock serialising the hash chain on PostgreSQL


def audit_record(
    *,
    actor: Any,
    action: str,
    obj: Model | None = None,
    object_type: str = "",
    object_id: str = "",
    summary: dict[str, Any] | None = None,
    outcome: str = "ok",
) -> AuditEvent:
    """Append one event. `summary` holds a short before/after description, never secrets."""
    if obj is not None:
        object_type = object_type or obj._meta.label_lower
        object_id = object_id or str(obj.pk)
    user = actor if getattr(actor, "is_authenticated", False) else None
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_AUDIT_LOCK_KEY])
        last = AuditEvent.objects.order_by("-id").values_list("row_hash", flat=True).first()
        event = AuditEvent(
            actor=user,
            actor_name=getattr(user, "username", "") or "system",
            action=action,
            object_type=object_type,
            object_id=object_id,
            object_repr=str(obj)[:300] if obj is not None else "",
            summary=summary or {},
            outcome=outcome,
            prev_hash=last or "",
            created_at=timezone.now(),
            hash_version=HASH_VERSION,
        )
        event.row_hash = event.compute_hash()
        event.save()
    return event


def audit_chain_verify(*, full: bool = False) -> list[int]:
    """Ids of events whose hash no longer matches their content or predecessor.

    From the last valid checkpoint unless `full`; a clean run stores a new checkpoint."""
    checkpoint = None if full else _last_checkpoint()
    prev = checkpoint.row_hash if checkpoint else ""
    events = AuditEvent.objects.order_by("id")
    if checkpoint:
        events = events.filter(id__gt=checkpoint.event_id)
    broken: list[int] = []
    seen_v2 = False
    last_good: tuple[int, str] | None = None
    for event in events.iterator(chunk_size=2000):
        downgrade = seen_v2 and event.hash_version < HASH_VERSION
        seen_v2 = seen_v2 or event.hash_version >= HASH_VERSION
        if downgrade or event.prev_hash != prev or event.compute_hash() != event.row_hash:
            broken.append(event.pk)
        elif not broken:
            last_good = (event.pk, event.row_hash)
        prev = event.row_hash
    if not broken and last_good and last_good[0] - (checkpoint.event_id if checkpoint else 0) > 0:
        stored = AuditCheckpoint(event_id=last_good[0], row_hash=last_good[1])
        stored.mac = stored.compute_mac()
        stored.save()
    return broken


def _last_checkpoint() -> AuditCheckpoint | None:
    """The newest checkpoint whose MAC is right and whose event still carries its hash."""
    current = AuditEvent.objects.filter(pk=OuterRef("event_id")).values("row_hash")[:1]
    candidates = AuditCheckpoint.objects.annotate(current_hash=Subquery(current))
    for checkpoint in candidates.order_by("-event_id")[:5]:
        if not hmac.compare_digest(checkpoint.mac, checkpoint.compute_mac()):
            continue
        if checkpoint.current_hash == checkpoint.row_hash:
            return checkpoint
    return None


# Columns the audit page offers as filter menus; each leads an index (core.models).
_MENU_COLUMNS = frozenset({"action", "object_type"})


def audit_distinct(column: str) -> list[str]:
    """The distinct values of `action` or `object_type`, sorted.

    On PostgreSQL a skip scan (a recursive query taking the next value from the index, one
    probe per value) instead of a DISTINCT over the whole trail: the menus cost about a
    millisecond at a million events, not half a second each."""
    if column not in _MENU_COLUMNS:
        raise ValueError(f"no audit menu for {column!r}")
    if connection.vendor != "postgresql":
        return sorted(AuditEvent.objects.order_by().values_list(column, flat=True).distinct())
    table = connection.ops.quote_name(AuditEvent._meta.db_table)
    # The column is one of two fixed names and the table our own: nothing from a request.
    sql = (
        f"WITH RECURSIVE menu(value) AS ("  # noqa: S608  # nosec B608
        f"(SELECT {column} FROM {table} ORDER BY {column} LIMIT 1) UNION ALL "
        f"SELECT (SELECT {column} FROM {table} WHERE {column} > menu.value "
        f"ORDER BY {column} LIMIT 1) FROM menu WHERE menu.value IS NOT NULL) "
        "SELECT value FROM menu WHERE value IS NOT NULL"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return [row[0] for row in cursor.fetchall()]


class AuditPaginator(Paginator):  # type: ignore[type-arg]
    """Counts at most `cap` events (a bounded subquery, not a COUNT over the whole trail);
    beyond that the page says "more than" and the date filters reach older events."""

    cap = 10_000

    @cached_property
    def _bounded_count(self) -> int:
        events = cast("QuerySet[AuditEvent]", self.object_list)
        return events[: self.cap + 1].count()

    @cached_property
    def count(self) -> int:
        return min(self._bounded_count, self.cap)

    @property
    def capped(self) -> bool:
        return self._bounded_count > self.cap
