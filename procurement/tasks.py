"""Thin Celery tasks: unpack ids, call one service. Idempotency lives in the services."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from core import jobs
from procurement.services import comparisons as services_comparisons
from procurement.services import price_change_delivery as services_price_change_delivery
from procurement.services import system as services_system


@shared_task(acks_late=True, reject_on_worker_lost=True)
def worker_probe_complete_task(probe_id: int) -> None:
    services_system.worker_probe_complete(probe_id=probe_id)


@shared_task
def heartbeat_task() -> None:
    """Sent by the beat every minute; /healthz reads how long ago a worker ran it."""
    services_system.heartbeat_record()


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=240)
def comparison_run_task(self: Any, comparison_id: int) -> None:
    """Run the engine for one comparison. Safe to run twice: the service claims the row.

    Finding the row claimed by a run in progress (a duplicate, or a redelivery after a
    crash), come back when that claim would be stale: by then it is finished or taken over.
    """
    wait = services_comparisons.comparison_deliver(comparison_id=comparison_id)
    if wait is not None:
        raise self.retry(countdown=wait)


@shared_task
def comparisons_redrive_stuck_task() -> int:
    """Re-send comparisons queued, or running with a stale claim, for over 30 s (beat, every
    minute). A re-sent message is harmless: the run claims the row or waits for its claim."""
    return services_comparisons.comparisons_redrive_stuck(older_than=jobs.STALE_AFTER)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def price_change_assess_and_notify_task(flag_id: int) -> str:
    """Assess a price change's impact and send its notices. Safe to run twice: the service
    claims the flag, and a finished one is left alone."""
    return services_price_change_delivery.price_change_assess_and_notify(flag_id=flag_id).value


@shared_task
def price_changes_redrive_pending_task() -> int:
    """Re-send price changes whose impact or notices are still pending after a minute (beat,
    every minute): a lost message or a failed run only delays the notices."""
    return services_price_change_delivery.price_changes_redrive_pending()
