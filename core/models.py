"""The append-only audit trail. Rows are never updated or deleted (a PostgreSQL trigger too)."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

HASH_VERSION = 2  # 1: sha256 over some fields (the oldest rows); 2: HMAC over every field


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
    # Set before hashing (not auto_now_add, which would stamp it after the hash).
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    prev_hash = models.CharField(max_length=64, blank=True)
    row_hash = models.CharField(max_length=64, blank=True)
    hash_version = models.PositiveSmallIntegerField(default=1)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        # The table predates the kernel (it was created by the decisions app); keep its name.
        db_table = "procurement_auditevent"
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(
                fields=["object_type", "object_id"], name="procurement_object__92e3c8_idx"
            ),
            # The audit page filtered by action, newest first, and its action menu (a skip
            # scan over this index, core.audit.audit_distinct), stay fast at a million rows.
            models.Index(fields=["action", "-created_at"], name="audit_action_created_idx"),
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
        """The row's hash under its own `hash_version` (old rows keep verifying)."""
        if self.hash_version == 1:
            return self._hash_v1()
        payload = json.dumps(
            [
                self.hash_version,
                self.prev_hash,
                self.created_at.isoformat() if self.created_at else "",
                self.actor_id,
                self.actor_name,
                self.action,
                self.object_type,
                self.object_id,
                self.object_repr,
                self.summary,
                self.outcome,
            ],
            sort_keys=True,
            default=str,
        )
        return hmac.new(audit_key(), payload.encode(), hashlib.sha256).hexdigest()

    def _hash_v1(self) -> str:
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


class AuditCheckpoint(models.Model):
    """The last event verified, with a keyed MAC, so /audit/ verifies only what came after
    it. The MAC means a forged checkpoint needs the key that the database does not hold."""

    event_id = models.BigIntegerField()
    row_hash = models.CharField(max_length=64)
    mac = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-event_id"]

    def __str__(self) -> str:
        return f"verified through event {self.event_id}"

    def compute_mac(self) -> str:
        message = f"checkpoint:{self.event_id}:{self.row_hash}".encode()
        return hmac.new(audit_key(), message, hashlib.sha256).hexdigest()


class AuditKeyedChainStart(models.Model):
    """Where the keyed chain began: the last event id that may carry a version-1 (unkeyed)
    hash, with a keyed MAC. Recorded once, by the migration that introduced it: without
    it, rewriting every row as version 1 (plain sha256, no key) would verify."""

    last_v1_event_id = models.BigIntegerField()
    mac = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"keyed chain after event {self.last_v1_event_id}"

    def compute_mac(self) -> str:
        return keyed_chain_start_mac(self.last_v1_event_id)


def keyed_chain_start_mac(last_v1_event_id: int) -> str:
    message = f"keyed-chain-start:{last_v1_event_id}".encode()
    return hmac.new(audit_key(), message, hashlib.sha256).hexdigest()


def audit_key() -> bytes:
    """AUDIT_HMAC_KEY from the environment (required in production; in DEBUG derived from
    SECRET_KEY). Kept out of the database, so its role cannot rewrite the chain."""
    return str(settings.AUDIT_HMAC_KEY).encode()


class FormSubmission(models.Model):
    """The one-time token of a form that creates something: the first POST carrying it
    stores it in the same transaction as its write, so a double click or a replay finds it
    taken and is sent to what the first one made (core.submissions)."""

    token = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    result_url = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return f"{self.token[:8]}… → {self.result_url or 'pending'}"
