"""L12: a comparison's rows are written in short transactions, each refreshing the claim.

Before: every row, the status and the audit event went in one transaction (60-70 s and
~120 MB at 20,000 candidates) during which the claim was never refreshed, so it looked stale
to the re-drive, and `finished_at` was stamped before the rows were written.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from procurement.models import CandidateResult, Comparison
from procurement.services.comparisons import comparison_create, comparison_run
from procurement.services.comparisons import run as run_service
from tests.comparisons.factories_comparisons import many_quotes, scenario_quotes
from tests.factories import WorkloadBriefFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def checklist_items(db):
    import importlib

    from django.apps import apps

    from checklist.models import ChecklistItem

    if not ChecklistItem.objects.exists():
        importlib.import_module("checklist.migrations.0002_seed_items").seed_items(apps, None)


@pytest.fixture
def queued(lead, checklist_items):
    brief = WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000)
    scenario_quotes(lead)
    many_quotes(5, lead, providers=1)  # 7 candidates
    return comparison_create(acting_user=lead, brief=brief, title="batches").comparison


def _statements(ctx) -> list[str]:
    kinds = []
    for query in ctx.captured_queries:
        sql = query["sql"]
        assignments = sql.split(" WHERE ")[0]
        if not sql.startswith('UPDATE "procurement_comparison"'):
            if sql.startswith('INSERT INTO "procurement_candidateresult"'):
                kinds.append("rows")
        elif "'ready'" in assignments:
            kinds.append("ready")
        elif '"claimed_at"' in assignments and '"status"' not in assignments:
            kinds.append("claim")
    return kinds


def test_l12_rows_go_in_batches_each_after_a_claim_refresh_and_the_status_last(queued, monkeypatch):
    monkeypatch.setattr(run_service, "SAVE_BATCH", 3)
    monkeypatch.setattr(run_service, "PROGRESS_EVERY_S", 10**9)  # no progress writes
    with CaptureQueriesContext(connection) as ctx:
        comparison_run(comparison_id=queued.pk)
    queued.refresh_from_db()
    assert queued.status == Comparison.Status.READY
    assert CandidateResult.objects.filter(comparison=queued).count() == 7
    kinds = _statements(ctx)
    # 7 rows in batches of 3: claim, then (claim, rows) × 3 (3 + 3 + 1 rows), then ready.
    tail = kinds[kinds.index("rows") - 2 :]
    assert tail == ["claim", "claim", "rows", "claim", "rows", "claim", "rows", "ready"], kinds


def test_l12_a_run_that_lost_its_claim_between_batches_stops_and_is_not_ready(queued, monkeypatch):
    monkeypatch.setattr(run_service, "SAVE_BATCH", 3)
    real_bulk_create = CandidateResult.objects.bulk_create
    calls = []

    def taken_over_after_first_batch(objs, **kwargs):
        calls.append(len(objs))
        created = real_bulk_create(objs, **kwargs)
        if len(calls) == 1:  # another run claims the comparison (attempt 2)
            Comparison.objects.filter(pk=queued.pk).update(attempts=2)
        return created

    monkeypatch.setattr(CandidateResult.objects, "bulk_create", taken_over_after_first_batch)
    comparison_run(comparison_id=queued.pk)
    queued.refresh_from_db()
    assert calls == [3]  # the second batch was never written
    assert queued.status == Comparison.Status.RUNNING  # left to the run that holds the claim
    assert queued.attempts == 2
