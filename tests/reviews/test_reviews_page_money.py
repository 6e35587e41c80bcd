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


# --- (4) Each row's commitment, on the page and in the exports --------------------------------

COMMITMENTS = {
    "q-h100": {
        "commitment_usd": "19250.00",
        "commitment": {"basis": "elastic", "contract_usd": None, "horizon_months": 1},
    },
    "q-h200": {
        "commitment_usd": "496000.00",
        "commitment": {
            "basis": "training_fixed_term",
            "contract_usd": "496000.00",
            "months_counted": 12,
            "horizon_months": 1,
            "run_share_usd": "112.96",
        },
    },
}


@pytest.fixture
def committed(comparison):
    for key, detail in COMMITMENTS.items():
        comparison.candidates.filter(key=key).update(detail=detail)
    return comparison


def _cell(html: str, key: str) -> str:
    # Up to the next row: a row's cost lines hold a small table of their own.
    row = html.split(f'data-key="{key}"', 1)[1].split("data-key=", 1)[0]
    return row.split('class="num commitment"', 1)[1].split("</td>", 1)[0]


def test_review_rows_show_each_commitment_with_its_term(client, committed, finance):
    client.force_login(finance)
    html = client.get(f"/comparisons/{committed.pk}/review/").content.decode()
    assert "USD 19,250.00" in _cell(html, "q-h100")
    assert "1-month horizon" in _cell(html, "q-h100")
    reserved = _cell(html, "q-h200")
    assert "USD 496,000.00" in reserved
    assert "12-month term" in reserved
    assert "run share USD 112.96" in reserved
    assert "—" in _cell(html, "q-l40s")  # ineligible: the engine stated no commitment


def test_csv_and_xlsx_carry_each_commitment(client, committed, finance):
    import csv
    import io

    import openpyxl

    client.force_login(finance)
    response = client.get(f"/api/v1/comparisons/{committed.pk}/export.csv")
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    rows = {r["Key"]: r for r in csv.DictReader(io.StringIO(text))}
    assert rows["q-h100"]["Commitment (USD)"] == "19250.00"
    assert rows["q-h100"]["Commitment term"] == "1-month horizon"
    assert rows["q-h200"]["Commitment (USD)"] == "496000.00"
    assert rows["q-h200"]["Commitment term"] == "12-month term"
    assert rows["q-h200"]["Run share of the commitment (USD)"] == "112.96"
    assert rows["q-l40s"]["Commitment (USD)"] == ""
    response = client.get(f"/api/v1/comparisons/{committed.pk}/export.xlsx")
    book = openpyxl.load_workbook(io.BytesIO(b"".join(response.streaming_content)))
    sheet = book["Candidates"]
    header = [c.value for c in sheet[1]]
    column = header.index("Commitment (USD)")
    by_key = {r[-1].value: r for r in sheet.iter_rows(min_row=2)}  # the Key column is last
    assert by_key["q-h200"][column].value == 496000
    assert by_key["q-h200"][column].number_format == "#,##0.00"
