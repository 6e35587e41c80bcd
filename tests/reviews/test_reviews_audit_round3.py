"""The audit trail reads as words, links its objects and exports the filtered view as CSV."""

from __future__ import annotations

import csv
import io

import pytest

from core.audit import audit_record

pytestmark = pytest.mark.django_db


def test_v20_actions_in_words_objects_linked_and_a_csv_of_the_filtered_view(
    login, comparison, admin_member, lead
):
    audit_record(actor=lead, action="comparison.price_changed", obj=comparison, summary={"a": 1})
    audit_record(actor=lead, action="quote.revise", object_type="catalog.quote", object_id="7")
    client = login(admin_member)
    html = client.get("/audit/").content.decode()
    assert "Price changed behind the comparison" in html
    assert "Quote: revise" in html
    assert f'href="/comparisons/{comparison.pk}/"' in html
    assert 'href="/catalog/quotes/7/"' in html
    assert "<code>comparison.price_changed</code>" not in html
    assert 'id="audit-csv"' in html

    response = client.get("/audit/", {"action": "comparison.price_changed", "format": "csv"})
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [r["action_code"] for r in rows] == ["comparison.price_changed"]
    assert rows[0]["action"] == "Price changed behind the comparison"
    assert rows[0]["actor"] == "lead"
    assert rows[0]["summary"] == "a: 1"
