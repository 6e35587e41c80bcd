"""Results of one serving configuration, read as one sweep (pure: dicts in, dicts out).

A user measuring a knee uploads one file per concurrency (or request rate), often without a
sweep name. Results are read as **one sweep** when they measured the same configuration:

- the same quote (or, without one, the same accelerator), GPU count, model, precision,
  brief, tensor/pipeline layout, KV-cache precision, serving engine and its major version
  (SemVer: 0.y is its own major; engine/serving_engines.py);
- input and output lengths within 10 % of the group's first result (another shape is
  another workload, not another point), and the same workload as the files state it
  (dataset, lengths asked for, spread: `parsers/identity.stated_workload`, the one key of
  docs/benchmarks.md, "Which runs are one");
- the same sweep name: results without one join each other, results with one join only
  results with that name. So giving results different sweep names splits a group.

The entry is the group's first result (lowest id) with the points of all, ordered by
concurrency (else rate); `sweep_result_ids` names every member, and the concurrency becomes
the group's highest, as for a multi-run file. **Repetitions** at the same concurrency (or
rate) from different results are one point with their spread: the mean of each figure, the
range of the throughput (`output_tokens_per_s_range`) and the number of runs (`repeats`);
never the best run. Two different points that share a label get their result id.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from engine.serving_engines import canonical, major_version

LENGTH_TOLERANCE = 0.10  # relative difference of mean lengths still read as one shape
MAX_SAMPLES = 2000  # per-request samples kept for a point (as the parsers keep)
_CONFIG_FIELDS = (
    "sweep",
    "accelerator",
    "gpu_count",
    "model_name",
    "precision",
    "brief_id",
    "tensor_parallel",
    "pipeline_parallel",
    "kv_precision",
    "workload",
)
_LENGTHS = ("input_tokens_mean", "output_tokens_mean")
_LATENCIES = ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms")
_AVERAGED_FIGURES = ("output_tokens_per_s", "input_tokens_per_s", "requests_per_s", "error_rate")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def configuration(item: dict[str, Any]) -> tuple[Any, ...]:
    """What a result measured on, besides its load: results sharing it may form a sweep. The
    engine is read as the matching rules read it (engine/serving_engines.py): one name per
    engine ("vLLM" and "vllm"), SemVer's major of its version (0.5 and 0.6 differ)."""
    where = ("quote", item.get("quote_id")) if item.get("quote_id") else ("gpu", None)
    return (
        *where,
        *(item.get(name) or None for name in _CONFIG_FIELDS),
        canonical(str(item.get("serving_engine") or "")),
        major_version(str(item.get("engine_version") or "")),
    )


def _same_shape(a: dict[str, Any], b: dict[str, Any]) -> bool:
    for name in _LENGTHS:
        x, y = _number(a.get(name)), _number(b.get(name))
        if x is None or y is None:
            if (x is None) != (y is None):
                return False
            continue
        if abs(x - y) > LENGTH_TOLERANCE * max(x, y):
            return False
    return True


def _load(point: dict[str, Any]) -> tuple[str, float] | None:
    for name in ("concurrency", "request_rate_per_s"):
        value = point.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return name, float(value)
    return None


def point_order(point: dict[str, Any]) -> tuple[float, float]:
    concurrency = point.get("concurrency")
    rate = point.get("request_rate_per_s")
    return (
        float(concurrency) if isinstance(concurrency, int | float) else float("inf"),
        float(rate) if isinstance(rate, int | float) else float("inf"),
    )


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _repeated(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Runs at one load → one point: the mean of each figure, the throughput's range."""
    merged = dict(runs[0])
    for name in _AVERAGED_FIGURES:
        merged[name] = _mean([_number(r.get(name)) for r in runs])
    for family in _LATENCIES:
        blocks: list[dict[str, Any]] = [b for r in runs if isinstance(b := r.get(family), dict)]
        if blocks:
            merged[family] = {
                key: _mean([_number(b.get(key)) for b in blocks])
                for key in ("p50", "p95", "p99", "mean")
            }
    throughputs = [v for r in runs if (v := _number(r.get("output_tokens_per_s"))) is not None]
    merged["output_tokens_per_s_range"] = (
        [min(throughputs), max(throughputs)] if throughputs else None
    )
    merged["repeats"] = len(runs)
    samples = [s for r in runs for s in r.get("request_samples") or []]
    merged["request_samples"] = samples[:MAX_SAMPLES]
    merged["label"] = f"{runs[0].get('label')} (mean of {len(runs)} runs)"
    return merged


def _points_of(members: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_load: dict[tuple[str, float], list[dict[str, Any]]] = {}
    loose: list[dict[str, Any]] = []
    for member in members:
        for point in member.get("operating_points") or []:
            tagged = {**point, "_result": member.get("result_id")}
            load = _load(point)
            if load is None:
                loose.append(tagged)
            else:
                by_load.setdefault(load, []).append(tagged)
    points: list[dict[str, Any]] = []
    for runs in by_load.values():
        if len({r["_result"] for r in runs}) > 1:
            points.append(_repeated(runs))
        else:
            points.extend(runs)  # one file's own points at one load stay as the file gave them
    points += loose
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for point in points:  # in member order: the first file keeps its label
        result_id = point.pop("_result", None)
        label = str(point.get("label") or "")
        if label in seen:
            label = f"{label} (result {result_id})"
        seen.add(label)
        out.append({**point, "label": label})
    return sorted(out, key=point_order)


def merge_sweeps(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The results with those of one configuration joined into one entry (module docstring).

    A result alone in its group is returned unchanged; order is kept (a group sits where its
    first member was)."""
    groups: list[list[dict[str, Any]]] = []
    index: dict[tuple[Any, ...], list[int]] = {}
    for item in sorted(results, key=lambda r: r.get("result_id") or 0):
        key = configuration(item)
        for g in index.get(key, []):
            head = groups[g][0]
            if (
                item.get("operating_points")
                and head.get("operating_points")
                and _same_shape(head, item)
            ):
                groups[g].append(item)
                break
        else:
            index.setdefault(key, []).append(len(groups))
            groups.append([item])
    first_of = {id(group[0]): group for group in groups}
    out: list[dict[str, Any]] = []
    for item in results:
        group = first_of.get(id(item))
        if group is None:
            continue
        if len(group) == 1:
            out.append(item)
            continue
        concurrencies = [c for m in group if (c := _number(m.get("concurrency"))) is not None]
        out.append(
            {
                **group[0],
                "operating_points": _points_of(group),
                "concurrency": max(concurrencies) if concurrencies else None,
                "sweep_result_ids": [m.get("result_id") for m in group],
            }
        )
    return out
