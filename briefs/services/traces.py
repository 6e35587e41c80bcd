"""Request traces on a brief: upload (kept as sent, read on a worker) and the read itself.

The upload stores the file and answers at once; a Celery worker reads it (``briefs.trace_files``,
streamed) with the claim/heartbeat pattern of every background job (core.jobs), so a duplicate
delivery never reads twice and a dead worker's read is taken over by the beat's re-drive. A file
that cannot be read ends FAILED with the reason and line; nothing of it is used.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import numpy as np
from django.conf import settings
from django.core.files import File
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from briefs import access
from briefs.models import TrafficTrace, WorkloadBrief
from briefs.trace_files import TraceFile, TraceFileError, read_trace
from core import jobs
from core.audit import audit_record
from core.errors import Conflict, DomainError, NotAllowed
from core.roles import has_role

logger = logging.getLogger(__name__)

READ_TASK = "briefs.tasks.traffic_trace_read_task"
MINUTE_S = 60.0
SIZE_SAMPLES = 2000  # as benchmarks.distributions keeps of an upload's requests
PENDING_GRACE = timedelta(minutes=5)
GIVE_UP_AFTER = timedelta(hours=2)


def _require_uploader(user: User) -> None:
    if not has_role(user, *access.TRACE_UPLOADERS):
        raise NotAllowed(
            "Only a procurement lead, a platform engineer or an admin can upload traffic traces."
        )


def traffic_trace_upload(
    *, brief: WorkloadBrief, upload: File[bytes], window: str, acting_user: User
) -> TrafficTrace:
    """Keep the file and queue its read; the same file for the same window is refused."""
    _require_uploader(acting_user)
    if window not in TrafficTrace.Window.values:
        raise DomainError(
            "Say which window the trace represents: an hour, a day, a week or the busiest hour.",
            fields={"window": ["Choose a window."]},
        )
    size = upload.size or 0
    limit = settings.TRACE_UPLOAD_MAX_BYTES
    if size > limit:
        raise DomainError(
            f"The file is {size:,} bytes; the limit is {limit:,}. Upload a shorter window.",
            fields={"file": ["File too large."]},
        )
    sha = hashlib.sha256()
    for chunk in upload.chunks():
        sha.update(chunk)
    upload.seek(0)
    digest = sha.hexdigest()
    try:
        with transaction.atomic():
            trace = TrafficTrace.objects.create(
                brief=brief,
                uploaded_by=acting_user,
                window=window,
                raw_file=upload,
                original_name=(upload.name or "trace")[:255],
                sha256=digest,
                size_bytes=size,
            )
            audit_record(
                actor=acting_user,
                action="traffic_trace.uploaded",
                obj=trace,
                summary={"brief": brief.pk, "file": trace.original_name, "sha256": digest},
            )
            transaction.on_commit(partial(jobs.send_safely, READ_TASK, (trace.pk,)), robust=True)
    except IntegrityError as exc:
        raise Conflict("This file is already uploaded to this brief for the same window.") from exc
    return trace


def trace_summary(parsed: TraceFile) -> dict[str, Any]:
    """What the pages and the sizing know of a trace without reading it again."""
    trace = parsed.trace
    minute = ((trace.arrival_s - trace.arrival_s[0]) // MINUTE_S).astype(np.int64)
    per_minute = np.bincount(minute)
    mean = float(per_minute.mean())
    sizes = {
        f"{side}_p{q}": round(float(np.percentile(values, q)), 1)
        for side, values in (("input", trace.input_tokens), ("output", trace.output_tokens))
        for q in (50, 95, 99)
    }
    # An evenly spaced sample of the requests (the same ones every time): the sizes the
    # comparison's plan splits its request-size buckets with.
    picked = np.unique(
        np.linspace(0, trace.requests - 1, min(trace.requests, SIZE_SAMPLES)).astype(int)
    )
    return {
        **sizes,
        "request_sizes": {
            "input_tokens": trace.input_tokens[picked].tolist(),
            "output_tokens": trace.output_tokens[picked].tolist(),
            "requests": trace.requests,
        },
        "input_mean": round(float(trace.input_tokens.mean()), 1),
        "output_mean": round(float(trace.output_tokens.mean()), 1),
        "requests_per_minute": per_minute.tolist(),
        "peak_to_average": round(float(per_minute.max()) / mean, 3) if mean else None,
        "tenants": parsed.tenants,
        "notes": list(parsed.notes),
        "layout_words": parsed.layout_words,
    }


def _fail(trace_id: int, reason: str) -> None:
    unfinished = [TrafficTrace.Status.PENDING, TrafficTrace.Status.READING]
    with transaction.atomic():
        updated = TrafficTrace.objects.filter(pk=trace_id, status__in=unfinished).update(
            status=TrafficTrace.Status.FAILED, error=reason[:2000], progress=1.0
        )
        if updated:
            trace = TrafficTrace.objects.get(pk=trace_id)
            audit_record(
                actor=None,
                action="traffic_trace.read_failed",
                obj=trace,
                summary={"reason": reason[:500], "file": trace.original_name},
                outcome="failed",
            )


def traffic_trace_read(*, trace_id: int) -> TrafficTrace | None:
    """Read a stored trace (Celery). Safe to run twice; a failure ends FAILED with its reason."""
    statuses = TrafficTrace.Status
    attempt = jobs.claim(
        TrafficTrace, trace_id, waiting=statuses.PENDING, running=statuses.READING, progress=0.0
    )
    if attempt is None:
        return None
    trace = TrafficTrace.objects.get(pk=trace_id)
    try:
        with (
            jobs.heartbeat_while(TrafficTrace, trace_id, running=statuses.READING, attempt=attempt),
            trace.raw_file.open("rb") as handle,
        ):
            parsed = read_trace(
                handle,
                size=trace.size_bytes,
                progress=jobs.progress_writer(
                    TrafficTrace, trace_id, running=statuses.READING, attempt=attempt
                ),
            )
            summary = trace_summary(parsed)
    except TraceFileError as exc:
        _fail(trace_id, str(exc))
        return TrafficTrace.objects.get(pk=trace_id)
    except Exception as exc:  # a reader bug must not leave the row READING for ever
        logger.exception("Reading traffic trace %s failed", trace_id)
        _fail(trace_id, f"The file could not be read ({type(exc).__name__}).")
        return TrafficTrace.objects.get(pk=trace_id)
    with transaction.atomic():
        updated = TrafficTrace.objects.filter(
            pk=trace_id, status=statuses.READING, attempts=attempt
        ).update(
            status=statuses.READY,
            progress=1.0,
            error="",
            layout=parsed.layout,
            requests=parsed.trace.requests,
            span_s=parsed.trace.span_s,
            started_at=parsed.started_at,
            summary=summary,
            read_at=timezone.now(),
        )
        if updated:
            audit_record(
                actor=None,
                action="traffic_trace.read",
                obj=trace,
                summary={"requests": parsed.trace.requests, "layout": parsed.layout},
            )
    return TrafficTrace.objects.get(pk=trace_id)


def traffic_traces_redrive_stuck(*, now: datetime | None = None) -> int:
    """Re-enqueue traces whose read was lost or whose worker died (beat); how many."""
    now = now or timezone.now()
    statuses = TrafficTrace.Status
    unfinished = [statuses.PENDING, statuses.READING]
    for trace_id in TrafficTrace.objects.filter(
        status__in=unfinished, created_at__lt=now - GIVE_UP_AFTER
    ).values_list("pk", flat=True):
        _fail(trace_id, "The file was not read in time (the worker was lost repeatedly).")
    stuck = list(
        TrafficTrace.objects.filter(
            jobs.stale_claims(statuses.READING, now=now)
            | Q(status=statuses.PENDING, created_at__lt=now - PENDING_GRACE)
        ).values_list("pk", flat=True)
    )
    for trace_id in stuck:
        jobs.send_safely(READ_TASK, (trace_id,))
    return len(stuck)
