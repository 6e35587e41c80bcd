"""Running a comparison: claim the row, freeze its snapshot, compute outside any
transaction, write in batches.

Safe to deliver twice (acks_late + reject_on_worker_lost redeliver after a crash):

1. one conditional UPDATE claims the row (queued, or running with a claim older than
   `core.jobs.STALE_AFTER`) and increments `attempts`; 0 rows means someone else has it — no-op.
   A run refreshes its claim with every progress write (the engine reports progress at
   least every second or so), so a claim goes stale only when its worker died; the task
   then comes back when the claim would be stale (`comparison_deliver`) and takes over;
2. past `MAX_ATTEMPTS` the comparison fails ("gave up") instead of looping forever;
   a comparison not frozen yet is frozen from its chosen candidates (`freezing.py`; a
   choice that cannot be frozen any more fails with its reason), stored under the claim;
3. the engine runs outside a transaction, saving progress (and refreshing the claim) at
   most every `PROGRESS_EVERY_S`;
4. rows, result and status are written in one atomic block guarded by
   `filter(pk, status=RUNNING, attempts=<this claim>)`, so a duplicate or stale run that
   lost its claim writes nothing.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from benchmarks.services.plans import benchmark_candidates_compared
from core import jobs
from core.audit import audit_record
from core.errors import DomainError
from engine.errors import EngineInputError
from procurement import notifications
from procurement.models import CandidateResult, Comparison
from procurement.models.comparisons import refusal_key
from procurement.review_window import review_due_at
from procurement.services.calibration import calibration_entries_record
from procurement.services.comparisons.compute import Computed, compute
from procurement.services.comparisons.freezing import freeze_and_store

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
PROGRESS_EVERY_S = 0.5


class _Progress:
    """Throttled progress writer that also refreshes the claim (a heartbeat)."""

    def __init__(self, mine: QuerySet[Comparison]) -> None:
        self.mine = mine
        self.last = 0.0

    def __call__(self, fraction: float) -> None:
        now = time.monotonic()
        if now - self.last < PROGRESS_EVERY_S:
            return
        self.last = now
        self.mine.update(
            progress=round(min(0.99, max(0.0, fraction)), 4), claimed_at=timezone.now()
        )


def describe_error(exc: BaseException) -> str:
    """A message a lead can act on, not a traceback."""
    if isinstance(exc, EngineInputError):
        return f"The engine refused an input: {exc.field}: {exc.message}"
    if isinstance(exc, DomainError):  # the chosen candidates could not be frozen
        return f"The chosen candidates cannot be compared: {exc.message}"[:2000]
    if isinstance(exc, SoftTimeLimitExceeded):
        return "The computation took longer than the time limit and was stopped."
    return f"Unexpected error while computing ({type(exc).__name__}): {exc}"[:2000]


def claimer() -> str:
    """This process, as written into `claimed_by`."""
    return f"{socket.gethostname()}:{os.getpid()}"


def claim_state(claimed_by: str) -> str:
    """'dead', 'alive' or 'unknown' for the process named in `claimed_by`.

    Only this host's processes can be checked. A process is dead when it is gone, a zombie,
    or this very process (a worker process runs one task at a time, so its earlier run
    ended without finishing)."""
    host, _, pid_text = claimed_by.rpartition(":")
    if host != socket.gethostname() or not pid_text.isdigit():
        return "unknown"
    pid = int(pid_text)
    if pid == os.getpid():
        return "dead"
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "dead"
    except (OSError, IndexError):
        return "unknown"  # no /proc here: cannot tell
    return "dead" if state in {"Z", "X"} else "alive"


def _claim(comparison_id: int, *, take_over_from: str = "") -> Comparison | None:
    """The kernel's claim (core.jobs, shared with benchmark parses), plus an early take-over
    of a claim whose process is known dead (docs/adr/0009-worker-liveness.md)."""
    dead = (
        Q(status=Comparison.Status.RUNNING, claimed_by=take_over_from) if take_over_from else None
    )
    attempt = jobs.claim(
        Comparison,
        comparison_id,
        waiting=Comparison.Status.QUEUED,
        running=Comparison.Status.RUNNING,
        stale_after=jobs.STALE_AFTER,
        take_over=dead,
        claimed_by=claimer(),
        progress=0.0,
        error="",
    )
    if attempt is None:
        return None
    return Comparison.objects.select_related("brief").get(pk=comparison_id)


def _fail(mine: QuerySet[Comparison], comparison: Comparison, message: str) -> None:
    with transaction.atomic():
        if mine.update(status=Comparison.Status.FAILED, error=message, finished_at=timezone.now()):
            audit_record(
                actor=None,
                action="comparison.failed",
                obj=comparison,
                summary={"error": message[:300], "attempts": comparison.attempts},
                outcome="error",
            )


def refused_by(row: dict[str, Any]) -> str:
    """What refused a computed row, stored with it so the record counts refusals in SQL."""
    return refusal_key(
        eligible=bool(row.get("eligible", True)),
        warnings=row.get("warnings"),
        reasons=row.get("reasons"),
    )


def commitment_usd(computed: Computed) -> Decimal | None:
    """The recommended row's commitment, as the engine states it (engine/commitment.py).

    Fixed capacity: the contract over its whole term (or the purchase price), whatever the
    horizon; elastic capacity and APIs: the expected vendor spend over the horizon.
    """
    row = next((r for r in computed.rows if r["key"] == computed.recommended_key), None)
    if row is None or row.get("total_usd") is None:
        return None
    value = row["detail"].get("commitment_usd")
    return None if value is None else Decimal(str(value)).quantize(Decimal("0.01"))


#: result rows per transaction: each batch first refreshes the claim (L12: 20,000 rows in one
#: 60-70 s transaction held the claim unrefreshed, vacuum back, and a re-driven copy waiting)
SAVE_BATCH = 2000


def _write_rows(mine: QuerySet[Comparison], comparison: Comparison, computed: Computed) -> bool:
    """The result rows in short transactions of SAVE_BATCH, each guarded by this run's claim
    (its UPDATE locks the comparison row, so a run that takes over waits for the batch, and
    this one stops at its next batch). False when the claim was lost: the run that holds it
    deletes every row, these included, before writing its own."""
    with transaction.atomic():
        if not mine.update(claimed_at=timezone.now()):
            return False
        CandidateResult.objects.filter(comparison_id=comparison.pk).delete()
    rows = computed.rows
    for start in range(0, len(rows), SAVE_BATCH):
        with transaction.atomic():
            if not mine.update(claimed_at=timezone.now()):
                return False
            CandidateResult.objects.bulk_create(
                [
                    CandidateResult(comparison_id=comparison.pk, refused_by=refused_by(row), **row)
                    for row in rows[start : start + SAVE_BATCH]
                ],
                batch_size=500,
            )
    return True


def _save(mine: QuerySet[Comparison], comparison: Comparison, computed: Computed) -> bool:
    commitment = commitment_usd(computed)
    threshold = Decimal(settings.DUAL_APPROVAL_THRESHOLD_USD)
    approvals = 2 if commitment is not None and commitment > threshold else 1
    if not _write_rows(mine, comparison, computed):
        return False
    finished = timezone.now()  # after the rows: the stored duration is the time to ready
    with transaction.atomic():
        won = mine.update(
            status=Comparison.Status.READY,
            progress=1.0,
            result=computed.result,
            recommended_key=computed.recommended_key,
            engine_version=computed.engine_version,
            finished_at=finished,
            review_due_at=review_due_at(finished, settings.REVIEW_WINDOW_BUSINESS_DAYS),
            required_approvals=approvals,
            commitment_usd=commitment,
            error="",
            stored_candidate_count=len(computed.rows),
        )
        if not won:
            return False
        calibration_entries_record(comparison=comparison, rows=computed.rows)
        audit_record(
            actor=None,
            action="comparison.computed",
            obj=comparison,
            summary={
                "candidates": len(computed.rows),
                "recommended": computed.recommended_key,
                "required_approvals": approvals,
                "commitment_usd": str(commitment),
                "attempt": comparison.attempts,
            },
        )
        # After commit, and never able to undo the result: reviewers are told the comparison
        # awaits them, and the benchmarks app learns which candidates now have a row (its
        # plans re-judge their "one row per candidate" step). robust=True logs a failure
        # instead of raising it into the worker.
        quote_ids = [row["quote_id"] for row in computed.rows if row.get("quote_id")]
        transaction.on_commit(
            partial(notifications.notify_comparison_ready, comparison), robust=True
        )
        transaction.on_commit(
            partial(
                benchmark_candidates_compared, brief_id=comparison.brief_id, quote_ids=quote_ids
            ),
            robust=True,
        )
    return True


def comparison_run(*, comparison_id: int, take_over_from: str = "") -> Comparison | None:
    """Compute one comparison if this call can claim it; None when there was nothing to do.

    `take_over_from`: the `claimed_by` of a run known to be dead, whose claim may be taken
    although it still looks fresh.
    """
    comparison = _claim(comparison_id, take_over_from=take_over_from)
    if comparison is None:
        logger.info("comparison %s: nothing to do (finished or claimed elsewhere)", comparison_id)
        return None
    mine = Comparison.objects.filter(
        pk=comparison_id, status=Comparison.Status.RUNNING, attempts=comparison.attempts
    )
    if comparison.attempts > MAX_ATTEMPTS:
        _fail(mine, comparison, f"Gave up after {MAX_ATTEMPTS} attempts.")
        comparison.refresh_from_db()
        return comparison
    try:
        if not comparison.snapshot and not freeze_and_store(comparison, mine):
            logger.info("comparison %s: lost its claim while freezing", comparison_id)
            comparison.refresh_from_db()
            return comparison
        computed = compute(
            comparison.snapshot,
            seed=comparison.seed,
            samples=comparison.samples,
            progress=_Progress(mine),
            plan_time_limit=settings.MIXED_PLAN_TIME_LIMIT_S,
        )
        saved = _save(mine, comparison, computed)
    except Exception as exc:  # every failure is recorded on the row, readable
        logger.exception("comparison %s failed", comparison_id)
        _fail(mine, comparison, describe_error(exc))
    else:
        if not saved:
            logger.info("comparison %s: lost its claim; results discarded", comparison_id)
    comparison.refresh_from_db()
    return comparison


def comparison_deliver(*, comparison_id: int) -> float | None:
    """One task delivery: run the comparison, or say how long to wait before trying again.

    Returns None when there is nothing more to do (computed now, or already finished), or
    the seconds until the claim of a run still in progress would go stale: a redelivery
    after a crash (acks_late + reject_on_worker_lost) must not be dropped while the dead
    run's claim looks fresh, and a duplicate of a live run must not run it twice. On the
    claiming process's own host the answer is immediate: a dead claimer is taken over at
    once, a live one makes this delivery a no-op.
    """
    if comparison_run(comparison_id=comparison_id) is not None:
        return None
    row = (
        Comparison.objects.filter(pk=comparison_id, status=Comparison.Status.RUNNING)
        .values_list("claimed_at", "claimed_by")
        .first()
    )
    if row is None:
        return None
    claimed_at, claimed_by = row
    if claimed_at is None:  # the claim sets both status and claimed_at
        raise RuntimeError(f"comparison {comparison_id} is running but was never claimed")
    state = claim_state(claimed_by) if claimed_by else "unknown"
    if state == "alive":
        return None  # a live process runs it; should it die, its own message comes back
    if state == "dead":
        logger.warning("comparison %s: %s died mid-run; taking over", comparison_id, claimed_by)
        if comparison_run(comparison_id=comparison_id, take_over_from=claimed_by) is not None:
            return None
    stale_at = claimed_at + jobs.STALE_AFTER
    return max(1.0, (stale_at - timezone.now()).total_seconds() + 1.0)
