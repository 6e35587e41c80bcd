"""The append-only audit trail. Rows are never updated or deleted (a PostgreSQL trigger too)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.conf import settings
from django.db import models


class AuditEventQuerySet(models.QuerySet["AuditEvent"]):
    def update(self, **kwargs: Any) -> int:
        raise PermissionError("The audit trail is append-only.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise PermissionError("The audit trail is append-only.")


class AuditEvent(models.Model):
    """Who did what to which object, with a before/after summary; chained by hash."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    actor_name = models.CharField(max_length=150, blank=True)
    action = models.CharField(max_length=60)
    object_type = models.CharField(max_length=60)
    object_id = models.CharField(max_length=40)
    object_repr = models.CharField(max_length=300, blank=True)
    summary = models.JSONField(default=dict, blank=True)
    outcome = models.CharField(max_length=20, default="ok")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    prev_hash = models.CharField(max_length=64, blank=True)
    row_hash = models.CharField(max_length=64, blank=True)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        # The table predates the kernel (it was created by the decisions app); keep its name.
        db_table = "procurement_auditevent"
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["object_type", "object_id"], name="procurement_object__92e3c8_idx")
        ]

    def __str__(self) -> str:
        return (
            f"{self.created_at:%Y-%m-%d %H:%M} {self.actor_name} {self.action} {self.object_repr}"
        )

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise PermissionError("The audit trail is append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise PermissionError("The audit trail is append-only.")

    def compute_hash(self) -> str:
        payload = json.dumps(
            [
                self.prev_hash,
                self.actor_name,
                self.action,
                self.object_type,
                self.object_id,
                self.summary,
                self.outcome,
            ],
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(payload.encode()).hexdigest()
