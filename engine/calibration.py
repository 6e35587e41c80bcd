"""The calibration ledger: how far the roofline estimate was from measurements.

Wherever a comparison costs a row **measured** on its workload, the ledger keeps one pair per
**operating point** of that result (each point of a sweep; the result itself when it has
none): the point's measured output tokens/s, and the roofline estimate **at that point's own
concurrency and token lengths** on the result's GPUs (never at the brief's shape: the ratio
would then move with the brief, not with the estimate's error). Their ratio is ``measured /
estimate``. Pairs are keyed by **accelerator, model, weight precision and workload class**
(``ledger_key``; docs/engine/calibration.md): a later estimate of the same model at the same
precision for the same class of work on that accelerator takes its uncertainty from them;
another model's, precision's or class's pairs never move it. They are counted by **distinct
benchmark results**: a sweep of five points, or one file compared under several briefs, is
one measurement.

- the centre is the median over results of each result's median ratio (a sweep of many
  points weighs as much as one file of one point);
- with fewer than ``MIN_ENTRIES`` (3) distinct results: the default spread is kept, only
  ever widened to cover every observed ratio (two measurements are too few to move it);
- from 3 to ``MIN_INDEPENDENT`` − 1 (9) results: the centre moves to the median, and the
  band is the default spread around it, widened to the pairs' p10–p90, never narrower;
- with ``MIN_INDEPENDENT`` (10) or more results agreeing: ``(E × q10, E × median, E × q90)``
  of the pairs' ratios (linear-interpolated quantiles), never narrower than
  ``MIN_HALF_WIDTH``.

Billed months keep a second ratio, ``actual / forecast`` cost per accepted output, on the
offer a decision took. A later row on that offer keeps its Monte Carlo cost band, widened
(never narrowed) to cover ``p50 × ratio`` for every observed ratio (`widened_cost_band`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from core import workloads
from engine.types import Range

MIN_ENTRIES = 3
MIN_INDEPENDENT = 10
MIN_HALF_WIDTH = 0.03


@dataclass(frozen=True, slots=True)
class CalibrationEntry:
    accelerator: str
    model: str  # the ledger's name of the model: "profile:<id>", else "name:<name>"
    shape: str  # the point's: "in 1,000 / out 200 / c16 / 1 GPU"
    estimated_tokens_per_s: float
    measured_tokens_per_s: float
    result_id: int | str = ""
    precision: str = ""  # the weights' ("" : a pair kept before engine 1.5.0)
    workload_class: str = ""
    model_label: str = ""  # the model as a reader names it ("" : ``model``)

    @property
    def ratio(self) -> float:
        """measured / estimate (1 = the estimate was right; 0.5 = it was twice too high)."""
        return self.measured_tokens_per_s / self.estimated_tokens_per_s


@dataclass(frozen=True, slots=True)
class CalibrationSummary:
    accelerator: str
    entries: int
    median_ratio: float
    p10_ratio: float
    p90_ratio: float
    min_ratio: float
    max_ratio: float
    results: int | None = None  # distinct benchmark results (None: counted as entries)
    model: str = ""  # the model the pairs measured ("" : every model, for the catalog page)
    precision: str = ""
    workload_class: str = ""

    @property
    def independent(self) -> int:
        return self.entries if self.results is None else self.results


def model_key(accelerator: str, model: str) -> str:
    """The key engine 1.4.0 snapshots froze: one model on one accelerator (read for them)."""
    return f"{accelerator}|{model}"


def ledger_key(accelerator: str, model: str, precision: str, workload_class: str) -> str:
    """The key a comparison looks up: one model at one weight precision for one class of
    work on one accelerator."""
    return f"{accelerator}|{model}|{(precision or '').lower()}|{workload_class}"


def _median_of_results(found: Sequence[CalibrationEntry]) -> float:
    """The median over results of each result's median ratio (an entry without a result id
    is a result of its own)."""
    by_result: dict[object, list[float]] = {}
    for index, entry in enumerate(found):
        key = entry.result_id if entry.result_id not in ("", None) else ("entry", index)
        by_result.setdefault(key, []).append(entry.ratio)
    return float(np.median([float(np.median(r)) for r in by_result.values()]))


def summarise(
    entries: Iterable[CalibrationEntry], *, by_model: bool = False
) -> dict[str, CalibrationSummary]:
    """Per accelerator (or, ``by_model``, per ``ledger_key``): how many pairs and distinct
    results, the median of the results' ratios and the spread of every pair's."""
    by_key: dict[str, list[CalibrationEntry]] = {}
    for entry in entries:
        if entry.estimated_tokens_per_s > 0 and entry.measured_tokens_per_s > 0:
            key = (
                ledger_key(entry.accelerator, entry.model, entry.precision, entry.workload_class)
                if by_model
                else entry.accelerator
            )
            by_key.setdefault(key, []).append(entry)
    out = {}
    for key, found in sorted(by_key.items()):
        arr = np.array([e.ratio for e in found])
        q10, q90 = (float(x) for x in np.quantile(arr, (0.1, 0.9)))
        distinct = len({e.result_id for e in found if e.result_id not in ("", None)}) or len(found)
        first = found[0]
        out[key] = CalibrationSummary(
            first.accelerator,
            len(found),
            _median_of_results(found),
            q10,
            q90,
            float(arr.min()),
            float(arr.max()),
            results=distinct,
            model=(first.model_label or first.model) if by_model else "",
            precision=first.precision if by_model else "",
            workload_class=first.workload_class if by_model else "",
        )
    return out


def _measured_what(summary: CalibrationSummary) -> str:
    """'4 benchmark results of Llama 3.1 8B at bf16 (Real-time inference)'."""
    n = summary.independent
    what = f"{n} benchmark result{'s' if n != 1 else ''}"
    if summary.model:
        what += f" of {summary.model}"
    if summary.precision:
        what += f" at {summary.precision}"
    if summary.workload_class:
        what += f" ({workloads.label(summary.workload_class)})"
    return what


def calibrated_range(
    estimate: float, summary: CalibrationSummary | None, default: Sequence[float]
) -> tuple[Range, str]:
    """(the throughput range for a later estimate, what was done, in words).

    ``default`` is the (low, high) spread factors used without calibration."""
    low, high = float(default[0]), float(default[1])
    if summary is None or summary.entries == 0:
        return Range(estimate * low, estimate, estimate * high), "no calibration data"
    n = summary.independent
    what = _measured_what(summary)
    if n < MIN_ENTRIES:
        low, high = min(low, summary.min_ratio), max(high, summary.max_ratio)
        return Range(estimate * low, estimate, estimate * high), (
            f"default spread widened to the observed measured/estimate ratios of {what} "
            f"({summary.min_ratio:.2f}–{summary.max_ratio:.2f})"
        )
    likely = summary.median_ratio
    if n < MIN_INDEPENDENT:
        # a few results may move the centre, never narrow the band below the default
        lo = min(summary.p10_ratio, likely * low)
        hi = max(summary.p90_ratio, likely * high)
    else:
        lo = min(summary.p10_ratio, likely * (1 - MIN_HALF_WIDTH))
        hi = max(summary.p90_ratio, likely * (1 + MIN_HALF_WIDTH))
    return Range(estimate * lo, estimate * likely, estimate * hi), (
        f"estimate × {likely:.2f} (median measured/estimate of {what} on "
        f"{summary.accelerator}), p10–p90 {lo:.2f}–{hi:.2f}"
    )


def widened_cost_band(
    p10: float, p50: float, p90: float, *, entries: int, min_ratio: float, max_ratio: float
) -> tuple[float, float, str] | None:
    """(p10, p90, what was done) when the billed months' actual / forecast ratios on the
    row's offer fall outside its cost band; None when the band already covers them. The
    likely value stays; the band only ever widens."""
    low, high = min(p10, p50 * min_ratio), max(p90, p50 * max_ratio)
    if low >= p10 and high <= p90:
        return None
    months = f"{entries} billed month{'s' if entries != 1 else ''}"
    spread = f"{min_ratio:.2f}–{max_ratio:.2f}"
    note = (
        f"cost band widened to the {months} on this offer "
        f"(actual / forecast cost per accepted output {spread})"
    )
    return low, high, note
