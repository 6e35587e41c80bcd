"""A term contract longer than the brief's horizon counts in full in the unit cost."""

from __future__ import annotations

from decimal import Decimal

import pytest

from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_run
from tests.deployments.conftest import h200_quote, sweep_on
from tests.factories import ProviderFactory

pytestmark = pytest.mark.django_db


def _compare(api_client, lead, brief, quotes, assumptions=None):
    api_client.force_authenticate(lead)
    response = api_client.post(
        "/api/v1/comparisons/",
        {
            "brief": brief.pk,
            "quotes": [q.pk for q in quotes],
            "seed": 7,
            **({"assumptions": assumptions} if assumptions else {}),
        },
        format="json",
    )
    assert response.status_code == 202, response.json()
    pk = response.json()["id"]
    comparison_run(comparison_id=pk)
    data = api_client.get(f"/api/v1/comparisons/{pk}/").json()
    return {c["key"]: c for c in data["candidates"]}, data


@pytest.fixture
def offers(lead):
    """The same H200 hardware and sweep: 36 months at USD 2.50 or 12 months at USD 3.00."""
    long_term = h200_quote(
        lead,
        provider=ProviderFactory(name="Longterm", slug="longterm"),
        term_months=36,
        price_per_gpu_hour=Decimal("2.5000"),
        title="H200 36-month reserved",
    )
    one_year = h200_quote(
        lead,
        provider=ProviderFactory(name="Oneyear", slug="oneyear"),
        term_months=12,
        price_per_gpu_hour=Decimal("3.0000"),
        title="H200 12-month reserved",
    )
    sweep_on(lead, long_term, sha="b")
    sweep_on(lead, one_year, sha="c")
    return long_term, one_year


def test_n7_a_36_month_term_under_a_12_month_horizon_is_not_prorated_in_the_ranking(
    api_client, lead, deploy_brief, checklist_items, offers
):
    long_term, one_year = offers
    rows, _ = _compare(api_client, lead, deploy_brief, offers)
    long_row, year_row = rows[f"quote:{long_term.pk}"], rows[f"quote:{one_year.pk}"]
    # The 36-month row carries its 24 stranded months: twice its horizon's GPU spend
    gpu = sum(
        Decimal(long_row["cost_lines"][k]) for k in ("gpu_compute", "retry_waste", "idle_capacity")
    )
    assert Decimal(long_row["cost_lines"]["term_beyond_horizon"]) == gpu * 2
    # So the cheaper hourly price no longer wins: unit cost = contract ÷ the horizon's outputs
    assert year_row["rank"] == 1
    assert long_row["rank"] == 2
    assert Decimal(long_row["unit_cost_usd"]) > Decimal(year_row["unit_cost_usd"])
    assert long_row["rank_hourly"] == 1  # still the cheaper hour, and the table says both
    # The commitment is still the whole contract, not the contract plus the stranded line
    commitment = long_row["detail"]["commitment"]
    assert Decimal(commitment["commitment_usd"]) == Decimal(commitment["contract_usd"])


def test_n7_a_stated_residual_use_lowers_the_stranded_part_and_is_shown(
    api_client, lead, deploy_brief, checklist_items, offers
):
    long_term, _ = offers
    rows, data = _compare(
        api_client, lead, deploy_brief, offers, assumptions={"term_residual_use_share": 0.95}
    )
    long_row = rows[f"quote:{long_term.pk}"]
    gpu = sum(
        Decimal(long_row["cost_lines"][k]) for k in ("gpu_compute", "retry_waste", "idle_capacity")
    )
    # 24 months beyond × (1 − 0.95) = a tenth of the horizon's GPU spend
    assert Decimal(long_row["cost_lines"]["term_beyond_horizon"]) == (gpu / 10).quantize(
        Decimal("0.01")
    )
    applied = {a["name"]: a for a in data["assumptions_applied"]}
    assert applied["term_residual_use_share"]["value"] in (0.95, "0.95")
    assert long_row["rank"] == 1  # nearly all the rest resold: the longer term wins again
    assert CandidateResult.objects.filter(key=f"quote:{long_term.pk}").exists()
