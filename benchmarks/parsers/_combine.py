"""A file with several runs → one headline, its operating points, and every run kept.

Runs are grouped by their whole identity (``identity.run_key``). Runs of one workload at
different load levels are a sweep: each is an operating point and the headline is the
saturation run (the highest throughput). Runs whose *whole* key is equal (``vllm bench sweep``
with ``--num-runs``, an appended JSON Lines file run twice) are repetitions of one measurement:
they are one operating point whose every figure is the repetitions' mean, with the spread kept,
so that chance never picks the luckier repetition as the evidence. Runs of another workload
(another dataset, other lengths, model, precision, GPUs or MLPerf scenario) in the same file
are kept in ``runs`` and named in a note; they are never averaged with, nor become operating
points of, the headline's workload.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._points import input_tokens_per_s, is_serving, operating_point, run_label
from .identity import RunKey, run_key
from .types import (
    MAX_REQUEST_SAMPLES,
    Metrics,
    OperatingPoint,
    ParsedResult,
    Percentiles,
    RequestPoint,
)

_COUNTS = frozenset(
    {
        "requests_completed",
        "requests_failed",
        "input_tokens_total",
        "output_tokens_total",
        "accepted_outputs",
        "assets_generated",
        "assets_accepted",
    }
)
# The load level is what the runs were told to do, not a figure they measured.
_LOAD = frozenset({"concurrency", "request_rate", "gpus"})


def _throughput(metrics: Metrics) -> float:
    for value in (
        metrics.output_tokens_per_s,
        metrics.total_tokens_per_s,
        metrics.request_throughput_rps,
        metrics.tokens_per_s,
    ):
        if value is not None:
            return value
    return -1.0


def _mean(values: list[Any]) -> Any:
    present = [v for v in values if v is not None]
    if not present:
        return None
    return statistics.fmean(present)


def _mean_percentiles(values: list[Percentiles | None]) -> Percentiles | None:
    present = [p for p in values if p is not None]
    if not present:
        return None
    merged = Percentiles(
        *(_mean([getattr(p, k) for p in present]) for k in ("p50", "p95", "p99", "mean"))
    )
    return None if merged.is_empty() else merged


def mean_metrics(metrics: Sequence[Metrics]) -> Metrics:
    """The repetitions' mean: counts added up, figures averaged (each percentile on its own).

    A rate is each run's own before it is averaged: one derived from the summed counts over
    the mean duration would be N times too high."""
    metrics = [dataclasses.replace(m, input_tokens_per_s=input_tokens_per_s(m)) for m in metrics]
    values: dict[str, Any] = {}
    for f in dataclasses.fields(Metrics):
        column = [getattr(m, f.name) for m in metrics]
        present = [v for v in column if v is not None]
        if f.name in _COUNTS:
            values[f.name] = sum(present) if present else None
        elif f.name in _LOAD:
            values[f.name] = present[0] if present else None
        elif any(isinstance(v, Percentiles) for v in present):
            values[f.name] = _mean_percentiles(column)
        else:
            values[f.name] = _mean(column)
    return Metrics(**values)


def _pooled_samples(points: Sequence[OperatingPoint]) -> tuple[RequestPoint, ...] | None:
    pooled = [s for p in points for s in (p.request_samples or ())]
    if not pooled:
        return None
    index = np.unique(np.linspace(0, len(pooled) - 1, min(len(pooled), MAX_REQUEST_SAMPLES)))
    return tuple(pooled[int(i)] for i in index.round().astype(np.int64))


def _repeated_point(runs: Sequence[ParsedResult], index: int, label: str) -> OperatingPoint:
    singles = [operating_point(r.metrics, r.per_request, index, r.extra) for r in runs]
    point = operating_point(mean_metrics([r.metrics for r in runs]), None, index, runs[0].extra)
    throughputs = [p.output_tokens_per_s for p in singles if p.output_tokens_per_s is not None]
    return dataclasses.replace(
        point,
        label=f"{label} (mean of {len(runs)} repetitions)",
        request_samples=_pooled_samples(singles),
        repetitions=len(runs),
        output_tokens_per_s_min=min(throughputs) if throughputs else None,
        output_tokens_per_s_max=max(throughputs) if throughputs else None,
    )


def _spread_note(label: str, runs: Sequence[ParsedResult]) -> str:
    values = [r.metrics.output_tokens_per_s for r in runs]
    shown = [v for v in values if v is not None]
    text = f"{len(runs)} repetitions at {label}: one operating point, their mean"
    if shown:
        spread = f", range {min(shown):.2f}-{max(shown):.2f}"
        if len(shown) > 1:
            spread += f", sample standard deviation {statistics.stdev(shown):.2f}"
        text += f" (output {statistics.fmean(shown):.2f} tok/s{spread})"
    return text + "; no repetition is taken as the best"


def _load_level(run: ParsedResult, index: int) -> str:
    """The load a run was driven at (concurrency and request rate together); a run that
    states neither is a load level of its own."""
    m = run.metrics
    rate = m.request_rate if m.request_rate is not None else run.extra.get("request_rate")
    if m.concurrency is None and rate is None:
        return run_label(m, index, run.extra)
    parts = [f"concurrency {m.concurrency:g}"] if m.concurrency is not None else []
    if rate is not None:
        shown = f"{rate:g}/s" if isinstance(rate, float | int) else "inf (all requests at once)"
        parts.append(f"request rate {shown}")
    return ", ".join(parts)


def _other_workloads_note(
    total: int, kind: str, workload: RunKey, others: dict[RunKey, list[int]]
) -> str:
    named = "; ".join(
        f"{key.words()} (run{'s' if len(m) > 1 else ''} {', '.join(str(i + 1) for i in m)})"
        for key, m in others.items()
    )
    return (
        f"file holds {total} {kind} of {len(others) + 1} workloads; this result is the first "
        f"run's workload ({workload.words()}); the others are kept in 'runs', never averaged "
        f"with it nor made its operating points (upload each workload as its own file to use "
        f"it as evidence): {named}"
    )


def _headline(
    runs: Sequence[ParsedResult], groups: dict[RunKey, list[int]], kind: str
) -> tuple[ParsedResult, list[str], dict[str, Any]]:
    """The headline result: the saturation load level of the first run's workload, averaged
    over its repetitions."""
    total = len(runs)
    mine = sum(len(m) for m in groups.values())
    means = {
        key: mean_metrics([runs[i].metrics for i in members]) for key, members in groups.items()
    }
    best = max(groups, key=lambda key: _throughput(means[key]))
    members = groups[best]
    level = _load_level(runs[members[0]], members[0])
    head = runs[members[0]]
    extra = dict(head.extra)
    notes = list(head.notes)
    if len(members) > 1:
        head = dataclasses.replace(head, metrics=means[best], per_request=None)
        extra["repetitions"] = len(members)
        extra["headline_run"] = f"mean of {len(members)} repetitions at {level}"
        notes.insert(0, _spread_note(level, [runs[i] for i in members]))
    else:
        extra["headline_run"] = f"saturation run, {level} of {total} runs"
    extra["headline_run_index"] = members[0]
    if len(groups) == mine > 1:  # a sweep without repetitions
        notes.insert(
            0,
            f"file holds {total} {kind}; headline: saturation run (highest throughput), "
            f"{level} of {total} runs; see 'runs' for all of them",
        )
    elif len(groups) > 1:
        notes.insert(
            0,
            f"file holds {total} {kind}, {mine} of this workload at {len(groups)} load "
            f"levels; headline: the saturation load level (highest mean throughput), {level}; "
            "see 'runs' for all",
        )
    elif len(members) > 1:
        notes.insert(0, f"file holds {total} {kind}, {mine} at one load level ({level})")
    return head, notes, extra


def combine_runs(
    runs: Sequence[ParsedResult],
    kind: str,
    file_notes: Sequence[str] = (),
    plural: str | None = None,
) -> ParsedResult:
    """Top-level result for a multi-run file: the first run's workload at its saturation load
    level, stated, with all runs attached; runs with one whole key are averaged, never picked
    from; runs of other workloads are kept and named, never mixed in.

    The headline is the load level with the highest throughput, not the first (lowest-load)
    one; a brief's own targets choose among the operating points later.
    """
    if len(runs) == 1 and not file_notes:
        return runs[0]
    by_key: dict[RunKey, list[int]] = {}
    for i, run in enumerate(runs):
        by_key.setdefault(run_key(run), []).append(i)
    workload = run_key(runs[0]).workload
    groups = {key: m for key, m in by_key.items() if key.workload == workload}
    others: dict[RunKey, list[int]] = {}
    for key, members in by_key.items():
        if key.workload != workload:
            others.setdefault(key.workload, []).extend(members)
    mine = sum(len(m) for m in groups.values())
    head, notes, extra = _headline(runs, groups, plural or kind + "s")
    if len(runs) == 1:
        extra.pop("headline_run", None)
        extra.pop("headline_run_index", None)
        notes = list(runs[0].notes)
    if others:
        notes.insert(
            1 if mine > 1 else 0,
            _other_workloads_note(len(runs), plural or kind + "s", workload, others),
        )
    for n in file_notes:
        if n not in notes:
            notes.append(n)
    points: list[OperatingPoint] = []
    for members in groups.values():
        members_runs = [runs[i] for i in members]
        if not any(is_serving(r.metrics) for r in members_runs):
            continue
        if len(members) == 1:
            run = members_runs[0]
            points.append(operating_point(run.metrics, run.per_request, members[0], run.extra))
        else:
            label = _load_level(members_runs[0], members[0])
            points.append(_repeated_point(members_runs, members[0], label))
    return dataclasses.replace(
        head,
        notes=tuple(notes),
        runs=tuple(runs) if len(runs) > 1 else (),
        extra=extra,
        operating_points=tuple(points),
    )
