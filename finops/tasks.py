"""Thin Celery tasks of the FinOps app: unpack the id, call one service."""

from __future__ import annotations

from celery import shared_task

from finops.services import (
    IMPORT_TIME_LIMIT_S,
    billing_import_run,
    billing_imports_redrive_stuck,
)


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=IMPORT_TIME_LIMIT_S,
    time_limit=IMPORT_TIME_LIMIT_S + 30,
)
def billing_import_run_task(import_id: int) -> None:
    """Read an imported bill. Safe to run twice: the service claims the row."""
    billing_import_run(import_id=import_id)


@shared_task
def billing_imports_redrive_stuck_task() -> int:
    """Periodic: re-send imports whose message was lost or whose worker died."""
    return billing_imports_redrive_stuck()
