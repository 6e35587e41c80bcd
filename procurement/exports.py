"""CSV and XLSX exports of a comparison: plain rows in, bytes out (no database here).

The selector `selectors.reviews.record.export_data_for(comparison)` gathers an `ExportData`; this
module only lays it out:

- CSV: the candidates table (every cost line per candidate), UTF-8 with a BOM for Excel;
- XLSX (openpyxl): sheets "Candidates", "Assumptions", "Quote versions" and, when evidence
  arrived after the compute, "New since computed" (it is not in the numbers); each with a
  frozen bold header, an autofilter and number formats (money with 2 decimals and thousands
  separators, the currency in the header; probabilities as %; times as dates, UTC).

Rows come in rank order: ranked rows first, the unranked (ineligible) ones after them,
whatever order the caller gathered them in.

Formula injection (OWASP "CSV injection"): any text cell beginning with `=`, `+`, `-`, `@`,
a tab or a carriage return is prefixed with a single quote, so spreadsheets show it as text.
Real numbers (int, float, Decimal) are written as numbers, negative ones included.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from itertools import chain
from typing import Any

from openpyxl import Workbook
from openpyxl.styles import Font

from core.cost_lines import LINE_LABELS
from core.spreadsheet import spreadsheet_text
from core.values import money_decimal
from procurement.charts_plan import plan_title

MONEY_FORMAT = "#,##0.00"
# Quote prices may be per token (an API route's price per 1M tokens is often below a cent).
PRICE_FORMAT = "#,##0.00##"
COUNT_FORMAT = "#,##0"
SHARE_FORMAT = "0%"
TIME_FORMAT = "yyyy-mm-dd hh:mm"
# What each kind of cell holds (V21): the file says what the page says.
# Amounts the engine computed: two decimals; under one (a cost per 1M tokens) up to four.
COMPUTED_MONEY = frozenset(
    {
        "total_usd",
        "commitment_usd",
        "commitment_run_share_usd",
        "unit_cost_usd",
        "p10",
        "p50",
        "p90",
    }
)
# Prices as the quote holds them: two decimals, up to four where the quote has them.
SOURCE_MONEY = frozenset({"hourly_price_usd"})
# Counts are whole numbers (accepted outputs are stored with four places: 400000000.0000).
FLEET_KEYS = ("replicas_average", "replicas_peak", "gpus_average", "gpus_peak", "nodes_peak")
WHOLE_COUNTS = frozenset({"accepted_outputs", "gpus", *FLEET_KEYS})
# Number formats by column key; every cost line is money too (see candidate_formats).
CANDIDATE_FORMATS = {
    **dict.fromkeys(WHOLE_COUNTS, COUNT_FORMAT),
    **dict.fromkeys(COMPUTED_MONEY, MONEY_FORMAT),
    # A cost per unit can be under a cent: two decimals, up to four where the value has them.
    **dict.fromkeys(("unit_cost_usd", "p10", "p50", "p90", *SOURCE_MONEY), PRICE_FORMAT),
    "prob_cheapest": SHARE_FORMAT,
    "checklist_pct": '0"%"',  # already 0-100
}
QUOTE_FORMATS = {"price": PRICE_FORMAT, "quoted_at": TIME_FORMAT, "valid_until": TIME_FORMAT}

BASE_COLUMNS: tuple[tuple[str, str], ...] = (
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
    ("price_entered_by", "Price entered by"),
)
TAIL_COLUMNS: tuple[tuple[str, str], ...] = (
    ("total_usd", "Total (USD)"),
    ("commitment_usd", "Commitment (USD)"),
    ("commitment_term", "Commitment term"),
    ("commitment_run_share_usd", "Run share of the commitment (USD)"),
    ("spend_kind", "Commitment or expected spend"),
    ("configuration", "Configuration"),
    ("replicas_average", "Replicas at average"),
    ("replicas_peak", "Replicas at peak"),
    ("gpus_average", "GPUs at average"),
    ("gpus_peak", "GPUs at peak"),
    ("nodes_peak", "Nodes at peak"),
    ("bought", "What is bought"),
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
    # The machine key last: people read the columns before it, a script joins on it.
    ("key", "Key"),
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
    ("entered_by", "Entered by"),
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
    # with the evidence its numbers rest on.
    new_since: Sequence[dict[str, Any]] = field(default_factory=tuple)
    # The cheapest plan across offers: its total and each vendor's part (plan_rows).
    plan: Sequence[dict[str, Any]] = field(default_factory=tuple)


PLAN_COLUMNS: tuple[tuple[str, str], ...] = (
    ("key", "Key"),
    ("label", "Part"),
    ("role", "Role"),
    ("configuration", "Configuration"),
    ("replicas", "Replicas"),
    ("gpus", "GPUs"),
    ("total_usd", "USD / month"),
    ("committed_gpu_hours", "Committed GPU-hours / month"),
    ("term_months", "Term (months)"),
    ("contract_usd", "Contracted (USD)"),
    ("commitment_usd", "Commitment (USD)"),
    ("checklist_level", "Checklist level"),
    ("approved", "Approved"),
    ("outcome", "Solver outcome or reason"),
)
PLAN_FORMATS = {
    **dict.fromkeys(("replicas", "gpus", "committed_gpu_hours"), COUNT_FORMAT),
    **dict.fromkeys(("total_usd", "contract_usd", "commitment_usd"), MONEY_FORMAT),
}


def _dec(value: Any) -> Decimal | None:
    return None if value in (None, "") else Decimal(str(value))


def plan_rows(plan: Any, approved: Sequence[dict[str, Any]] = ()) -> list[dict[str, Any]]:
    """The stored plan as export rows: the plan's total, then each vendor's part. Commitment:
    what a decision on it commits (the larger of the contract and the expected spend over the
    horizon; plans stored before then: the contract). `approved`: the parts of the approved
    plan (`selectors.reviews.plan.part_rows`), which mark the rows and give their terms."""
    if not isinstance(plan, dict) or not plan.get("status"):
        return []
    lines = plan.get("lines") or []
    by_key = {str(part.get("key")): part for part in approved}
    total = {
        "key": "plan",
        "label": plan_title(plan) + (" (approved)" if approved else ""),
        "role": plan.get("status"),
        "replicas": sum(int(ln.get("replicas") or 0) for ln in lines) if lines else None,
        "gpus": sum(int(ln.get("gpus") or 0) for ln in lines) if lines else None,
        "total_usd": _dec(plan.get("monthly_cost")),
        "contract_usd": _dec(plan.get("total_commitment")) if lines else None,
        "commitment_usd": _dec(plan.get("commitment_usd") or plan.get("total_commitment"))
        if lines
        else None,
        "approved": bool(approved),
        "outcome": plan.get("reason") or plan.get("outcome"),
    }
    out = [total]
    for part in plan.get("vendors") or []:
        mine = [ln for ln in lines if ln.get("offer_id") == part.get("offer_id")]
        chosen = by_key.get(str(part.get("offer_id")), {})
        out.append(
            {
                "key": f"plan:{part.get('offer_id')}",
                "label": part.get("label"),
                "role": ", ".join(sorted({str(ln.get("role")) for ln in mine})),
                "configuration": chosen.get("configuration", ""),
                "replicas": sum(int(ln.get("replicas") or 0) for ln in mine),
                "gpus": sum(int(ln.get("gpus") or 0) for ln in mine),
                "total_usd": _dec(part.get("monthly_cost")),
                "committed_gpu_hours": _dec(part.get("committed_gpu_hours_per_month")),
                "term_months": part.get("term_months"),
                "term": chosen.get("term", ""),
                "contract_usd": _dec(part.get("commitment_total")),
                "commitment_usd": _dec(part.get("commitment_usd") or part.get("commitment_total")),
                "checklist_level": chosen.get("checklist_level", ""),
                "approved": bool(chosen),
            }
        )
    return out


def fleet_columns(detail: Any) -> dict[str, Any]:
    """A row's fleet and configuration as export cells (blank for a model API route)."""
    detail = detail if isinstance(detail, dict) else {}
    fleet = detail.get("fleet") if isinstance(detail.get("fleet"), dict) else {}
    chosen = next(
        (c for c in detail.get("configurations") or [] if isinstance(c, dict) and c.get("chosen")),
        None,
    )
    configuration = (detail.get("configuration") or {}) if chosen is None else chosen
    return {
        **{key: fleet.get(key) for key in FLEET_KEYS},
        "bought": fleet.get("bought", ""),
        "spend_kind": fleet.get("spend_kind", ""),
        "configuration": configuration.get("words", "") if isinstance(configuration, dict) else "",
    }


def neutralise(value: Any) -> Any:
    """A cell value safe for spreadsheets: numbers untouched, risky text quoted, None blank."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float | Decimal):
        return value
    return spreadsheet_text(str(value))


def line_header(name: str) -> str:
    """A cost line's column, in the pages' words: "gpu_compute" → "GPU compute (USD)"."""
    return f"{LINE_LABELS.get(name) or name.replace('_', ' ').capitalize()} (USD)"


def export_value(key: str, value: Any) -> Any:
    """One candidate cell as a person reads it (`key` a column key, or a cost line's name)."""
    if value is None or isinstance(value, bool):
        return value
    if key in SOURCE_MONEY:
        return money_decimal(value)
    if key in COMPUTED_MONEY:
        return money_decimal(value, whole_places=2)
    if key in WHOLE_COUNTS and isinstance(value, int | float | Decimal):
        return int(Decimal(str(value)).to_integral_value(rounding=ROUND_HALF_UP))
    if key == "prob_cheapest" and isinstance(value, float):
        return round(value, 4)
    return value


# Money columns whose short label lacks the currency: the header says it.
HEADER_WITH_CURRENCY = {
    "p10": "Unit cost p10 (USD)",
    "p50": "Unit cost p50 (USD)",
    "p90": "Unit cost p90 (USD)",
}


def candidate_header(data: ExportData) -> list[str]:
    return (
        [HEADER_WITH_CURRENCY.get(key, label) for key, label in BASE_COLUMNS]
        + [line_header(name) for name in data.line_names]
        + [HEADER_WITH_CURRENCY.get(key, label) for key, label in TAIL_COLUMNS]
    )


def candidate_formats(data: ExportData) -> list[str | None]:
    """The XLSX number format of each column of `candidate_header`."""
    return (
        [CANDIDATE_FORMATS.get(key) for key, _ in BASE_COLUMNS]
        + [MONEY_FORMAT for _ in data.line_names]
        + [CANDIDATE_FORMATS.get(key) for key, _ in TAIL_COLUMNS]
    )


def _rank_order(row: dict[str, Any]) -> tuple[bool, int, str]:
    """Ranked rows by rank, then the unranked (ineligible) ones; the key breaks ties."""
    rank = row.get("rank")
    return (rank is None, rank if rank is not None else 0, str(row.get("key", "")))


def candidate_rows(data: ExportData) -> Iterator[list[Any]]:
    """One row per candidate in rank order, columns as `candidate_header`, each value as a
    person reads it (`export_value`)."""
    for row in sorted(data.candidates, key=_rank_order):
        lines = row.get("cost_lines", {})
        yield [
            *(export_value(key, row.get(key)) for key, _ in BASE_COLUMNS),
            *(money_decimal(lines.get(name), whole_places=2) for name in data.line_names),
            *(export_value(key, row.get(key)) for key, _ in TAIL_COLUMNS),
        ]


class _Echo:
    def write(self, value: str) -> str:
        return value


def plan_csv_rows(data: ExportData) -> Iterator[list[Any]]:
    """The plan's rows in the candidates' columns: Key "plan" / "plan:<offer>", Kind
    "mixed plan", Total (USD) the monthly cost, Commitment (USD) what is committed; the
    parts of an approved plan say "(approved)" and carry their configuration and term."""
    header = [key for key, _ in BASE_COLUMNS] + list(data.line_names)
    header += [key for key, _ in TAIL_COLUMNS]
    for part in data.plan:
        months = f"{part['term_months']} months" if part.get("term_months") else ""
        approved = part.get("approved") and part["key"] != "plan"  # the total says it already
        cells = {
            "key": part["key"],
            "label": f"{part['label']} (approved)" if approved else part["label"],
            "kind": "mixed plan",
            "gpus": part.get("gpus"),
            "total_usd": part.get("total_usd"),
            "commitment_usd": part.get("commitment_usd"),
            "commitment_term": part.get("term") or months,
            "configuration": part.get("configuration", ""),
            "replicas_peak": part.get("replicas"),
            "gpus_peak": part.get("gpus"),
            "unit_label": data.unit_label,
            "reasons": part.get("outcome") or "",
        }
        yield [cells.get(key) for key in header]


def csv_lines(rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """Each row as one CSV line, every cell `neutralise`d, for streaming responses."""
    writer = csv.writer(_Echo())
    return (writer.writerow([neutralise(v) for v in row]) for row in rows)


def iter_csv(data: ExportData) -> Iterator[bytes]:
    """The candidates table as CSV, one encoded line at a time (for streaming responses),
    then the cheapest plan's total and vendor parts."""
    yield "\ufeff".encode()
    rows = chain([candidate_header(data)], candidate_rows(data), plan_csv_rows(data))
    yield from (line.encode() for line in csv_lines(rows))


def _xlsx_value(value: Any, number_format: str | None = None) -> Any:
    if value is None:
        return None  # an empty cell, not an empty string
    if number_format == TIME_FORMAT and isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            # Excel has no time zones (the header says UTC, so the cell holds UTC) and keeps
            # only milliseconds: whole seconds are what a reader can use anyway.
            if moment.tzinfo:
                moment = moment.astimezone(UTC).replace(tzinfo=None)
            return moment.replace(microsecond=0)
    return neutralise(value)


def _sheet(
    workbook: Workbook,
    title: str,
    header: list[str],
    rows: Iterator[list[Any]],
    formats: Sequence[str | None] = (),
) -> None:
    sheet = workbook.create_sheet(title)
    sheet.append([_xlsx_value(h) for h in header])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    formats = list(formats) + [None] * (len(header) - len(formats))
    for row in rows:
        sheet.append([_xlsx_value(v, f) for v, f in zip(row, formats, strict=False)])
    for column, number_format in zip(sheet.iter_cols(min_row=1), formats, strict=False):
        for cell in column:
            if isinstance(cell.value, str):
                # Text is text: openpyxl would store any string starting with "=" as a formula.
                cell.data_type = "s"
            elif number_format and cell.row > 1:
                cell.number_format = number_format
    sheet.freeze_panes = "A2"
    sheet.auto_filter.ref = sheet.dimensions
    for column in sheet.columns:
        width = max(len(str(c.value or "")) for c in column)
        sheet.column_dimensions[column[0].column_letter].width = min(max(width + 2, 8), 60)


def to_xlsx(data: ExportData) -> bytes:
    """The workbook: Candidates, Assumptions, Quote versions, Cheapest plan, New since
    computed."""
    workbook = Workbook()
    workbook.remove(workbook.active)
    _sheet(
        workbook,
        "Candidates",
        candidate_header(data),
        candidate_rows(data),
        candidate_formats(data),
    )
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
        [QUOTE_FORMATS.get(key) for key, _ in QUOTE_COLUMNS],
    )
    if data.plan:  # only when the comparison was computed with one
        _sheet(
            workbook,
            "Cheapest plan",
            [label for _, label in PLAN_COLUMNS],
            ([p.get(key) for key, _ in PLAN_COLUMNS] for p in data.plan),
            [PLAN_FORMATS.get(key) for key, _ in PLAN_COLUMNS],
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
