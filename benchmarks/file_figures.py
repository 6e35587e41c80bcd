"""The other figures a file carries (`metrics["extra"]`), for reading (pure).

A parser keeps the scalars of a file it does not normalise (vLLM's `mean_ttft_ms`,
nvidia-smi's `power.draw_max`, the tool's own settings). Shown raw they are keys with
15-digit floats; here each becomes a row: a name in words, the value with as many decimals
as a reader compares, and its unit read from the key (`_ms` → ms, `throughput` → per second,
`memory.*` → MiB, …). The key stays beside the name, so nothing is lost.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

WORDS = {
    "ttft": "TTFT",
    "tpot": "TPOT",
    "itl": "ITL",
    "e2el": "E2E latency",
    "e2e": "E2E",
    "gpu": "GPU",
    "std": "std dev",
    "num": "number of",
    "id": "ID",
    "incl": "incl.",
    "p50": "p50",
    "p90": "p90",
    "p95": "p95",
    "p99": "p99",
}
# (pattern on the key, unit), first match wins
UNITS = (
    (r"(^|[_.])ms($|[_.])", "ms"),
    (r"^memory\.|_fb_(used|free)", "MiB"),
    (r"^power\.", "W"),
    (r"^temperature\.", "°C"),
    (r"utilization|utilisation", "%"),
    (r"request_(throughput|goodput)|request_rate", "requests/s"),
    (r"token_throughput|output_throughput|input_throughput|tokens_per_s", "tokens/s"),
    (r"(^|_)duration($|_)|(^|[_.])s$|_seconds?$", "s"),
    (r"tokens", "tokens"),
)


def name_of(key: str) -> str:
    """'mean_ttft_ms' → 'Mean TTFT', 'memory.used_max' → 'Memory used max'."""
    parts = [p for p in re.split(r"[_.\s]+", key) if p and p.lower() != "ms"]
    words = [WORDS.get(p.lower(), p) for p in parts]
    text = " ".join(words) or key
    return text[:1].upper() + text[1:]


def unit_of(key: str) -> str:
    lowered = key.lower()
    for pattern, unit in UNITS:
        if re.search(pattern, lowered):
            return unit
    return ""


def shown(value: Any) -> str:
    """A number as a reader compares it: separators, no 15-digit tails; text as it is."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, int | float):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if float(value).is_integer():
        return f"{value:,.0f}"
    magnitude = abs(value)
    if magnitude >= 1000:
        return f"{value:,.0f}"
    if magnitude >= 10:
        return f"{value:,.1f}"
    if magnitude >= 1:
        return f"{value:,.2f}"
    return f"{value:.3g}"


def extra_rows(extra: Mapping[str, Any] | None) -> list[dict[str, str]]:
    """One row per figure, in key order: name, value, unit and the key as the file spells it."""
    return [
        {"key": str(key), "name": name_of(str(key)), "value": shown(value), "unit": unit_of(key)}
        for key, value in sorted((extra or {}).items())
    ]
