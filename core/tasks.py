"""Thin Celery task of the kernel: the periodic audit verification that anchors the trail's
head outside the database (core.audit_anchor)."""

from __future__ import annotations

from celery import shared_task

from core.audit import audit_chain_verify


@shared_task
def audit_anchor_task() -> int:
    """Verify the events since the last checkpoint; a clean run stores a checkpoint and
    appends it to ``AUDIT_ANCHOR_FILE``. Returns how many events are broken."""
    return len(audit_chain_verify())
