"""A price change's impact and notices are the worker's, not the vendor's request.

The vendor's revision (or withdrawal) saves the flag in its own transaction and publishes one
task per flag on commit; the task's service (`price_change_assess_and_notify`) computes the
impact on a copy of the frozen snapshot and mails each person who can act once. A second run,
or two at once, adds nothing; a failed run is kept on the flag and re-driven by the beat task;
meanwhile the pages say the impact is being computed and offer no Acknowledge.
"""

from __future__ import annotations

import base64
import importlib
import json
import threading
from datetime import timedelta
from decimal import Decimal

import pytest
import redis
from django.conf import settings as django_settings
from django.core import mail
from django.db import close_old_connections
from django.utils import timezone

from catalog.services.quotes import quote_revise
from core.errors import Conflict
from core.models import AuditEvent
from core.roles import Role
from procurement.models import Comparison, PriceChange
from procurement.selectors.reviews.acknowledge import CODES as TICKS
from procurement.services import price_change_delivery as delivery
from procurement.services.price_change_delivery import (
    ASSESS_TASK,
    MAX_ATTEMPTS,
    Delivery,
    price_change_assess_and_notify,
    price_changes_redrive_pending,
    send_assessment,
)
from procurement.services.price_changes import price_change_acknowledge
from procurement.services.reviews import review_submit
from procurement.tasks import price_change_assess_and_notify_task
from tests.browser.worlds_browser import decision_world
from tests.factories import UserFactory
from tests.support import worker

PENDING_WORDS = "Impact being computed — refresh in a moment."
PAGES = ("/", "/comparisons/{}/", "/comparisons/{}/review/", "/comparisons/{}/record/")


def queued_tasks() -> list[tuple[str, list]]:
    """(task name, args) of every message waiting on this process's test broker."""
    client = redis.Redis.from_url(django_settings.CELERY_BROKER_URL)
    found = []
    for raw in client.lrange("celery", 0, -1):
        message = json.loads(raw)
        args = json.loads(base64.b64decode(message["body"]))[0]
        found.append((message["headers"]["task"], args))
    return found


@pytest.fixture
def world(lead, finance, finance_other, monkeypatch, django_capture_on_commit_callbacks):
    """An approved comparison (one approval: finance) whose recommended H100 row rests on a
    quote of "Fast GPUs", whose vendor is `fast_vendor`; its owner is `lead`."""
    monkeypatch.setenv("DUAL_APPROVAL_THRESHOLD_USD", str(10**12))
    built = decision_world(lead=lead)
    comparison = built.comparison
    with django_capture_on_commit_callbacks(execute=True):
        review_submit(
            acting_user=finance,
            comparison=comparison,
            decision="approve",
            comment="Checked.",
            acknowledged=TICKS,
        )
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    mail.outbox.clear()
    return built


def approved_row(world):
    return world.comparison.candidates.get(key=world.comparison.recommended_key)


def fast_vendor(world):
    row = approved_row(world)
    return UserFactory(username="fastgpus", role=Role.VENDOR, provider=row.quote.provider)


def revise_pending(world, lead, capture, factor="1.5"):
    """A revision whose on-commit publish ran (the message sits in the broker, no worker
    takes it): the flag waits with its impact pending."""
    row = approved_row(world)
    price = (row.quote.price_per_gpu_hour * Decimal(factor)).quantize(Decimal("0.0001"))
    with capture(execute=True):
        quote_revise(acting_user=lead, quote=row.quote, data={"price_per_gpu_hour": price})
    return PriceChange.objects.get(comparison=world.comparison)


def told(flag):
    return AuditEvent.objects.filter(
        action="comparison.price_change_notified", summary__price_change=flag.pk
    )


@pytest.mark.django_db
@pytest.mark.parametrize("surface", ["api revise", "portal withdraw"])
def test_the_vendors_save_saves_the_flag_and_publishes_it_without_computing_the_impact(
    surface, world, api_client, login, django_capture_on_commit_callbacks
):
    vendor = fast_vendor(world)
    quote = approved_row(world).quote
    worker.reset_broker()  # this process's test broker, emptied
    with django_capture_on_commit_callbacks() as callbacks:
        if surface == "api revise":
            api_client.force_authenticate(vendor)
            response = api_client.post(
                f"/api/v1/quotes/{quote.pk}/revise/",
                {"price_per_gpu_hour": str(quote.price_per_gpu_hour * 2)},
                format="json",
            )
            assert response.status_code == 201, response.content
        else:
            response = login(vendor).post(
                f"/vendor/quotes/{quote.pk}/withdraw/", {"reason": "capacity sold"}
            )
            assert response.status_code == 302, response.content.decode()[-2000:]
        # Still inside the request's transaction: the flag is saved, its impact pending.
        flag = PriceChange.objects.get(comparison=world.comparison)
        assert (flag.impact, flag.impact_assessed_at, flag.notified_at) == ({}, None, None)
        assert flag.attempts == 0
        assert mail.outbox == []
    assert AuditEvent.objects.filter(action="comparison.price_changed").count() == 1
    publishes = [c for c in callbacks if getattr(c, "func", None) is send_assessment]
    assert [c.args for c in publishes] == [(flag.pk,)]
    for callback in callbacks:
        callback()  # the commit: the message lands in the broker, nothing is computed
    assert queued_tasks() == [(ASSESS_TASK, [flag.pk])]
    flag.refresh_from_db()
    assert (flag.impact, flag.impact_assessed_at, flag.notified_at) == ({}, None, None)
    assert mail.outbox == []


@pytest.mark.django_db
def test_the_task_computes_the_impact_and_tells_each_person_once_a_second_run_sends_nothing(
    world, lead, finance, finance_other, django_capture_on_commit_callbacks
):
    flag = revise_pending(world, lead, django_capture_on_commit_callbacks)
    old = flag.old_price
    expected_pct = ((flag.new_price - old) / old * 100).quantize(Decimal("0.01"))

    assert price_change_assess_and_notify_task(flag.pk) == Delivery.DONE
    flag.refresh_from_db()
    assert Decimal(flag.impact["pct_change"]) == expected_pct == Decimal("50.00")
    assert flag.impact["needs_reapproval"] is True
    assert (flag.impact["still_first"], flag.impact["rank"]) == (False, 2)
    assert flag.impact_assessed_at is not None
    assert flag.notified_at is not None
    assert (flag.attempts, flag.claimed_at, flag.last_error) == (1, None, "")
    # The owner, the approver and the other finance reviewer: one message each.
    assert sorted(m.to[0] for m in mail.outbox) == sorted(
        [lead.email, finance.email, finance_other.email]
    )
    assert "+50.00 %" in mail.outbox[0].body
    (event,) = told(flag)
    assert event.summary["recipients"] == sorted(["finance", "finance2", "lead"])
    assessed_at, notified_at = flag.impact_assessed_at, flag.notified_at

    # A redelivered or duplicated message: nothing recomputed, nothing sent.
    assert price_change_assess_and_notify(flag_id=flag.pk) == Delivery.NOTHING_TO_DO
    assert price_change_assess_and_notify_task(flag.pk) == Delivery.NOTHING_TO_DO
    flag.refresh_from_db()
    assert (flag.impact_assessed_at, flag.notified_at, flag.attempts) == (
        assessed_at,
        notified_at,
        1,
    )
    assert len(mail.outbox) == 3
    assert told(flag).count() == 1
    # And the re-drive leaves a finished flag alone.
    worker.reset_broker()
    assert price_changes_redrive_pending(now=timezone.now() + timedelta(hours=1)) == 0
    assert queued_tasks() == []


@pytest.mark.django_db
def test_a_failing_assessment_is_kept_for_the_redrive_which_completes_it(
    world, lead, finance, finance_other, monkeypatch, django_capture_on_commit_callbacks
):
    flag = revise_pending(world, lead, django_capture_on_commit_callbacks)

    def broken(flag):
        raise RuntimeError("the snapshot store timed out")

    with monkeypatch.context() as patch:
        patch.setattr(delivery, "price_change_impact", broken)
        assert price_change_assess_and_notify(flag_id=flag.pk) == Delivery.FAILED
    flag.refresh_from_db()
    assert (flag.impact, flag.impact_assessed_at, flag.notified_at) == ({}, None, None)
    assert (flag.attempts, flag.claimed_at) == (1, None), "released for a retry"
    assert flag.last_error == "RuntimeError: the snapshot store timed out"
    assert mail.outbox == []
    assert not told(flag).exists()

    # The beat re-drive: not before the flag has waited a minute, then once.
    worker.reset_broker()
    assert price_changes_redrive_pending() == 0
    assert price_changes_redrive_pending(now=timezone.now() + timedelta(minutes=2)) == 1
    assert queued_tasks() == [(ASSESS_TASK, [flag.pk])]
    # What the worker does with that message:
    assert price_change_assess_and_notify_task(flag.pk) == Delivery.DONE
    flag.refresh_from_db()
    assert flag.impact["pct_change"] == "50.00"
    assert (flag.attempts, flag.last_error) == (2, "")
    assert flag.notified_at is not None
    assert sorted(m.to[0] for m in mail.outbox) == sorted(
        [lead.email, finance.email, finance_other.email]
    )
    assert told(flag).count() == 1


@pytest.mark.django_db
def test_a_mail_outage_is_retried_without_computing_the_impact_again(
    world, lead, monkeypatch, django_capture_on_commit_callbacks
):
    flag = revise_pending(world, lead, django_capture_on_commit_callbacks)

    def refused(self, messages):
        raise ConnectionRefusedError("the mail relay is down")

    with monkeypatch.context() as patch:
        patch.setattr("django.core.mail.backends.locmem.EmailBackend.send_messages", refused)
        assert price_change_assess_and_notify(flag_id=flag.pk) == Delivery.FAILED
    flag.refresh_from_db()
    assert flag.impact_assessed_at is not None, "the impact is kept"
    assert flag.notified_at is None, "the notices are not"
    assert flag.last_error == "ConnectionRefusedError: the mail relay is down"
    assert not told(flag).exists(), "the audit event rolled back with the mark"
    assessed_at, impact = flag.impact_assessed_at, flag.impact

    calls = []
    with monkeypatch.context() as patch:
        patch.setattr(delivery, "price_change_impact", lambda flag: calls.append(flag))
        assert price_change_assess_and_notify(flag_id=flag.pk) == Delivery.DONE
    assert calls == [], "the impact is not computed twice"
    flag.refresh_from_db()
    assert (flag.impact_assessed_at, flag.impact) == (assessed_at, impact)
    assert len(mail.outbox) == 3
    assert told(flag).count() == 1


@pytest.mark.django_db
def test_while_the_impact_is_pending_the_pages_say_so_and_acknowledge_waits(
    world, lead, finance_other, login, settings, django_capture_on_commit_callbacks
):
    settings.PRICE_CHANGE_TOLERANCE_PCT = 5
    flag = revise_pending(world, lead, django_capture_on_commit_callbacks, factor="1.02")
    client = login(finance_other)
    for path in PAGES:
        html = client.get(path.format(world.comparison.pk)).content.decode()
        assert PENDING_WORDS in html, path
        assert "Acknowledge is offered once the impact is known" in html, path
        assert ">Acknowledge</button>" not in html, path
    with pytest.raises(Conflict, match="still being computed"):
        price_change_acknowledge(acting_user=finance_other, flag=flag)
    url = f"/comparisons/{world.comparison.pk}/price-changes/{flag.pk}/acknowledge/"
    record = f"/comparisons/{world.comparison.pk}/record/"
    page = client.post(url, {"next": record}, follow=True).content.decode()
    assert "still being computed" in page
    flag.refresh_from_db()
    assert flag.acknowledged_at is None

    price_change_assess_and_notify(flag_id=flag.pk)
    for path in PAGES:
        html = client.get(path.format(world.comparison.pk)).content.decode()
        assert PENDING_WORDS not in html, path
        assert "+2.00 %" in html, path
        assert ">Acknowledge</button>" in html, path  # within the 5 % tolerance
    client.post(url, {"next": record})
    flag.refresh_from_db()
    assert flag.acknowledged_by == finance_other


@pytest.mark.django_db
def test_after_its_last_attempt_the_flag_reads_as_not_assessed_and_needs_reapproval(
    world, lead, finance, login, settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.PRICE_CHANGE_TOLERANCE_PCT = 5
    flag = revise_pending(world, lead, django_capture_on_commit_callbacks, factor="1.02")
    PriceChange.objects.filter(pk=flag.pk).update(attempts=MAX_ATTEMPTS - 1)

    def broken(flag):
        raise RuntimeError("the snapshot store timed out")

    monkeypatch.setattr(delivery, "price_change_impact", broken)
    assert price_change_assess_and_notify(flag_id=flag.pk) == Delivery.DONE
    flag.refresh_from_db()
    assert flag.attempts == MAX_ATTEMPTS
    assert flag.impact["needs_reapproval"] is True, "nobody acknowledges an unknown effect"
    assert flag.impact["pct_change"] == "2.00"
    assert flag.impact["error"] == (
        f"The impact could not be computed after {MAX_ATTEMPTS} attempts (RuntimeError); "
        "recompute the comparison to see it."
    )
    assert flag.notified_at is not None
    assert "could not be computed after" in mail.outbox[0].body
    html = login(finance).get(f"/comparisons/{world.comparison.pk}/record/").content.decode()
    assert "could not be computed after" in html
    assert PENDING_WORDS not in html
    assert ">Acknowledge</button>" not in html
    worker.reset_broker()
    assert price_changes_redrive_pending(now=timezone.now() + timedelta(hours=1)) == 0


@pytest.mark.django_db
def test_the_redrive_leaves_a_live_run_alone_and_takes_over_a_dead_one(
    world, lead, django_capture_on_commit_callbacks
):
    flag = revise_pending(world, lead, django_capture_on_commit_callbacks)
    later = timezone.now() + timedelta(minutes=2)
    PriceChange.objects.filter(pk=flag.pk).update(claimed_at=later, attempts=1)  # a live run
    worker.reset_broker()
    assert price_changes_redrive_pending(now=later) == 0
    assert price_change_assess_and_notify(flag_id=flag.pk) == Delivery.NOTHING_TO_DO
    dead = later + delivery.CLAIM_STALE_AFTER + timedelta(seconds=1)
    assert price_changes_redrive_pending(now=dead) == 1
    assert queued_tasks() == [(ASSESS_TASK, [flag.pk])]


@pytest.mark.django_db(transaction=True)
def test_two_deliveries_at_once_assess_once_and_tell_each_person_once(lead, finance, monkeypatch):
    monkeypatch.setenv("DUAL_APPROVAL_THRESHOLD_USD", str(10**12))
    built = decision_world(lead=lead)
    review_submit(
        acting_user=finance,
        comparison=built.comparison,
        decision="approve",
        comment="OK.",
        acknowledged=TICKS,
    )
    row = approved_row(built)
    quote_revise(
        acting_user=lead, quote=row.quote, data={"price_per_gpu_hour": Decimal("3.10")}
    )  # autocommit: published to the broker, which no worker reads here
    flag = PriceChange.objects.get(comparison=built.comparison)
    mail.outbox.clear()
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def deliver() -> None:
        try:
            barrier.wait()
            outcomes.append(price_change_assess_and_notify(flag_id=flag.pk))
        finally:
            close_old_connections()

    threads = [threading.Thread(target=deliver) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == [Delivery.DONE, Delivery.NOTHING_TO_DO]
    flag.refresh_from_db()
    assert flag.attempts == 1, "one run claimed the flag"
    assert flag.notified_at is not None
    recipients = [m.to[0] for m in mail.outbox]
    assert sorted(recipients) == sorted(set(recipients))
    assert lead.email in recipients
    assert finance.email in recipients
    assert told(flag).count() == 1


def test_the_redrive_runs_every_minute_on_the_beat():
    entry = django_settings.CELERY_BEAT_SCHEDULE["redrive-pending-price-changes"]
    assert entry == {
        "task": "procurement.tasks.price_changes_redrive_pending_task",
        "schedule": timedelta(minutes=1),
    }


@pytest.mark.django_db
def test_flags_from_before_the_worker_are_never_mailed_again(
    world, lead, django_capture_on_commit_callbacks
):
    """Migration 0012: the old flags were assessed and mailed in the vendor's request."""
    from django.apps import apps

    backfill = importlib.import_module("procurement.migrations.0012_price_change_delivery").backfill
    flag = revise_pending(world, lead, django_capture_on_commit_callbacks)
    backfill(apps, None)  # its inline assessment had failed: no impact kept
    flag.refresh_from_db()
    assert (flag.notified_at, flag.impact_assessed_at) == (flag.created_at, None)
    PriceChange.objects.filter(pk=flag.pk).update(impact={"pct_change": "50.00"}, notified_at=None)
    backfill(apps, None)
    flag.refresh_from_db()
    assert flag.notified_at == flag.impact_assessed_at == flag.created_at
    price_change_assess_and_notify(flag_id=flag.pk)
    assert mail.outbox == []
