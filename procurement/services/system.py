"""System services: the worker round-trip probe and the checks /healthz reports."""

from __future__ import annotations

import socket
from datetime import datetime

from celery import current_app
from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.db import connection, transaction
from django.db.models import Min
from django.utils import timezone

from accounts.models import User
from benchmarks.models import BenchmarkResult
from core import jobs
from procurement.models import Comparison, Heartbeat, WorkerProbe

HEARTBEAT = "beat"
#: a file every page links to: without its manifest entry every page is a 500 (L2)
STATIC_PROBE = "favicon.svg"


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


def heartbeat_record() -> None:
    """Run by a worker for the beat every minute: both are alive when this is fresh."""
    Heartbeat.objects.update_or_create(
        name=HEARTBEAT, defaults={"at": timezone.now(), "worker_hostname": socket.gethostname()}
    )


def workers_ok(now: datetime | None = None) -> tuple[bool, str]:
    """Whether a worker ran the beat's heartbeat within HEALTH_HEARTBEAT_MAX_AGE_S."""
    now = now or timezone.now()
    limit = settings.HEALTH_HEARTBEAT_MAX_AGE_S
    beat = Heartbeat.objects.filter(name=HEARTBEAT).first()
    if beat is None:
        return False, "no worker has run the beat's heartbeat yet (is a beat and a worker up?)"
    age = (now - beat.at).total_seconds()
    if age > limit:
        return False, (
            f"last heartbeat {age:.0f} s ago (limit {limit} s), by {beat.worker_hostname}: "
            "the beat is stopped, or every worker is stopped or busy"
        )
    return True, f"last heartbeat {age:.0f} s ago, by {beat.worker_hostname}"


def queues_ok(now: datetime | None = None) -> tuple[bool, str]:
    """Whether the oldest comparison and parse waiting for a worker waited past the limit."""
    now = now or timezone.now()
    limit = settings.HEALTH_QUEUE_MAX_AGE_S
    comparison = Comparison.objects.filter(status=Comparison.Status.QUEUED).aggregate(
        oldest=Min("created_at")
    )["oldest"]
    parse = BenchmarkResult.objects.filter(status=BenchmarkResult.Status.PENDING).aggregate(
        oldest=Min("created_at")
    )["oldest"]
    ages = {
        what: (now - oldest).total_seconds()
        for what, oldest in (("comparison", comparison), ("parse", parse))
        if oldest is not None
    }
    late = {what: age for what, age in ages.items() if age > limit}
    text = ", ".join(f"oldest queued {what} {age:.0f} s" for what, age in ages.items())
    if late:
        return False, f"{text} (limit {limit} s)"
    return True, text or "nothing queued"


def static_ok() -> tuple[bool, str]:
    """Whether pages can link their static files: with the hashed (production) storage a
    missing `collectstatic` makes every page a 500 while the database and broker are fine."""
    if not isinstance(staticfiles_storage, ManifestFilesMixin):
        return True, "served from the source folders (debug)"
    try:
        name = staticfiles_storage.stored_name(STATIC_PROBE)
    except ValueError:
        return False, "no static files manifest: run `manage.py deploy` (collectstatic)"
    if not staticfiles_storage.exists(name):
        return False, f"{name} is in the manifest but not in STATIC_ROOT"
    return True, "collected"
