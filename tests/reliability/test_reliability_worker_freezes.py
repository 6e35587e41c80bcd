"""L9 with a REAL Celery worker: the request saves only the choice; the worker freezes the
snapshot, stores it, then computes; a worker killed after the freeze leaves a snapshot the
redelivery computes as it is (frozen once).

The first worker is the barrier worker (`tests.support.paused_worker`): it blocks at the
compute step's first progress ≥ 0.2, after the freeze, and the test waits for its flag file.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from catalog.models import Quote
from procurement.models import CandidateResult, Comparison
from procurement.services.comparisons import comparison_create
from tests.reliability.factories_reliability import bulk_quotes, complete_brief
from tests.support import worker
from tests.support.paused_worker import PAUSE_FLAG_ENV
from tests.support.waiting import wait_until

CANDIDATES = 6

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]


def _tail(*logs: Path) -> str:
    return "\n".join(f"--- {log.name}\n{log.read_text()[-3000:]}" for log in logs if log.exists())


def test_l9_the_worker_freezes_the_choice_then_computes_and_a_redelivery_keeps_it(
    tmp_path, celery_on, lead, checklist_items
):
    quotes = bulk_quotes(CANDIDATES, lead)
    chosen = sorted(q.pk for q in quotes[:-1])  # not the default set (that is every quote)
    queued = comparison_create(
        acting_user=lead, brief=complete_brief(lead), quote_ids=chosen, seed=41
    )
    assert queued.outcome is not None
    assert queued.outcome.sent is True
    pk = queued.comparison.pk
    assert Comparison.objects.values_list("snapshot", flat=True).get(pk=pk) == {}
    assert not queued.comparison.quotes.exists()

    first_log, second_log, flag = tmp_path / "w1.log", tmp_path / "w2.log", tmp_path / "flag"
    first = worker.start_worker(
        first_log,
        app="tests.support.paused_worker",
        env={**worker.test_env(), PAUSE_FLAG_ENV: str(flag)},
    )
    second = None
    try:
        assert wait_until(flag.exists, 120), _tail(first_log)
        # Paused inside the compute: the snapshot is already frozen and stored.
        mid = Comparison.objects.get(pk=pk)
        assert (mid.status, mid.attempts) == (Comparison.Status.RUNNING, 1)
        assert mid.snapshot["selection"]["quote_ids"] == chosen
        assert sorted(q["id"] for q in mid.snapshot["quotes"]) == chosen
        assert mid.snapshot["as_of"] == mid.chosen["as_of"]
        assert sorted(mid.quotes.values_list("pk", flat=True)) == chosen
        assert not CandidateResult.objects.filter(comparison_id=pk).exists()
        worker.kill_group(first)
        # A price edited in place after the freeze must not reach the result: not refrozen.
        Quote.objects.filter(pk=chosen[0]).update(price_per_gpu_hour=Decimal("9.9900"))

        second = worker.start_worker(second_log)

        def ready() -> bool:
            status = Comparison.objects.values_list("status", flat=True).get(pk=pk)
            assert status != Comparison.Status.FAILED, _tail(first_log, second_log)
            return status == Comparison.Status.READY

        assert wait_until(ready, 120, every=0.25), _tail(first_log, second_log)
        done = Comparison.objects.get(pk=pk)
        assert done.attempts == 2
        assert done.snapshot == mid.snapshot  # computed from the stored snapshot, not refrozen
        row = CandidateResult.objects.get(comparison_id=pk, quote_id=chosen[0])
        assert row.hourly_price_usd != Decimal("9.9900")
        assert CandidateResult.objects.filter(comparison_id=pk).count() == len(chosen)
    finally:
        if first.poll() is None:
            worker.kill_group(first)
        if second is not None:
            worker.stop_worker(second)
