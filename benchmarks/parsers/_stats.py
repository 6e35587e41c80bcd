"""Helpers shared by the GenAI-Perf and AIPerf parsers (stat dicts and the CSV export)."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ._util import Builder, maybe_percentiles, to_number, unit_to_ms
from .errors import ParseError
from .types import Percentiles

TPOT_NOTE: Final = (
    "inter_token_latency of GenAI-Perf/AIPerf is (latency - ttft) / (output_tokens - 1) per "
    "request, i.e. vLLM TPOT; it is reported as tpot_ms"
)


def stat_percentiles(b: Builder, stats: object, label: str) -> Percentiles | None:
    """{unit, avg, p50, p95, p99, ...} -> Percentiles in ms (None if not a time metric)."""
    if not isinstance(stats, Mapping):
        return None
    factor = unit_to_ms(stats.get("unit", "ms"))
    if factor is None:
        raise b.error(
            f"{b.format_name}: metric '{label}' has unknown time unit {stats.get('unit')!r}"
        )
    kind = "ns" if factor < 1e-3 else "ms"

    def get(key: str) -> float | None:
        value = b.value(stats.get(key), f"{label}.{key}", kind)
        return None if value is None else value * factor

    p50 = get("p50")
    if p50 is None:
        p50 = get("median")
    return maybe_percentiles(p50, get("p95"), get("p99"), get("avg"))


def stat_value(b: Builder, stats: object, label: str, kind: str) -> float | None:
    if isinstance(stats, Mapping):
        return b.value(stats.get("avg"), f"{label}.avg", kind)
    return b.value(stats, label, kind)


# ----------------------------------------------------------------------------- CSV export


@dataclass(slots=True)
class StatsCsv:
    """Section 1 (distributions) and section 2 (single values) of a *_genai_perf/aiperf CSV."""

    distributions: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)
    values: dict[str, tuple[str, str]] = field(default_factory=dict)
    header: list[str] = field(default_factory=list)


def split_name(raw: str) -> tuple[str, str]:
    """'Time to First Token (ms)' -> ('time to first token', 'ms')."""
    text = raw.strip()
    if text.endswith(")"):
        cut = text.rfind("(")
        if cut >= 0:
            return text[:cut].strip().lower(), text[cut + 1 : -1].strip()
    return text.lower(), ""


def read_stats_csv(text: str) -> StatsCsv:
    reader = csv.reader(io.StringIO(text))
    try:
        return _read_stats(reader)
    except csv.Error as exc:  # a stray line break or NUL inside a field: the row is unreadable
        raise ParseError(f"line {reader.line_num}: malformed CSV ({exc})") from None


def _read_stats(reader: Any) -> StatsCsv:
    out = StatsCsv()
    section: list[str] | None = None
    for row in reader:
        cells = [c.strip() for c in row]
        if not any(cells):
            section = None
            continue
        if cells[0].lower() in {"metric", "endpoint"}:
            section = [c.lower() for c in cells]
            if not out.header:
                out.header = section
            continue
        if section is None:
            continue
        name, unit = split_name(cells[0])
        if section[:2] == ["metric", "value"] and len(cells) >= 2:
            out.values[name] = (unit, cells[1])
        elif section[0] == "metric" and "avg" in section and "gpu" not in section:
            out.distributions[name] = (unit, dict(zip(section[1:], cells[1:], strict=False)))
    return out


def csv_percentiles(b: Builder, stats: StatsCsv, name: str) -> Percentiles | None:
    entry = stats.distributions.get(name)
    if entry is None:
        return None
    unit, cells = entry
    factor = unit_to_ms(unit or "ms")
    if factor is None:
        return None

    def get(key: str) -> float | None:
        value = b.wrap(
            lambda: to_number(cells.get(key), b.where(f"{name} {key}"), "ms", thousands=True)
        )
        return None if value is None else value * factor

    return maybe_percentiles(get("p50"), get("p95"), get("p99"), get("avg"))


def csv_value(b: Builder, stats: StatsCsv, name: str, kind: str) -> float | None:
    entry = stats.values.get(name)
    if entry is None:
        dist = stats.distributions.get(name)
        if dist is None:
            return None
        raw: Any = dist[1].get("avg")
    else:
        raw = entry[1]
    return b.wrap(lambda: to_number(raw, b.where(name), kind, thousands=True))
