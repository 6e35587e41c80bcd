"""A REAL Celery worker (subprocess, Redis) computes a 200-candidate comparison that the web
side queued on commit; re-sending the same message afterwards changes nothing."""

from __future__ import annotations

import pytest
from django.conf import settings

from core.models import AuditEvent
from procurement.models import CandidateResult, Comparison
from procurement.services.comparisons import comparison_create, send_comparison
from tests.comparisons.factories_comparisons import many_quotes
from tests.support import worker


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_worker_computes_a_200_candidate_comparison(tmp_path, lead, brief, checklist_items):
    import redis

    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
    quotes = many_quotes(200, lead, providers=4)
    log = tmp_path / "worker.log"
    proc = worker.start_worker(log)
    try:
        queued = comparison_create(
            acting_user=lead, brief=brief, quote_ids=[q.pk for q in quotes], seed=2024
        )  # autocommit: the on-commit publish happens here
        comparison = queued.comparison
        assert queued.outcome is not None
        assert queued.outcome.sent is True

        def ready() -> bool:
            status = Comparison.objects.values_list("status", flat=True).get(pk=comparison.pk)
            assert status != Comparison.Status.FAILED, log.read_text()[-3000:]
            return status == Comparison.Status.READY

        assert worker.wait_until(ready, 180), log.read_text()[-3000:]
        assert CandidateResult.objects.filter(comparison=comparison).count() >= 200
        comparison.refresh_from_db()
        assert comparison.progress == 1.0
        assert comparison.attempts == 1
        assert comparison.recommended_key

        # A duplicate delivery is a no-op: same rows, still one "computed" event.
        before = sorted(CandidateResult.objects.filter(comparison=comparison).values_list("pk"))
        assert send_comparison(comparison.pk)
        # Until the duplicate has been delivered and run (acknowledged): a fact, not a pause.
        broker = settings.CELERY_BROKER_URL
        assert worker.wait_until(lambda: worker.broker_idle(broker), 60), log.read_text()[-3000:]
        assert Comparison.objects.get(pk=comparison.pk).attempts == 1
        after = sorted(CandidateResult.objects.filter(comparison=comparison).values_list("pk"))
        assert after == before
        computed_events = AuditEvent.objects.filter(
            action="comparison.computed", object_id=str(comparison.pk)
        )
        assert computed_events.count() == 1
    finally:
        worker.stop_worker(proc)
