"""GPU telemetry: nvidia-smi ``--query-gpu`` CSV logs and DCGM exporter scrapes."""

from __future__ import annotations

import csv
import io
import math
import re
from datetime import UTC, datetime
from typing import Final

from ._util import Builder, ProgressFn
from .registry import CSV_HEADER, TEXT, Format
from .types import Metrics, ParsedResult

SMI_ID: Final = "nvidia-smi-csv"
SMI_NAME: Final = "nvidia-smi query log (CSV)"
DCGM_ID: Final = "dcgm-metrics"
DCGM_NAME: Final = "DCGM exporter scrape (Prometheus text)"

SMI_KEYS: Final = ("utilization.gpu", "memory.used", "power.draw")
NA_VALUES: Final = frozenset(
    {"[n/a]", "n/a", "[not supported]", "[unknown error]", "[gpu requires reset]", ""}
)
IDENTITY_COLUMNS: Final = ("uuid", "pci.bus_id", "index", "gpu", "gpu_index", "id")
SUMMARY_COLUMNS: Final = (
    "utilization.gpu",
    "utilization.memory",
    "memory.used",
    "memory.total",
    "power.draw",
    "power.draw.average",
    "power.draw.instant",
    "power.limit",
    "temperature.gpu",
    "clocks.sm",
    "clocks.mem",
)
_NUM_RE: Final = re.compile(
    r"^\s*([-+]?\d+(?:\.\d+)?)\s*(%|MiB|MB|GiB|W|MHz|C)?\s*$", re.IGNORECASE
)
_DCGM_RE: Final = re.compile(r"^(DCGM_FI_[A-Z0-9_]+)(\{[^}]*\})?\s+(\S+)")
_LABEL_RE: Final = re.compile(r'(\w+)="([^"]*)"')


def _column_name(raw: str) -> str:
    """'power.draw [W]' -> 'power.draw' (no regex: headers can be hostile)."""
    name = raw.strip()
    if name.endswith("]"):
        cut = name.rfind("[")
        if cut > 0:
            name = name[:cut]
    return name.strip().lower()


def is_smi_header(header: list[str]) -> bool:
    names = {_column_name(h) for h in header}
    return any(key in names for key in SMI_KEYS)


def _parse_time(text: str) -> float | None:
    cleaned = text.strip()
    if not cleaned:
        return None
    for fmt in ("%Y/%m/%d %H:%M:%S.%f", "%Y/%m/%d %H:%M:%S"):
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC).timestamp()
        except ValueError:
            continue
    return iso_seconds(cleaned)


def iso_seconds(text: str) -> float | None:
    """An ISO 8601 time as epoch seconds (no zone: UTC), or None when it is not one."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def parse_smi(text: str, progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(SMI_ID, SMI_NAME)
    reader = csv.reader(io.StringIO(text), skipinitialspace=True)
    raw_header = next(reader, [])
    header = [_column_name(h) for h in raw_header]
    if not is_smi_header(raw_header):
        raise b.error(f"{SMI_NAME}: header needs one of {', '.join(SMI_KEYS)}")
    ident_cols = [header.index(c) for c in IDENTITY_COLUMNS if c in header]
    time_col = header.index("timestamp") if "timestamp" in header else None
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    peaks: dict[str, float] = {}
    ids: dict[int, set[str]] = {c: set() for c in ident_cols}
    names: set[str] = set()
    times: list[float] = []
    rows = 0
    first_stamp: str | None = None
    for line, row in enumerate(reader, start=2):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if _column_name(cells[0]) == header[0] and not _NUM_RE.match(cells[0]):
            continue  # repeated header of a concatenated log
        rows += 1
        record = dict(zip(header, cells, strict=False))
        for col_index in ident_cols:
            if col_index < len(cells):
                ids[col_index].add(cells[col_index])
        if record.get("name"):
            names.add(record["name"])
        if time_col is not None and time_col < len(cells):
            stamp = _parse_time(cells[time_col])
            if stamp is not None:
                times.append(stamp)
                if first_stamp is None:
                    first_stamp = cells[time_col]
        for col in SUMMARY_COLUMNS:
            raw = record.get(col)
            if raw is None or raw.lower() in NA_VALUES:
                continue
            match = _NUM_RE.match(raw)
            if match is None:
                raise b.error(
                    f"{SMI_NAME}: line {line}, column '{col}': {raw[:40]!r} is not a number"
                )
            value = float(match.group(1))
            if not math.isfinite(value) or value < 0 or value > 1e9:
                raise b.error(f"{SMI_NAME}: line {line}, column '{col}': {value!r} is out of range")
            sums[col] = sums.get(col, 0.0) + value
            counts[col] = counts.get(col, 0) + 1
            peaks[col] = max(peaks.get(col, value), value)
    if rows == 0:
        raise b.error(f"{SMI_NAME}: no data rows")
    gpus = max((len(v) for v in ids.values()), default=0) or None
    if not ident_cols:
        b.note("no GPU identity column (index/uuid/pci.bus_id): GPU count unknown")
    elif len(ident_cols) > 1:
        best = max(ident_cols, key=lambda c: len(ids[c]))
        b.note(f"GPU count taken from the '{header[best]}' column (most distinct values)")
    duration = (max(times) - min(times)) if len(times) > 1 else None
    if times:
        b.note("nvidia-smi timestamps are local time without a timezone")
    for col, total in sums.items():
        b.extra[f"{col}_mean"] = total / counts[col]
        b.extra[f"{col}_max"] = peaks[col]
    b.extra["samples"] = rows
    if names:
        b.extra["gpu_name"] = ", ".join(sorted(names))
    if first_stamp:
        b.extra["first_timestamp"] = first_stamp
    b.note("GPU telemetry only: no inference/training performance metrics")
    return b.result(Metrics(gpus=gpus, duration_s=duration))


def is_dcgm(text_head: str) -> bool:
    for line in text_head.splitlines()[:50]:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        return _DCGM_RE.match(stripped) is not None
    return False


def parse_dcgm(text: str, progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(DCGM_ID, DCGM_NAME)
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    gpus: set[str] = set()
    models: set[str] = set()
    dropped = 0
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _DCGM_RE.match(stripped)
        if match is None:
            continue
        name, labels, raw = match.groups()
        try:
            value = float(raw)
        except ValueError:
            raise b.error(f"{DCGM_NAME}: {name} has a non-numeric value {raw[:30]!r}") from None
        if not math.isfinite(value) or abs(value) > 1e15:
            dropped += 1
            continue
        label_map = dict(_LABEL_RE.findall(labels or ""))
        gpu = label_map.get("gpu") or label_map.get("UUID")
        if gpu is not None:
            gpus.add(label_map.get("Hostname", "") + "/" + gpu)
        if "modelName" in label_map:
            models.add(label_map["modelName"])
        sums[name] = sums.get(name, 0.0) + value
        counts[name] = counts.get(name, 0) + 1
    if not sums:
        raise b.error(f"{DCGM_NAME}: no DCGM_FI_* samples")
    if dropped:
        b.note(f"{dropped} sentinel/blank value(s) (> 1e15) dropped")
    for name, total in sums.items():
        b.extra[f"{name}_mean"] = total / counts[name]
    if models:
        b.extra["gpu_name"] = ", ".join(sorted(models))
    b.note("a DCGM scrape is a single instant unless many scrapes were concatenated")
    b.note("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION is in mJ since boot")
    return b.result(Metrics(gpus=len(gpus) or None))


FORMATS: Final = (
    Format(
        SMI_ID,
        SMI_NAME,
        "CSV header with utilization.gpu / memory.used / power.draw",
        parse_smi,
        is_smi_header,
        CSV_HEADER,
        40,
    ),
    Format(
        DCGM_ID,
        DCGM_NAME,
        "lines 'DCGM_FI_...{labels} value'",
        parse_dcgm,
        is_dcgm,
        TEXT,
        20,
    ),
)
