"""Writing to the append-only audit trail (one function, used by every service)."""

from __future__ import annotations

from typing import Any

from django.db import connection, transaction
from django.db.models import Model

from core.models import AuditEvent

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
        )
        event.row_hash = event.compute_hash()
        event.save()
    return event


def audit_chain_verify() -> list[int]:
    """Ids of events whose hash no longer matches their content or predecessor."""
    broken: list[int] = []
    prev = ""
    for event in AuditEvent.objects.order_by("id").iterator():
        if event.prev_hash != prev or event.compute_hash() != event.row_hash:
            broken.append(event.pk)
        prev = event.row_hash
    return broken
