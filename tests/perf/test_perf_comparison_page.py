"""The results section of a finished comparison is rendered once, then served from the cache:
same HTML, no candidate rows read, and a new `finished_at` renders it again."""

from __future__ import annotations

import re
from datetime import timedelta

from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from procurement.models import Comparison
from tests.comparisons.factories_comparisons import many_quotes, ready_comparison


def _without_csrf(html: str) -> str:
    html = re.sub(r'"X-CSRFToken": "[^"]+"', "", html)
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)


def _get(client, path: str) -> tuple[str, list[str]]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(path)
    assert response.status_code == 200
    return response.content.decode(), [q["sql"] for q in ctx.captured_queries]


def test_perf_results_section_is_cached_and_reads_no_rows(login, lead, brief, checklist_items):
    cache.clear()
    comparison = ready_comparison(lead, brief, many_quotes(5, lead))
    client = login(lead)
    path = f"/comparisons/{comparison.pk}/"
    first, _ = _get(client, path)
    second, queries = _get(client, path)
    assert first.count('<tr id="row-') == 5
    assert _without_csrf(second) == _without_csrf(first)
    assert not any("procurement_candidateresult" in sql for sql in queries)


def test_perf_results_render_again_after_a_new_finish(login, lead, brief, checklist_items):
    cache.clear()
    comparison = ready_comparison(lead, brief, many_quotes(3, lead))
    client = login(lead)
    path = f"/comparisons/{comparison.pk}/"
    _get(client, path)
    Comparison.objects.filter(pk=comparison.pk).update(
        finished_at=comparison.finished_at + timedelta(seconds=1)
    )
    comparison.candidates.filter(rank=1).update(label="Re-run label")
    html, queries = _get(client, path)
    assert any("procurement_candidateresult" in sql for sql in queries)
    assert "Re-run label" in html


def test_perf_detail_queries_same_for_5_and_50_rows(
    login, lead, brief, checklist_items, django_assert_max_num_queries
):
    cache.clear()
    quotes = many_quotes(50, lead)
    small = ready_comparison(lead, brief, quotes[:5])
    large = ready_comparison(lead, brief, quotes)
    client = login(lead)
    counts = []
    for comparison in (small, large):
        for _ in range(2):  # rendered, then cached
            counts.append(len(_get(client, f"/comparisons/{comparison.pk}/")[1]))
    assert counts[0] == counts[2]
    assert counts[1] == counts[3]
    with django_assert_max_num_queries(8):
        client.get(f"/comparisons/{large.pk}/")
