"""The default selection of a new comparison is the service's decision, not the page's.

A choice of exactly every default candidate is the default selection, whether it came from
the form (every box left ticked), from the API (every default id listed) or from the API
with no ids at all; a recompute of any of them takes today's defaults again.
"""

from __future__ import annotations

import pytest

from procurement.models import Comparison
from procurement.selectors.comparisons import default_candidate_ids
from tests.comparisons.factories_comparisons import frozen


@pytest.fixture
def sent(monkeypatch):
    out: list[object] = []
    monkeypatch.setattr("core.jobs.send", lambda name, args, **kw: out.append(args))
    return out


def _html(login, lead, brief, quotes):
    response = login(lead).post("/comparisons/new/", {"brief": brief.pk, "quotes": quotes})
    assert response.status_code == 302, response.content.decode()[:500]
    return frozen(Comparison.objects.order_by("-pk").first()).snapshot["selection"]


def _api(api_client, lead, body):
    api_client.force_authenticate(lead)
    response = api_client.post("/api/v1/comparisons/", body, format="json")
    assert response.status_code == 202, response.json()
    return frozen(Comparison.objects.get(pk=response.json()["id"])).snapshot["selection"]


def test_every_default_candidate_is_the_default_selection_on_both_surfaces(
    login, api_client, lead, scenario, sent
):
    brief = scenario["brief"]
    quote_ids, route_ids = default_candidate_ids(brief)
    assert sorted(quote_ids) == sorted([scenario["cheap"].pk, scenario["fast"].pk])
    by_form = _html(login, lead, brief, quote_ids)
    by_api_ids = _api(
        api_client, lead, {"brief": brief.pk, "quotes": quote_ids, "api_routes": route_ids}
    )
    by_api_default = _api(api_client, lead, {"brief": brief.pk})
    assert by_form == by_api_ids == by_api_default
    assert by_form["default"] is True
    assert sorted(by_form["quote_ids"]) == sorted(quote_ids)


def test_a_narrower_choice_is_not_the_default_on_both_surfaces(
    login, api_client, lead, scenario, sent
):
    brief, fast = scenario["brief"], scenario["fast"].pk
    by_form = _html(login, lead, brief, [fast])
    by_api = _api(api_client, lead, {"brief": brief.pk, "quotes": [fast]})
    assert by_form == by_api
    assert by_form["default"] is False
    assert by_form["quote_ids"] == [fast]
