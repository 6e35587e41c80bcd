"""A task that raises, a poison message, duplicate deliveries and on-commit enqueueing.

The Celery task function runs in-process (the failure is simulated at the engine's entry
point); the enqueue goes to a private redis-server, so "re-queued" means a message really
sits in the broker.
"""

from __future__ import annotations

import threading

import pytest
from django.contrib.messages import get_messages
from django.db import close_old_connections, transaction

from core.models import AuditEvent
from procurement.models import CandidateResult, Comparison
from procurement.services.comparisons import MAX_ATTEMPTS, comparison_create, comparison_run
from procurement.tasks import comparison_run_task
from tests.comparisons.factories_comparisons import scenario_quotes
from tests.reliability.factories_reliability import complete_brief

ERROR = "Unexpected error while computing (RuntimeError): the price feed timed out"


@pytest.fixture
def queued(db, celery_on, lead, checklist_items, django_capture_on_commit_callbacks):
    """A comparison of two quotes whose message is in the private broker."""
    cheap, fast = scenario_quotes(lead)
    with django_capture_on_commit_callbacks(execute=True):
        queued = comparison_create(
            acting_user=lead, brief=complete_brief(lead), quote_ids=[cheap.pk, fast.pk], seed=11
        )
        comparison = queued.comparison
    assert queued.outcome is not None
    assert queued.outcome.sent is True
    assert celery_on.queue_length() == 1
    return comparison


def _engine_breaks(monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise RuntimeError("the price feed timed out")

    monkeypatch.setattr("procurement.services.comparisons.run.compute", broken)


def _fails_readably(comparison: Comparison, monkeypatch) -> None:
    with monkeypatch.context() as patch:
        _engine_breaks(patch)
        comparison_run_task(comparison.pk)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.FAILED
    assert comparison.error == ERROR
    assert not CandidateResult.objects.filter(comparison=comparison).exists()


def _computed_events(comparison: Comparison) -> int:
    return AuditEvent.objects.filter(
        action="comparison.computed", object_id=str(comparison.pk)
    ).count()


@pytest.mark.django_db
def test_a_raising_task_fails_readably_and_the_api_retry_succeeds(
    queued, celery_on, api_client, login, lead, monkeypatch, django_capture_on_commit_callbacks
):
    _fails_readably(queued, monkeypatch)
    page = login(lead).get(f"/comparisons/{queued.pk}/").content.decode()
    assert "the price feed timed out" in page
    assert f'action="/comparisons/{queued.pk}/retry/"' in page
    api = api_client.get(f"/api/v1/comparisons/{queued.pk}/")
    assert api.status_code in (401, 403)  # anonymous
    api_client.force_authenticate(lead)
    assert api_client.get(f"/api/v1/comparisons/{queued.pk}/").json()["error"] == ERROR

    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post(f"/api/v1/comparisons/{queued.pk}/retry/")
    assert response.status_code == 202
    assert (response.json()["status"], response.json()["queue"]) == ("queued", "sent")
    queued.refresh_from_db()
    assert (queued.status, queued.attempts, queued.error) == ("queued", 0, "")
    assert celery_on.queue_length() == 2  # the first message, and the retry's

    comparison_run_task(queued.pk)
    queued.refresh_from_db()
    assert queued.status == Comparison.Status.READY
    assert queued.attempts == 1
    assert CandidateResult.objects.filter(comparison=queued).count() == 2
    assert _computed_events(queued) == 1
    comparison_run_task(queued.pk)  # the first message, delivered late: a no-op
    assert _computed_events(queued) == 1
    retried = AuditEvent.objects.filter(action="comparison.retry", object_id=str(queued.pk))
    assert retried.count() == 1


@pytest.mark.django_db
def test_the_html_retry_button_requeues_a_failed_comparison(
    queued, celery_on, login, lead, monkeypatch, django_capture_on_commit_callbacks
):
    _fails_readably(queued, monkeypatch)
    client = login(lead)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/comparisons/{queued.pk}/retry/")
    assert response.status_code == 302
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "Comparison queued; the results appear here when ready."
    ]
    assert celery_on.queue_length() == 2
    comparison_run_task(queued.pk)
    queued.refresh_from_db()
    assert queued.status == Comparison.Status.READY
    again = client.post(f"/comparisons/{queued.pk}/retry/", follow=True)
    assert "Only a failed comparison can be retried" in again.content.decode()


@pytest.mark.django_db
def test_a_poison_comparison_gives_up_after_max_attempts(queued):
    """Each crash-and-redeliver costs an attempt; past the limit it fails instead of looping."""
    Comparison.objects.filter(pk=queued.pk).update(attempts=MAX_ATTEMPTS)
    comparison_run_task(queued.pk)
    queued.refresh_from_db()
    assert queued.status == Comparison.Status.FAILED
    assert queued.error == f"Gave up after {MAX_ATTEMPTS} attempts."
    assert AuditEvent.objects.filter(action="comparison.failed", object_id=str(queued.pk)).exists()


@pytest.mark.django_db
def test_a_duplicate_delivery_computes_once(queued):
    """R-04: the same message delivered twice gives one result set and one audit event."""
    comparison_run_task(queued.pk)
    first = sorted(CandidateResult.objects.filter(comparison=queued).values_list("pk", "key"))
    comparison_run_task(queued.pk)
    second = sorted(CandidateResult.objects.filter(comparison=queued).values_list("pk", "key"))
    assert first == second
    assert len(first) == 2
    queued.refresh_from_db()
    assert (queued.status, queued.attempts) == (Comparison.Status.READY, 1)
    assert _computed_events(queued) == 1


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_deliveries_compute_once(celery_on, lead, checklist_items):
    """R-04 with real concurrency: two workers get the same id at the same instant."""
    cheap, fast = scenario_quotes(lead)
    comparison = comparison_create(
        acting_user=lead, brief=complete_brief(lead), quote_ids=[cheap.pk, fast.pk], seed=5
    ).comparison
    barrier = threading.Barrier(2)
    outcomes: list[object] = []

    def deliver() -> None:
        try:
            barrier.wait(timeout=10)
            outcomes.append(comparison_run(comparison_id=comparison.pk))
        finally:
            close_old_connections()

    threads = [threading.Thread(target=deliver) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(outcomes) == 2
    assert sum(1 for o in outcomes if o is None) == 1  # exactly one claimed it
    comparison.refresh_from_db()
    assert (comparison.status, comparison.attempts) == (Comparison.Status.READY, 1)
    assert CandidateResult.objects.filter(comparison=comparison).count() == 2
    assert _computed_events(comparison) == 1


@pytest.mark.django_db
def test_nothing_is_enqueued_when_the_transaction_rolls_back(
    celery_on, lead, checklist_items, django_capture_on_commit_callbacks
):
    """R-05: the task is sent on commit only; a rolled-back request sends nothing."""
    cheap, _fast = scenario_quotes(lead)
    brief = complete_brief(lead)

    def request_that_fails() -> None:
        with transaction.atomic():
            comparison_create(acting_user=lead, brief=brief, quote_ids=[cheap.pk])
            raise RuntimeError("the request failed after the comparison was created")

    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError, match="request failed"),
    ):
        request_that_fails()
    assert callbacks == []
    assert not Comparison.objects.exists()
    assert celery_on.queue_length() == 0
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        comparison_create(acting_user=lead, brief=brief, quote_ids=[cheap.pk])
    assert len(callbacks) == 1
    assert celery_on.queue_length() == 1
