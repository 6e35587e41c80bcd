"""The comparison API body: rendered once and stored compressed, served with an ETag
(If-None-Match → 304), a summary view without cost lines, and candidates paginated."""

from __future__ import annotations

import gzip
import json
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.renderers import JSONRenderer

from procurement.api.comparisons import ComparisonDetailSerializer
from procurement.models import Comparison
from procurement.selectors import comparisons as selectors_comparisons
from procurement.services.comparisons import comparison_recompute, comparison_run
from tests.comparisons.factories_comparisons import many_quotes, ready_comparison

URL = "/api/v1/comparisons/"
ROW_SELECT = 'SELECT "procurement_candidateresult".'


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def client_as(api_client):
    def _as(user):
        api_client.force_authenticate(user)
        return api_client

    return _as


def test_etag_round_trip_gives_304_with_the_same_etag(client_as, lead, computed):
    client = client_as(lead)
    first = client.get(f"{URL}{computed.pk}/")
    assert first.status_code == 200
    etag = first["ETag"]
    assert etag.startswith('W/"')
    again = client.get(f"{URL}{computed.pk}/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again["ETag"] == etag
    assert again.content == b""
    other = client.get(f"{URL}{computed.pk}/", HTTP_IF_NONE_MATCH='W/"something-else"')
    assert other.status_code == 200


def test_a_new_revision_or_a_new_state_answers_200_with_a_new_etag(
    client_as, lead, computed, monkeypatch
):
    monkeypatch.setattr("core.jobs.send", lambda *a, **kw: None)
    client = client_as(lead)
    etag = client.get(f"{URL}{computed.pk}/")["ETag"]
    revision = comparison_recompute(acting_user=lead, comparison=computed).comparison
    comparison_run(comparison_id=revision.pk)
    fresh = client.get(f"{URL}{revision.pk}/", HTTP_IF_NONE_MATCH=etag)
    assert fresh.status_code == 200
    assert fresh["ETag"] != etag
    # A retry (new finished_at) or a review (new status) of the same id changes the body.
    Comparison.objects.filter(pk=computed.pk).update(
        status=Comparison.Status.APPROVED, finished_at=computed.finished_at + timedelta(seconds=1)
    )
    changed = client.get(f"{URL}{computed.pk}/", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200
    assert changed.json()["status"] == "approved"
    assert changed["ETag"] != etag


def test_cached_body_is_identical_to_the_uncached_rendering(client_as, lead, computed):
    client = client_as(lead)
    miss = client.get(f"{URL}{computed.pk}/")
    with CaptureQueriesContext(connection) as ctx:
        hit = client.get(f"{URL}{computed.pk}/")
    assert hit.content == miss.content
    row_reads = [q for q in ctx.captured_queries if q["sql"].startswith(ROW_SELECT)]
    assert not row_reads  # served from the stored body: no candidate row read
    # The uncached rendering: every field loaded (the snapshot too), all rows, no cache.
    comparison = selectors_comparisons.comparisons_list(lead).defer(None).get(pk=computed.pk)
    rows = selectors_comparisons.comparison_rows(comparison)
    direct = ComparisonDetailSerializer(
        comparison, context={"rows": rows, "offset": 0, "limit": 500}
    ).data
    assert json.loads(miss.content) == json.loads(JSONRenderer().render(direct))
    zipped = client.get(f"{URL}{computed.pk}/", HTTP_ACCEPT_ENCODING="gzip, br")
    assert zipped["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.content) == miss.content
    assert zipped["ETag"] == miss["ETag"]


def test_summary_has_no_per_candidate_cost_lines(client_as, lead, computed):
    client = client_as(lead)
    full = client.get(f"{URL}{computed.pk}/").json()
    summary = client.get(f"{URL}{computed.pk}/?view=summary")
    assert summary.status_code == 200
    body = summary.json()
    assert body["view"] == "summary"
    assert body["candidates"]
    for row in body["candidates"]:
        assert "cost_lines" not in row
        assert "detail" not in row
        assert {"key", "unit_cost_usd", "rank", "eligible"} <= set(row)
    assert all("cost_lines" in row for row in full["candidates"])
    assert body["recommendation"] == full["recommendation"]
    assert summary["ETag"] != client.get(f"{URL}{computed.pk}/")["ETag"]
    assert client.get(f"{URL}{computed.pk}/?view=everything").status_code == 400


def test_candidates_are_paginated_eligible_first(client_as, lead, brief, checklist_items):
    """R11: the API pages the candidates (eligible first) and counts them all."""
    comparison = ready_comparison(lead, brief, many_quotes(7, lead))
    comparison.candidates.filter(
        key__in=list(comparison.candidates.values_list("key", flat=True)[:2])
    ).update(eligible=False, rank=None)
    client = client_as(lead)
    first = client.get(f"{URL}{comparison.pk}/?candidates_limit=3").json()
    assert first["candidates_page"] == {"offset": 0, "limit": 3, "count": 7, "next_offset": 3}
    assert first["candidate_count"] == 7
    rest = client.get(f"{URL}{comparison.pk}/?candidates_offset=3&candidates_limit=10").json()
    assert rest["candidates_page"]["next_offset"] is None
    rows = first["candidates"] + rest["candidates"]
    assert len({r["key"] for r in rows}) == 7
    flags = [r["eligible"] for r in rows]
    assert flags == sorted(flags, reverse=True)  # every eligible row before any ineligible
    assert client.get(f"{URL}{comparison.pk}/?candidates_limit=0").status_code == 400
    assert client.get(f"{URL}{comparison.pk}/?candidates_limit=99999").status_code == 400


def test_schema_documents_the_summary_view_and_pages(client_as, admin_member):
    response = client_as(admin_member).get("/api/schema/?format=json")
    assert response.status_code == 200
    text = response.content.decode()
    assert "candidates_offset" in text
    assert "summary" in text
    assert "If-None-Match" in text
