"""CSV and XLSX exports of a comparison: plain rows in, bytes out (no database here).

The selector `selectors_reviews.export_data_for(comparison)` gathers an `ExportData`; this
module only lays it out:

- CSV: the candidates table (every cost line per candidate), UTF-8 with a BOM for Excel;
- XLSX (openpyxl): sheets "Candidates", "Assumptions", "Quote versions", and "New since
  computed" when evidence arrived after the compute (it is not in the numbers).

Formula injection (OWASP "CSV injection"): any text cell beginning with `=`, `+`, `-`, `@`,
a tab or a carriage return is prefixed with a single quote, so spreadsheets show it as text.
Real numbers (int, float, Decimal) are written as numbers, negative ones included.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from openpyxl import Workbook
from openpyxl.styles import Font

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
# Characters an XLSX file cannot hold (openpyxl refuses them): dropped, never written.
_ILLEGAL_XLSX = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")

BASE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("key", "Key"),
    ("label", "Candidate"),
    ("kind", "Kind"),
    ("provider", "Provider"),
    ("accelerator", "Accelerator"),
    ("capacity_model", "Capacity model"),
    ("gpus", "GPUs"),
    ("eligible", "Eligible"),
    ("recommended", "Recommended"),
    ("rank", "Rank (unit cost)"),
    ("hourly_price_usd", "Price per GPU-hour (USD)"),
)
TAIL_COLUMNS: tuple[tuple[str, str], ...] = (
    ("total_usd", "Total (USD)"),
    ("accepted_outputs", "Accepted outputs"),
    ("unit_cost_usd", "Unit cost (USD)"),
    ("unit_label", "Unit"),
    ("p10", "p10"),
    ("p50", "p50"),
    ("p90", "p90"),
    ("prob_cheapest", "P(cheapest)"),
    ("perf_source", "Performance"),
    ("evidence", "Benchmark evidence (as computed)"),
    ("checklist_pct", "Checklist complete (%)"),
    ("warnings", "Warnings"),
    ("reasons", "Ineligible because"),
)
QUOTE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("candidate", "Candidate key"),
    ("kind", "Kind"),
    ("id", "Id"),
    ("provider", "Provider"),
    ("offer", "Offer"),
    ("version", "Version"),
    ("capacity_model", "Capacity model"),
    ("currency", "Currency"),
    ("price", "Price"),
    ("price_unit", "Price unit"),
    ("quoted_at", "Quoted at (UTC)"),
    ("valid_until", "Valid until (UTC)"),
    ("stale", "Stale"),
    ("source", "Source"),
)


@dataclass(frozen=True)
class ExportData:
    """Everything an export holds, as plain values (Decimal for money)."""

    title: str
    unit_label: str
    candidates: Sequence[dict[str, Any]]
    line_names: Sequence[str]
    assumptions: Sequence[tuple[str, Any]] = field(default_factory=tuple)
    quotes: Sequence[dict[str, Any]] = field(default_factory=tuple)
    # Evidence that arrived after the comparison was computed: listed apart, never mixed
    # with the evidence its numbers rest on (U24).
    new_since: Sequence[dict[str, Any]] = field(default_factory=tuple)


def neutralise(value: Any) -> Any:
    """A cell value safe for spreadsheets: numbers untouched, risky text quoted, None blank."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float | Decimal):
        return value
    text = str(value)
    if text.startswith(FORMULA_PREFIXES):
        return "'" + text
    return text


def line_header(name: str) -> str:
    return name.replace("_", " ").capitalize() + " (USD)"


def candidate_header(data: ExportData) -> list[str]:
    return (
        [label for _, label in BASE_COLUMNS]
        + [line_header(name) for name in data.line_names]
        + [label for _, label in TAIL_COLUMNS]
    )


def candidate_rows(data: ExportData) -> Iterator[list[Any]]:
    """One row of raw values per candidate, columns as `candidate_header`."""
    for row in data.candidates:
        lines = row.get("cost_lines", {})
        yield [
            *(row.get(key) for key, _ in BASE_COLUMNS),
            *(lines.get(name) for name in data.line_names),
            *(row.get(key) for key, _ in TAIL_COLUMNS),
        ]


class _Echo:
    def write(self, value: str) -> str:
        return value


def iter_csv(data: ExportData) -> Iterator[bytes]:
    """The candidates table as CSV, one encoded line at a time (for streaming responses)."""
    writer = csv.writer(_Echo())
    yield "\ufeff".encode()
    yield writer.writerow([neutralise(h) for h in candidate_header(data)]).encode()
    for row in candidate_rows(data):
        yield writer.writerow([neutralise(v) for v in row]).encode()


def to_csv(data: ExportData) -> bytes:
    return b"".join(iter_csv(data))


def _xlsx_value(value: Any) -> Any:
    if value is None:
        return None  # an empty cell, not an empty string
    value = neutralise(value)
    return _ILLEGAL_XLSX.sub("", value) if isinstance(value, str) else value


def _sheet(workbook: Workbook, title: str, header: list[str], rows: Iterator[list[Any]]) -> None:
    sheet = workbook.create_sheet(title)
    sheet.append([_xlsx_value(h) for h in header])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in rows:
        sheet.append([_xlsx_value(v) for v in row])
    sheet.freeze_panes = "A2"
    for column in sheet.columns:
        width = max(len(str(c.value or "")) for c in column)
        sheet.column_dimensions[column[0].column_letter].width = min(max(width + 2, 8), 60)


def to_xlsx(data: ExportData) -> bytes:
    """The workbook: Candidates, Assumptions, Quote versions, New since computed."""
    workbook = Workbook()
    workbook.remove(workbook.active)
    _sheet(workbook, "Candidates", candidate_header(data), candidate_rows(data))
    _sheet(
        workbook,
        "Assumptions",
        ["Assumption", "Value"],
        ([name, value] for name, value in [("Comparison", data.title), *data.assumptions]),
    )
    _sheet(
        workbook,
        "Quote versions",
        [label for _, label in QUOTE_COLUMNS],
        ([q.get(key) for key, _ in QUOTE_COLUMNS] for q in data.quotes),
    )
    if data.new_since:  # only when something arrived after the compute
        _sheet(
            workbook,
            "New since computed",
            ["Kind", "What", "When (UTC)"],
            ([n.get("kind"), n.get("what"), n.get("when")] for n in data.new_since),
        )
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()
