"""Writing to the append-only audit trail (one function, used by every service), and
verifying its hash chain.

Each row's hash (version 2) is an HMAC, keyed with ``AUDIT_HMAC_KEY`` (never in the
database), over its time, actor id and name, action, object type, id and label, summary,
outcome and the previous row's hash. Rows written before version 2 keep verifying under
their own scheme, but only up to the keyed chain's recorded start (``AuditKeyedChainStart``,
MAC'd, written once by a migration): a version-1 row after it, or any version-1 row when the
record is missing or forged, is broken, so rewriting the chain as unkeyed rows needs the key
too. No version-1 row may follow a version-2 one either (no downgrade).

A keyed checkpoint whose event is gone or whose hash changed is reported as broken (its event
id), never skipped: deleting the newest rows, the checkpointed one included, is detected.

The newest checkpoint is also written outside the database (core.audit_anchor): a trail
shorter than that external anchor, or emptied, fails verification.

Verification is incremental: a keyed checkpoint records the last event verified, and
`/audit/` verifies only the events after it; `audit_chain_verify(full=True)` (the
`audit_verify` command) re-reads everything.
"""

from __future__ import annotations

import hmac
from datetime import datetime
from typing import Any, cast

from django.core.paginator import Paginator
from django.db import connection, transaction
from django.db.models import Model, OuterRef, QuerySet, Subquery
from django.utils import timezone
from django.utils.functional import cached_property

from core.audit_anchor import (
    Anchor,
    anchor_append,
    anchor_latest,
    anchor_path,
    anchor_period,
    anchor_problem,
    unanchored_problem,
)
from core.models import HASH_VERSION, AuditCheckpoint, AuditEvent, AuditKeyedChainStart

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


def audit_chain_verify(*, full: bool = False, starting: bool = False) -> list[int]:
    """Ids of events whose hash no longer matches their content or predecessor, and of
    checkpointed events that are gone or changed.

    From the last valid checkpoint unless `full`; a clean run stores a new checkpoint.
    `starting`: an empty anchor file is being started on purpose (audit_verify --start-anchor).
    An event id 0 among them: the anchor file was emptied (core.audit_anchor)."""
    broken: list[int] = []
    checkpoint = None if full else _last_checkpoint()
    if checkpoint is not None and checkpoint.current_hash != checkpoint.row_hash:
        broken.append(checkpoint.event_id)
        checkpoint = None  # the shortcut is gone: verify everything
    if checkpoint is None:
        broken.extend(_checkpoints_broken())
    last_v1 = _last_v1_event_id()
    prev = checkpoint.row_hash if checkpoint else ""
    events = AuditEvent.objects.order_by("id")
    if checkpoint:
        events = events.filter(id__gt=checkpoint.event_id)
    seen_v2 = False
    last_good: tuple[int, str] | None = None
    for event in events.iterator(chunk_size=2000):
        unkeyed = event.hash_version < HASH_VERSION and (seen_v2 or event.pk > last_v1)
        seen_v2 = seen_v2 or event.hash_version >= HASH_VERSION
        if unkeyed or event.prev_hash != prev or event.compute_hash() != event.row_hash:
            broken.append(event.pk)
        elif not broken:
            last_good = (event.pk, event.row_hash)
        prev = event.row_hash
    anchor = anchor_latest()
    if anchor is not None and (anchor_problem() if full else _anchor_gone(anchor)):
        broken.append(anchor.event_id)
    if anchor is None and not starting and anchor_path() and unanchored_problem(None):
        broken.append(0)  # an emptied anchor file: never anchor the shortened trail anew
    if not broken and last_good and last_good[0] - (checkpoint.event_id if checkpoint else 0) > 0:
        stored = AuditCheckpoint(event_id=last_good[0], row_hash=last_good[1])
        stored.mac = stored.compute_mac()
        stored.save()
    head = last_good or ((checkpoint.event_id, checkpoint.row_hash) if checkpoint else None)
    if not broken and head and (anchor is None or anchor.event_id < head[0] or _due(anchor)):
        anchor_append(event_id=head[0], row_hash=head[1])  # a new head, or the heartbeat
    return sorted(set(broken))


def _due(anchor: Anchor) -> bool:
    """The newest line is a period old: write the head again, so silence means trouble."""
    try:
        return datetime.fromisoformat(anchor.at) <= timezone.now() - anchor_period()
    except ValueError:
        return True


def _anchor_gone(anchor: Anchor) -> bool:
    """The incremental check of the external anchor: its event is gone or changed (the full
    check also counts the events up to it)."""
    found = AuditEvent.objects.filter(pk=anchor.event_id).values_list("row_hash", flat=True)
    return found.first() != anchor.row_hash


def _last_v1_event_id() -> int:
    """The recorded end of the unkeyed rows; 0 (every version-1 row is a forgery) when the
    record is missing or its MAC is wrong."""
    starts = [
        start.last_v1_event_id
        for start in AuditKeyedChainStart.objects.all()
        if hmac.compare_digest(start.mac, start.compute_mac())
    ]
    return min(starts, default=0)


def _with_current_hash() -> QuerySet[AuditCheckpoint]:
    current = AuditEvent.objects.filter(pk=OuterRef("event_id")).values("row_hash")[:1]
    return AuditCheckpoint.objects.annotate(current_hash=Subquery(current))


def _last_checkpoint() -> Any:
    """The newest checkpoint whose MAC is right (a forged one is skipped), annotated with its
    event's current hash (None when the event is gone)."""
    for checkpoint in _with_current_hash().order_by("-event_id")[:5]:
        if hmac.compare_digest(checkpoint.mac, checkpoint.compute_mac()):
            return checkpoint
    return None


def _checkpoints_broken() -> list[int]:
    """Event ids of genuine checkpoints whose event is gone or no longer has that hash."""
    return [
        checkpoint.event_id
        for checkpoint in _with_current_hash().iterator(chunk_size=2000)
        if hmac.compare_digest(checkpoint.mac, checkpoint.compute_mac())
        and getattr(checkpoint, "current_hash", None) != checkpoint.row_hash
    ]


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
