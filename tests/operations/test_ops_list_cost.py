"""L10: the comparisons list reads each comparison's stored row count; it never counts rows.

Before: a correlated COUNT over every candidate row of every listed comparison ran on each
view (200 ms of PostgreSQL per view at 198,000 rows). Now the count is written with the rows
and the counting subquery stays in the SQL only for rows written outside a computation
(fixtures), where PostgreSQL's COALESCE never evaluates it for a stored count.
"""

from __future__ import annotations

import json

import pytest
from django.db import connection

from procurement.models import CandidateResult, Comparison
from procurement.selectors.comparisons import comparisons_list
from procurement.services.comparisons import comparison_create, comparison_run
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


def _subplan_loops(plan: dict) -> list[int]:
    """Loops of every SubPlan node in an EXPLAIN (ANALYZE, FORMAT JSON) plan."""
    loops = []
    stack = [plan]
    while stack:
        node = stack.pop()
        if str(node.get("Subplan Name", "")).startswith("SubPlan"):
            loops.append(int(node["Actual Loops"]))
        stack.extend(node.get("Plans", []))
    return loops


def test_l10_a_computed_comparison_stores_its_count_and_the_list_never_counts_rows(
    lead, checklist_items
):
    brief = WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000)
    scenario_quotes(lead)
    many_quotes(5, lead, providers=1)
    for title in ("first", "second"):
        created = comparison_create(acting_user=lead, brief=brief, title=title).comparison
        comparison_run(comparison_id=created.pk)
    ready = Comparison.objects.filter(status=Comparison.Status.READY)
    assert ready.count() == 2
    for comparison in ready:
        rows = CandidateResult.objects.filter(comparison=comparison).count()
        assert rows == 7  # 2 scenario quotes + 5 bulk ones
        assert comparison.stored_candidate_count == rows

    listed = comparisons_list(lead)
    assert [c.candidate_count for c in listed] == [7, 7]

    sql, params = listed.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}", params)
        (raw,) = cursor.fetchone()
    plan = (raw if isinstance(raw, list) else json.loads(raw))[0]["Plan"]
    loops = _subplan_loops(plan)
    # The recommended label's subquery runs once per listed row (an index lookup); the count's
    # never does. Before the fix both ran per row: [2, 2].
    assert sorted(loops) == [0, 2], plan
