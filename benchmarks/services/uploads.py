"""Uploading a benchmark result file: validate, keep the raw file, parse now or on a worker.

Nothing is saved half-way: the file is checked (format detected, small files parsed in full)
before a byte is stored; the row, the stored file and the audit event are written together,
and the stored file is removed again if that transaction fails. A refused upload is still
audit-logged, outside any transaction that could be rolled back.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from dataclasses import dataclass
from functools import partial
from pathlib import PurePath
from typing import Any

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.db.models import Case, F, Sum, Value, When
from django.db.models.functions import Least

from accounts.models import User
from benchmarks import access, parsers
from benchmarks.errors import UploadRejected, UploadTooLarge
from benchmarks.models import BenchmarkResult, Phase
from benchmarks.parsers.errors import ParseError
from benchmarks.parsers.types import ParsedResult
from benchmarks.services.asked import check_asked
from benchmarks.services.load import check_given_load, check_values
from benchmarks.services.plans import benchmark_plans_refresh_for_result
from benchmarks.services.results import FAILED_KEEP_BYTES, PARSE_TASK, apply_parsed, scrub
from benchmarks.upload_handlers import too_large_message, upload_cap_bytes
from core import jobs
from core.audit import audit_record
from core.roles import require_role

# Files up to this size are parsed in the request (the journey "drop a file, see charts at
# once"); larger ones are checked cheaply here and parsed by a Celery worker.
DEFAULT_INLINE_PARSE_MAX_BYTES = 5 * 1000 * 1000
_EXTENSION = re.compile(r"^\.[a-z0-9]{1,10}$")
_LOCK_SALT = 727_100


@dataclass(frozen=True, slots=True)
class UploadMeta:
    """What no benchmark tool records: the candidate, its GPUs and how it was served."""

    quote: Any = None
    accelerator: Any = None
    gpu_count: int | None = 1  # GPUs serving the run; none for a hosted API
    # A run against a hosted model API (catalog.ModelApiRoute): no quote, no accelerator.
    api_route: Any = None
    brief: Any = None
    phase: int = Phase.THROUGHPUT_LATENCY
    serving_engine: str = ""
    parallelism: str = ""
    notes: str = ""
    sweep: str = ""  # files of one sweep share it (selectors.evidence_results_for)
    model_profile: Any = None  # asked only when the file does not say which model it measured
    precision: str = ""  # asked only when the file does not state it (services/asked.py)
    engine_version: str = ""  # no serving tool records it reliably (FORMATS.md)
    # Used only when the file does not state them (services/load.py): AIPerf's CSV does not.
    concurrency: float | None = None
    request_rate: float | None = None


@dataclass(frozen=True, slots=True)
class IngestOutcome:
    result: BenchmarkResult
    created: bool


def inline_parse_max_bytes() -> int:
    return int(
        getattr(settings, "BENCHMARK_INLINE_PARSE_MAX_BYTES", DEFAULT_INLINE_PARSE_MAX_BYTES)
    )


def clean_filename(name: str | None) -> str:
    """The original file name as shown to people (no path, no NUL, at most 255 characters)."""
    base = PurePath(str(name or "upload").replace("\\", "/")).name.replace("\x00", "") or "upload"
    if len(base) > 255:
        suffix = PurePath(base).suffix[:20]
        base = base[: 255 - len(suffix)] + suffix
    return base


def _stored_name(filename: str) -> str:
    suffix = PurePath(filename).suffix.lower()
    return uuid.uuid4().hex + (suffix if _EXTENSION.match(suffix) else "")


def benchmark_upload_rejected(
    *, acting_user: User, filename: str, size: int | None, reason: str, code: str
) -> None:
    """Audit a refused upload (no row exists; the event names the file and the reason)."""
    audit_record(
        actor=acting_user,
        action="benchmark_result.rejected",
        object_type="benchmarks.benchmarkresult",
        summary={"file": filename, "size_bytes": size, "reason": reason[:1000], "code": code},
        outcome="rejected",
    )


def benchmark_upload_too_large(*, acting_user: User, size: int | None) -> UploadTooLarge:
    """Audit an upload stopped at the size cap (before or while its body streamed in)."""
    exc = UploadTooLarge(too_large_message(size))
    benchmark_upload_rejected(
        acting_user=acting_user, filename="", size=size, reason=exc.message, code=exc.code
    )
    return exc


def _candidate(meta: UploadMeta) -> tuple[Any, Any]:
    quote, accelerator = meta.quote, meta.accelerator
    if meta.api_route is not None:
        if quote is not None or accelerator is not None:
            raise UploadRejected(
                "A run against a hosted API names its API route alone: leave the quote and "
                "the accelerator empty (or choose them, and no API route, for a run on GPUs).",
                field="api_route",
            )
        if meta.gpu_count is not None and meta.gpu_count != 1:  # 1 is the default only
            raise UploadRejected(
                "A hosted API runs on the provider's GPUs: leave the GPU count empty.",
                field="gpu_count",
            )
        return None, None
    if quote is None and accelerator is None:
        raise UploadRejected(
            "Choose the quote the benchmark ran on, or at least its accelerator.", field="quote"
        )
    if quote is not None and accelerator is not None and quote.accelerator_id != accelerator.pk:
        raise UploadRejected(
            f"The quote is for {quote.accelerator}, not {accelerator}: pick one that matches "
            "(or leave the accelerator empty).",
            field="accelerator",
        )
    if not isinstance(meta.gpu_count, int) or meta.gpu_count < 1:
        raise UploadRejected("GPU count must be a whole number of at least 1.", field="gpu_count")
    return quote, (accelerator if accelerator is not None else quote.accelerator)


def checked_size(upload: File[bytes]) -> int:
    """The file's size, refused when it is over the cap or empty."""
    size = int(upload.size or 0)
    if size > upload_cap_bytes():
        raise UploadTooLarge(too_large_message(size))
    if size == 0:
        raise UploadRejected("The file is empty.")
    return size


def _digest(upload: File[bytes]) -> str:
    sha = hashlib.sha256()
    upload.seek(0)
    for chunk in upload.chunks():
        sha.update(chunk)
    upload.seek(0)
    return sha.hexdigest()


def _existing(user: User, digest: str, quote: Any, accelerator: Any, meta: UploadMeta) -> Any:
    return (
        BenchmarkResult.objects.filter(
            uploaded_by=user,
            sha256=digest,
            quote=quote,
            accelerator=accelerator,
            api_route=meta.api_route,
            brief=meta.brief,
        )
        .exclude(status=BenchmarkResult.Status.FAILED)  # Uploading again after a failure
        .order_by("id")
        .first()
    )


def _lock(user: User, digest: str) -> None:
    """Serialise identical uploads by one user (PostgreSQL), so a double submit makes one row."""
    if connection.vendor != "postgresql":
        return
    key = int(digest[:15], 16) ^ (int(user.pk) * _LOCK_SALT)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def read_upload(upload: File[bytes], filename: str, size: int) -> tuple[str, ParsedResult | None]:
    """Detect the format; parse in full when small. Raises UploadRejected with the reason.

    A large file is not read here beyond its first ``parsers.HEAD_BYTES``: the worker parses it.
    """
    inline = size <= inline_parse_max_bytes()
    upload.seek(0)
    data = upload.read() if inline else upload.read(parsers.HEAD_BYTES)
    upload.seek(0)
    try:
        if inline:
            parsed = parsers.parse(data, filename)
            return parsed.format_id, parsed
        format_id = parsers.detect(data, filename, partial=size > len(data))
    except ParseError as exc:
        raise UploadRejected(exc.message) from exc
    if not format_id:
        raise UploadRejected("The file's format was not recognised.")
    return str(format_id), None


def _store(
    *,
    user: User,
    upload: File[bytes],
    filename: str,
    size: int,
    digest: str,
    format_id: str,
    parsed: ParsedResult | None,
    quote: Any,
    accelerator: Any,
    meta: UploadMeta,
) -> IngestOutcome:
    stored = ""
    try:
        with transaction.atomic():
            _lock(user, digest)
            if existing := _existing(user, digest, quote, accelerator, meta):
                return IngestOutcome(existing, created=False)
            result = BenchmarkResult(
                uploaded_by=user,
                quote=quote,
                accelerator=accelerator,
                api_route=meta.api_route,
                gpu_count=None if meta.api_route is not None else meta.gpu_count,
                brief=meta.brief,
                phase=meta.phase,
                model_profile=meta.model_profile,
                precision=meta.precision,
                engine_version=scrub(meta.engine_version).strip()[:60],
                serving_engine=scrub(meta.serving_engine)[:60],
                parallelism=scrub(meta.parallelism)[:60],
                notes=scrub(meta.notes),
                sweep=scrub(meta.sweep).strip()[:100],
                concurrency=meta.concurrency,
                request_rate=meta.request_rate,
                original_name=filename,
                sha256=digest,
                size_bytes=size,
                format_id=format_id,
            )
            result.raw_file.save(_stored_name(filename), upload, save=False)
            stored = result.raw_file.name or ""
            if parsed is not None:
                apply_parsed(result, parsed)
            result.save()
            audit_record(
                actor=user,
                action="benchmark_result.uploaded",
                obj=result,
                summary={
                    "file": filename,
                    "sha256": digest,
                    "size_bytes": size,
                    "format": format_id,
                    "parsed": parsed is not None,
                },
            )
            if parsed is not None:
                benchmark_plans_refresh_for_result(result)
            else:
                # A broker outage leaves the row PENDING with its file (the beat re-drive
                # sends it later); it never turns the committed upload into a 500.
                # Robust: nothing raised after the commit can reach the except below.
                transaction.on_commit(
                    partial(jobs.send_safely, PARSE_TASK, (result.pk,)), robust=True
                )
    except BaseException:
        if stored:  # only an uncommitted row's file: nothing raises once the row committed
            default_storage.delete(stored)
        raise
    return IngestOutcome(result, created=True)


def stored_bytes(user: User) -> int:
    """Bytes of benchmark files kept for `user`: whole files, and the head of failed ones."""
    kept = Case(
        When(status=BenchmarkResult.Status.FAILED, then=Least(F("size_bytes"), FAILED_KEEP_BYTES)),
        default=F("size_bytes"),
    )
    total = BenchmarkResult.objects.filter(uploaded_by=user).aggregate(
        total=Sum(kept, default=Value(0))
    )["total"]
    return int(total)


def _check_quota(user: User, size: int) -> None:
    """L7: one uploader's files may not fill the disk the database shares."""
    quota = int(settings.BENCHMARK_UPLOAD_QUOTA_BYTES)
    used = stored_bytes(user)
    if used + size > quota:
        mb = 1000 * 1000
        raise UploadTooLarge(
            f"Your benchmark files already take {used / mb:,.1f} MB of your "
            f"{quota / mb:,.1f} MB quota; this {size / mb:,.1f} MB file would pass it. "
            "Ask an administrator to remove old results or raise BENCHMARK_UPLOAD_QUOTA_BYTES."
        )


def _ingest(user: User, upload: File[bytes], filename: str, meta: UploadMeta) -> IngestOutcome:
    quote, accelerator = _candidate(meta)
    check_values(concurrency=meta.concurrency, request_rate=meta.request_rate)
    size = checked_size(upload)
    _check_quota(user, size)
    digest = _digest(upload)
    if existing := _existing(user, digest, quote, accelerator, meta):
        audit_record(
            actor=user,
            action="benchmark_result.upload_duplicate",
            obj=existing,
            summary={"file": filename, "sha256": digest},
            outcome="duplicate",
        )
        return IngestOutcome(existing, created=False)
    format_id, parsed = read_upload(upload, filename, size)
    if parsed is not None:
        check_given_load(parsed, concurrency=meta.concurrency, request_rate=meta.request_rate)
        check_asked(
            parsed,
            model_profile=meta.model_profile,
            precision=meta.precision,
            hosted=meta.api_route is not None,
        )
    return _store(
        user=user,
        upload=upload,
        filename=filename,
        size=size,
        digest=digest,
        format_id=format_id,
        parsed=parsed,
        quote=quote,
        accelerator=accelerator,
        meta=meta,
    )


def benchmark_result_ingest(
    *, acting_user: User, upload: File[bytes], meta: UploadMeta
) -> IngestOutcome:
    """Accept one result file for a candidate, or refuse it with the reason (nothing stored).

    Identical bytes uploaded again by the same user for the same candidate and brief return
    the existing result (`created=False`).
    """
    require_role(acting_user, *access.BENCHMARK_UPLOADERS)
    filename = clean_filename(getattr(upload, "name", None))
    try:
        return _ingest(acting_user, upload, filename, meta)
    except UploadRejected as exc:
        benchmark_upload_rejected(
            acting_user=acting_user,
            filename=filename,
            size=getattr(upload, "size", None),
            reason=exc.message,
            code=exc.code,
        )
        raise
