"""Fixtures of the comparisons area: a complete brief, the scenario quotes, helpers."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from checklist.models import ChecklistItem
from procurement.services.comparisons import comparison_create, comparison_run
from tests.comparisons.factories_comparisons import scenario_quotes
from tests.factories import WorkloadBriefFactory


@pytest.fixture
def checklist_items(db):
    """The 20 seeded items (a transactional test elsewhere may have flushed them)."""
    if not ChecklistItem.objects.exists():
        migration = importlib.import_module("checklist.migrations.0002_seed_items")
        migration.seed_items(apps, None)
    return list(ChecklistItem.objects.all())


@pytest.fixture
def brief(db, lead):
    # e2e p99 of 30 s: the slower, cheaper-per-hour L40S stays eligible.
    return WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000)


@pytest.fixture
def scenario(db, lead, brief, checklist_items):
    cheap, fast = scenario_quotes(lead)
    return {"brief": brief, "cheap": cheap, "fast": fast}


@pytest.fixture
def computed(scenario, lead):
    """A ready comparison of the two scenario quotes (seed 7), computed in-process."""
    comparison = comparison_create(
        acting_user=lead,
        brief=scenario["brief"],
        quote_ids=[scenario["cheap"].pk, scenario["fast"].pk],
        seed=7,
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    return comparison
