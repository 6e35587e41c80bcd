"""H6 (security findings), issue 15: every price shows who entered it (vendor, procurement or
an import) on the review page, the decision record and the CSV/XLSX exports."""

from __future__ import annotations

import csv
import io

import openpyxl
import pytest

from catalog.models import Quote
from tests.reviews.factories_reviews import add_api_candidate, ready_comparison

pytestmark = pytest.mark.django_db


@pytest.fixture
def authored(lead, vendor_a):
    """A ready comparison whose H100 price the vendor entered, H200 the lead, L40S an import."""
    comparison = ready_comparison(created_by=lead)
    add_api_candidate(comparison)
    rows = {c.key: c for c in comparison.candidates.select_related("quote")}
    Quote.objects.filter(pk=rows["q-h100"].quote_id).update(entered_by=vendor_a)
    Quote.objects.filter(pk=rows["q-h200"].quote_id).update(entered_by=lead)
    Quote.objects.filter(pk=rows["q-l40s"].quote_id).update(
        entered_by=lead, list_key="acme|l40s|spot|eu-west"
    )
    return comparison


def _body(response) -> bytes:
    return b"".join(response.streaming_content)


@pytest.mark.parametrize("screen", ["review", "record"])
def test_h6_review_page_and_record_say_who_entered_each_price(
    screen, login, finance, lead, authored
):
    html = login(finance).get(f"/comparisons/{authored.pk}/{screen}/").content.decode()
    assert "entered by Vendor" in html
    assert f"entered by Procurement ({lead.username})" in html
    assert "entered by Import" in html


def test_h6_csv_has_a_price_entered_by_column(api_client, finance, lead, authored):
    api_client.force_authenticate(finance)
    response = api_client.get(f"/api/v1/comparisons/{authored.pk}/export.csv")
    rows = {r["Key"]: r for r in csv.DictReader(io.StringIO(_body(response).decode("utf-8-sig")))}
    assert rows["q-h100"]["Price entered by"] == "Vendor"
    assert rows["q-h200"]["Price entered by"] == f"Procurement ({lead.username})"
    assert rows["q-l40s"]["Price entered by"] == "Import"


def test_h6_xlsx_says_who_entered_each_price(api_client, finance, lead, authored):
    api_client.force_authenticate(finance)
    response = api_client.get(f"/api/v1/comparisons/{authored.pk}/export.xlsx")
    book = openpyxl.load_workbook(io.BytesIO(_body(response)))
    values = list(book["Candidates"].iter_rows(values_only=True))
    header = list(values[0])
    by_key = {row[-1]: row[header.index("Price entered by")] for row in values[1:]}  # Key last
    assert by_key["q-h100"] == "Vendor"
    assert by_key["q-l40s"] == "Import"
    versions = list(book["Quote versions"].iter_rows(values_only=True))
    column = list(versions[0]).index("Entered by")
    entered = {row[0]: row[column] for row in versions[1:]}
    assert entered["q-h200"] == f"Procurement ({lead.username})"
