"""FOCUS 1.3 files of a decision: contract-commitment rows and price rows, as CSV or Parquet.

Rows come in as frozen dataclasses (the selector gathers them from the decision); this module
only lays them out with the spec's column names and value formats (`spec.py`). CSV is UTF-8
without a BOM (FOCUS tools read plain UTF-8), empty fields for nulls. Parquet keeps types:
strings, `decimal128(38, 10)` for money and quantities (never floats), and UTC timestamps.

A text cell that a spreadsheet would run as a formula (`=`, `+`, `-`, `@` first) is written
with a leading single quote, as in the decision's own CSV export: identifiers and names come
from people, numbers never need it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from core.spreadsheet import spreadsheet_text
from finops.focus.spec import focus_datetime, focus_number

DECIMAL_TYPE = pa.decimal128(38, 10)
TIME_TYPE = pa.timestamp("s", tz="UTC")
DECIMAL_QUANTUM = Decimal("1e-10")


@dataclass(frozen=True, slots=True)
class CommitmentRow:
    """One FOCUS Contract Commitment row (field names are the spec's columns, in the file's
    order: 1.3's thirteen mandatory columns, then the two written beside them, spec.py)."""

    BillingCurrency: str
    ContractCommitmentCategory: str
    ContractCommitmentCost: Decimal | None
    ContractCommitmentDescription: str
    ContractCommitmentId: str
    ContractCommitmentPeriodEnd: datetime
    ContractCommitmentPeriodStart: datetime
    ContractCommitmentQuantity: Decimal | None
    ContractCommitmentType: str
    ContractCommitmentUnit: str | None
    ContractId: str
    ContractPeriodEnd: datetime
    ContractPeriodStart: datetime
    ContractCommitmentPaymentModel: str
    ServiceProviderName: str


@dataclass(frozen=True, slots=True)
class PriceRow:
    """One price a decision rests on, in the Cost and Usage dataset's price columns (field
    names are the columns, in the file's order)."""

    BillingCurrency: str
    ServiceProviderName: str
    SkuId: str
    SkuPriceId: str
    SkuMeter: str
    RegionId: str | None
    PricingCategory: str
    PricingUnit: str
    PricingCurrency: str
    ListUnitPrice: Decimal | None
    ContractedUnitPrice: Decimal | None
    PricingCurrencyContractedUnitPrice: Decimal | None
    ContractCommitmentId: str | None


DATASETS: dict[str, tuple[str, ...]] = {
    "commitments": tuple(f.name for f in fields(CommitmentRow)),
    "prices": tuple(f.name for f in fields(PriceRow)),
}


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return focus_datetime(value)
    if isinstance(value, Decimal):
        return focus_number(value)
    return spreadsheet_text(str(value))


def to_csv(rows: Sequence[CommitmentRow | PriceRow], columns: Sequence[str]) -> bytes:
    """The rows as FOCUS CSV: the header is the column ids, in `columns` order."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_text(getattr(row, name)) for name in columns])
    return out.getvalue().encode("utf-8")


def _arrow_type(rows: Sequence[CommitmentRow | PriceRow], name: str) -> pa.DataType:
    sample = next((getattr(r, name) for r in rows if getattr(r, name) is not None), "")
    if isinstance(sample, datetime):
        return TIME_TYPE
    if isinstance(sample, Decimal):
        return DECIMAL_TYPE
    return pa.string()


def _arrow_value(value: Any, kind: pa.DataType) -> Any:
    if value is None:
        return None
    if kind == DECIMAL_TYPE:
        return Decimal(value).quantize(DECIMAL_QUANTUM)
    return value


def to_parquet(rows: Sequence[CommitmentRow | PriceRow], columns: Sequence[str]) -> bytes:
    """The rows as a Parquet file with typed columns (decimals stay decimals)."""
    kinds = {name: _arrow_type(rows, name) for name in columns}
    arrays = [
        pa.array([_arrow_value(getattr(r, name), kinds[name]) for r in rows], type=kinds[name])
        for name in columns
    ]
    table = pa.Table.from_arrays(arrays, names=list(columns))
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()
