"""V21: the review page's CSV and XLSX say what the page says: capacity and warnings in words,
benchmark evidence without "result #None", accepted outputs as a whole count, money with two
decimals (up to four only where the value has them), the human columns first and the machine
key last; the XLSX number formats follow."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import openpyxl
import pytest

from tests.reviews.factories_reviews import ready_comparison

pytestmark = pytest.mark.django_db


@pytest.fixture
def exported(lead):
    comparison = ready_comparison(created_by=lead)
    rows = comparison.candidates
    rows.filter(key="q-h100").update(
        capacity_model="spot",
        accepted_outputs=Decimal("400000000.0000"),
        unit_cost_usd=Decimal("5.454727"),
        p10=5.454726735199813,
        p50=6.4,
        p90=7.918273645,
        warnings=[
            {"code": "WEAK_INTERCONNECT", "detail": "PCIe only between the 8 GPUs"},
            {"code": "NO_ACCEPTANCE_DATA", "detail": "no acceptance data: the brief's rate"},
        ],
        performance={
            "evidence": {
                "kind": "estimated",
                "result_id": None,
                "reason": "no benchmark matches the brief",
            }
        },
    )
    # A per-token unit cost under a cent keeps its four places (0.0375 → 0.0375, not 0.04).
    rows.filter(key="q-h200").update(
        capacity_model="reserved",
        unit_cost_usd=Decimal("0.037512"),
        p10=0.03412345,
        p50=0.0375,
        p90=0.041,
        performance={
            "evidence": {
                "kind": "measured",
                "result_id": 12,
                "reason": "measured on Llama 3.1 70B at the brief's shape",
                "adjustments": ["×0.9 for another engine version"],
            }
        },
    )
    return comparison


def _csv(client, comparison) -> list[dict[str, str]]:
    response = client.get(f"/api/v1/comparisons/{comparison.pk}/export.csv", HTTP_ACCEPT="text/csv")
    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))


def test_v21_csv_writes_words_whole_counts_and_money_with_two_decimals(
    exported, api_client, finance
):
    api_client.force_authenticate(finance)
    rows = _csv(api_client, exported)
    header = list(rows[0])
    assert header[0] == "Candidate"
    assert header[-1] == "Key"  # the machine key last
    h100 = next(r for r in rows if r["Key"] == "q-h100")
    h200 = next(r for r in rows if r["Key"] == "q-h200")
    assert h100["Capacity model"] == "Spot / preemptible"  # not "spot"
    assert h200["Capacity model"] == "Reserved"
    assert h100["Kind"] == "GPU offer"
    assert h100["Warnings"] == (
        "Weak interconnect: PCIe only between the 8 GPUs; No acceptance data: the brief's rate"
    )
    assert "result #None" not in h100["Benchmark evidence (as computed)"]
    assert h100["Benchmark evidence (as computed)"] == "estimated: no benchmark matches the brief"
    assert h200["Benchmark evidence (as computed)"] == (
        "measured on Llama 3.1 70B at the brief's shape; ×0.9 for another engine version "
        "(benchmark result #12)"
    )
    assert h100["Accepted outputs"] == "400000000"  # not 400000000.0000
    assert (h100["Unit cost p10 (USD)"], h100["Unit cost p50 (USD)"]) == ("5.45", "6.40")
    assert h100["Unit cost p90 (USD)"] == "7.92"
    assert h100["Unit cost (USD)"] == "5.45"
    assert (h200["Unit cost (USD)"], h200["Unit cost p10 (USD)"]) == ("0.0375", "0.0341")
    assert h200["Unit cost p50 (USD)"] == "0.0375"
    assert h200["Unit cost p90 (USD)"] == "0.041"
    assert h100["Price per GPU-hour (USD)"] == "2.49"  # stored 2.4900
    assert h200["Price per GPU-hour (USD)"] == "3.10"
    assert h100["GPU compute (USD)"] == "10000.00"


def test_v21_xlsx_holds_the_same_values_with_number_formats_to_match(exported, api_client, finance):
    api_client.force_authenticate(finance)
    response = api_client.get(f"/api/v1/comparisons/{exported.pk}/export.xlsx")
    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    sheet = openpyxl.load_workbook(io.BytesIO(body))["Candidates"]
    header = [c.value for c in sheet[1]]
    assert (header[0], header[-1]) == ("Candidate", "Key")
    rows = [dict(zip(header, cells, strict=True)) for cells in sheet.iter_rows(min_row=2)]
    h100 = next(r for r in rows if r["Key"].value == "q-h100")
    h200 = next(r for r in rows if r["Key"].value == "q-h200")
    assert h100["Accepted outputs"].value == 400_000_000
    assert h100["Accepted outputs"].number_format == "#,##0"
    assert h100["Unit cost p10 (USD)"].value == pytest.approx(5.45)
    assert h100["Unit cost p10 (USD)"].number_format == "#,##0.00##"
    assert h200["Unit cost p10 (USD)"].value == pytest.approx(0.0341)
    assert h100["Capacity model"].value == "Spot / preemptible"
    assert h100["Warnings"].value.startswith("Weak interconnect: ")
    assert h100["Total (USD)"].number_format == "#,##0.00"
