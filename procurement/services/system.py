"""System services: the worker round-trip probe and broker health."""

from __future__ import annotations

import socket

from celery import current_app
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import User
from core import jobs
from procurement.models import WorkerProbe


def worker_probe_request(*, acting_user: User) -> WorkerProbe:
    """Create a probe row and ring the worker once the row is committed."""
    probe = WorkerProbe.objects.create(requested_by=acting_user)
    probe.sent = None  # type: ignore[attr-defined]

    def _ring() -> None:  # A broker outage is reported, not a 500
        probe.sent = jobs.send_safely(  # type: ignore[attr-defined]
            "procurement.tasks.worker_probe_complete_task", (probe.pk,)
        )

    transaction.on_commit(_ring, robust=True)
    return probe


def worker_probe_complete(*, probe_id: int) -> None:
    WorkerProbe.objects.filter(pk=probe_id, completed_at__isnull=True).update(
        completed_at=timezone.now(), worker_hostname=socket.gethostname()
    )


def database_ok() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "not OK"; the message says why
        return False, f"{type(exc).__name__}: {exc}"
    return True, connection.vendor


def broker_ok() -> tuple[bool, str]:
    url = settings.CELERY_BROKER_URL
    transport = url.split("://", 1)[0]
    try:
        with current_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:  # a broker that is down raises many types; report it
        return False, f"{transport}: {type(exc).__name__}"
    return True, transport
