"""Ringing the worker: enqueue on commit, retry a failed comparison, re-drive stuck ones.

PostgreSQL is the source of truth; the broker is only a doorbell. When the broker is down at
request time the comparison row is still committed (status queued) and the re-drive sends
it once the broker is back.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from kombu.exceptions import KombuError

from accounts.models import User
from core import jobs
from core.audit import audit_record
from core.errors import Conflict
from core.roles import require_role
from procurement import access
from procurement.models import Comparison

logger = logging.getLogger(__name__)

QUEUE_UNAVAILABLE_MESSAGE = (
    "Saved; the worker queue is unavailable, it will be sent automatically when it is back."
)
# Publishing gives up quickly: the request must not hang on a dead broker (the re-drive
# sends the comparison later).
PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0.1,
    "interval_step": 0.2,
    "interval_max": 0.3,
}


@dataclass
class EnqueueOutcome:
    """Filled in by the on-commit callback: None until the transaction commits."""

    sent: bool | None = None
    error: str = ""


@dataclass(frozen=True)
class Queued:
    """What a create, retry or recompute did: the comparison it saved, and how ringing the
    worker went. `outcome` is None when the caller runs the comparison itself."""

    comparison: Comparison
    outcome: EnqueueOutcome | None = None

    @property
    def queue_unavailable(self) -> bool:
        """The comparison is saved but the broker refused the task (the re-drive sends it)."""
        return self.outcome is not None and self.outcome.sent is False


def send_comparison(comparison_id: int) -> bool:
    """Publish the run task now; False (logged) when the broker cannot be reached."""
    try:
        jobs.send(
            "procurement.tasks.comparison_run_task",
            (comparison_id,),
            retry=True,
            retry_policy=PUBLISH_RETRY_POLICY,
        )
    except (KombuError, OSError) as exc:
        logger.warning("comparison %s not sent, broker unavailable: %s", comparison_id, exc)
        return False
    return True


def enqueue_on_commit(comparison: Comparison) -> EnqueueOutcome:
    """Send the task once the current transaction commits; the outcome says what happened."""
    outcome = EnqueueOutcome()
    pk = comparison.pk

    def _send() -> None:
        outcome.sent = send_comparison(pk)
        if not outcome.sent:
            outcome.error = QUEUE_UNAVAILABLE_MESSAGE

    transaction.on_commit(_send)
    return outcome


def comparison_retry(*, acting_user: User, comparison: Comparison) -> Queued:
    """Re-queue a failed comparison (attempts start again from zero)."""
    require_role(acting_user, *access.COMPARISON_CREATORS)
    with transaction.atomic():
        now = timezone.now()
        updated = Comparison.objects.filter(
            pk=comparison.pk, status=Comparison.Status.FAILED
        ).update(
            status=Comparison.Status.QUEUED,
            attempts=0,
            error="",
            progress=0.0,
            queued_at=now,
            claimed_at=None,
            finished_at=None,
            review_due_at=None,
        )
        if not updated:
            raise Conflict("Only a failed comparison can be retried; this one is not failed.")
        comparison.refresh_from_db()
        audit_record(
            actor=acting_user,
            action="comparison.retry",
            obj=comparison,
            summary={"status": "failed → queued"},
        )
        outcome = enqueue_on_commit(comparison)
    return Queued(comparison, outcome)


def comparisons_redrive_stuck(*, older_than: timedelta) -> int:
    """Re-send comparisons queued, or running with a claim, for longer than `older_than`.

    Returns how many were sent. A re-sent message is harmless: the run claims the row with
    a conditional UPDATE, so a comparison still running elsewhere is left alone.
    """
    now = timezone.now()
    cutoff = now - older_than
    stuck = Comparison.objects.filter(
        Q(status=Comparison.Status.QUEUED, queued_at__lt=cutoff)
        | Q(status=Comparison.Status.QUEUED, queued_at__isnull=True)
        | Q(status=Comparison.Status.RUNNING, claimed_at__lt=cutoff)
    ).values_list("pk", flat=True)
    sent = 0
    for pk in list(stuck):
        if send_comparison(pk):
            Comparison.objects.filter(pk=pk, status=Comparison.Status.QUEUED).update(queued_at=now)
            sent += 1
        else:
            break  # the broker is down: the next re-drive tries again
    if sent:
        logger.info("re-drove %s stuck comparison(s)", sent)
    return sent
