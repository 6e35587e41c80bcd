"""L11: the comparison page says each applied assumption once, with how many rows it covers.

Before: one line per candidate ("Storage price per GB-month ... for Bench cloud 4: L40 48GB
... USD 0.02 (from the workbench's stated default)"): 21,162 lines, 4.4 MB at 20,000
candidates.
"""

from __future__ import annotations

import re

import pytest

from tests.reviews.factories_reviews import ready_comparison

pytestmark = pytest.mark.django_db

CANDIDATES = 500


def _applied(html: str) -> list[str]:
    listed = html.split('<ul class="applied-assumptions">', 1)[1].split("</ul>", 1)[0]
    return re.findall(r"<li>(.*?)</li>", listed, flags=re.S)


def test_l11_one_line_per_applied_assumption_naming_three_rows_and_counting_the_rest(client, lead):
    comparison = ready_comparison(created_by=lead)
    # The three rows ready_comparison makes (q-h100, q-h200, q-l40s) and 497 more keys.
    keys = ["q-h100", "q-h200", "q-l40s"] + [f"more-{i}" for i in range(CANDIDATES - 3)]
    storage = {
        "name": "storage_price_per_gb_month",
        "label": "Storage price per GB-month",
        "value": "0.02",
        "source": "product default",
        "note": "",
    }
    horizon = {
        "name": "horizon_months",
        "label": "Planning horizon (months)",
        "value": 12,
        "source": "brief",
        "candidate_id": "",
        "note": "",
    }
    comparison.result = {
        **comparison.result,
        "assumptions_applied": [horizon, *({**storage, "candidate_id": k} for k in keys)],
    }
    comparison.save(update_fields=["result"])
    client.force_login(lead)
    html = client.get(f"/comparisons/{comparison.pk}/").content.decode()
    lines = _applied(html)
    assert len(lines) == 2, lines  # was 501
    assert lines[0].startswith("Planning horizon (months): 12")
    assert " for 500 candidates (" in lines[1]
    assert lines[1].count(", ") == 2  # three rows named
    assert "and 497 more)" in lines[1]
