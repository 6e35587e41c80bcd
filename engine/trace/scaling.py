"""A trace stands for a window of the brief's traffic: how much each request counts.

A trace is a sample: the user says which window it represents, and the product scales it to
the brief's monthly volume, saying how. The scaling is by rate: the trace's requests over its
own span stand for the brief's requests over the same span of that window, whatever the span
(a 58-minute file for "an hour", 5 minutes of a day). A representative hour, day or week
repeats to fill the month (730 hours); the busiest hour is the brief's peak (its monthly
volume's hourly average × its peak-to-average ratio) and says nothing of the rest of the month.
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
SECONDS_PER_HOUR = 3600.0


@dataclass(frozen=True, slots=True)
class TraceScaling:
    window: str
    factor: float  # how many of the brief's requests each traced request stands for
    repeats_per_month: float | None  # None: the busiest hour, which does not repeat
    words: str


def _count(n: float) -> str:
    return f"{n:,.0f}"


def _span_words(span_s: float) -> str:
    minutes = span_s / 60
    return f"{minutes:,.0f} minutes" if minutes < 120 else f"{minutes / 60:,.1f} hours"


def scale_to_volume(
    *,
    requests: int,
    window: str,
    monthly_requests: float,
    peak_to_average: float = 1.0,
    span_s: float | None = None,
) -> TraceScaling:
    """How each traced request counts for a brief of ``monthly_requests``. ``span_s``: the
    time the trace covers (its interval count × the interval); None: the whole window."""
    if window not in WINDOW_HOURS:
        raise TraceError(f"Unknown window {window!r}: say an hour, a day, a week or the peak hour.")
    if requests <= 0:
        raise TraceError("The trace holds no request.")
    if monthly_requests <= 0:
        raise TraceError("The brief states no monthly volume to scale the trace to.")
    window_s = WINDOW_HOURS[window] * SECONDS_PER_HOUR
    span = window_s if span_s is None or span_s <= 0 else min(float(span_s), window_s)
    per_hour = monthly_requests / float(HOURS_PER_MONTH)
    if window == "peak_hour":
        rate = per_hour * max(1.0, peak_to_average) / SECONDS_PER_HOUR
        factor = rate * span / requests
        words = (
            f"The trace's {_count(requests)} requests over {_span_words(span)} are "
            f"{WINDOW_WORDS[window]}: the brief's {_count(monthly_requests)} a month at "
            f"{peak_to_average:g}× the average are {_count(rate * span)} in that time, so each "
            f"traced request counts {factor:.3g} times."
        )
        return TraceScaling(window, factor, None, words)
    repeats = float(HOURS_PER_MONTH) / WINDOW_HOURS[window]
    expected = per_hour / SECONDS_PER_HOUR * span
    factor = expected / requests
    words = (
        f"The trace's {_count(requests)} requests over {_span_words(span)} are "
        f"{WINDOW_WORDS[window]}: the brief's {_count(monthly_requests)} a month are "
        f"{_count(expected)} in that time, so each traced request counts {factor:.3g} times, "
        f"and the window repeats {repeats:,.1f} times a month."
    )
    return TraceScaling(window, factor, repeats, words)
