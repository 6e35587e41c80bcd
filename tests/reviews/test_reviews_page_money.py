"""Issue 15 (3, 4): the review page lists the assumptions and each row's commitment."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

APPLIED = [
    {
        "name": "observability_per_month",
        "label": "Observability per month",
        "value": "0",
        "source": "product default",
        "candidate_id": "",
        "note": "not provided: counted as 0",
    },
    {
        "name": "failed_attempts_billed",
        "label": "Failed API attempts billed",
        "value": "false",
        "source": "route",
        "candidate_id": "api-route",
        "note": "",
    },
]


def test_review_page_lists_each_assumption_once_with_its_source(client, comparison, finance):
    comparison.result = {
        "assumptions": {
            "hours_per_month": "730",
            "workload": {
                "observability_per_month": "0",
                "horizon_months": 12,
                "assumption_sources": {
                    "observability_per_month": "product default",
                    "horizon_months": "brief",
                },
            },
        },
        "assumptions_applied": APPLIED,
    }
    comparison.save(update_fields=["result"])
    client.force_login(finance)
    html = client.get(f"/comparisons/{comparison.pk}/review/").content.decode()
    assumptions = html.split('id="assumptions-h"', 1)[1].split("</section>", 1)[0]
    assert assumptions.count("observability_per_month") == 1
    assert "not provided: counted as 0 (product default)" in assumptions
    assert "12 (brief)" in assumptions
    assert "(route)" in assumptions
