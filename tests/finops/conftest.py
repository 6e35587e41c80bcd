"""Decisions to reconcile: the seeded demo comparison approved by a finance reviewer (and a
platform engineer when its commitment needs two approvals), and a small hand-made one."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.apps import apps
from django.core.management import call_command

from procurement.selectors.reviews.acknowledge import CODES as TICKS

# The browser area's fixtures, for the one browser test of the reconciliation chart.
from tests.browser.conftest import browser_page, chromium, chromium_profile  # noqa: F401


@pytest.fixture
def checklist_items(db):
    """The seeded checklist items (a transactional test elsewhere may have flushed them)."""
    from checklist.models import ChecklistItem

    if not ChecklistItem.objects.exists():
        importlib.import_module("checklist.migrations.0002_seed_items").seed_items(apps, None)
    return list(ChecklistItem.objects.all())


@pytest.fixture
def demo_decision(settings, tmp_path, checklist_items):
    from accounts.models import User
    from catalog.services.seed_data import catalog_load
    from procurement import demo
    from procurement.models import Comparison
    from procurement.services.reviews import review_submit

    settings.MEDIA_ROOT = str(tmp_path)
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {**settings.STORAGES["default"], "OPTIONS": {"location": str(tmp_path)}},
    }
    catalog_load()
    call_command("seed_demo", "--force", stdout=None)
    comparison = Comparison.objects.get(title=demo.DEMO_TITLE)
    assert comparison.status == Comparison.Status.READY
    for username in ("finance2", "engineer"):  # finance entered the demo FX rates
        comparison.refresh_from_db()
        if comparison.status != Comparison.Status.READY:
            break
        review_submit(
            acting_user=User.objects.get(username=username),
            comparison=comparison,
            decision="approve",
            comment="Checked the cost lines, the commitment and the evidence.",
            acknowledged=TICKS,
        )
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    return comparison


@pytest.fixture
def decision(db, lead, finance_other, settings, tmp_path):
    """A small approved decision: 2,000 GPU-hours a month reserved at USD 2.50 on Provider A
    for 12 months, forecasting USD 5,100 billed (5,000 GPU + 100 storage) for 1,000,000
    accepted outputs at an acceptance share of 0.9 and a utilisation of 0.8."""
    from core.roles import Role
    from procurement.models import CandidateResult, Comparison, Review
    from tests.factories import ComparisonFactory, QuoteFactory, WorkloadBriefFactory
    from tests.support.cast import build_provider

    settings.STORAGES = {
        **settings.STORAGES,
        "default": {**settings.STORAGES["default"], "OPTIONS": {"location": str(tmp_path)}},
    }
    quote = QuoteFactory(provider=build_provider("provider_a"), capacity_model="reserved")
    brief = WorkloadBriefFactory(created_by=lead, acceptance_rate_likely=0.9)
    comparison = ComparisonFactory(
        title="Chat on reserved H100",
        brief=brief,
        created_by=lead,
        status=Comparison.Status.APPROVED,
        recommended_key="q",
        commitment_usd=Decimal("60000.00"),
        decided_at=datetime(2026, 3, 10, 15, 30, tzinfo=UTC),
    )
    row = CandidateResult.objects.create(
        comparison=comparison,
        key="q",
        kind=CandidateResult.Kind.GPU,
        quote=quote,
        label=str(quote),
        provider_name=quote.provider.name,
        capacity_model="reserved",
        gpus=8,
        hourly_price_usd=Decimal("2.5000"),
        cost_lines={
            "gpu_compute": "3900.00",
            "retry_waste": "100.00",
            "idle_capacity": "1000.00",
            "storage": "100.00",
            "platform_labor": "9000.00",
        },
        total_usd=Decimal("14100.00"),
        accepted_outputs=Decimal("1000000.0000"),
        detail={
            "gpu_spend": "5000.00",
            "billed_gpu_hours": "2000.00",
            "commitment_usd": "60000.00",
            "commitment": {
                "basis": "fixed_term",
                "contract_usd": "60000.00",
                "committed_gpu_hours_per_month": "2000",
                "months_counted": 12,
                "term_months": 12,
                "horizon_months": 12,
            },
        },
    )
    Review.objects.create(
        comparison=comparison,
        comparison_creator=lead,
        reviewer=finance_other,
        reviewer_role=Role.FINANCE_REVIEWER,
        decision=Review.Decision.APPROVE,
        candidate=row,
        comment="Checked.",
    )
    return comparison
