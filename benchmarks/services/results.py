"""Applying a parsed file to its result row, and the Celery-side parse of large files.

A parse is idempotent: it claims a PENDING (or redelivered PARSING) row, parses outside any
transaction (progress rows are committed as it goes, at most every ~0.5 s), then writes the
final state in one atomic block only if the row is still PARSING.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import time
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import numpy as np
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from benchmarks import parsers
from benchmarks.distributions import distributions_for
from benchmarks.models import BenchmarkResult
from benchmarks.parsers.errors import ParseError
from benchmarks.parsers.types import ParsedResult
from benchmarks.services.load import apply_given_load
from benchmarks.services.plans import benchmark_plans_refresh_for_result
from benchmarks.workload import WORKLOAD_FIELDS
from catalog.model_names import (
    ProfileNames,
    precision_from_word,
    precision_in_name,
    resolve_model,
)
from catalog.models import ModelProfile
from core import jobs
from core.audit import audit_record
from core.values import finite_or_none
from engine.evidence import same_model_name

logger = logging.getLogger(__name__)

PROGRESS_INTERVAL_S = 0.5
HEARTBEAT_EVERY_S = 5.0  # the claim is refreshed at least this often while progress is reported
_READ, _PARSE_END, _DIST_END = 0.05, 0.9, 0.97

PARSE_TASK = "benchmarks.tasks.benchmark_result_parse_task"


def scrub(value: Any) -> Any:
    """Drop NUL characters (PostgreSQL text and jsonb refuse them) from nested JSON data."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(v) for v in value]
    return value


def metrics_json(parsed: ParsedResult) -> dict[str, Any]:
    """The stored `metrics`: the parser's normalised Metrics, plus the file's other runs."""
    data = parsed.to_dict()
    out = dict(data["metrics"])
    out["request_count"] = data["request_count"]
    out["extra"] = data["extra"]
    if data["operating_points"]:
        out["operating_points"] = data["operating_points"]
    if data["runs"]:
        out["runs"] = [
            {"metrics": run["metrics"], "extra": run["extra"], "notes": run["notes"]}
            for run in data["runs"]
        ]
    cleaned: dict[str, Any] = scrub(out)
    return cleaned


_PARALLEL = re.compile(r"\b(tp|pp)\s*[=:]?\s*(\d+)", re.IGNORECASE)
# Keys a file (or a vLLM `--metadata KEY=VALUE`) may state the weights' precision under, the
# most specific first: a quantisation method says more than the activations' dtype.
# SGLang's server arguments are kept as `server_<key>`, a GenAI-Perf / AIPerf input config's
# as `config_<key>` (benchmarks/parsers/_input_config.py).
PRECISION_KEYS = (
    "precision",
    "config_precision",
    "quantization",
    "config_quantization",
    "server_quantization",
    "weight_precision",
    "config_weight_precision",
    "dtype",
    "config_dtype",
    "server_dtype",
)
AUTO_NOTE = (
    "The file says dtype auto: the server ran the weights as published, so the precision is "
    "the model profile's published one ({precision}, {profile})."
)
ENGINE_VERSION_KEYS = ("engine_version", "serving_engine_version", "server_version")


def stated_precision(parsed: ParsedResult) -> str:
    """The precision the file states, in the brief's vocabulary ("" when it does not): a
    precision/quantization/dtype key, else the quantisation suffix of its model name
    (``…-Instruct-FP8`` → fp8). 'auto' or an unknown word states nothing. When an input
    config names several models, their suffixes must agree: mixed precisions state none."""
    extra = parsed.extra or {}
    for key in PRECISION_KEYS:
        if word := precision_from_word(extra.get(key)):
            return word
    names = [parsed.model or ""]
    if isinstance(listed := extra.get("config_model_names"), str):
        names += listed.split(",")
    stated = {precision_in_name(name.strip()) for name in names if name.strip()}
    return stated.pop() if len(stated) == 1 else ""


def stated_gpus(parsed: ParsedResult) -> int | None:
    """The GPUs the file states its throughput was measured on (an MLPerf row's accelerators
    per node × nodes; None when it states no throughput or no GPU count)."""
    metrics = parsed.metrics
    serves = metrics.output_tokens_per_s is not None or metrics.request_throughput_rps is not None
    gpus = metrics.gpus
    return int(gpus) if serves and isinstance(gpus, int) and gpus > 0 else None


def says_auto(parsed: ParsedResult) -> bool:
    """The file states only `dtype: auto` (the server kept the checkpoint's own precision)."""
    extra = parsed.extra or {}
    return not stated_precision(parsed) and any(
        str(extra.get(key) or "").strip().lower() == "auto" for key in PRECISION_KEYS
    )


def profile_for_name(named: str) -> ModelProfile | None:
    """The model profile a file's model name means (None when no single one does)."""
    if not named.strip():
        return None
    bound = resolve_model(named, profile_names()).profile_id
    return None if bound is None else ModelProfile.objects.filter(pk=bound).first()


def auto_precision(parsed: ParsedResult, profile: ModelProfile | None) -> str:
    """What `dtype: auto` ran at: the profile's published precision ("" when not known)."""
    if profile is None or not says_auto(parsed):
        return ""
    return profile.published_precision or ""


def workload_fields(parsed: ParsedResult, parallelism: str = "") -> dict[str, Any]:
    """The workload a parse says it measured: token lengths (mean, and p95 from per-request
    data), concurrency or rate, precision, tensor/pipeline parallelism. None when unknown."""
    m = parsed.metrics
    out: dict[str, Any] = dict.fromkeys(WORKLOAD_FIELDS)
    samples = parsed.per_request
    if samples is not None and len(samples.input_tokens):
        ok = samples.success.astype(bool) if len(samples.success) else None
        for name, values in (("input", samples.input_tokens), ("output", samples.output_tokens)):
            arr = np.asarray(values, dtype=float)
            if ok is not None and ok.shape == arr.shape and ok.any():
                arr = arr[ok]
            arr = arr[np.isfinite(arr)]
            if arr.size:
                out[f"{name}_tokens_mean"] = float(arr.mean())
                out[f"{name}_tokens_p95"] = float(np.quantile(arr, 0.95))
    done = m.requests_completed
    if out["input_tokens_mean"] is None and done and m.input_tokens_total is not None:
        out["input_tokens_mean"] = m.input_tokens_total / done
    if out["output_tokens_mean"] is None and done and m.output_tokens_total is not None:
        out["output_tokens_mean"] = m.output_tokens_total / done
    out["concurrency"] = finite_or_none(m.concurrency)
    out["request_rate"] = finite_or_none(m.request_rate)
    out["precision"] = stated_precision(parsed)
    out["engine_version"] = ""
    extra = parsed.extra or {}
    # The engine only where the file says who served it (SGLang's server_info); a vLLM
    # file's `backend` is the request format, not the server (FORMATS.md §1.1.2).
    engine = extra.get("serving_engine")
    out["serving_engine"] = scrub(engine).strip()[:60] if isinstance(engine, str) else ""
    for key in ENGINE_VERSION_KEYS:
        value = extra.get(key)
        if isinstance(value, str | int | float) and str(value).strip():
            out["engine_version"] = scrub(str(value)).strip()[:60]
            break
    for which, degree in _PARALLEL.findall(parallelism or ""):
        out["tensor_parallel" if which.lower() == "tp" else "pipeline_parallel"] = int(degree)
    return out


def profile_names() -> list[ProfileNames]:
    """Every model profile with the names it answers to (slug, name, aliases)."""

    rows = ModelProfile.objects.values_list("pk", "slug", "name", "aliases")
    return [ProfileNames(pk, (slug, name, *(aliases or []))) for pk, slug, name, aliases in rows]


def _names_profile(named: str, profile: ModelProfile) -> bool:
    own = ProfileNames(profile.pk, (profile.slug, profile.name, *(profile.aliases or [])))
    return resolve_model(named, [own]).profile_id == profile.pk or any(
        same_model_name(named, known) for known in own.names
    )


def _bind_model(result: BenchmarkResult, named: str) -> None:
    """The model measured: the file's own name when it gives one, tied to the profile that
    name or one of its aliases means; else the model profile chosen at upload. A chosen
    profile that disagrees with the file's name is not used (the file is the evidence) and
    the notes say so."""
    profile = result.model_profile
    route = result.api_route if result.api_route_id is not None else None
    notes = list(result.parse_notes or [])
    if named:
        result.model_name = named
        bound = resolve_model(named, profile_names()).profile_id
        if profile is not None and not _names_profile(named, profile) and bound != profile.pk:
            notes.append(
                f"The file names its model ({named}); the model profile chosen at upload "
                f"({profile.name}) was not used."
            )
            result.model_profile = None
        if bound is None and route is not None and same_model_name(named, route.model_name):
            bound = route.model_profile_id  # the provider's own name for the route's model
        if bound is not None:
            result.model_profile_id = bound
    elif profile is not None:  # the row's model_profile says it was chosen at upload
        result.model_name = profile.name[:200]
    elif route is not None:  # a hosted API's run: the route names the model it serves
        result.model_name = route.model_name[:200]
        result.model_profile_id = route.model_profile_id
    else:
        result.model_name = ""
    result.parse_notes = notes


def apply_parsed(result: BenchmarkResult, parsed: ParsedResult) -> None:
    """Copy a parse into the row (not saved): metrics, discrepancies, notes, histograms, and
    the workload the file measured (only where the row does not say already)."""
    data = parsed.to_dict()
    given_precision = result.precision
    given_load = {"concurrency": result.concurrency, "request_rate": result.request_rate}
    for name, value in workload_fields(parsed, result.parallelism).items():
        if value not in (None, "") and getattr(result, name) in (None, ""):
            setattr(result, name, value)
    result.format_id = parsed.format_id
    result.tool_version = scrub(parsed.tool_version or "")[:60]
    result.metrics = metrics_json(parsed)
    result.discrepancies = scrub(data["discrepancies"])
    result.parse_notes = scrub(data["notes"])
    stated = stated_precision(parsed)
    if stated and given_precision and stated != given_precision:
        # A large file, checked only after the upload: the file is the evidence.
        result.precision = stated
        result.parse_notes.append(
            f"The file states precision {stated}; the precision given at upload "
            f"({given_precision}) was not used."
        )
    if (gpus := stated_gpus(parsed)) and result.gpu_count and gpus != result.gpu_count:
        # The file's throughput is its own system's: per-GPU figures divide by its GPUs.
        result.parse_notes.append(
            f"The file's result ran on {gpus} GPUs; the GPU count given at upload "
            f"({result.gpu_count}) was not used."
        )
        result.gpu_count = gpus
    apply_given_load(result, parsed, given_load)
    _bind_model(result, scrub(parsed.model or "").strip()[:200])
    profile = result.model_profile
    if not result.precision and profile and (published := auto_precision(parsed, profile)):
        result.precision = published
        result.parse_notes.append(AUTO_NOTE.format(precision=published, profile=profile.name))
    result.distributions = distributions_for(parsed.per_request)
    result.status = BenchmarkResult.Status.PARSED
    result.progress = 1.0
    result.error = ""
    result.parsed_at = timezone.now()


class ProgressWriter:
    """Saves progress to the row, throttled; each write commits at once (no transaction) and
    refreshes the parse's claim (a heartbeat, core.jobs)."""

    def __init__(
        self, result_id: int, *, attempt: int | None = None, interval_s: float = PROGRESS_INTERVAL_S
    ) -> None:
        self.result_id = result_id
        self.attempt = attempt
        self.interval_s = interval_s
        self.last_at: float | None = None
        self.last_value = 0.0

    def __call__(self, fraction: float, *, force: bool = False) -> None:
        now = time.monotonic()
        value = max(round(min(max(float(fraction), 0.0), 0.99), 4), self.last_value)
        if self.last_at is not None and not force:
            elapsed = now - self.last_at
            if elapsed < self.interval_s:
                return
            if value <= self.last_value and elapsed < HEARTBEAT_EVERY_S:
                return
        elif value <= self.last_value and self.last_at is not None:
            return
        jobs.heartbeat(
            BenchmarkResult,
            self.result_id,
            running=BenchmarkResult.Status.PARSING,
            attempt=self.attempt,
            progress=value,
        )
        self.last_at, self.last_value = now, value

    def scaled(self, start: float, end: float) -> Any:
        """A parser progress callback mapping its 0..1 onto [start, end] of the whole job."""
        return lambda fraction: self(start + (end - start) * float(fraction))


def _claim(result_id: int) -> int | None:
    """This parse's attempt number, or None (finished, or a live parse holds the claim: a
    duplicated delivery never parses in parallel)."""
    return jobs.claim(
        BenchmarkResult,
        result_id,
        waiting=BenchmarkResult.Status.PENDING,
        running=BenchmarkResult.Status.PARSING,
        progress=0.0,
    )


#: what a failed parse keeps of its file for diagnosis (L7): the head shows the format and
#: the first rows; keeping a 200 MB export per failed try filled the disk PostgreSQL shares.
FAILED_KEEP_BYTES = 64 * 1024


def _keep_head(result: BenchmarkResult) -> None:
    """Cut a failed result's stored file to its first FAILED_KEEP_BYTES (local storage)."""
    name = result.raw_file.name
    if not name:
        return
    try:
        path = result.raw_file.storage.path(name)
    except NotImplementedError:  # a remote storage: its own lifecycle rules apply
        return
    with contextlib.suppress(FileNotFoundError):
        if os.path.getsize(path) > FAILED_KEEP_BYTES:
            os.truncate(path, FAILED_KEEP_BYTES)


def _fail(result: BenchmarkResult, reason: str) -> BenchmarkResult:
    if result.size_bytes > FAILED_KEEP_BYTES:
        reason += f" Only the file's first {FAILED_KEEP_BYTES // 1024} KB are kept, for diagnosis."
    with transaction.atomic():
        unfinished = [BenchmarkResult.Status.PENDING, BenchmarkResult.Status.PARSING]
        updated = BenchmarkResult.objects.filter(pk=result.pk, status__in=unfinished).update(
            status=BenchmarkResult.Status.FAILED, error=scrub(reason), progress=1.0
        )
        if updated:
            audit_record(
                actor=None,
                action="benchmark_result.parse_failed",
                obj=result,
                summary={"reason": reason[:500], "file": result.original_name},
                outcome="failed",
            )
            # Only once FAILED is committed: a parse that still holds the file never sees it cut.
            transaction.on_commit(partial(_keep_head, result))
    result.refresh_from_db()
    return result


def benchmark_result_parse(*, result_id: int) -> BenchmarkResult | None:
    """Parse a stored file (Celery). Safe to run twice; a failure ends as FAILED with its reason.

    A parsed file is kept whole; a failed one keeps its first FAILED_KEEP_BYTES, for diagnosis.
    """

    attempt = _claim(result_id)
    if attempt is None:
        return None
    result = BenchmarkResult.objects.get(pk=result_id)
    progress = ProgressWriter(result_id, attempt=attempt)
    progress(0.01, force=True)
    # Reading a 200 MB file and building the histograms report no progress and can outlast
    # the stale-claim window: a side thread keeps the claim alive through both.
    keep_alive = partial(
        jobs.heartbeat_while,
        BenchmarkResult,
        result_id,
        running=BenchmarkResult.Status.PARSING,
        attempt=attempt,
    )
    try:
        with keep_alive(), result.raw_file.open("rb") as handle:
            data = handle.read()
        progress(_READ)
        parsed = parsers.parse(
            data, result.original_name, progress=progress.scaled(_READ, _PARSE_END)
        )
        progress(_PARSE_END)
        with keep_alive():
            apply_parsed(result, parsed)
        progress(_DIST_END)
    except ParseError as exc:
        return _fail(result, exc.message)
    except Exception as exc:  # a parser bug must not leave the row PARSING forever
        logger.exception("Parsing benchmark result %s failed", result_id)
        return _fail(result, f"The file could not be parsed ({type(exc).__name__}).")
    with transaction.atomic():
        fields = [
            "format_id",
            "tool_version",
            "model_name",
            "model_profile",
            "metrics",
            "discrepancies",
            "parse_notes",
            "distributions",
            "status",
            "progress",
            "error",
            "parsed_at",
            *WORKLOAD_FIELDS,
        ]
        values = {name: getattr(result, name) for name in fields}
        updated = BenchmarkResult.objects.filter(  # only while this attempt holds the claim
            pk=result_id, status=BenchmarkResult.Status.PARSING, attempts=attempt
        ).update(**values)
        if updated:
            audit_record(
                actor=None,
                action="benchmark_result.parsed",
                obj=result,
                summary={"format": result.format_id, "file": result.original_name},
            )
            benchmark_plans_refresh_for_result(result)
    return result


# A PENDING row whose message was lost (broker flushed, enqueue failed) is re-enqueued after
# this long; a PARSING row as soon as its claim is stale (its worker died: no heartbeat for
# core.jobs.STALE_AFTER); either is given up as FAILED after GIVE_UP_AFTER (a file that kills
# the worker every time must not loop).
PENDING_GRACE = timedelta(minutes=5)
GIVE_UP_AFTER = timedelta(hours=2)


def benchmark_results_redrive_stuck(*, now: datetime | None = None) -> int:
    """Re-enqueue results stuck in PENDING/PARSING (beat, every few minutes); returns how many.

    Safe with duplicates: the parse claims the row and writes only while it is PARSING.
    """

    now = now or timezone.now()
    statuses = BenchmarkResult.Status
    given_up = BenchmarkResult.objects.filter(
        status__in=[statuses.PENDING, statuses.PARSING], created_at__lt=now - GIVE_UP_AFTER
    )
    for result in given_up:
        _fail(result, "The file was not parsed in time (the worker was lost repeatedly).")
    stuck = list(
        BenchmarkResult.objects.filter(
            Q(status=statuses.PENDING, created_at__lt=now - PENDING_GRACE)
            | jobs.stale_claims(statuses.PARSING, now=now)
        ).values_list("pk", flat=True)
    )
    for result_id in stuck:
        transaction.on_commit(partial(jobs.send_safely, PARSE_TASK, (result_id,)))
    return len(stuck)
