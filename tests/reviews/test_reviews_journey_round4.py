"""The product walked as its users walk it (round four), on the decision record.

J7: the record lists the ranked rows first. Refused rows have no rank (NULL); SQLite sorts
NULL first, so `make run`'s record (SQLite by default) opened on a refused row. The query now
asks for NULLS LAST, which PostgreSQL and SQLite both obey.
J8: the assumptions read as numbers with separators (4,000,000), not as the engine's floats
(4000000.0).
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.reviews.factories_reviews import ready_comparison

pytestmark = pytest.mark.django_db


def test_j7_the_record_lists_ranked_rows_first_on_every_database(client, finance):
    comparison = ready_comparison()
    client.force_login(finance)
    with CaptureQueriesContext(connection) as ctx:
        html = client.get(f"/comparisons/{comparison.pk}/record/").content.decode()
    rows_queries = [
        q["sql"]
        for q in ctx.captured_queries
        if 'FROM "procurement_candidateresult"' in q["sql"] and "ORDER BY" in q["sql"]
    ]
    assert rows_queries
    # the rows the table lists (the refused rows' own reason count needs no order)
    assert any('"rank" ASC NULLS LAST' in sql for sql in rows_queries), rows_queries
    table = html[html.index('<table class="table review-rows">') :]
    keys = re.findall(r'<tr class="[^"]*" data-key="([^"]+)"', table)
    assert keys == ["q-h100", "q-h200", "q-l40s"]  # rank 1, rank 2, then the refused L40S


def test_j8_record_assumptions_read_with_separators(client, finance):
    comparison = ready_comparison()
    comparison.result = {
        "assumptions": {
            "hours_per_month": 730,
            "workload": {"monthly_accepted_outputs_high": 4000000.0, "failure_rate_low": 0.005},
        }
    }
    comparison.save(update_fields=["result"])
    client.force_login(finance)
    html = client.get(f"/comparisons/{comparison.pk}/record/").content.decode()
    section = html[html.index('id="assumptions-h"') :].split("</section>")[0]
    assert re.search(r'monthly_accepted_outputs_high">[^<]*</dt><dd>4,000,000', section)
    assert "4000000.0" not in section
    assert "<dd>0.005" in section
