"""D11: a brief's `private_endpoint_required` is checked against what each offer states."""

from __future__ import annotations

from decimal import Decimal

import pytest

from catalog.models import PrivateEndpoint, Quote
from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from tests.factories import QuoteFactory


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
    )
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
