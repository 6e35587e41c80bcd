"""Thin Celery tasks of the catalog: the scheduled price refresh."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from catalog.services.import_jobs import import_job_run
from catalog.services.import_sources import import_configured_sources


@shared_task(acks_late=True, reject_on_worker_lost=True)
def catalog_import_refresh_task() -> list[dict[str, Any]]:
    """Fetch and import every configured public price file (beat, CATALOG_IMPORT_EVERY_HOURS).
    A repeat changes nothing when prices did not change; every outcome is audit-logged."""
    return import_configured_sources()


@shared_task(acks_late=True, reject_on_worker_lost=True)
def catalog_import_job_task(job_id: int) -> None:
    """Import one large price file stored as a job (only a queued job is claimed)."""
    import_job_run(job_id)
