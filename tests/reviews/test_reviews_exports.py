"""CSV/XLSX exports: every cost line, the three sheets, totals equal the API, formulas inert."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import openpyxl
import pytest

from core.models import AuditEvent
from core.spreadsheet import FORMULA_PREFIXES
from core.values import money_decimal
from procurement import exports
from tests.reviews.factories_reviews import add_api_candidate, ready_comparison

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def body(response) -> bytes:
    return b"".join(response.streaming_content)


def sheet_rows(sheet) -> list[dict]:
    values = list(sheet.iter_rows(values_only=True))
    header = values[0]
    return [dict(zip(header, row, strict=True)) for row in values[1:]]


# --- Pure layout (no database) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+1+1", "'+1+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tcmd", "'\tcmd"),
        ("\rcmd", "'\rcmd"),
        ("Northwind", "Northwind"),
        ("a=b", "a=b"),
        (Decimal("-12.50"), Decimal("-12.50")),
        (-3, -3),
        (0.25, 0.25),
        (None, ""),
        (True, "yes"),
    ],
)
def test_neutralise(value, expected):
    assert exports.neutralise(value) == expected


def sample_data(provider: str = "Northwind") -> exports.ExportData:
    return exports.ExportData(
        title="Chat",
        unit_label="per 1M accepted output tokens",
        candidates=[
            {
                "key": "q1",
                "label": f"{provider}: H100",
                "provider": provider,
                "eligible": True,
                "cost_lines": {"gpu_compute": Decimal("10.50"), "credit": Decimal("-2.25")},
                "total_usd": Decimal("8.25"),
            }
        ],
        line_names=["gpu_compute", "credit"],
        assumptions=[("seed", 7), ("note", "=cmd|' /C calc'!A0")],
        quotes=[{"candidate": "q1", "provider": provider, "price": Decimal("2.49")}],
    )


def test_csv_keeps_numbers_and_neutralises_text():
    rows = list(
        csv.reader(
            io.StringIO(b"".join(exports.iter_csv(sample_data("=EVIL()"))).decode("utf-8-sig"))
        )
    )
    header, row = rows
    data = dict(zip(header, row, strict=True))
    assert data["Provider"] == "'=EVIL()"
    assert data["Candidate"] == "'=EVIL(): H100"
    assert data["GPU compute (USD)"] == "10.50"
    assert data["Credit (USD)"] == "-2.25"  # a real negative number stays a number
    assert data["Total (USD)"] == "8.25"


def test_xlsx_cells_are_inert_and_typed():
    book = openpyxl.load_workbook(io.BytesIO(exports.to_xlsx(sample_data("@evil"))))
    assert book.sheetnames == ["Candidates", "Assumptions", "Quote versions"]
    row = sheet_rows(book["Candidates"])[0]
    assert row["Provider"] == "'@evil"
    assert row["Credit (USD)"] == -2.25
    assert isinstance(row["GPU compute (USD)"], float | int)
    for sheet in book.worksheets:
        for cells in sheet.iter_rows():
            for cell in cells:
                assert cell.data_type != "f", (sheet.title, cell.coordinate, cell.value)
    assumptions = dict(book["Assumptions"].iter_rows(min_row=2, values_only=True))
    assert assumptions["note"] == "'=cmd|' /C calc'!A0"
    assert assumptions["seed"] == 7


def test_xlsx_drops_characters_a_workbook_cannot_hold():
    data = sample_data("Bad\x00Name\x07")
    book = openpyxl.load_workbook(io.BytesIO(exports.to_xlsx(data)))
    assert sheet_rows(book["Candidates"])[0]["Provider"] == "BadName"


# --- Through the API ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_xlsx_totals_equal_the_api_figures(api_client, finance, lead):
    comparison = ready_comparison(created_by=lead)
    add_api_candidate(comparison)
    api_client.force_authenticate(finance)
    response = api_client.get(f"/api/v1/comparisons/{comparison.pk}/export.xlsx")
    assert response.status_code == 200
    assert response["Content-Type"] == XLSX_TYPE
    assert response["Content-Disposition"].startswith("attachment;")
    assert f"comparison-{comparison.pk}-rev1.xlsx" in response["Content-Disposition"]
    book = openpyxl.load_workbook(io.BytesIO(body(response)))
    assert book.sheetnames == ["Candidates", "Assumptions", "Quote versions"]
    exported = {row["Key"]: row for row in sheet_rows(book["Candidates"])}

    detail = api_client.get(f"/api/v1/comparisons/{comparison.pk}/").json()
    assert len(detail["candidates"]) == len(exported) == 4
    for candidate in detail["candidates"]:
        row = exported[candidate["key"]]
        if candidate["total_usd"] is None:
            assert row["Total (USD)"] is None
            continue
        assert Decimal(str(row["Total (USD)"])) == Decimal(candidate["total_usd"])
        # The unit cost as a person reads it (V21): to the cent from one up.
        unit_cost = money_decimal(candidate["unit_cost_usd"], whole_places=2)
        assert Decimal(str(row["Unit cost (USD)"])) == unit_cost
        for name, value in candidate["cost_lines"].items():
            header = exports.line_header(name)
            assert Decimal(str(row[header])) == Decimal(value), (candidate["key"], name)
        lines = [Decimal(str(row[exports.line_header(n)])) for n in candidate["cost_lines"]]
        assert sum(lines) == Decimal(candidate["total_usd"])
    assert exported["q-h100"]["Recommended"] == "yes"

    quotes = sheet_rows(book["Quote versions"])
    assert {q["Candidate key"] for q in quotes} == {"q-h100", "q-h200", "q-l40s", "api-route"}
    h100 = next(q for q in quotes if q["Candidate key"] == "q-h100")
    assert h100["Version"] == 1
    assert h100["Price"] == 2.49
    assumptions = dict(book["Assumptions"].iter_rows(min_row=2, values_only=True))
    assert assumptions["Seed"] == comparison.seed
    assert assumptions["hours_per_month"] == "730"
    assert AuditEvent.objects.filter(action="comparison.exported_xlsx").count() == 1


@pytest.mark.django_db
def test_csv_export_has_every_cost_line(api_client, finance, lead):
    comparison = ready_comparison(created_by=lead)
    add_api_candidate(comparison)
    api_client.force_authenticate(finance)
    response = api_client.get(
        f"/api/v1/comparisons/{comparison.pk}/export.csv", HTTP_ACCEPT="text/csv"
    )
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"] == (
        f'attachment; filename="comparison-{comparison.pk}-rev1.csv"'
    )
    rows = list(csv.DictReader(io.StringIO(body(response).decode("utf-8-sig"))))
    assert [r["Key"] for r in rows] == ["q-h100", "q-h200", "api-route", "q-l40s"]  # by rank
    for header in ("GPU compute (USD)", "API usage (USD)", "Storage (USD)"):  # the pages' labels
        assert header in rows[0]
    assert rows[0]["GPU compute (USD)"] == "10000.00"
    assert rows[2]["API usage (USD)"] == "21000.00"
    assert rows[3]["Eligible"] == "no"
    assert rows[3]["Ineligible because"] == "weights do not fit in 48 GB"


@pytest.mark.django_db
def test_provider_name_starting_with_equals_is_exported_inert(api_client, finance, lead):
    comparison = ready_comparison(
        created_by=lead,
        provider_names=('=HYPERLINK("http://evil.example","x")', "+Contoso", "@Fabrikam"),
    )
    comparison.candidates.filter(key="q-h100").update(label='=cmd|" /C calc"!A0')
    api_client.force_authenticate(finance)
    csv_text = body(api_client.get(f"/api/v1/comparisons/{comparison.pk}/export.csv")).decode(
        "utf-8-sig"
    )
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    assert rows[0]["Provider"] == '\'=HYPERLINK("http://evil.example","x")'
    assert rows[0]["Candidate"] == '\'=cmd|" /C calc"!A0'
    assert rows[1]["Provider"] == "'+Contoso"
    assert rows[2]["Provider"] == "'@Fabrikam"
    xlsx = body(api_client.get(f"/api/v1/comparisons/{comparison.pk}/export.xlsx"))
    book = openpyxl.load_workbook(io.BytesIO(xlsx))
    for sheet in book.worksheets:
        for cells in sheet.iter_rows():
            for cell in cells:
                assert cell.data_type != "f", (sheet.title, cell.coordinate, cell.value)
                if isinstance(cell.value, str):
                    assert not cell.value.startswith(FORMULA_PREFIXES), cell.value
    quotes = sheet_rows(book["Quote versions"])
    assert quotes[0]["Provider"].startswith("'=HYPERLINK")


@pytest.mark.django_db
def test_export_queries_do_not_grow_with_rows(api_client, finance, lead):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.reviews.factories_reviews import CandidateResultFactory

    small = ready_comparison(created_by=lead)
    big = ready_comparison(created_by=lead, title="big")
    for i in range(20):
        CandidateResultFactory(comparison=big, key=f"x{i}", quote=small.candidates.first().quote)
    api_client.force_authenticate(finance)
    counts = []
    for comparison in (small, big):
        with CaptureQueriesContext(connection) as ctx:
            body(api_client.get(f"/api/v1/comparisons/{comparison.pk}/export.xlsx"))
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1]
