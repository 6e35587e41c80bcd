"""D11: a brief's `private_endpoint_required` is checked against what each offer states:
GPU quotes and model API routes alike."""

from __future__ import annotations

from decimal import Decimal

import pytest

from catalog.models import PrivateEndpoint, Quote
from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from tests.comparisons.factories_comparisons import frozen
from tests.factories import ModelApiRouteFactory, QuoteFactory


def _copy(quote: Quote, private_endpoint: str) -> Quote:
    return QuoteFactory(
        provider=quote.provider,
        accelerator=quote.accelerator,
        price_per_gpu_hour=Decimal("2.4900"),
        region=quote.region,
        private_endpoint=private_endpoint,
        entered_by=quote.entered_by,
    )


@pytest.fixture
def offers(scenario):
    fast = scenario["fast"]
    return {state: _copy(fast, state) for state in PrivateEndpoint.values}


def _rows(lead, brief, offers):
    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[q.pk for q in offers.values()], seed=1
    ).comparison
    comparison = comparison_run(comparison_id=comparison.pk)
    by_quote = {r.quote_id: r for r in CandidateResult.objects.filter(comparison=comparison)}
    return {state: by_quote[q.pk] for state, q in offers.items()}


def test_d11_private_endpoint_required_makes_offers_without_one_ineligible(scenario, lead, offers):
    brief = scenario["brief"]
    brief.private_endpoint_required = True
    brief.save(update_fields=["private_endpoint_required"])

    rows = _rows(lead, brief, offers)

    offered = rows[PrivateEndpoint.YES]
    assert offered.eligible, offered.reasons
    assert "DATA_BOUNDARY_VIOLATED" not in {w["code"] for w in offered.warnings}
    refused = rows[PrivateEndpoint.NO]
    assert not refused.eligible
    assert "DATA_BOUNDARY_VIOLATED" in {w["code"] for w in refused.warnings}
    assert any("no private endpoint" in r for r in refused.reasons)
    unstated = rows[PrivateEndpoint.UNKNOWN]
    assert not unstated.eligible
    assert any("does not state whether it offers a private endpoint" in r for r in unstated.reasons)


def test_d11_without_the_requirement_no_offer_is_refused_for_its_endpoint(scenario, lead, offers):
    rows = _rows(lead, scenario["brief"], offers)
    for row in rows.values():
        assert not any("private endpoint" in r for r in row.reasons)


def test_quote_form_and_api_default_the_endpoint_to_not_stated(scenario, lead):
    from catalog.services import quote_submit

    fast = scenario["fast"]
    quote = quote_submit(
        acting_user=lead,
        provider=fast.provider,
        data={
            "accelerator": fast.accelerator,
            "capacity_model": "on_demand",
            "price_per_gpu_hour": Decimal("2.10"),
            "region": "eu-west",
            "quoted_at": fast.quoted_at,
            "source_url": "https://example.com/price",
            "private_endpoint": "",
        },
    )
    assert quote.private_endpoint == PrivateEndpoint.UNKNOWN


@pytest.fixture
def routes(scenario):
    model = scenario["brief"].model
    return {
        state: ModelApiRouteFactory(region="eu-west", model_profile=model, private_endpoint=state)
        for state in PrivateEndpoint.values
    }


def _route_rows(lead, brief, routes):
    comparison = comparison_create(
        acting_user=lead,
        brief=brief,
        quote_ids=[],
        api_route_ids=[r.pk for r in routes.values()],
        seed=1,
    ).comparison
    comparison = comparison_run(comparison_id=comparison.pk)
    by_route = {r.api_route_id: r for r in CandidateResult.objects.filter(comparison=comparison)}
    return {state: by_route[r.pk] for state, r in routes.items()}


def test_d11_private_endpoint_required_refuses_api_routes_without_one(scenario, lead, routes):
    brief = scenario["brief"]
    brief.private_endpoint_required = True
    brief.save(update_fields=["private_endpoint_required"])

    rows = _route_rows(lead, brief, routes)

    offered = rows[PrivateEndpoint.YES]
    assert offered.eligible, offered.reasons
    refused = rows[PrivateEndpoint.NO]
    assert not refused.eligible
    assert "DATA_BOUNDARY_VIOLATED" in {w["code"] for w in refused.warnings}
    assert "offers no private endpoint; the brief requires one" in refused.reasons
    unstated = rows[PrivateEndpoint.UNKNOWN]
    assert not unstated.eligible
    assert any("(record it on the API route)" in r for r in unstated.reasons), unstated.reasons


def test_d11_api_routes_are_not_refused_for_their_endpoint_without_the_requirement(
    scenario, lead, routes
):
    rows = _route_rows(lead, scenario["brief"], routes)
    for row in rows.values():
        assert row.eligible, row.reasons


def test_d11_a_route_frozen_before_routes_stated_it_reads_as_not_stated(scenario, lead, routes):
    from procurement.snapshot import thaw

    brief = scenario["brief"]
    brief.private_endpoint_required = True
    brief.save(update_fields=["private_endpoint_required"])
    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[], api_route_ids=[routes["yes"].pk], seed=1
    ).comparison
    old = dict(frozen(comparison).snapshot)
    old["api_routes"] = [
        {k: v for k, v in r.items() if k != "private_endpoint"} for r in old["api_routes"]
    ]
    thawed = thaw(old)
    (reasons,) = [c.ineligible_reasons for c in thawed.input.candidates]
    assert any("does not state whether it offers a private endpoint" in r for r in reasons)


def test_api_route_service_defaults_the_endpoint_to_not_stated_and_checks_it(scenario, lead):
    from catalog.errors import CatalogInvalid
    from catalog.services import api_route_create

    provider = scenario["fast"].provider
    data = {
        "model_name": "llama-3.1-70b-instruct",
        "price_input_per_m_tokens": Decimal("0.60"),
        "price_output_per_m_tokens": Decimal("0.80"),
        "quoted_at": scenario["fast"].quoted_at,
        "private_endpoint": "",
    }
    route = api_route_create(acting_user=lead, provider=provider, data=data)
    assert route.private_endpoint == PrivateEndpoint.UNKNOWN
    with pytest.raises(CatalogInvalid) as caught:
        api_route_create(
            acting_user=lead, provider=provider, data={**data, "private_endpoint": "maybe"}
        )
    assert "private_endpoint" in caught.value.fields
