"""L5: the dashboard asks whether any price change is open before it plans the notices query.

Before: every view ran a SELECT DISTINCT over procurement_pricechange with seven joins, whose
planning alone cost 21-40 ms of PostgreSQL CPU, on an empty table.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db

PRICE_CHANGE_QUERY = re.compile(r'FROM "procurement_pricechange"')


def _joins(sql: str) -> int:
    return len(re.findall(r"\bJOIN\b", sql))


def test_l5_no_open_price_change_costs_one_small_exists_query(login, lead):
    client = login(lead)
    with CaptureQueriesContext(connection) as ctx:
        assert client.get("/").status_code == 200
    queries = [q["sql"] for q in ctx.captured_queries if PRICE_CHANGE_QUERY.search(q["sql"])]
    assert queries, "the dashboard no longer looks for price-change notices"
    assert not any("DISTINCT" in sql for sql in queries), queries
    assert max(_joins(sql) for sql in queries) <= 2, queries
