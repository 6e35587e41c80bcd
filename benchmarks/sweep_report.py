"""A sweep read as GuideLLM's report reads one (pure: dicts in, dicts out).

The sweep is one entry of `sweep_groups.merge_sweeps` (several files of one configuration, or
one file with several load levels): its `operating_points`, ordered by concurrency (else
rate). Each load level becomes one row: its load, throughput (per GPU with the GPUs of the
upload), the TTFT / ITL / E2E percentiles, the error rate, the SLO attainment (the share of
requests within every target, from the per-request samples) and whether it meets the brief.
The binding target (engine/operating_points/binding.py) and the point the comparison would
cost the sweep at (`choose_point`) are named.

ITL is the gap between streamed chunks; a file without it gives TPOT, and the row says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchmarks.latency_verdict import Targets
from core.values import finite_or_none
from engine.operating_points import choose_point, error_rate_of, meets, point_from_dict
from engine.operating_points import slo_attainment as attainment_of
from engine.operating_points.binding import Binding, binding_across, binding_target

PERCENTILES = ("p50", "p95", "p99")
#: the brief's targets (Targets' fields) as the report names them
TARGET_NAMES = (("ttft_p95_ms", "TTFT p95"), ("itl_p95_ms", "ITL p95"), ("e2e_p99_ms", "E2E p99"))


def _number(value: Any) -> float | None:
    return finite_or_none(value, strings=False)


def _block(point: Mapping[str, Any], family: str) -> dict[str, float | None]:
    raw = point.get(family)
    block = raw if isinstance(raw, Mapping) else {}
    return {which: _number(block.get(which)) for which in (*PERCENTILES, "mean")}


def _gap(point: Mapping[str, Any]) -> tuple[str, dict[str, float | None]]:
    """("ITL", its percentiles), else ("TPOT", …) when the file has no inter-token gaps."""
    itl = _block(point, "itl_ms")
    if any(v is not None for v in itl.values()):
        return "ITL", itl
    return "TPOT", _block(point, "tpot_ms")


def load_of(point: Mapping[str, Any]) -> tuple[str, float] | None:
    """("concurrency", 8.0) or ("rate", 2.0); None when the point states neither."""
    concurrency = _number(point.get("concurrency"))
    if concurrency is not None:
        return "concurrency", concurrency
    rate = _number(point.get("request_rate_per_s"))
    if rate is not None:
        return "rate", rate
    return None


def load_words(point: Mapping[str, Any], *, short: bool = False) -> str:
    """'concurrency 8', 'rate 2/s' (``short``, the label drawn beside a point: 'c8', '2/s'),
    else the point's own label."""
    load = load_of(point)
    if load is None:
        return str(point.get("label") or "")
    kind, value = load
    if kind == "concurrency":
        return f"c{value:g}" if short else f"concurrency {value:g}"
    return f"{value:g}/s" if short else f"rate {value:g}/s"


def flat_figures(point: Mapping[str, Any]) -> dict[str, float | None]:
    """The figures a brief's targets are checked on (binding.py's point shape)."""
    _name, gap = _gap(point)
    return {
        "ttft_p95_ms": _block(point, "ttft_ms")["p95"],
        "itl_p95_ms": gap["p95"],
        "e2e_p99_ms": _block(point, "e2e_ms")["p99"],
        "error_rate": error_rate_of(point_from_dict(dict(point))),
    }


def _misses(figures: Mapping[str, float | None], targets: Targets) -> list[str]:
    out = []
    for key, name in TARGET_NAMES:
        target, value = getattr(targets, key), figures.get(key)
        if target and value is not None and value > target:
            out.append(f"{name} {value:,.0f} ms > {float(target):,.0f} ms")
    return out


def level_row(point: Mapping[str, Any], gpu_count: int | None, targets: Targets) -> dict[str, Any]:
    """One load level of the table (module docstring)."""
    measured = point_from_dict(dict(point))
    slo = targets.service_level
    output = _number(point.get("output_tokens_per_s"))
    gap_name, gap = _gap(point)
    figures = flat_figures(point)
    verdict = meets(measured, slo) if slo.any else None
    return {
        "label": str(point.get("label") or ""),
        "load": load_words(point),
        "tag": load_words(point, short=True),
        "load_kind": (load := load_of(point) or ("", None))[0],
        "load_value": load[1],
        "output_tokens_per_s": output,
        "tokens_per_s_per_gpu": output / gpu_count if output is not None and gpu_count else None,
        "requests_per_s": _number(point.get("requests_per_s")),
        "ttft": _block(point, "ttft_ms"),
        "gap_name": gap_name,
        "gap": gap,
        "e2e": _block(point, "e2e_ms"),
        "error_rate": figures["error_rate"],
        "slo_attainment": attainment_of(measured, slo) if targets.realtime else None,
        "meets": verdict,
        "misses": _misses(figures, targets) if verdict is False else [],
        "repeats": point.get("repeats") or point.get("repetitions"),
        "figures": figures,
    }


def load_axis(rows: Sequence[Mapping[str, Any]]) -> str:
    """'concurrency' when every level states one, else 'rate' when every one states a rate,
    else '' (the curves then have no common x axis)."""
    kinds = {r.get("load_kind") for r in rows}
    return str(kinds.pop()) if len(kinds) == 1 and kinds != {""} else ""


def sweep_report(entry: Mapping[str, Any], targets: Targets) -> dict[str, Any]:
    """Rows per load level, the binding target and the chosen point of one sweep entry."""
    points = [p for p in entry.get("operating_points") or [] if isinstance(p, Mapping)]
    gpu_count = int(entry.get("gpu_count") or 0) or None
    rows = [level_row(p, gpu_count, targets) for p in points]
    slo = targets.service_level
    binding = binding_target([r["figures"] for r in rows], slo)
    chosen = choose_point(
        [point_from_dict(dict(p)) for p in points], slo, realtime=targets.realtime
    )
    for row in rows:
        row["chosen"] = chosen is not None and row["label"] == chosen.label
    return {
        "rows": rows,
        "axis": load_axis(rows),
        "binding": binding,
        "chosen": chosen,
        "targets": targets_words(targets, binding),
    }


def targets_words(targets: Targets, binding: Binding | None) -> list[dict[str, Any]]:
    """The brief's targets in words, the binding one marked: [{"words", "binds"}]."""
    out = []
    for key, name in TARGET_NAMES:
        if value := getattr(targets, key):
            out.append(
                {
                    "key": key,
                    "words": f"{name} ≤ {float(value):,.0f} ms",
                    "binds": binding is not None and binding.key == key,
                }
            )
    return out


def compare_axis(entries: Sequence[Mapping[str, Any]], targets: Targets) -> Binding | None:
    """The target binding the most of these sweeps (the compare page's x axis)."""
    lines = [
        [flat_figures(p) for p in entry.get("operating_points") or [] if isinstance(p, Mapping)]
        for entry in entries
    ]
    return binding_across(lines, targets.service_level)
