"""The calibration ledger: how far the roofline estimate was from measurements.

Wherever an estimate and a measurement exist for the same accelerator + model + shape, the
ledger keeps both and their ratio ``measured / estimate``. Later estimates on that
accelerator take their uncertainty from the observed ratios (docs/engine/evidence.md):

- with ``MIN_ENTRIES`` (3) or more ratios: the estimate's range becomes
  ``(E × q10, E × median, E × q90)`` of the ratios (linear-interpolated quantiles), so a
  systematically optimistic estimate is corrected and the row says by how much;
- with fewer: the default spread is kept, only ever widened to cover every observed ratio
  (two points are too few to narrow anything);
- never narrower than ``MIN_HALF_WIDTH`` around the likely value.

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


def summarise(entries: Iterable[CalibrationEntry]) -> dict[str, CalibrationSummary]:
    """Per accelerator: how many pairs and the spread of measured / estimate."""
    by_acc: dict[str, list[float]] = {}
    for entry in entries:
        if entry.estimated_tokens_per_s > 0 and entry.measured_tokens_per_s > 0:
            by_acc.setdefault(entry.accelerator, []).append(entry.ratio)
    out = {}
    for acc, ratios in sorted(by_acc.items()):
        arr = np.array(ratios)
        q10, q50, q90 = (float(x) for x in np.quantile(arr, (0.1, 0.5, 0.9)))
        out[acc] = CalibrationSummary(
            acc, len(ratios), q50, q10, q90, float(arr.min()), float(arr.max())
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
    if summary.entries < MIN_ENTRIES:
        low, high = min(low, summary.min_ratio), max(high, summary.max_ratio)
        return Range(estimate * low, estimate, estimate * high), (
            f"default spread widened to the {summary.entries} observed measured/estimate "
            f"ratio(s) ({summary.min_ratio:.2f}–{summary.max_ratio:.2f})"
        )
    likely = summary.median_ratio
    lo = min(summary.p10_ratio, likely * (1 - MIN_HALF_WIDTH))
    hi = max(summary.p90_ratio, likely * (1 + MIN_HALF_WIDTH))
    return Range(estimate * lo, estimate * likely, estimate * hi), (
        f"estimate × {likely:.2f} (median measured/estimate of {summary.entries} "
        f"measurements on {summary.accelerator}), p10–p90 {lo:.2f}–{hi:.2f}"
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
