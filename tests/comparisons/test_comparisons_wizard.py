"""V13: the new-comparison page is filters first, then the candidates they leave.

The world: a brief that allows eu-west only, answered by an RFQ; current quotes in eu-west
(Northwind's H100, the RFQ's answer, at USD 5.12 per GPU-hour on 1-GPU nodes), eu-west-2
(Contoso's L40S spot) and us-east (Contoso's H100), and one model API route. The default
selection, the service's on both surfaces: the three quotes inside eu-west's geography are
out, us-east is listed but never ticked, and the route is in.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from procurement.models import Comparison
from procurement.selectors.comparisons import default_candidate_ids
from tests.comparisons.factories_comparisons import frozen, h100, l40s
from tests.factories import (
    ModelApiRouteFactory,
    ProviderFactory,
    QuoteFactory,
    RfqFactory,
    WorkloadBriefFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(lead):
    northwind = ProviderFactory(name="Northwind GPU Cloud", slug="northwind")
    contoso = ProviderFactory(name="Contoso Compute", slug="contoso")
    brief = WorkloadBriefFactory(created_by=lead, allowed_regions=["eu-west"])
    rfq = RfqFactory(title="Chat capacity Q3", brief=brief, created_by=lead, providers=[northwind])
    h100_gpu, l40s_gpu = h100(), l40s()
    answer = QuoteFactory(
        provider=northwind,
        accelerator=h100_gpu,
        rfq=rfq,
        title="NW H100 1x eu-west on-demand",
        price_per_gpu_hour=Decimal("5.1200"),
        gpus_per_node=1,
        region="eu-west",
    )
    spot = QuoteFactory(
        provider=contoso,
        accelerator=l40s_gpu,
        capacity_model="spot",
        title="Contoso L40S spot",
        price_per_gpu_hour=Decimal("0.7490"),
        region="eu-west-2",
    )
    far = QuoteFactory(
        provider=contoso,
        accelerator=h100_gpu,
        title="Contoso H100 us-east",
        price_per_gpu_hour=Decimal("2.2900"),
        region="us-east-1",
    )
    route = ModelApiRouteFactory(provider=ProviderFactory(name="Lambda API", slug="lambda"))
    return {"brief": brief, "rfq": rfq, "answer": answer, "spot": spot, "far": far, "route": route}


def _page(client, world, query=""):
    response = client.get(f"/comparisons/new/?brief={world['brief'].pk}{query}")
    assert response.status_code == 200
    return response, response.content.decode()


def _checked(html, name):
    return {
        int(v)
        for v in re.findall(rf'<input type="checkbox" name="{name}" value="(\d+)" checked', html)
    }


def _row_of(html, name, pk):
    found = re.search(rf'name="{name}" value="{pk}".*?</li>', html, re.S)
    assert found is not None, (name, pk)
    return found.group(0)


def _listed(html, name):
    return {
        int(v) for v in re.findall(rf'<input type="checkbox" name="{name}" value="(\d+)"', html)
    }


def test_v13_filters_come_first_with_the_briefs_region_preselected(login, lead, world):
    _response, html = _page(login(lead), world)
    # the filters sit above the candidate rows
    assert html.index('id="candidate-filters"') < html.index('name="quotes"')
    # the regions inside the brief's (eu-west and eu-west-2, in eu-west's area) start ticked
    ticked = set(re.findall(r'name="regions" value="([^"]+)"[^>]*checked', html))
    assert ticked == {"eu-west", "eu-west-2"}
    assert re.search(r'name="regions" value="us-east-1"(?![^>]*checked)', html)
    # so the rows are the quotes in them (and the route), every one ticked
    assert _listed(html, "quotes") == {world["answer"].pk, world["spot"].pk}
    assert _checked(html, "quotes") == {world["answer"].pk, world["spot"].pk}
    assert _checked(html, "api_routes") == {world["route"].pk}


def test_v13_a_quote_outside_the_briefs_regions_is_listed_but_never_preselected(login, lead, world):
    _response, html = _page(login(lead), world, "&filtered=1")  # every region
    assert world["far"].pk in _listed(html, "quotes")
    assert world["far"].pk not in _checked(html, "quotes")
    assert _checked(html, "quotes") == {world["answer"].pk, world["spot"].pk}
    assert "outside the brief's regions" in html


def test_v13_accelerator_and_provider_are_pickers_not_slugs_typed_by_hand(login, lead, world):
    client = login(lead)
    _response, html = _page(client, world)
    assert "slugs, comma-separated" not in html
    assert re.search(r'type="checkbox" name="accelerators" value="l40s-48gb"[^>]*> L40S 48GB', html)
    assert re.search(
        r'type="checkbox" name="providers" value="contoso"[^>]*> Contoso Compute', html
    )
    assert re.search(r'type="checkbox" name="capacity_models" value="spot"', html)
    # picking an accelerator and a provider lists only what both keep
    _response, html = _page(
        client, world, "&filtered=1&accelerators=h100-sxm-80gb&providers=contoso"
    )
    assert _listed(html, "quotes") == {world["far"].pk}
    assert _listed(html, "api_routes") == set()  # an accelerator filter drops API routes


def test_v13_only_the_answers_to_the_rfq(login, lead, world, monkeypatch):
    monkeypatch.setattr("core.jobs.send", lambda *a, **kw: None)
    client = login(lead)
    rfq = world["rfq"]
    _response, html = _page(client, world)
    assert f"RFQ {rfq.pk}: Chat capacity Q3 (1 answer)" in html
    _response, html = _page(client, world, f"&filtered=1&rfqs={rfq.pk}")
    assert _listed(html, "quotes") == {world["answer"].pk}
    assert _listed(html, "api_routes") == set()  # a route answers no RFQ
    # the page posts the filter with the ticked rows; the snapshot keeps it for a recompute
    response = client.post(
        "/comparisons/new/",
        {"brief": world["brief"].pk, "quotes": [world["answer"].pk], "rfqs": [rfq.pk]},
    )
    assert response.status_code == 302, response.content.decode()[:400]
    selection = frozen(Comparison.objects.get()).snapshot["selection"]
    assert selection["quote_ids"] == [world["answer"].pk]
    assert selection["filters"] == {"rfqs": [str(rfq.pk)]}


def test_v13_prices_read_with_two_decimals_and_their_unit_and_one_gpu_per_node(login, lead, world):
    _response, html = _page(login(lead), world)
    answer = _row_of(html, "quotes", world["answer"].pk)
    assert "USD 5.12 / GPU-hour" in answer
    assert "5.1200" not in answer
    assert "1 GPU/node" in answer
    assert "GPUs/node" not in answer
    spot = _row_of(html, "quotes", world["spot"].pk)
    assert "USD 0.75 / GPU-hour" in spot  # 0.7490 to the cent
    assert "8 GPUs/node" in spot
    route = _row_of(html, "api_routes", world["route"].pk)
    assert "USD 0.60 in / USD 0.80 out per 1M tokens" in route


def test_v13_the_default_selection_is_the_services_on_both_surfaces(
    login, api_client, lead, world, monkeypatch
):
    monkeypatch.setattr("core.jobs.send", lambda *a, **kw: None)
    quotes, routes = default_candidate_ids(world["brief"])
    assert quotes == sorted([world["answer"].pk, world["spot"].pk])  # not us-east-1
    _response, html = _page(login(lead), world)
    assert _checked(html, "quotes") == set(quotes)
    assert _checked(html, "api_routes") == set(routes)
    api_client.force_authenticate(lead)
    response = api_client.post("/api/v1/comparisons/", {"brief": world["brief"].pk}, format="json")
    assert response.status_code == 202, response.json()
    selection = frozen(Comparison.objects.get(pk=response.json()["id"])).snapshot["selection"]
    assert selection["default"] is True
    assert selection["quote_ids"] == quotes
    assert selection["api_route_ids"] == routes


def test_v13_the_api_takes_the_rfq_filter_and_refuses_a_bad_id(
    api_client, lead, world, monkeypatch
):
    monkeypatch.setattr("core.jobs.send", lambda *a, **kw: None)
    api_client.force_authenticate(lead)
    brief, rfq = world["brief"], world["rfq"]
    response = api_client.post(
        "/api/v1/comparisons/", {"brief": brief.pk, "rfqs": [str(rfq.pk)]}, format="json"
    )
    assert response.status_code == 202, response.json()
    comparison = frozen(Comparison.objects.get(pk=response.json()["id"]))
    assert list(comparison.quotes.values_list("pk", flat=True)) == [world["answer"].pk]
    assert comparison.api_routes.count() == 0
    refused = api_client.post(
        "/api/v1/comparisons/", {"brief": brief.pk, "rfqs": ["chat"]}, format="json"
    )
    assert refused.status_code == 400
    assert "RFQs are given by their ids" in refused.json()["detail"]
    assert Comparison.objects.count() == 1


def test_v13_a_refused_post_keeps_its_filters_and_rows(login, lead, world):
    # nothing ticked: refused with the reason, and the page lists what the filters kept
    response = login(lead).post(
        "/comparisons/new/",
        {"brief": world["brief"].pk, "regions": ["eu-west", "eu-west-2"]},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "nothing to compare" in html
    assert _listed(html, "quotes") == {world["answer"].pk, world["spot"].pk}
    assert re.search(r'type="hidden" name="regions" value="eu-west-2"', html)
    assert not Comparison.objects.exists()
