"""A trace stands for a window of the brief's traffic: how much each request counts.

A trace is a sample: the user says which window it represents, and the product scales it to
the brief's monthly volume, saying how. A representative hour, day or week repeats to fill the
month (730 hours); the busiest hour is the brief's peak (its monthly volume's hourly average ×
its peak-to-average ratio) and says nothing of the rest of the month, whose replica-hours then
come from the brief's average.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.trace.requests import TraceError
from engine.types import HOURS_PER_MONTH

WINDOW_HOURS = {"hour": 1.0, "day": 24.0, "week": 168.0, "peak_hour": 1.0}
WINDOW_WORDS = {
    "hour": "a representative hour",
    "day": "a representative day",
    "week": "a representative week",
    "peak_hour": "the busiest hour",
}


@dataclass(frozen=True, slots=True)
class TraceScaling:
    window: str
    factor: float  # how many of the brief's requests each traced request stands for
    repeats_per_month: float | None  # None: the busiest hour, which does not repeat
    words: str


def _count(n: float) -> str:
    return f"{n:,.0f}"


def scale_to_volume(
    *,
    requests: int,
    window: str,
    monthly_requests: float,
    peak_to_average: float = 1.0,
) -> TraceScaling:
    """How each traced request counts for a brief of ``monthly_requests``."""
    if window not in WINDOW_HOURS:
        raise TraceError(f"Unknown window {window!r}: say an hour, a day, a week or the peak hour.")
    if requests <= 0:
        raise TraceError("The trace holds no request.")
    if monthly_requests <= 0:
        raise TraceError("The brief states no monthly volume to scale the trace to.")
    hours = WINDOW_HOURS[window]
    if window == "peak_hour":
        peak = monthly_requests / float(HOURS_PER_MONTH) * max(1.0, peak_to_average)
        factor = peak / requests
        words = (
            f"The trace's {_count(requests)} requests are {WINDOW_WORDS[window]}: the brief's "
            f"{_count(monthly_requests)} a month at {peak_to_average:g}× the average make "
            f"{_count(peak)} in its peak hour, so each traced request counts {factor:.3g} times."
        )
        return TraceScaling(window, factor, None, words)
    repeats = float(HOURS_PER_MONTH) / hours
    per_window = monthly_requests / repeats
    factor = per_window / requests
    words = (
        f"The trace's {_count(requests)} requests are {WINDOW_WORDS[window]}: the brief's "
        f"{_count(monthly_requests)} a month are {_count(per_window)} in such a window, so each "
        f"traced request counts {factor:.3g} times, and the window repeats {repeats:,.1f} times "
        f"a month."
    )
    return TraceScaling(window, factor, repeats, words)
