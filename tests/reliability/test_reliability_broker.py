"""R-03: the broker (a private redis-server) is down, or loses its queue, while users submit.

PostgreSQL is the source of truth: the comparison row is committed (status `queued`) and the
user is told the queue is unavailable; once Redis is back the re-drive (service, management
command or beat task) sends it and a REAL worker computes it exactly once.
"""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.contrib.messages import get_messages
from django.core.management import call_command

from core.models import AuditEvent
from procurement.models import CandidateResult, Comparison
from procurement.services.comparisons import (
    QUEUE_UNAVAILABLE_MESSAGE,
    STALE_AFTER,
    comparison_create,
    comparisons_redrive_stuck,
)
from procurement.tasks import comparisons_redrive_stuck_task
from tests.comparisons.factories_comparisons import scenario_quotes
from tests.reliability.factories_reliability import complete_brief
from tests.support import worker
from tests.support.waiting import wait_until

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]


def _computed_once(pks: list[int], log) -> None:
    def all_ready() -> bool:
        statuses = set(Comparison.objects.filter(pk__in=pks).values_list("status", flat=True))
        assert Comparison.Status.FAILED not in statuses, log.read_text()[-3000:]
        return statuses == {Comparison.Status.READY}

    assert wait_until(all_ready, 90, every=0.25), log.read_text()[-3000:]
    for comparison in Comparison.objects.filter(pk__in=pks):
        assert comparison.attempts == 1
        assert CandidateResult.objects.filter(comparison=comparison).count() == 2
        events = AuditEvent.objects.filter(
            action="comparison.computed", object_id=str(comparison.pk)
        )
        assert events.count() == 1


def test_redis_down_at_submit_saves_the_comparison_and_the_redrive_completes_it_once(
    tmp_path, celery_on, api_client, login, lead, checklist_items
):
    cheap, fast = scenario_quotes(lead)
    brief = complete_brief(lead)
    celery_on.stop()

    api_client.force_authenticate(lead)
    started = time.monotonic()
    response = api_client.post(
        "/api/v1/comparisons/",
        {"brief": brief.pk, "quotes": [cheap.pk, fast.pk], "seed": 3},
        format="json",
    )
    assert time.monotonic() - started < 10  # the request does not hang on a dead broker
    assert response.status_code == 202, response.json()
    body = response.json()
    assert (body["status"], body["queue"]) == ("queued", "unavailable")
    assert body["detail"] == QUEUE_UNAVAILABLE_MESSAGE
    assert "Saved" in body["detail"]

    page = login(lead).post(
        "/comparisons/new/", {"brief": brief.pk, "quotes": [str(cheap.pk), str(fast.pk)]}
    )
    assert page.status_code == 302
    shown = [str(m) for m in get_messages(page.wsgi_request)]
    assert shown == [QUEUE_UNAVAILABLE_MESSAGE]
    pks = list(Comparison.objects.order_by("pk").values_list("pk", flat=True))
    assert len(pks) == 2
    assert set(Comparison.objects.values_list("status", flat=True)) == {"queued"}
    assert comparisons_redrive_stuck(older_than=timedelta(0)) == 0  # still down: nothing sent

    celery_on.start()
    assert comparisons_redrive_stuck(older_than=timedelta(0)) == 2
    assert celery_on.queue_length() == 2
    log = tmp_path / "worker.log"
    proc = worker.start_worker(log)
    try:
        _computed_once(pks, log)
    finally:
        worker.stop_worker(proc)
    assert celery_on.queue_length() == 0


def test_a_lost_queue_is_redriven_by_the_command_and_the_beat_task(
    tmp_path, celery_on, lead, checklist_items
):
    """Redis restarts empty after commit and before any worker ran (no persistence)."""
    cheap, fast = scenario_quotes(lead)
    brief = complete_brief(lead)
    queued = [
        comparison_create(acting_user=lead, brief=brief, quote_ids=[cheap.pk, fast.pk]),
        comparison_create(acting_user=lead, brief=brief, quote_ids=[fast.pk, cheap.pk]),
    ]
    assert [q.outcome.sent if q.outcome else None for q in queued] == [True, True]
    first, second = (q.comparison for q in queued)
    assert celery_on.queue_length() == 2
    celery_on.stop()
    celery_on.start()  # --save "" --appendonly no: the queue is gone
    assert celery_on.queue_length() == 0

    call_command("redrive_comparisons", "--older-than-minutes", "0")
    assert celery_on.queue_length() == 2
    celery_on.stop()
    celery_on.start()
    # The beat task only re-sends what has waited longer than the stale limit.
    assert comparisons_redrive_stuck_task() == 0
    Comparison.objects.filter(pk__in=[first.pk, second.pk]).update(
        queued_at=first.queued_at - STALE_AFTER - timedelta(seconds=1)
    )
    assert comparisons_redrive_stuck_task() == 2

    log = tmp_path / "worker.log"
    proc = worker.start_worker(log)
    try:
        _computed_once([first.pk, second.pk], log)
        # Re-sending finished comparisons is harmless: nothing is computed again.
        assert comparisons_redrive_stuck(older_than=timedelta(0)) == 0
    finally:
        worker.stop_worker(proc)
