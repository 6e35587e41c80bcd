"""AMD GPU telemetry: ``amd-smi metric --csv``, ``amd-smi monitor --csv`` and ``rocm-smi --csv``.

The columns are read into the same names as nvidia-smi's (``utilization.gpu``, ``memory.used``
in MiB, ``power.draw`` in W, ...), so the plan's peak-memory check and the result page read an
MI-series log exactly as they read an NVIDIA one.

- ``amd-smi metric --csv`` flattens its nested keys with ``_``: ``usage_gfx_activity``,
  ``power_socket_power`` (``power_average_socket_power`` before ROCm 6.1),
  ``mem_usage_used_vram`` / ``mem_usage_total_vram``, ``temperature_hotspot``, ``clock_gfx_clk``.
- ``amd-smi monitor --csv`` uses short names: ``power_usage``, ``gfx``, ``vram_used``,
  ``vram_total``, ``hotspot_temperature``, ``gfx_clk``, ``mem_clock``.
- amd-smi writes "MB" where it means MiB (an MI300X's 192 GiB shows as 196,592 MB), so its
  memory figures are taken as MiB; ``rocm-smi`` gives bytes (``VRAM Total Used Memory (B)``).
- With ``--watch`` amd-smi adds a ``timestamp`` column (epoch seconds); cells may repeat their
  unit (``173 W``, ``49 °C``) and unavailable values read ``N/A``.
"""

from __future__ import annotations

import csv
import io
import math
import re
from typing import Final

from ._util import Builder, ProgressFn
from .registry import CSV_HEADER, Format
from .telemetry import iso_seconds
from .types import Metrics, ParsedResult

FORMAT_ID: Final = "amd-smi-csv"
FORMAT_NAME: Final = "AMD telemetry: amd-smi metric/monitor or rocm-smi (CSV)"

_MIB: Final = 1.0
_BYTES_TO_MIB: Final = 1.0 / (1024 * 1024)

#: canonical name -> (header aliases, most specific first; scale of the column's own unit)
COLUMNS: Final[dict[str, tuple[tuple[str, ...], float]]] = {
    "utilization.gpu": (("usage_gfx_activity", "gfx_activity", "gfx", "gfx%", "gpu use (%)"), 1.0),
    "utilization.memory": (("usage_umc_activity", "umc_activity", "mem", "mem%"), 1.0),
    "power.draw": (
        (
            "power_socket_power",
            "power_average_socket_power",
            "power_usage",
            "socket_power",
            "current socket graphics package power (w)",
            "average graphics package power (w)",
        ),
        1.0,
    ),
    "power.limit": (("power_cap", "max_power", "max graphics package power (w)"), 1.0),
    "temperature.gpu": (
        (
            "temperature_hotspot",
            "hotspot_temperature",
            "temperature (sensor junction) (c)",
            "temperature_edge",
            "temperature (sensor edge) (c)",
        ),
        1.0,
    ),
    "clocks.sm": (("clock_gfx_clk", "gfx_clk", "gfx_clock"), 1.0),
    "clocks.mem": (("clock_mem_clk", "mem_clk", "mem_clock"), 1.0),
    "memory.used": (("mem_usage_used_vram", "vram_used"), _MIB),
    "memory.total": (("mem_usage_total_vram", "vram_total"), _MIB),
}
#: rocm-smi's byte columns, read into the MiB names above
BYTE_COLUMNS: Final = {
    "vram total used memory (b)": "memory.used",
    "vram total memory (b)": "memory.total",
}
IDENTITY_COLUMNS: Final = ("gpu", "device", "gpu_bdf", "bdf")
NAME_COLUMNS: Final = ("card series", "market_name", "asic_market_name", "product_name")
#: one of these in the header says "AMD telemetry" (the GPU column alone says nothing)
MARKERS: Final = frozenset(
    {
        "usage_gfx_activity",
        "gfx_activity",
        "power_socket_power",
        "power_average_socket_power",
        "power_usage",
        "mem_usage_used_vram",
        "vram_used",
        "gpu use (%)",
        "vram total used memory (b)",
        "current socket graphics package power (w)",
        "average graphics package power (w)",
    }
)
NA_VALUES: Final = frozenset({"n/a", "[n/a]", "na", "none", "not supported", "unknown", ""})
#: unit written in a cell -> factor to the canonical unit (memory to MiB)
UNIT_SCALE: Final = {
    "": None,
    "%": 1.0,
    "w": 1.0,
    "mhz": 1.0,
    "c": 1.0,
    "°c": 1.0,
    "mb": 1.0,
    "mib": 1.0,
    "gb": 1024.0,
    "gib": 1024.0,
    "b": _BYTES_TO_MIB,
}
_CELL_RE: Final = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?)\s*(%|W|MHz|°?C|MiB|MB|GiB|GB|B)?\s*$", re.I)


def _column_name(raw: str) -> str:
    return raw.strip().lstrip("\ufeff").strip().lower()


def is_amd_header(header: list[str]) -> bool:
    return any(_column_name(h) in MARKERS for h in header)


def _parse_time(text: str) -> float | None:
    cleaned = text.strip()
    if not cleaned:
        return None
    try:
        epoch = float(cleaned)
    except ValueError:
        pass
    else:
        return epoch if math.isfinite(epoch) and 0 < epoch < 1e11 else None
    return iso_seconds(cleaned)


def _columns_of(header: list[str]) -> dict[str, tuple[int, float]]:
    """canonical name -> (column index, scale), the most specific alias present winning."""
    found: dict[str, tuple[int, float]] = {}
    for canonical, (aliases, scale) in COLUMNS.items():
        for alias in aliases:
            if alias in header:
                found[canonical] = (header.index(alias), scale)
                break
    for name, canonical in BYTE_COLUMNS.items():
        if name in header and canonical not in found:
            found[canonical] = (header.index(name), _BYTES_TO_MIB)
    return found


def parse(text: str, progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(FORMAT_ID, FORMAT_NAME)
    reader = csv.reader(io.StringIO(text.lstrip("\r\n")), skipinitialspace=True)
    header = [_column_name(h) for h in next(reader, [])]
    if not is_amd_header(header):
        raise b.error(f"{FORMAT_NAME}: header needs one of {', '.join(sorted(MARKERS))}")
    columns = _columns_of(header)
    ident = next((header.index(c) for c in IDENTITY_COLUMNS if c in header), None)
    name_col = next((header.index(c) for c in NAME_COLUMNS if c in header), None)
    time_col = header.index("timestamp") if "timestamp" in header else None
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    peaks: dict[str, float] = {}
    gpus: set[str] = set()
    names: set[str] = set()
    times: list[float] = []
    rows = 0
    for line, row in enumerate(reader, start=2):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if _column_name(cells[0]) == header[0]:
            continue  # the header again: a watch log or concatenated runs
        rows += 1
        if ident is not None and ident < len(cells):
            gpus.add(cells[ident])
        if name_col is not None and name_col < len(cells) and cells[name_col]:
            names.add(cells[name_col])
        if time_col is not None and time_col < len(cells):
            stamp = _parse_time(cells[time_col])
            if stamp is not None:
                times.append(stamp)
        for canonical, (index, column_scale) in columns.items():
            raw = cells[index] if index < len(cells) else ""
            if raw.lower() in NA_VALUES:
                continue
            match = _CELL_RE.match(raw)
            if match is None:
                raise b.error(
                    f"{FORMAT_NAME}: line {line}, column '{header[index]}': "
                    f"{raw[:40]!r} is not a number"
                )
            unit_scale = UNIT_SCALE[(match.group(2) or "").lower()]
            value = float(match.group(1)) * (unit_scale if unit_scale is not None else column_scale)
            if not math.isfinite(value) or value < 0 or value > 1e9:
                raise b.error(
                    f"{FORMAT_NAME}: line {line}, column '{header[index]}': "
                    f"{raw[:40]!r} is out of range"
                )
            sums[canonical] = sums.get(canonical, 0.0) + value
            counts[canonical] = counts.get(canonical, 0) + 1
            peaks[canonical] = max(peaks.get(canonical, value), value)
    if rows == 0:
        raise b.error(f"{FORMAT_NAME}: no data rows")
    if not sums:
        raise b.error(
            f"{FORMAT_NAME}: no utilisation, power, memory, clock or temperature value "
            "in any row (all N/A)"
        )
    if ident is None:
        b.note("no GPU column (gpu/device): GPU count unknown")
    for canonical, total in sums.items():
        b.extra[f"{canonical}_mean"] = total / counts[canonical]
        b.extra[f"{canonical}_max"] = peaks[canonical]
    b.extra["samples"] = rows
    b.extra["vendor"] = "AMD"
    if names:
        b.extra["gpu_name"] = ", ".join(sorted(names))
    if any(c in header for c in ("mem_usage_used_vram", "vram_used", "mem_usage_total_vram")):
        b.note("amd-smi memory is written as MB but counted in MiB; read as MiB")
    b.note("GPU telemetry only: no inference/training performance metrics")
    duration = (max(times) - min(times)) if len(times) > 1 else None
    return b.result(Metrics(gpus=len(gpus) or None, duration_s=duration))


FORMATS: Final = (
    Format(
        FORMAT_ID,
        FORMAT_NAME,
        "CSV header with amd-smi (usage_gfx_activity / power_socket_power / power_usage / "
        "vram_used) or rocm-smi (GPU use (%), VRAM Total Used Memory (B)) columns",
        parse,
        is_amd_header,
        CSV_HEADER,
        45,
    ),
)
