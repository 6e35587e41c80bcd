"""Our price-list CSV template: one quote per row (bytes → rows + every row error).

Row numbers are spreadsheet rows: the header is row 1, the first quote row 2.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

from catalog.importers.common import CellReader, ParseResult, RowError, decode_text, read_csv

REQUIRED_COLUMNS = (
    "provider",
    "accelerator",
    "capacity_model",
    "currency",
    "price_per_gpu_hour",
    "gpus_per_node",
)
OPTIONAL_COLUMNS = (
    "price_per_node",
    "amortisation_months",
    "support_per_year",
    "vcpu_per_node",
    "ram_gb_per_node",
    "region",
    "zone",
    "term_months",
    "min_commitment_gpus",
    "intra_node_interconnect",
    "inter_node_fabric",
    "valid_until",
    "source_url",
    "notes",
)
COLUMNS = REQUIRED_COLUMNS + OPTIONAL_COLUMNS
DECIMAL_COLUMNS = ("price_per_gpu_hour", "price_per_node", "support_per_year")
INTEGER_COLUMNS = (
    "amortisation_months",
    "vcpu_per_node",
    "ram_gb_per_node",
    "term_months",
    "min_commitment_gpus",
)
TEXT_COLUMNS = ("region", "zone", "intra_node_interconnect", "inter_node_fabric")

TEMPLATE_ROWS = [
    {
        "provider": "northwind",
        "accelerator": "h100-sxm-80gb",
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": "2.99",
        "gpus_per_node": "8",
        "vcpu_per_node": "208",
        "ram_gb_per_node": "1900",
        "region": "us-east",
        "intra_node_interconnect": "NVLink 4 / NVSwitch",
        "inter_node_fabric": "InfiniBand NDR 400G",
        "valid_until": "2026-12-31",
        "source_url": "https://northwind.example/pricing",
        "notes": "Public list price",
    },
    {
        "provider": "contoso",
        "accelerator": "L40S",
        "capacity_model": "spot",
        "currency": "EUR",
        "price_per_gpu_hour": "0.95",
        "gpus_per_node": "4",
        "region": "eu-west",
        "source_url": "https://contoso.example/gpu-prices",
    },
]


@dataclass(frozen=True, slots=True)
class PriceListRow:
    row: int
    provider: str
    accelerator: str
    values: dict[str, Any]
    shape_ok: bool = True


def template_csv() -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(TEMPLATE_ROWS)
    return out.getvalue()


def parse_price_list(data: bytes) -> ParseResult[PriceListRow]:
    """Every row checked for shape; rules that need the catalog are the service's job."""
    result: ParseResult[PriceListRow] = ParseResult()
    _, rows = read_csv(decode_text(data), required=REQUIRED_COLUMNS, allowed=COLUMNS)
    for number, cells in rows:
        reader = CellReader(number, cells, result.errors)
        values: dict[str, Any] = {
            "capacity_model": reader.text("capacity_model", required=True).lower(),
            "currency": reader.text("currency", required=True).upper(),
            "gpus_per_node": reader.integer("gpus_per_node", required=True),
            "valid_until": reader.moment("valid_until"),
            "source_url": reader.url("source_url"),
            "notes": reader.text("notes", max_len=2000),
        }
        for column in DECIMAL_COLUMNS:
            values[column] = reader.decimal(column)
        for column in INTEGER_COLUMNS:
            values[column] = reader.integer(column)
        for column in TEXT_COLUMNS:
            values[column] = reader.text(column, max_len=60 if column in ("region", "zone") else 80)
        provider = reader.text("provider", required=True)
        accelerator = reader.text("accelerator", required=True)
        # Rows with shape errors are still returned, so the catalog checks (unknown provider
        # or accelerator) are reported too; the service never saves when any error exists.
        clean = {k: v for k, v in values.items() if v not in (None, "")}
        result.rows.append(PriceListRow(number, provider, accelerator, clean, reader.ok))
    if not result.rows:
        result.errors.append(RowError(None, None, "The file has a header but no quote rows."))
    return result
