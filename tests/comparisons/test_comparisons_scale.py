"""R11: comparisons that scale to real catalogs — candidate filters before freezing, list and
detail reads that never load the snapshot or result JSON, counts in a subquery."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.errors import DomainError
from procurement.models import Comparison
from procurement.services.comparisons import comparison_create, comparison_recompute
from tests.comparisons.factories_comparisons import frozen, ready_comparison
from tests.factories import ModelApiRouteFactory, QuoteFactory

WHOLE_JSON = re.compile(r'(SELECT |, )"procurement_comparison"\."(snapshot|result)"(,| FROM)')


@pytest.fixture
def extra(scenario, lead):
    """A third offer: the H100 provider's spot quote in us-east, and one API route."""
    spot = QuoteFactory(
        provider=scenario["fast"].provider,
        accelerator=scenario["fast"].accelerator,
        capacity_model="spot",
        region="us-east-1",
        price_per_gpu_hour=Decimal("1.9000"),
        entered_by=lead,
    )
    route = ModelApiRouteFactory(provider=scenario["cheap"].provider)
    return {**scenario, "spot": spot, "route": route}


def _create(lead, brief, **filters):
    return frozen(
        comparison_create(
            acting_user=lead, brief=brief, candidate_filters=filters, enqueue=False, seed=1
        ).comparison
    )


def _quote_ids(comparison):
    return set(comparison.quotes.values_list("pk", flat=True))


def test_filters_narrow_every_current_offer_before_freezing(lead, extra):
    """R11: the lead restricts a comparison by region, capacity model, accelerator, provider."""
    brief = extra["brief"]
    by_region = _create(lead, brief, regions=["EU-WEST"])
    assert _quote_ids(by_region) == {extra["cheap"].pk, extra["fast"].pk}
    assert by_region.api_routes.count() == 1  # routes have no quote region: kept
    by_model = _create(lead, brief, capacity_models=["spot"])
    assert _quote_ids(by_model) == {extra["spot"].pk}
    assert by_model.api_routes.count() == 0  # "api" not asked for
    by_gpu = _create(lead, brief, accelerators=[extra["fast"].accelerator.slug])
    assert _quote_ids(by_gpu) == {extra["fast"].pk, extra["spot"].pk}
    assert by_gpu.api_routes.count() == 0
    by_provider = _create(lead, brief, providers=[extra["cheap"].provider.slug])
    assert _quote_ids(by_provider) == {extra["cheap"].pk}
    assert by_provider.api_routes.count() == 1
    selection = by_region.snapshot["selection"]
    assert selection["filters"] == {"regions": ["EU-WEST"]}
    assert selection["default"] is False
    assert len(by_region.snapshot["quotes"]) == 2  # frozen after filtering


def test_filters_refuse_unknown_keys_and_say_when_nothing_matches(lead, extra):
    with pytest.raises(DomainError, match="Unknown candidate filter"):
        _create(lead, extra["brief"], zones=["a"])
    with pytest.raises(DomainError, match="Unknown capacity model"):
        _create(lead, extra["brief"], capacity_models=["rented"])
    with pytest.raises(DomainError, match="matches these filters"):
        _create(lead, extra["brief"], regions=["ap-south"], capacity_models=["spot"])
    assert not Comparison.objects.exists()


def test_recompute_applies_the_filters_again(lead, extra, monkeypatch):
    monkeypatch.setattr("core.jobs.send", lambda *a, **kw: None)
    first = _create(lead, extra["brief"], regions=["us-east"])
    Comparison.objects.filter(pk=first.pk).update(status="ready")
    first.refresh_from_db()
    newer = QuoteFactory(
        provider=extra["cheap"].provider,
        accelerator=extra["cheap"].accelerator,
        region="us-east-2",
        entered_by=lead,
    )
    revision = frozen(comparison_recompute(acting_user=lead, comparison=first).comparison)
    assert _quote_ids(revision) == {extra["spot"].pk, newer.pk}


def test_api_create_takes_the_filters(api_client, lead, extra, monkeypatch):
    monkeypatch.setattr("core.jobs.send", lambda *a, **kw: None)
    api_client.force_authenticate(lead)
    response = api_client.post(
        "/api/v1/comparisons/",
        {"brief": extra["brief"].pk, "capacity_models": ["spot", "api"], "regions": ["us"]},
        format="json",
    )
    assert response.status_code == 202, response.json()
    comparison = frozen(Comparison.objects.get(pk=response.json()["id"]))
    assert _quote_ids(comparison) == {extra["spot"].pk}
    assert comparison.api_routes.count() == 1


def test_form_takes_the_filters(login, lead, extra, monkeypatch):
    monkeypatch.setattr("core.jobs.send", lambda *a, **kw: None)
    client = login(lead)
    page = client.get(f"/comparisons/new/?brief={extra['brief'].pk}")
    assert 'name="regions"' in page.content.decode()
    response = client.post(
        "/comparisons/new/",
        {
            "brief": extra["brief"].pk,
            "quotes": [extra["cheap"].pk, extra["fast"].pk, extra["spot"].pk],
            "api_routes": [extra["route"].pk],
            "providers": extra["fast"].provider.slug,
            "capacity_models": ["on_demand"],
        },
    )
    assert response.status_code == 302
    comparison = frozen(Comparison.objects.latest("pk"))
    assert _quote_ids(comparison) == {extra["fast"].pk}
    assert comparison.api_routes.count() == 0


def test_list_and_detail_never_load_the_snapshot_or_result(login, api_client, lead, scenario):
    """R11: list, detail page (cached and not) and API read neither JSON column whole."""
    cache.clear()
    comparison = ready_comparison(lead, scenario["brief"], [scenario["cheap"], scenario["fast"]])
    client = login(lead)
    api_client.force_authenticate(lead)
    paths = [
        (client, "/comparisons/"),
        (api_client, "/api/v1/comparisons/"),
        (api_client, f"/api/v1/comparisons/{comparison.pk}/?view=summary"),
        (client, f"/comparisons/{comparison.pk}/"),
        (client, f"/comparisons/{comparison.pk}/"),
    ]
    for who, path in paths:
        with CaptureQueriesContext(connection) as ctx:
            assert who.get(path).status_code == 200, path
        loaded = [q["sql"] for q in ctx.captured_queries if WHOLE_JSON.search(q["sql"])]
        if path.startswith("/comparisons/") and path != "/comparisons/":
            # the results section reads `result` once, when it is rendered; never the snapshot
            assert not any('"snapshot"' in q for q in loaded), path
        elif "view=summary" not in path:
            assert not loaded, path
        listing = [q["sql"] for q in ctx.captured_queries if "candidate_count" in q["sql"]]
        assert all("GROUP BY" not in q.split("candidate_count")[-1] for q in listing)
    assert client.get("/comparisons/").context["page"].object_list[0].candidate_count == 2
