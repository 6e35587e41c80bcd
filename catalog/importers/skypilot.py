"""SkyPilot catalog `vms.csv` (schema v5+): instance list prices → per-GPU-hour rows.

Columns used: InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Price,
SpotPrice, Region, AvailabilityZone (column order differs between clouds). Price and SpotPrice
are USD per instance-hour, so the per-GPU-hour price is Price / AcceleratorCount. CPU-only rows
and rows without a price are skipped and counted, never errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from catalog.importers.common import CellReader, ParseResult, RowError, decode_text, read_csv

REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
GIB_TO_GB = Decimal("1.073741824")
PRICE_QUANTUM = Decimal("0.0001")


@dataclass(frozen=True, slots=True)
class SkyPilotRow:
    row: int
    instance_type: str
    accelerator_name: str
    accelerator_count: int
    vcpus: int | None
    ram_gb: int | None
    region: str
    zone: str
    on_demand_per_gpu_hour: Decimal | None
    spot_per_gpu_hour: Decimal | None


def per_gpu(price: Decimal | None, count: int) -> Decimal | None:
    if price is None:
        return None
    return (price / count).quantize(PRICE_QUANTUM, rounding=ROUND_HALF_UP)


def parse_skypilot_vms(data: bytes) -> ParseResult[SkyPilotRow]:
    result: ParseResult[SkyPilotRow] = ParseResult()
    _, rows = read_csv(decode_text(data), required=REQUIRED_COLUMNS)
    for number, cells in rows:
        reader = CellReader(number, cells, result.errors)
        name = reader.text("AcceleratorName", max_len=80)
        if not name:
            result.skip("CPU-only instance (no accelerator)")
            continue
        count = reader.decimal("AcceleratorCount", required=True)
        price = reader.decimal("Price")
        spot = reader.decimal("SpotPrice")
        vcpus = reader.decimal("vCPUs")
        memory = reader.decimal("MemoryGiB")
        for column, value in (("Price", price), ("SpotPrice", spot)):
            if value is not None and value < 0:
                reader.fail(column, f"A price cannot be negative ({value}).")
        region = reader.text("Region", required=True, max_len=60)
        if not reader.ok or count is None:
            continue
        if count < 1 or count != count.to_integral_value():
            result.skip("fractional or zero accelerator count (shared GPU)")
            continue
        gpus = int(count)
        on_demand, spot_gpu = per_gpu(price or None, gpus), per_gpu(spot or None, gpus)
        if not on_demand and not spot_gpu:
            result.skip("no price listed")
            continue
        result.rows.append(
            SkyPilotRow(
                row=number,
                instance_type=reader.text("InstanceType", max_len=120),
                accelerator_name=name,
                accelerator_count=gpus,
                vcpus=int(vcpus) if vcpus else None,
                ram_gb=int(memory * GIB_TO_GB) if memory else None,
                region=region,
                zone=reader.text("AvailabilityZone", max_len=60),
                on_demand_per_gpu_hour=on_demand or None,
                spot_per_gpu_hour=spot_gpu or None,
            )
        )
    if not result.rows and not result.errors:
        result.errors.append(RowError(None, None, "The file lists no GPU instance with a price."))
    return result
