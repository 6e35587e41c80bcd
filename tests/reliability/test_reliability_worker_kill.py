"""R-01: a REAL Celery worker (prefork, own process group) is SIGKILLed in the middle of a
comparison. After a restart the comparison completes exactly once, as attempt 2.

A7: "in the middle" is a barrier the test owns, not a race against the engine. The first
worker runs `tests.support.paused_worker`: at the first progress ≥ 0.2 its compute step
creates a flag file and blocks. The test waits for that file, so at the kill the row is
claimed (RUNNING, attempt 1) and no result is written, however fast the machine is. The
sizes are the test defaults.

The broker is a private redis-server with a 5 s visibility timeout and a 1 s restore sweep
(`CELERY_VISIBILITY_TIMEOUT`, `CELERY_UNACKED_RESTORE_INTERVAL`), so the unacknowledged
message comes back within seconds instead of an hour.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from core.models import AuditEvent
from procurement.models import CandidateResult, Comparison
from procurement.services.comparisons import comparison_create
from tests.reliability.factories_reliability import bulk_quotes, complete_brief
from tests.support import worker
from tests.support.paused_worker import PAUSE_FLAG_ENV
from tests.support.waiting import wait_until

CANDIDATES = 12
BARRIER_APP = "tests.support.paused_worker"

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]


def _status(pk: int) -> tuple[str, float, int]:
    return Comparison.objects.values_list("status", "progress", "attempts").get(pk=pk)


def _tail(*logs: Path) -> str:
    return "\n".join(f"--- {log.name}\n{log.read_text()[-3000:]}" for log in logs if log.exists())


def _queue_comparison(lead) -> Comparison:
    quotes = bulk_quotes(CANDIDATES, lead)
    queued = comparison_create(
        acting_user=lead,
        brief=complete_brief(lead),
        quote_ids=[q.pk for q in quotes],
        seed=99,
    )  # autocommit: the on-commit publish has happened when this returns
    comparison = queued.comparison
    assert queued.outcome is not None
    assert queued.outcome.sent is True
    return comparison


def _start_paused(log: Path, flag: Path):
    return worker.start_worker(
        log, app=BARRIER_APP, env={**worker.test_env(), PAUSE_FLAG_ENV: str(flag)}
    )


def _wait_for_barrier(comparison: Comparison, flag: Path, *logs: Path) -> None:
    """Until the paused worker says it is mid-run (the flag). The deadline only guards
    against a worker that never starts; finishing first is impossible, hence a failure."""

    def paused() -> bool:
        status = _status(comparison.pk)[0]
        assert status in (Comparison.Status.QUEUED, Comparison.Status.RUNNING), _tail(*logs)
        return flag.exists()

    assert wait_until(paused, 120), _tail(*logs)
    status, _, attempts = _status(comparison.pk)
    assert (status, attempts) == (Comparison.Status.RUNNING, 1)
    assert not CandidateResult.objects.filter(comparison=comparison).exists()


def _assert_exactly_one_result_set(comparison: Comparison, *logs: Path) -> None:
    def ready() -> bool:
        status = _status(comparison.pk)[0]
        assert status != Comparison.Status.FAILED, _tail(*logs)
        return status == Comparison.Status.READY

    assert wait_until(ready, 120, every=0.25), _tail(*logs)
    comparison.refresh_from_db()
    assert comparison.attempts == 2
    assert comparison.progress == 1.0
    keys = list(CandidateResult.objects.filter(comparison=comparison).values_list("key", flat=True))
    assert len(keys) == CANDIDATES
    assert len(set(keys)) == CANDIDATES
    computed = AuditEvent.objects.filter(action="comparison.computed", object_id=str(comparison.pk))
    assert computed.count() == 1
    assert computed.get().summary["attempt"] == 2


def _drained(broker, comparison: Comparison, *logs: Path) -> None:
    """Every delivery has finished (nothing queued, nothing unacknowledged: with acks_late a
    message is acknowledged only after its run), copies included, and changed nothing."""
    assert wait_until(broker.idle, 60), _tail(*logs)
    comparison.refresh_from_db()
    assert (comparison.status, comparison.attempts) == (Comparison.Status.READY, 2)
    assert CandidateResult.objects.filter(comparison=comparison).count() == CANDIDATES
    computed = AuditEvent.objects.filter(action="comparison.computed", object_id=str(comparison.pk))
    assert computed.count() == 1


def _pool_children(pid: int) -> list[int]:
    """The prefork pool's processes: children of any thread of the worker's main process."""
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children += [int(c) for c in (task / "children").read_text().split()]
        except FileNotFoundError:
            continue
    return children


def test_killing_the_whole_worker_group_mid_comparison_loses_nothing(
    tmp_path, celery_on, lead, checklist_items
):
    first_log, second_log = tmp_path / "worker-1.log", tmp_path / "worker-2.log"
    flag = tmp_path / "paused.flag"
    comparison = _queue_comparison(lead)
    first = _start_paused(first_log, flag)
    second = None
    try:
        _wait_for_barrier(comparison, flag, first_log)
        worker.kill_group(first)
        assert _status(comparison.pk)[0] == Comparison.Status.RUNNING
        assert not CandidateResult.objects.filter(comparison=comparison).exists()

        second = worker.start_worker(second_log)  # a normal worker
        _assert_exactly_one_result_set(comparison, first_log, second_log)
        _drained(celery_on, comparison, second_log)
    finally:
        if first.poll() is None:
            worker.kill_group(first)
        if second is not None:
            worker.stop_worker(second)


def test_killing_only_the_pool_child_reruns_the_comparison_at_once(
    tmp_path, celery_on, lead, checklist_items
):
    """The restarted pool child inherits the barrier, which holds once: the redelivery runs."""
    log, flag = tmp_path / "worker.log", tmp_path / "paused.flag"
    comparison = _queue_comparison(lead)
    proc = _start_paused(log, flag)
    try:
        _wait_for_barrier(comparison, flag, log)
        children = _pool_children(proc.pid)
        assert len(children) == 1, children  # -c 1
        os.kill(children[0], signal.SIGKILL)
        _assert_exactly_one_result_set(comparison, log)
        assert "WorkerLostError" in log.read_text()
        _drained(celery_on, comparison, log)
    finally:
        worker.stop_worker(proc)
