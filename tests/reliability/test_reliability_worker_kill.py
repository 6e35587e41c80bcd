"""R-01: a REAL Celery worker (prefork, own process group) is SIGKILLed in the middle of a
300-candidate comparison. After a restart the comparison completes exactly once.

The broker is a private redis-server with a 5 s visibility timeout and a 1 s restore sweep
(`CELERY_VISIBILITY_TIMEOUT`, `CELERY_UNACKED_RESTORE_INTERVAL`), so the unacknowledged
message comes back within seconds instead of an hour.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from core.models import AuditEvent
from procurement.models import CandidateResult, Comparison
from procurement.services.comparisons import comparison_create
from tests import test_worker_integration as worker
from tests.reliability.conftest import wait_until
from tests.reliability.factories_reliability import bulk_quotes, complete_brief

CANDIDATES = 300
SAMPLES = 40_000  # ~7 s of engine time for 300 candidates here: long enough to kill mid-run

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]


def _status(pk: int) -> tuple[str, float, int]:
    return Comparison.objects.values_list("status", "progress", "attempts").get(pk=pk)


def _tail(*logs: Path) -> str:
    return "\n".join(f"--- {log.name}\n{log.read_text()[-3000:]}" for log in logs if log.exists())


def _queue_big_comparison(lead, settings) -> Comparison:
    settings.MONTE_CARLO_SAMPLES = SAMPLES
    quotes = bulk_quotes(CANDIDATES, lead)
    comparison = comparison_create(
        acting_user=lead,
        brief=complete_brief(lead),
        quote_ids=[q.pk for q in quotes],
        seed=99,
    )  # autocommit: the on-commit publish has happened when this returns
    assert comparison.enqueue.sent is True
    return comparison


def _wait_mid_run(comparison: Comparison, *logs: Path) -> None:
    """Until the worker has claimed the row and the engine is visibly under way."""

    def mid_run() -> bool:
        status, progress, _ = _status(comparison.pk)
        assert status != Comparison.Status.READY, "finished before the kill: raise SAMPLES"
        return status == Comparison.Status.RUNNING and progress >= 0.2

    assert wait_until(mid_run, 90), _tail(*logs)


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
    """Copies restored meanwhile (the 5 s visibility timeout is shorter than the run) are
    delivered too, and change nothing: still one result set, still attempt 2."""
    assert wait_until(lambda: broker.queue_length() == 0, 60), _tail(*logs)
    time.sleep(1)  # let a last delivery finish its (no-op) run
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
    tmp_path, celery_on, settings, lead, checklist_items
):
    first_log, second_log = tmp_path / "worker-1.log", tmp_path / "worker-2.log"
    comparison = _queue_big_comparison(lead, settings)
    first = worker.start_worker(first_log)
    second = None
    try:
        _wait_mid_run(comparison, first_log)
        os.killpg(os.getpgid(first.pid), signal.SIGKILL)
        first.wait(timeout=10)
        assert _status(comparison.pk)[0] == Comparison.Status.RUNNING
        assert not CandidateResult.objects.filter(comparison=comparison).exists()

        second = worker.start_worker(second_log)
        _assert_exactly_one_result_set(comparison, first_log, second_log)
        _drained(celery_on, comparison, second_log)
    finally:
        if first.poll() is None:
            worker.stop_worker(first)
        if second is not None:
            worker.stop_worker(second)


def test_killing_only_the_pool_child_reruns_the_comparison_at_once(
    tmp_path, celery_on, settings, lead, checklist_items
):
    log = tmp_path / "worker.log"
    comparison = _queue_big_comparison(lead, settings)
    proc = worker.start_worker(log)
    try:
        _wait_mid_run(comparison, log)
        children = _pool_children(proc.pid)
        assert len(children) == 1, children  # -c 1
        os.kill(children[0], signal.SIGKILL)
        _assert_exactly_one_result_set(comparison, log)
        assert "WorkerLostError" in log.read_text()
        _drained(celery_on, comparison, log)
    finally:
        worker.stop_worker(proc)
