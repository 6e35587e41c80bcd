"""Comparison lifecycle: create (validation, nothing saved on error), run (idempotent,
claims, give-up), retry, re-drive, recompute, approvals threshold, broker down."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from kombu.exceptions import OperationalError

from briefs.errors import BriefIncomplete
from core.errors import Conflict, DomainError, NotAllowed
from core.models import AuditEvent
from engine.comparison import ENGINE_VERSION
from procurement.models import CandidateResult, Comparison
from procurement.services.comparisons import (
    MAX_ATTEMPTS,
    QUEUE_UNAVAILABLE_MESSAGE,
    comparison_create,
    comparison_recompute,
    comparison_retry,
    comparison_run,
    comparisons_redrive_stuck,
)
from tests.comparisons.factories_comparisons import frozen
from tests.factories import ModelApiRouteFactory, QuoteFactory, WorkloadBriefFactory


def _rows(comparison):
    return {r.key: r for r in CandidateResult.objects.filter(comparison=comparison)}


def test_cheapest_hourly_quote_is_not_the_cheapest_per_accepted_output(computed, scenario):
    rows = _rows(computed)
    cheap = rows[f"quote:{scenario['cheap'].pk}"]
    fast = rows[f"quote:{scenario['fast'].pk}"]
    assert computed.status == Comparison.Status.READY
    assert cheap.eligible
    assert fast.eligible
    assert cheap.rank_hourly == 1
    assert cheap.rank == 2
    assert fast.rank == 1
    assert fast.rank_hourly == 2
    assert computed.recommended_key == fast.key
    assert cheap.unit_cost_usd > fast.unit_cost_usd
    assert "CHEAPEST_HOURLY_NOT_CHEAPEST_OUTPUT" in {w["code"] for w in cheap.warnings}
    assert cheap.unit_label == "per 1M accepted output tokens"
    assert sum(Decimal(v) for v in fast.cost_lines.values()) == fast.total_usd
    assert fast.p10 <= fast.p50 <= fast.p90
    assert fast.fit["fits"] is True
    assert fast.gpus == 4
    assert fast.perf_source == "estimated"
    assert fast.checklist["complete"] is True


def test_create_queues_on_commit_with_a_frozen_snapshot(
    scenario, lead, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    monkeypatch.setattr(
        "core.jobs.send",
        lambda name, args, **kw: sent.append(args),
    )
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        queued = comparison_create(acting_user=lead, brief=scenario["brief"], seed=11)
        comparison = queued.comparison
    assert len(callbacks) == 1
    assert sent == [(comparison.pk,)]
    assert comparison.status == Comparison.Status.QUEUED
    assert queued.outcome is not None
    assert queued.outcome.sent is True
    assert Comparison.objects.values_list("snapshot", flat=True).get(pk=comparison.pk) == {}
    comparison = frozen(comparison)  # by the worker (L9)
    snap = comparison.snapshot
    assert snap["selection"]["default"] is True
    quote = next(q for q in snap["quotes"] if q["id"] == scenario["cheap"].pk)
    assert quote["version"] == 1
    assert quote["quoted_at"] == scenario["cheap"].quoted_at.isoformat()
    assert quote["price_per_gpu_hour"] == "0.8900"
    assert snap["brief"]["id"] == scenario["brief"].pk
    assert snap["fx_rates"]["USD"]["rate_to_base"] == "1"
    assert snap["engine_version"] == comparison.engine_version
    assert set(comparison.quotes.values_list("pk", flat=True)) == {
        scenario["cheap"].pk,
        scenario["fast"].pk,
    }
    assert AuditEvent.objects.filter(action="comparison.create", object_id=str(comparison.pk))


@pytest.mark.parametrize(
    ("case", "kwargs", "message"),
    [
        ("no candidates", {"quote_ids": [], "api_route_ids": []}, "nothing to compare"),
        ("unknown quote", {"quote_ids": [999999]}, "Unknown quote id(s): 999999"),
        ("unknown route", {"api_route_ids": [888888]}, "Unknown API route id(s): 888888"),
        ("bad id", {"quote_ids": ["x"]}, "not ids"),
        ("bad seed", {"seed": -1}, "seed"),
        ("unknown assumption", {"assumptions": {"utilization": 0.5}}, "Unknown assumption"),
        (
            "range out of order",
            {"assumptions": {"utilisation": {"low": 0.9, "likely": 0.5, "high": 0.95}}},
            "low ≤ likely ≤ high",
        ),
    ],
)
def test_bad_input_is_a_clear_400_and_nothing_is_saved_or_queued(
    scenario, lead, django_capture_on_commit_callbacks, case, kwargs, message
):
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(DomainError) as exc:
        comparison_create(acting_user=lead, brief=scenario["brief"], **kwargs)
    assert exc.value.status_code == 400
    assert message in exc.value.message
    assert callbacks == []
    assert not Comparison.objects.exists()


def test_incomplete_brief_pauses_the_selection(scenario, lead, django_capture_on_commit_callbacks):
    brief = WorkloadBriefFactory(created_by=lead, concurrency=None, utilisation_high=None)
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(BriefIncomplete) as exc:
        comparison_create(acting_user=lead, brief=brief)
    assert exc.value.status_code == 400
    assert "concurrency" in exc.value.message
    assert "utilisation" in exc.value.message
    assert callbacks == []
    assert not Comparison.objects.exists()


def test_superseded_or_withdrawn_quote_ids_are_refused_by_name(scenario, lead):
    newer = QuoteFactory(
        provider=scenario["cheap"].provider,
        accelerator=scenario["cheap"].accelerator,
        supersedes=scenario["cheap"],
        version=2,
    )
    with pytest.raises(DomainError) as exc:
        comparison_create(
            acting_user=lead, brief=scenario["brief"], quote_ids=[scenario["cheap"].pk]
        )
    assert str(scenario["cheap"].pk) in exc.value.message
    assert "superseded" in exc.value.message
    comparison = comparison_create(
        acting_user=lead, brief=scenario["brief"], quote_ids=[newer.pk]
    ).comparison
    assert frozen(comparison).snapshot["quotes"][0]["version"] == 2


@pytest.mark.parametrize("who", ["engineer", "finance", "security", "vendor_a"])
def test_only_leads_and_admins_create(scenario, request, who):
    with pytest.raises(NotAllowed):
        comparison_create(acting_user=request.getfixturevalue(who), brief=scenario["brief"])
    assert not Comparison.objects.exists()


def test_admin_can_create(scenario, admin_member):
    assert comparison_create(acting_user=admin_member, brief=scenario["brief"]).comparison.pk


def test_running_twice_gives_one_result_set_and_one_computed_event(computed):
    first = sorted(CandidateResult.objects.filter(comparison=computed).values_list("pk", "key"))
    assert comparison_run(comparison_id=computed.pk) is None  # duplicate delivery: a no-op
    again = sorted(CandidateResult.objects.filter(comparison=computed).values_list("pk", "key"))
    assert again == first
    assert len(first) == 2
    events = AuditEvent.objects.filter(action="comparison.computed", object_id=str(computed.pk))
    assert events.count() == 1
    computed.refresh_from_db()
    assert computed.attempts == 1


def test_a_run_that_lost_its_claim_writes_nothing(scenario, lead, monkeypatch):
    comparison = comparison_create(acting_user=lead, brief=scenario["brief"], seed=3).comparison
    from procurement.services.comparisons import run

    real_compute = run.compute

    def compute_then_someone_else_claims(*args, **kwargs):
        out = real_compute(*args, **kwargs)
        # Another worker re-claimed the row meanwhile (a new attempt number).
        Comparison.objects.filter(pk=comparison.pk).update(attempts=5)
        return out

    monkeypatch.setattr(run, "compute", compute_then_someone_else_claims)
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.RUNNING
    assert not CandidateResult.objects.filter(comparison=comparison).exists()


def test_a_stale_running_claim_is_taken_over_and_a_fresh_one_is_not(scenario, lead):
    comparison = comparison_create(acting_user=lead, brief=scenario["brief"], seed=3).comparison
    Comparison.objects.filter(pk=comparison.pk).update(
        status=Comparison.Status.RUNNING, attempts=1, claimed_at=timezone.now()
    )
    assert comparison_run(comparison_id=comparison.pk) is None
    Comparison.objects.filter(pk=comparison.pk).update(
        claimed_at=timezone.now() - timedelta(hours=1)
    )
    done = comparison_run(comparison_id=comparison.pk)
    assert done.status == Comparison.Status.READY
    assert done.attempts == 2


def test_gives_up_after_three_attempts(scenario, lead):
    comparison = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    Comparison.objects.filter(pk=comparison.pk).update(
        status=Comparison.Status.RUNNING,
        attempts=MAX_ATTEMPTS,
        claimed_at=timezone.now() - timedelta(hours=1),
    )
    done = comparison_run(comparison_id=comparison.pk)
    assert done.status == Comparison.Status.FAILED
    assert done.error == "Gave up after 3 attempts."
    assert not CandidateResult.objects.filter(comparison=comparison).exists()


def test_an_engine_error_fails_readably_and_retry_requeues(
    scenario, lead, monkeypatch, django_capture_on_commit_callbacks
):
    comparison = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    from engine.errors import EngineInputError
    from procurement.services.comparisons import run

    def broken(*args, **kwargs):
        raise EngineInputError("utilisation", "must be > 0")

    monkeypatch.setattr(run, "compute", broken)
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.FAILED
    assert comparison.error == "The engine refused an input: utilisation: must be > 0"
    monkeypatch.undo()
    with django_capture_on_commit_callbacks() as callbacks:
        comparison_retry(acting_user=lead, comparison=comparison)
    assert len(callbacks) == 1
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.QUEUED
    assert comparison.attempts == 0
    assert comparison_run(comparison_id=comparison.pk).status == Comparison.Status.READY


def test_retry_refuses_a_comparison_that_did_not_fail(computed, lead, engineer):
    with pytest.raises(Conflict):
        comparison_retry(acting_user=lead, comparison=computed)
    with pytest.raises(NotAllowed):
        comparison_retry(acting_user=engineer, comparison=computed)


def test_redrive_resends_stuck_comparisons_only(scenario, lead, monkeypatch):
    sent = []
    monkeypatch.setattr("core.jobs.send", lambda name, args, **kw: sent.append(args))
    old = timezone.now() - timedelta(hours=1)
    stuck_queued = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    stuck_running = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    fresh = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    Comparison.objects.filter(pk=stuck_queued.pk).update(queued_at=old)
    Comparison.objects.filter(pk=stuck_running.pk).update(
        status=Comparison.Status.RUNNING, claimed_at=old
    )
    sent.clear()
    assert comparisons_redrive_stuck(older_than=timedelta(minutes=5)) == 2
    assert sorted(sent) == sorted([(stuck_queued.pk,), (stuck_running.pk,)])
    assert (fresh.pk,) not in sent
    stuck_queued.refresh_from_db()
    assert stuck_queued.queued_at > old  # not re-sent again at the next beat


def test_broker_down_at_request_time_still_saves_and_says_so(
    scenario, lead, monkeypatch, django_capture_on_commit_callbacks
):
    def down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr("core.jobs.send", down)
    with django_capture_on_commit_callbacks(execute=True):
        queued = comparison_create(acting_user=lead, brief=scenario["brief"])
        comparison = queued.comparison
    assert queued.outcome is not None
    assert queued.outcome.sent is False
    assert queued.outcome.error == QUEUE_UNAVAILABLE_MESSAGE
    assert Comparison.objects.get(pk=comparison.pk).status == Comparison.Status.QUEUED
    assert comparisons_redrive_stuck(older_than=timedelta(0)) == 0  # still down: nothing sent
    monkeypatch.setattr("core.jobs.send", lambda *a, **k: None)
    assert comparisons_redrive_stuck(older_than=timedelta(0)) == 1


def test_recompute_creates_a_new_revision_with_fresh_quotes(computed, scenario, lead):
    newer = QuoteFactory(
        provider=scenario["fast"].provider,
        accelerator=scenario["fast"].accelerator,
        supersedes=scenario["fast"],
        version=2,
        price_per_gpu_hour=Decimal("1.9900"),
    )
    revision = frozen(comparison_recompute(acting_user=lead, comparison=computed).comparison)
    assert revision.revision == 2
    assert revision.supersedes_id == computed.pk
    assert revision.seed == computed.seed
    assert sorted(q["id"] for q in revision.snapshot["quotes"]) == sorted(
        [scenario["cheap"].pk, newer.pk]
    )
    with pytest.raises(Conflict):
        comparison_recompute(acting_user=lead, comparison=computed)


def test_recompute_of_an_old_comparison_records_the_current_engine_version(computed, lead):
    # Given a comparison computed by an older engine (ADR 0003)
    old_snapshot = {**computed.snapshot, "engine_version": "1.2.0"}
    Comparison.objects.filter(pk=computed.pk).update(engine_version="1.2.0", snapshot=old_snapshot)
    computed.refresh_from_db()
    # When it is recomputed
    revision = comparison_recompute(acting_user=lead, comparison=computed).comparison
    revision = comparison_run(comparison_id=revision.pk)
    # Then the new revision says the engine that computed it; the old one keeps its own
    assert revision.status == Comparison.Status.READY
    assert revision.engine_version == ENGINE_VERSION == "1.9.0"
    assert revision.snapshot["engine_version"] == ENGINE_VERSION
    assert revision.result["engine_version"] == ENGINE_VERSION
    computed.refresh_from_db()
    assert computed.engine_version == "1.2.0"


def test_recompute_waits_for_the_run_to_finish(scenario, lead):
    queued = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    with pytest.raises(Conflict):
        comparison_recompute(acting_user=lead, comparison=queued)


def test_required_approvals_follow_the_commitment_threshold(scenario, lead, settings):
    settings.DUAL_APPROVAL_THRESHOLD_USD = 1_000
    big = comparison_create(
        acting_user=lead, brief=scenario["brief"], quote_ids=[scenario["fast"].pk]
    ).comparison
    big = comparison_run(comparison_id=big.pk)
    row = CandidateResult.objects.get(comparison=big, key=big.recommended_key)
    # on-demand has no term: the expected vendor spend over the whole 12-month horizon is
    # committed (D2: the team's own platform labour is not an obligation to a vendor)
    labour = Decimal(row.cost_lines.get("platform_labor", "0"))
    assert big.commitment_usd == (row.total_usd - labour) * 12
    assert row.detail["commitment_usd"] == str(big.commitment_usd)
    assert big.required_approvals == 2
    settings.DUAL_APPROVAL_THRESHOLD_USD = 10_000_000
    small = comparison_create(
        acting_user=lead, brief=scenario["brief"], quote_ids=[scenario["fast"].pk]
    ).comparison
    assert comparison_run(comparison_id=small.pk).required_approvals == 1


def test_api_routes_are_candidates_and_can_win(scenario, lead):
    route = ModelApiRouteFactory(region="eu-west", model_profile=scenario["brief"].model)
    comparison = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    comparison = comparison_run(comparison_id=comparison.pk)
    rows = _rows(comparison)
    api = rows[f"api:{route.pk}"]
    assert api.kind == "api"
    assert api.eligible
    assert api.cost_lines["api_compute"]
    assert len(rows) == 3


def _running(comparison, *, claimed_by, attempts=1):
    Comparison.objects.filter(pk=comparison.pk).update(
        status=Comparison.Status.RUNNING,
        attempts=attempts,
        claimed_at=timezone.now(),
        claimed_by=claimed_by,
    )


def test_a_delivery_that_finds_a_live_run_waits_for_its_claim_to_go_stale(scenario, lead):
    from procurement.services.comparisons import STALE_AFTER, comparison_deliver

    comparison = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    _running(comparison, claimed_by="another-host:4242")
    wait = comparison_deliver(comparison_id=comparison.pk)
    assert STALE_AFTER.total_seconds() - 5 < wait <= STALE_AFTER.total_seconds() + 1
    comparison.refresh_from_db()
    assert comparison.attempts == 1
    assert comparison.status == Comparison.Status.RUNNING
    assert not CandidateResult.objects.filter(comparison=comparison).exists()


@pytest.mark.parametrize("who", ["dead pid", "this process"])
def test_a_redelivery_after_the_worker_died_takes_over_at_once(scenario, lead, who):
    import socket

    from procurement.services.comparisons import comparison_deliver
    from procurement.services.comparisons.run import claimer

    comparison = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    dead = f"{socket.gethostname()}:999999999" if who == "dead pid" else claimer()
    _running(comparison, claimed_by=dead)
    assert comparison_deliver(comparison_id=comparison.pk) is None
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.READY
    assert comparison.attempts == 2
    assert comparison.claimed_by == claimer()


def test_a_duplicate_of_a_run_alive_on_this_host_is_a_no_op(scenario, lead):
    import os
    import socket

    from procurement.services.comparisons import comparison_deliver

    comparison = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    alive = f"{socket.gethostname()}:{os.getppid()}"  # the process that started the tests
    _running(comparison, claimed_by=alive)
    assert comparison_deliver(comparison_id=comparison.pk) is None
    comparison.refresh_from_db()
    assert comparison.attempts == 1
    assert comparison.status == Comparison.Status.RUNNING


def test_a_delivery_of_a_finished_comparison_is_a_no_op(computed):
    from procurement.services.comparisons import comparison_deliver

    assert comparison_deliver(comparison_id=computed.pk) is None
    computed.refresh_from_db()
    assert computed.attempts == 1


def test_the_task_runs_once_inline_and_asks_celery_to_retry_while_busy(scenario, lead):
    from celery.exceptions import Retry

    from procurement.tasks import comparison_run_task

    done = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    comparison_run_task(done.pk)
    done.refresh_from_db()
    assert done.status == Comparison.Status.READY
    busy = comparison_create(acting_user=lead, brief=scenario["brief"]).comparison
    _running(busy, claimed_by="another-host:1")
    with pytest.raises(Retry):
        comparison_run_task(busy.pk)
