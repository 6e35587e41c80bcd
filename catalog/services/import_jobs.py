"""Large price files imported by a worker, with progress.

`import_job_create` stores the file and queues `catalog_import_job_task` once the transaction
commits; `import_job_run` (the task) claims the job, runs the same `catalog_import` and records
progress between its stages and the outcome or the row errors. Running a job twice is
harmless: only a queued job is claimed.
"""

from __future__ import annotations

import logging
from datetime import date
from typing import Any

from django.db import transaction
from django.utils import timezone
from kombu.exceptions import KombuError

from accounts.models import Provider
from catalog import access
from catalog.errors import ImportRejected
from catalog.models import CatalogImportJob
from catalog.services.imports import catalog_import
from core import jobs
from core.audit import audit_record
from core.errors import DomainError
from core.roles import require_role

logger = logging.getLogger(__name__)
BACKGROUND_FROM_BYTES = 2_000_000  # the import page hands larger files to a worker


def _send(job_id: int) -> None:
    try:
        jobs.send("catalog.tasks.catalog_import_job_task", (job_id,), retry=True)
    except (KombuError, OSError) as exc:  # the job stays queued; the page says so
        logger.warning("catalog import job %s not sent, broker unavailable: %s", job_id, exc)


@transaction.atomic
def import_job_create(
    *,
    acting_user: Any,
    kind: str,
    data: bytes,
    filename: str,
    captured_on: date,
    provider: Provider | None = None,
    only_providers: list[Provider] | None = None,
    all_or_nothing: bool | None = None,
) -> CatalogImportJob:
    require_role(acting_user, *access.CATALOG_WRITERS)
    job = CatalogImportJob.objects.create(
        kind=kind,
        filename=filename[:200],
        data=data,
        captured_on=captured_on,
        provider=provider,
        only_providers=[p.slug for p in only_providers or []],
        all_or_nothing=all_or_nothing,
        created_by=acting_user,
        stage="waiting for a worker",
    )
    audit_record(
        actor=acting_user,
        action="catalog.import_queued",
        obj=job,
        summary={"kind": kind, "filename": job.filename, "bytes": len(data)},
    )
    transaction.on_commit(lambda: _send(job.pk))
    return job


def import_job_run(job_id: int) -> None:
    """Run a queued job (a repeat delivery finds it claimed and does nothing)."""
    claimed = CatalogImportJob.objects.filter(
        pk=job_id, status=CatalogImportJob.Status.QUEUED
    ).update(status=CatalogImportJob.Status.RUNNING, stage="starting", progress=0.05)
    if not claimed:
        return
    job = CatalogImportJob.objects.select_related("provider", "created_by").get(pk=job_id)

    def progress(fraction: float, stage: str) -> None:
        CatalogImportJob.objects.filter(pk=job_id).update(progress=fraction, stage=stage[:120])

    finished: dict[str, Any] = {"finished_at": timezone.now(), "data": b"", "progress": 1.0}
    try:
        outcome = catalog_import(
            acting_user=job.created_by,
            kind=job.kind,
            data=bytes(job.data),
            filename=job.filename,
            captured_on=job.captured_on,
            provider=job.provider,
            only_providers=list(Provider.objects.filter(slug__in=job.only_providers)) or None,
            all_or_nothing=job.all_or_nothing,
            progress=progress,
        )
    except ImportRejected as exc:
        finished.update(status=CatalogImportJob.Status.FAILED, stage=str(exc), errors=exc.errors)
    except DomainError as exc:
        finished.update(status=CatalogImportJob.Status.FAILED, stage=str(exc)[:120])
    else:
        finished.update(
            status=CatalogImportJob.Status.DONE, stage="done", outcome=outcome.as_dict()
        )
    finished["stage"] = str(finished["stage"])[:120]
    CatalogImportJob.objects.filter(pk=job_id).update(**finished)
