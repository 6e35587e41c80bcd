"""The calibration ledger: how far the roofline estimate was from measurements.

Wherever an estimate and a measurement exist for the same accelerator + model + shape, the
ledger keeps both and their ratio ``measured / estimate``. Later estimates of **the same
model on that accelerator** take their uncertainty from the observed ratios
(docs/engine/calibration.md); another model's pairs never move them. Pairs are counted by
**distinct benchmark results**: one file compared under several briefs is one measurement.

- with fewer than ``MIN_ENTRIES`` (3) distinct results: the default spread is kept, only
  ever widened to cover every observed ratio (two measurements are too few to move it);
- from 3 to ``MIN_INDEPENDENT`` − 1 (9) results: the centre moves to the median ratio, and
  the band is the default spread around it, widened to the ratios' p10–p90, never narrower;
- with ``MIN_INDEPENDENT`` (10) or more results agreeing: ``(E × q10, E × median, E × q90)``
  of the ratios (linear-interpolated quantiles), never narrower than ``MIN_HALF_WIDTH``.

Billed months keep a second ratio, ``actual / forecast`` cost per accepted output, on the
offer a decision took. A later row on that offer keeps its Monte Carlo cost band, widened
(never narrowed) to cover ``p50 × ratio`` for every observed ratio (`widened_cost_band`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from engine.types import Range

MIN_ENTRIES = 3
MIN_INDEPENDENT = 10
MIN_HALF_WIDTH = 0.03


@dataclass(frozen=True, slots=True)
class CalibrationEntry:
    accelerator: str
    model: str
    shape: str  # e.g. "in 1500 / out 300 / c32 / 4 GPUs"
    estimated_tokens_per_s: float
    measured_tokens_per_s: float
    result_id: int | str = ""

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

    @property
    def independent(self) -> int:
        return self.entries if self.results is None else self.results


def model_key(accelerator: str, model: str) -> str:
    """The ledger key a comparison looks up: one model on one accelerator."""
    return f"{accelerator}|{model}"


def summarise(
    entries: Iterable[CalibrationEntry], *, by_model: bool = False
) -> dict[str, CalibrationSummary]:
    """Per accelerator (or per accelerator and model, keyed by ``model_key``): how many
    pairs and distinct results, and the spread of measured / estimate."""
    by_key: dict[str, list[CalibrationEntry]] = {}
    for entry in entries:
        if entry.estimated_tokens_per_s > 0 and entry.measured_tokens_per_s > 0:
            key = model_key(entry.accelerator, entry.model) if by_model else entry.accelerator
            by_key.setdefault(key, []).append(entry)
    out = {}
    for key, found in sorted(by_key.items()):
        arr = np.array([e.ratio for e in found])
        q10, q50, q90 = (float(x) for x in np.quantile(arr, (0.1, 0.5, 0.9)))
        distinct = len({e.result_id for e in found if e.result_id not in ("", None)}) or len(found)
        out[key] = CalibrationSummary(
            found[0].accelerator,
            len(found),
            q50,
            q10,
            q90,
            float(arr.min()),
            float(arr.max()),
            results=distinct,
            model=found[0].model if by_model else "",
        )
    return out


def calibrated_range(
    estimate: float, summary: CalibrationSummary | None, default: Sequence[float]
) -> tuple[Range, str]:
    """(the throughput range for a later estimate, what was done, in words).

    ``default`` is the (low, high) spread factors used without calibration."""
    low, high = float(default[0]), float(default[1])
    if summary is None or summary.entries == 0:
        return Range(estimate * low, estimate, estimate * high), "no calibration data"
    n = summary.independent
    what = f"{n} benchmark result{'s' if n != 1 else ''}"
    if summary.model:
        what += f" of {summary.model}"
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
