"""Thin Celery tasks: unpack ids, call one service. Idempotency lives in the services."""

from __future__ import annotations

from celery import shared_task

from procurement import services_system


@shared_task(acks_late=True, reject_on_worker_lost=True)
def worker_probe_complete_task(probe_id: int) -> None:
    services_system.worker_probe_complete(probe_id=probe_id)
