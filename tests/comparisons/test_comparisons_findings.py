"""D9 / D10 / H3 through the snapshot adapter: what the engine used is stored, with sources."""

from __future__ import annotations

from decimal import Decimal

from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from tests.factories import ModelApiRouteFactory


def test_d9_the_stored_result_lists_every_default_with_its_source(scenario, lead):
    """D9: the API exposed only the overrides ("assumptions": {}); defaults were invisible."""
    comparison = comparison_create(
        acting_user=lead,
        brief=scenario["brief"],
        quote_ids=[scenario["fast"].pk],
        assumptions={"observability_per_month": 250},
    ).comparison
    comparison = comparison_run(comparison_id=comparison.pk)
    applied = {(a["name"], a["candidate_id"]): a for a in comparison.result["assumptions_applied"]}
    assert applied[("observability_per_month", "")]["source"] == "override"
    assert applied[("observability_per_month", "")]["value"] == "250.0"
    serving = applied[("serving_stack_per_month", "")]
    assert (serving["source"], serving["note"]) == ("product default", "not provided: counted as 0")
    assert applied[("fixed_peak_headroom", "")]["value"] == 0.2
    assert applied[("horizon_months", "")]["source"] == "brief"


def test_d10_api_rows_pay_the_storage_the_brief_needs(scenario, lead):
    """D10: API rows were built with no storage price whatever the brief's storage_gb."""
    brief = scenario["brief"]
    brief.storage_gb = 1000
    brief.save(update_fields=["storage_gb"])
    route = ModelApiRouteFactory(region="eu-west", model_profile=brief.model)
    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[scenario["fast"].pk], api_route_ids=[route.pk]
    ).comparison
    comparison = comparison_run(comparison_id=comparison.pk)
    row = CandidateResult.objects.get(comparison=comparison, key=f"api:{route.pk}")
    assert Decimal(row.cost_lines["storage"]) == Decimal("23.00")  # 1,000 GB × 0.023


def test_h3_every_row_carries_its_commitment(scenario, lead):
    """H3/D2: the commitment is on every row, not only on the comparison."""
    comparison = comparison_create(
        acting_user=lead, brief=scenario["brief"], quote_ids=[scenario["fast"].pk]
    ).comparison
    comparison = comparison_run(comparison_id=comparison.pk)
    for row in CandidateResult.objects.filter(comparison=comparison, eligible=True):
        assert Decimal(row.detail["commitment_usd"]) > 0
        assert row.detail["commitment"]["basis"]
