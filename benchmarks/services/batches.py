"""Several result files at once (the files of one sweep), and what a file states before it is
uploaded.

Each file of a batch is ingested exactly as on its own (`benchmark_result_ingest`: its own
checks, transaction, stored file and audit event), so a refused file never loses the others:
the outcome of each is returned, in the order given.

`benchmark_upload_check` reads a file without storing anything, so the upload page can ask
for the precision (or the model) *before* the upload when a file does not state it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.files import File

from benchmarks import access, parsers
from benchmarks.errors import UploadRejected
from benchmarks.models import BenchmarkResult
from benchmarks.services.asked import upload_asks
from benchmarks.services.results import auto_precision, profile_for_name, stated_precision
from benchmarks.services.uploads import (
    UploadMeta,
    benchmark_result_ingest,
    checked_size,
    clean_filename,
    read_upload,
)
from core.roles import require_role
from core.values import finite_or_none

if TYPE_CHECKING:
    from accounts.models import User

# A sweep is a handful of load levels; a request with more is a mistake or a script's job
# (the batch API takes as many, one request per fifty).
MAX_FILES_PER_UPLOAD = 50


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """What became of one file of a batch: stored now, stored before, or refused (why)."""

    filename: str
    result: BenchmarkResult | None = None
    created: bool = False
    refusal: UploadRejected | None = None

    @property
    def status(self) -> str:
        if self.refusal is not None:
            return "refused"
        return "created" if self.created else "existing"

    def refusal_fields(self) -> dict[str, Any]:
        """Why the file was refused, as the page and the API answer it (empty if stored)."""
        refusal = self.refusal
        if refusal is None:
            return {}
        return {"detail": refusal.message, "code": refusal.code, "fields": refusal.fields}


def benchmark_results_ingest_many(
    *, acting_user: User, uploads: Sequence[File[bytes]], meta: UploadMeta
) -> list[FileOutcome]:
    """Ingest each file with the same candidate, sweep name and workload fields; one refused
    file (audited as on its own) leaves the others stored."""
    require_role(acting_user, *access.BENCHMARK_UPLOADERS)
    if not uploads:
        raise UploadRejected("Choose at least one result file.")
    if len(uploads) > MAX_FILES_PER_UPLOAD:
        raise UploadRejected(
            f"{len(uploads)} files at once: at most {MAX_FILES_PER_UPLOAD} can be uploaded "
            "together; send the rest in another upload under the same sweep name."
        )
    if len(uploads) > 1 and (meta.concurrency is not None or meta.request_rate is not None):
        # One value for several points would make a sweep of repetitions: each file its own.
        field = "concurrency" if meta.concurrency is not None else "request_rate"
        raise UploadRejected(
            "A concurrency or request rate given is one file's: with several files, leave it "
            "empty (each file states its own), or upload a file that does not state it on "
            "its own.",
            field=field,
        )
    outcomes = []
    for upload in uploads:
        try:
            ingested = benchmark_result_ingest(acting_user=acting_user, upload=upload, meta=meta)
        except UploadRejected as exc:
            name = clean_filename(getattr(upload, "name", None))
            outcomes.append(FileOutcome(name, refusal=exc))
        else:
            result = ingested.result
            outcomes.append(FileOutcome(result.original_name, result, ingested.created))
    return outcomes


@dataclass(frozen=True, slots=True)
class UploadCheck:
    """What a file states before it is uploaded, and what its upload would ask."""

    filename: str
    format_id: str
    format_name: str
    parsed: bool  # False for a file too large to read in the request: its format only
    model: str = ""
    precision: str = ""  # in the brief's vocabulary; "" when the file states none
    precision_note: str = ""  # where a precision not written as such came from
    concurrency: float | None = None
    request_rate: float | None = None
    asks: tuple[str, ...] = ()  # "model_profile", "precision": what the upload must give


def benchmark_upload_check(*, acting_user: User, upload: File[bytes]) -> UploadCheck:
    """Read one file as its upload would, store nothing, and say what it states (model,
    precision, load) and which fields its upload must give. Raises UploadRejected with the
    parser's reason for a file the upload would refuse."""
    require_role(acting_user, *access.BENCHMARK_UPLOADERS)
    filename = clean_filename(getattr(upload, "name", None))
    size = checked_size(upload)
    format_id, parsed = read_upload(upload, filename, size)
    name = parsers.FORMATS.get(format_id, format_id)
    if parsed is None:  # over the inline limit: parsed after its upload, asked on its page
        return UploadCheck(filename, format_id, name, parsed=False)
    precision, note = stated_precision(parsed), ""
    if not precision:
        profile = profile_for_name(parsed.model or "")
        if precision := auto_precision(parsed, profile):
            note = f"dtype auto: the published precision of {profile.name if profile else ''}"
    metrics = parsed.metrics
    return UploadCheck(
        filename,
        format_id,
        name,
        parsed=True,
        model=(parsed.model or "").strip()[:200],
        precision=precision,
        precision_note=note,
        concurrency=finite_or_none(metrics.concurrency),
        request_rate=finite_or_none(metrics.request_rate),
        asks=tuple(upload_asks(parsed)),
    )
