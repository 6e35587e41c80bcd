"""U36 on the comparison page: the results table sorts by its headers (rank, unit cost, price
per GPU-hour, P(cheapest), provider) in the database, the sort stays in the URL with the page,
eligible rows stay first (the ineligible ones still collapse together), an unknown sort key
falls back to the rank, and the page's query count stays bounded."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from procurement.models import CandidateResult
from tests.comparisons.factories_comparisons import many_quotes, ready_comparison

pytestmark = pytest.mark.django_db


@pytest.fixture
def sixty_rows(lead, brief, checklist_items):
    """A ready comparison of 60 H100 offers over 3 providers, 6 of them made ineligible."""
    cache.clear()
    comparison = ready_comparison(lead, brief, many_quotes(60, lead, providers=3))
    dropped = list(comparison.candidates.order_by("rank").values_list("pk", flat=True)[10:16])
    CandidateResult.objects.filter(pk__in=dropped).update(eligible=False, rank=None)
    return comparison


def _keys(html: str) -> list[str]:
    return re.findall(r'<tr id="row-\d+" data-key="([^"]+)"', html)


def _expected(comparison, *order: str) -> list[str]:
    """Every row's key in the order the page must show them (eligible first)."""
    return list(comparison.candidates.order_by("-eligible", *order).values_list("key", flat=True))


def test_results_sort_by_price_per_gpu_hour_keeps_eligible_first_and_the_sort_in_the_pager(
    login, lead, sixty_rows
):
    client = login(lead)
    path = f"/comparisons/{sixty_rows.pk}/"
    first = client.get(path, {"sort": "-hourly"}).content.decode()
    second = client.get(path, {"sort": "-hourly", "page": 2}).content.decode()
    expected = _expected(sixty_rows, "-hourly_price_usd", "rank", "unit_cost_usd", "key")
    assert _keys(first) + _keys(second) == expected
    prices = list(
        sixty_rows.candidates.filter(eligible=True)
        .order_by("-hourly_price_usd")
        .values_list("hourly_price_usd", flat=True)
    )
    assert prices[0] > prices[-1]  # a real order, not the rank's by accident
    # The 6 ineligible rows sit together after the eligible ones, behind one toggle.
    assert second.count('<tbody id="ineligible-rows"') == 1
    assert 'data-toggle-rows="ineligible-rows"' in second
    assert first.count('<tbody id="ineligible-rows"') == 0
    # The header shows the direction and offers the other one; the pager keeps the sort.
    assert re.search(r'aria-sort="descending"><a href="\?sort=hourly#results"', first)
    assert 'href="?sort=-hourly&amp;page=2#results" rel="next"' in first
    assert 'href="?sort=-hourly&amp;page=1#results" rel="prev"' in second
    assert 'href="?sort=unit_cost#results" data-sort="unit_cost"' in first


@pytest.mark.parametrize(
    ("sort", "order"),
    [
        ("unit_cost", ("unit_cost_usd", "rank", "key")),
        ("-prob_cheapest", ("-prob_cheapest", "rank", "unit_cost_usd", "key")),
        ("provider", ("provider_name", "rank", "unit_cost_usd", "key")),
        ("-rank", ("-rank", "unit_cost_usd", "key")),
    ],
)
def test_results_sort_by_each_header(login, lead, sixty_rows, sort, order):
    client = login(lead)
    path = f"/comparisons/{sixty_rows.pk}/"
    shown = _keys(client.get(path, {"sort": sort}).content.decode())
    assert shown == _expected(sixty_rows, *order)[:50]


def test_results_unknown_sort_falls_back_to_the_rank(login, lead, sixty_rows):
    client = login(lead)
    path = f"/comparisons/{sixty_rows.pk}/"
    default = client.get(path).content.decode()
    bogus = client.get(path, {"sort": "price); drop table x"})
    assert bogus.status_code == 200
    assert _keys(bogus.content.decode()) == _keys(default)
    assert _keys(default) == _expected(sixty_rows, "rank", "unit_cost_usd", "key")[:50]
    assert re.search(r'aria-sort="ascending"><a href="\?sort=-rank#results"', default)
    assert 'href="?page=2#results" rel="next"' in default  # the default sort stays implicit


def test_results_sorted_page_reads_as_many_queries_as_a_later_ranked_page(login, lead, sixty_rows):
    """A sorted page reads its rows and the ranked top rows for the charts: the same work
    as the ranked second page, whatever the row count."""
    client = login(lead)
    path = f"/comparisons/{sixty_rows.pk}/"
    client.get(path)  # warm the session and the page chrome
    counts = {}
    for params in ({"page": 2}, {"sort": "provider"}, {"sort": "-unit_cost", "page": 2}):
        cache.clear()
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(path, params).status_code == 200
        counts[str(params)] = len(ctx.captured_queries)
    assert len(set(counts.values())) == 1, counts
    with CaptureQueriesContext(connection) as ctx:
        client.get(path, {"sort": "-unit_cost", "page": 2})  # cached now: no row read
    assert not any("procurement_candidateresult" in q["sql"] for q in ctx.captured_queries)
