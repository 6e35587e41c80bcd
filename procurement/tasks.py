"""Thin Celery tasks: unpack ids, call one service. Idempotency lives in the services."""

from __future__ import annotations

from celery import shared_task

from procurement import services_comparisons, services_system


@shared_task(acks_late=True, reject_on_worker_lost=True)
def worker_probe_complete_task(probe_id: int) -> None:
    services_system.worker_probe_complete(probe_id=probe_id)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def comparison_run_task(comparison_id: int) -> None:
    """Run the engine for one comparison. Safe to run twice: the service claims the row."""
    services_comparisons.comparison_run(comparison_id=comparison_id)


@shared_task
def comparisons_redrive_stuck_task() -> int:
    """Re-send comparisons stuck in queued/running (beat, every minute)."""
    return services_comparisons.comparisons_redrive_stuck(
        older_than=services_comparisons.STALE_AFTER
    )
