"""R9: the data boundary reads regions as geography, and names the region that failed."""

from __future__ import annotations

import pytest

from catalog.regions import boundary_reason, place_of, region_allowed

DEMO = ["eu-west", "eu-central"]  # the demo brief "Customer support chat"


@pytest.mark.parametrize(
    "region",
    ["eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1", "europe-west4", "westeurope",
     "europe-central-1", "NL", "EU-NL-1", "eu-west", "germanywestcentral"],
)  # fmt: skip
def test_r9_real_eu_regions_pass_the_demo_boundary(region):
    """R9: AWS, GCP, Azure, Lambda and RunPod codes for western/central Europe pass."""
    assert region_allowed(region, DEMO)


@pytest.mark.parametrize(
    ("region", "allowed", "ok"),
    [
        ("eu-north1", ["EU"], True),  # Nebius Finland
        ("europe-west4", ["Europe"], True),
        ("eu-west-2", ["Europe"], True),
        ("eu-west-2", ["EU"], False),  # London: Europe, not the EU
        ("eu-west-2", ["uk"], True),
        ("us-east-1", ["US"], True),
        ("US-TX-3", ["us"], True),
        ("us-east-1", DEMO, False),
        ("europe-west4", ["NL"], True),
        ("westeurope", ["europe-west4"], True),  # same country
        ("eu-north1", DEMO, False),
    ],
)
def test_geographies_countries_areas_and_aliases(region, allowed, ok):
    assert region_allowed(region, allowed) is ok


def test_r9_reason_names_the_region_and_the_allowed_set():
    """R9: the reason says which region failed, where it is, and what was allowed."""
    reason = boundary_reason(["us-east-1"], DEMO)
    assert reason == (
        "region us-east-1 (United States, North America) is outside the allowed regions "
        "eu-west, eu-central"
    )
    assert "mars-1 is not in the region vocabulary" in boundary_reason(["mars-1"], DEMO)
    assert "states no region" in boundary_reason([], DEMO)
    assert boundary_reason(["anything"], []) is None


def test_every_region_of_a_route_must_be_inside():
    assert boundary_reason(["EU"], ["EU"]) is None
    assert "us-east-1" in boundary_reason(["eu-west-1", "us-east-1"], ["EU"])


def test_places_know_country_and_area():
    place = place_of("europe-west4")
    assert (place.country, place.area) == ("NL", "eu-west")
    assert "eu" in place.geographies


@pytest.fixture
def checklist_items(db):
    """The seeded checklist items (a transactional test elsewhere may have flushed them)."""
    import importlib

    from django.apps import apps

    from checklist.models import ChecklistItem

    if not ChecklistItem.objects.exists():
        importlib.import_module("checklist.migrations.0002_seed_items").seed_items(apps, None)
    return list(ChecklistItem.objects.all())


@pytest.mark.django_db
def test_r9_comparison_reason_names_the_region_and_api_routes_can_pass(lead, checklist_items):
    """R9: a real EU quote is eligible for an EU brief; an API route that states where it
    processes data passes; one that does not is refused with a reason."""
    from procurement.models import CandidateResult
    from procurement.services.comparisons import comparison_create, comparison_run
    from tests.comparisons.factories_comparisons import scenario_quotes
    from tests.factories import ModelApiRouteFactory, WorkloadBriefFactory

    brief = WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000, allowed_regions=DEMO)
    cheap, fast = scenario_quotes(lead)
    type(cheap).objects.filter(pk=cheap.pk).update(region="europe-west4")
    type(fast).objects.filter(pk=fast.pk).update(region="us-east-1")
    eu_route = ModelApiRouteFactory(processing_regions=["eu-west-1"], region="")
    unstated = ModelApiRouteFactory(processing_regions=[], region="")
    comparison = comparison_create(
        acting_user=lead,
        brief=brief,
        quote_ids=[cheap.pk, fast.pk],
        api_route_ids=[eu_route.pk, unstated.pk],
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    rows = {r.key: r for r in CandidateResult.objects.filter(comparison=comparison)}

    def boundary_failed(row):
        return "DATA_BOUNDARY_VIOLATED" in {w["code"] for w in row.warnings}

    assert not boundary_failed(rows[f"quote:{cheap.pk}"])
    assert boundary_failed(rows[f"quote:{fast.pk}"])
    assert any("region us-east-1 (United States" in r for r in rows[f"quote:{fast.pk}"].reasons)
    assert not boundary_failed(rows[f"api:{eu_route.pk}"])
    assert boundary_failed(rows[f"api:{unstated.pk}"])
    assert any("states no region" in r for r in rows[f"api:{unstated.pk}"].reasons)


def test_a_whole_geography_passes_only_a_boundary_that_contains_it():
    assert boundary_reason(["EU"], ["Europe"]) is None
    assert "wider than the allowed eu-west, eu-central" in boundary_reason(["EU"], DEMO)


@pytest.mark.django_db
def test_r9_api_route_states_where_it_processes_data(lead, api_client):
    """R9: a route's processing regions are written and read through the API, and checked."""
    from tests.factories import ProviderFactory

    ProviderFactory(slug="mistral", name="Mistral")
    api_client.force_authenticate(user=lead)
    body = {
        "provider": "mistral",
        "model_name": "mistral-large",
        "currency": "EUR",
        "price_input_per_m_tokens": "2",
        "price_output_per_m_tokens": "6",
        "quoted_at": "2026-11-20T00:00:00Z",
        "source_url": "https://mistral.ai/pricing",
        "processing_regions": ["EU"],
    }
    created = api_client.post("/api/v1/api-routes/", body, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["processing_regions"] == ["EU"]
    bad = api_client.post(
        "/api/v1/api-routes/", {**body, "processing_regions": ["atlantis-1"]}, format="json"
    )
    assert bad.status_code == 400
    assert "atlantis-1" in bad.content.decode()
