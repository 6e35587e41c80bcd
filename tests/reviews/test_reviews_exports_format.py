"""U30: exports list the rows by rank (unranked, ineligible rows last) and the workbook reads
like a finance sheet: money with 2 decimals and separators, P(cheapest) as %, times as dates,
a frozen header and an autofilter on every sheet."""

from __future__ import annotations

import csv
import io
from datetime import datetime
from decimal import Decimal

import openpyxl

from procurement import exports


def candidate(key: str, rank: int | None, **extra) -> dict:
    return {
        "key": key,
        "label": key,
        "eligible": rank is not None,
        "rank": rank,
        "gpus": 1200,
        "cost_lines": {"gpu_compute": Decimal("12345.678")},
        "total_usd": Decimal("12345.678"),
        "unit_cost_usd": Decimal("11.3581"),
        "p10": Decimal("9.5"),
        "prob_cheapest": 0.6429 if rank == 1 else 0.0,
        "checklist_pct": 95,
        **extra,
    }


def data() -> exports.ExportData:
    # Gathered in key order, as a selector ordered by internal key would give them.
    return exports.ExportData(
        title="Chat",
        unit_label="per 1M accepted output tokens",
        candidates=[
            candidate("api:3", None),
            candidate("q:10", 2),
            candidate("q:19", None),
            candidate("q:2", 1),
            candidate("q:7", 3),
        ],
        line_names=["gpu_compute"],
        quotes=[
            {
                "candidate": "q:2",
                "price": Decimal("2.49"),
                "quoted_at": "2026-12-03T10:51:31.906825+01:00",
                "valid_until": None,
            }
        ],
    )


def test_u30_csv_rows_are_in_rank_order_with_unranked_rows_last():
    text = b"".join(exports.iter_csv(data())).decode("utf-8-sig")
    keys = [row["Key"] for row in csv.DictReader(io.StringIO(text))]
    assert keys == ["q:2", "q:10", "q:7", "api:3", "q:19"]


def test_u30_xlsx_rows_in_rank_order_with_number_formats_filter_and_frozen_header():
    book = openpyxl.load_workbook(io.BytesIO(exports.to_xlsx(data())))
    sheet = book["Candidates"]
    header = [c.value for c in sheet[1]]
    keys = [c.value for c in list(sheet.columns)[-1][1:]]
    assert header[-1] == "Key"  # V21: the machine key last
    assert keys == ["q:2", "q:10", "q:7", "api:3", "q:19"]
    first = dict(zip(header, sheet[2], strict=True))
    assert first["Total (USD)"].number_format == "#,##0.00"
    assert first["GPU compute (USD)"].number_format == "#,##0.00"
    # A cost per unit shows two decimals, up to four where it holds them (V21).
    assert first["Unit cost (USD)"].number_format == "#,##0.00##"
    assert first["Unit cost p10 (USD)"].number_format == "#,##0.00##"
    # "Price entered by" names who typed the price (H6): a person, not an amount.
    money = [
        h
        for h in header
        if h.startswith(("Unit cost", "Total", "Price", "GPU compute")) and h != "Price entered by"
    ]
    assert all("(USD)" in h for h in money), money
    assert first["GPUs"].number_format == "#,##0"
    assert first["P(cheapest)"].number_format == "0%"
    assert first["P(cheapest)"].value == 0.6429
    # V21: the file holds what a person reads, money to the cent (12,345.678 → 12,345.68).
    assert first["Total (USD)"].value == 12345.68
    for ws in book.worksheets:
        assert ws.freeze_panes == "A2", ws.title
        assert ws.auto_filter.ref == ws.dimensions, ws.title
        assert all(c.font.bold for c in ws[1]), ws.title
    quotes = book["Quote versions"]
    quote_header = [c.value for c in quotes[1]]
    quote = dict(zip(quote_header, quotes[2], strict=True))
    assert quote["Quoted at (UTC)"].value == datetime(2026, 12, 3, 9, 51, 31)
    assert quote["Quoted at (UTC)"].number_format == "yyyy-mm-dd hh:mm"
    assert quote["Price"].number_format == "#,##0.00##"
