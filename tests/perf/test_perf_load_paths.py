"""What load removed from the hot paths: the dashboard never reads a comparison's JSON and
keeps its counts per role; an ETag hit on the comparison API is one small query; the load
benchmark's baseline view is served by its own settings only, never by the product."""

from __future__ import annotations

import re

from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.comparisons.factories_comparisons import many_quotes, ready_comparison

WHOLE_JSON = re.compile(r'(SELECT |, )"procurement_comparison"\."(snapshot|result)"(,| FROM)')


def _queries(client, path, **headers):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(path, **headers)
    assert response.status_code in (200, 304), path
    return response, [q["sql"] for q in ctx.captured_queries]


def test_dashboard_reads_no_comparison_json_and_keeps_counts_per_role(
    login, lead, lead_other, brief, checklist_items
):
    cache.clear()
    ready_comparison(lead, brief, many_quotes(3, lead))
    _, first = _queries(login(lead), "/")
    assert not any(WHOLE_JSON.search(q) for q in first)
    _, second = _queries(login(lead_other), "/")  # another user of the role: same cards
    assert len(second) < len(first)
    assert not any("COUNT(" in q.upper() for q in second)


def test_dashboard_reads_only_its_columns_and_no_row_more_than_once(
    login, lead, finance, brief, checklist_items
):
    cache.clear()
    quotes = many_quotes(3, lead)
    first = ready_comparison(lead, brief, quotes)
    client = login(finance)
    client.get("/")  # the role's cards, cached
    response, one = _queries(client, "/")
    ready_comparison(lead, brief, quotes, seed=6)
    ready_comparison(lead, brief, quotes, seed=7)
    response, three = _queries(client, "/")
    assert len(three) == len(one)
    html = response.content.decode()
    assert f"/comparisons/{first.pk}/review/" in html  # awaiting this reviewer's decision
    assert html.count(f"by {lead.username}") >= 3  # its author, from the same query
    comparison_sql = [q for q in three if 'FROM "procurement_comparison"' in q]
    assert comparison_sql
    assert not any('"engine_version"' in q for q in comparison_sql)


def test_a_role_that_never_reviews_has_no_awaiting_query(
    login, lead, finance, brief, checklist_items
):
    cache.clear()
    ready_comparison(lead, brief, many_quotes(2, lead))
    for user, reviews in ((lead, False), (finance, True)):
        client = login(user)
        client.get("/")  # the role's cards, cached
        _, sql = _queries(client, "/")
        assert any("procurement_review" in q for q in sql) is reviews


def test_an_etag_hit_is_one_small_query(api_client, lead, brief, checklist_items):
    cache.clear()
    comparison = ready_comparison(lead, brief, many_quotes(5, lead))
    api_client.force_authenticate(lead)
    url = f"/api/v1/comparisons/{comparison.pk}/"
    etag = api_client.get(url)["ETag"]
    response, sql = _queries(api_client, url, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
    assert len(sql) == 1
    assert "procurement_candidateresult" not in sql[0]
    assert not WHOLE_JSON.search(sql[0])


def test_the_baseline_view_is_not_a_product_url(login, lead):
    assert login(lead).get("/bench/baseline/").status_code == 404
