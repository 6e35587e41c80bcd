"""Issue 15 (7), D13: whether failed API attempts are billed is stated per route.

The engine and the snapshot read `failed_attempts_billed` from each route; the catalog now
stores it (blank: not stated, so the brief's assumption applies), the form and the API take
it, the snapshot freezes it and `assumptions_applied` names "route" as its source.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from catalog.errors import CatalogInvalid
from catalog.forms.reference import ApiRouteForm
from catalog.services import api_route_create
from procurement.services.comparisons import comparison_create, comparison_run
from procurement.snapshot import thaw
from tests.factories import ModelApiRouteFactory

pytestmark = pytest.mark.django_db


def _applied(comparison, route) -> dict:
    rows = [
        a
        for a in comparison.result["assumptions_applied"]
        if a["name"] == "api_failed_attempts_billed" and str(route.pk) in str(a["candidate_id"])
    ]
    assert len(rows) == 1, comparison.result["assumptions_applied"]
    return rows[0]


def _compared(lead, brief, route):
    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[], api_route_ids=[route.pk], seed=1
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    return comparison


def test_a_route_that_bills_no_failed_attempt_is_frozen_and_sourced_route(scenario, lead):
    model = scenario["brief"].model
    route = ModelApiRouteFactory(
        region="eu-west", model_profile=model, failed_attempts_billed=Decimal("0")
    )
    comparison = _compared(lead, scenario["brief"], route)
    (frozen,) = comparison.snapshot["api_routes"]
    assert Decimal(str(frozen["failed_attempts_billed"])) == 0
    (candidate,) = thaw(comparison.snapshot).input.candidates
    assert candidate.failed_attempts_billed == 0.0
    applied = _applied(comparison, route)
    assert applied["source"] == "route"
    assert Decimal(str(applied["value"])) == 0


def test_a_route_that_does_not_say_takes_the_briefs_assumption(scenario, lead):
    model = scenario["brief"].model
    route = ModelApiRouteFactory(region="eu-west", model_profile=model)
    comparison = _compared(lead, scenario["brief"], route)
    (frozen,) = comparison.snapshot["api_routes"]
    assert frozen["failed_attempts_billed"] is None
    (candidate,) = thaw(comparison.snapshot).input.candidates
    assert candidate.failed_attempts_billed is None
    assert _applied(comparison, route)["source"] != "route"


def _data(scenario, **extra):
    return {
        "model_name": "llama-3.1-70b-instruct",
        "price_input_per_m_tokens": Decimal("0.60"),
        "price_output_per_m_tokens": Decimal("0.80"),
        "quoted_at": scenario["fast"].quoted_at,
        **extra,
    }


@pytest.mark.parametrize("share", [Decimal("1.5"), Decimal("-0.1"), "lots"])
def test_the_service_refuses_a_share_outside_0_to_1(scenario, lead, share):
    provider = scenario["fast"].provider
    with pytest.raises(CatalogInvalid) as caught:
        api_route_create(
            acting_user=lead, provider=provider, data=_data(scenario, failed_attempts_billed=share)
        )
    assert "between 0 (none) and 1 (all)" in caught.value.fields["failed_attempts_billed"][0]
    assert not type(provider).objects.get(pk=provider.pk).api_routes.exists()


def test_the_service_stores_a_share_in_range(scenario, lead):
    provider = scenario["fast"].provider
    route = api_route_create(
        acting_user=lead, provider=provider, data=_data(scenario, failed_attempts_billed="0.5")
    )
    route.refresh_from_db()
    assert route.failed_attempts_billed == Decimal("0.500")


def test_the_api_and_the_form_take_the_share(scenario, lead):
    client = APIClient()
    client.force_authenticate(lead)
    body = {
        "provider": scenario["fast"].provider.slug,
        "model_name": "llama-3.1-70b-instruct",
        "price_input_per_m_tokens": "0.60",
        "price_output_per_m_tokens": "0.80",
        "quoted_at": scenario["fast"].quoted_at.isoformat(),
        "failed_attempts_billed": "0.25",
    }
    response = client.post("/api/v1/api-routes/", body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["failed_attempts_billed"] == "0.250"
    form = ApiRouteForm(data={"failed_attempts_billed": "0,25"})
    form.is_valid()
    assert "failed_attempts_billed" not in form.errors
    assert form.cleaned_data["failed_attempts_billed"] == Decimal("0.25")
