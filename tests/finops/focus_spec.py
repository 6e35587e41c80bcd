"""A small checker of FOCUS 1.3 Contract Commitment files, written from the spec's column
definitions (the FinOps Foundation's `focus-validator` 2.x needs Python 3.12 and its 1.0
covers the 1.0 cost-and-usage dataset only, so it cannot check this dataset here).

Each rule cites the column requirement it checks; `violations` returns them in words.
"""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal, InvalidOperation

REQUIRED = (
    "BillingCurrency",
    "ContractCommitmentCategory",
    "ContractCommitmentCost",
    "ContractCommitmentDescription",
    "ContractCommitmentId",
    "ContractCommitmentPeriodEnd",
    "ContractCommitmentPeriodStart",
    "ContractCommitmentQuantity",
    "ContractCommitmentType",
    "ContractCommitmentUnit",
    "ContractId",
    "ContractPeriodEnd",
    "ContractPeriodStart",
)
NOT_NULL = (
    "ContractCommitmentCategory",
    "ContractCommitmentId",
    "ContractCommitmentPeriodEnd",
    "ContractCommitmentPeriodStart",
    "ContractCommitmentType",
    "ContractId",
    "ContractPeriodEnd",
    "ContractPeriodStart",
)
DATETIMES = (
    "ContractCommitmentPeriodEnd",
    "ContractCommitmentPeriodStart",
    "ContractPeriodEnd",
    "ContractPeriodStart",
)
DECIMALS = ("ContractCommitmentCost", "ContractCommitmentQuantity")
ALLOWED = {
    "ContractCommitmentCategory": {"Spend", "Usage"},
    "ContractCommitmentPaymentModel": {"No Upfront", "Partial Upfront", "All Upfront"},
}
DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
COLUMN_ID = re.compile(r"^(x_[A-Za-z0-9_]+|[A-Z][A-Za-z0-9]*)$")
CURRENCY = re.compile(r"^[A-Z]{3}$")


def read_rows(data: bytes) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(data.decode("utf-8")))
    return list(reader.fieldnames or []), list(reader)


def violations(columns: list[str], rows: list[dict[str, str]]) -> list[str]:
    out = [f"missing column {name}" for name in REQUIRED if name not in columns]
    out += [
        f"column id {name!r} is not PascalCase or x_"
        for name in columns
        if not COLUMN_ID.match(name)
    ]
    for n, row in enumerate(rows, start=1):
        out += [f"row {n}: {name} is null" for name in NOT_NULL if not row.get(name)]
        for name in DATETIMES:
            if row.get(name) and not DATETIME.match(row[name]):
                out.append(f"row {n}: {name} {row[name]!r} is not a UTC date/time")
        for name in DECIMALS:
            if row.get(name):
                try:
                    Decimal(row[name])
                except InvalidOperation:
                    out.append(f"row {n}: {name} is not a decimal")
                if not NUMBER.match(row[name]):
                    out.append(f"row {n}: {name} {row[name]!r} breaks NumericFormat")
        for name, allowed in ALLOWED.items():
            if name in row and row[name] not in allowed:
                out.append(f"row {n}: {name} {row[name]!r} is not an allowed value")
        if not CURRENCY.match(row.get("BillingCurrency") or "USD"):
            out.append(f"row {n}: BillingCurrency is not ISO 4217")
        quantity, unit = row.get("ContractCommitmentQuantity"), row.get("ContractCommitmentUnit")
        if bool(quantity) != bool(unit):
            out.append(f"row {n}: ContractCommitmentUnit must be null exactly when Quantity is")
        if not quantity and not row.get("ContractCommitmentCost"):
            out.append(f"row {n}: ContractCommitmentCost must not be null when Quantity is")
        for start, end in (
            ("ContractCommitmentPeriodStart", "ContractCommitmentPeriodEnd"),
            ("ContractPeriodStart", "ContractPeriodEnd"),
        ):
            if row.get(start) and row.get(end) and row[start] >= row[end]:
                out.append(f"row {n}: {start} is not before {end}")
    return out
