"""A trace's load over time as the plan's load-duration curve.

The plan across offers (engine/plan) slices the month's load-duration curve into layers and
buys fixed capacity for the bottom ones; without a trace the curve is the analytic one of the
brief's peak-to-average ratio. With a trace it is the replay's own load per interval (the
replicas each interval needs, before rounding up): the share of the month's work above fixed
capacity able to carry a fraction ``c`` of the peak is ``Σ max(0, l_t − c × peak) ÷ Σ l_t``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.trace.requests import TraceError


@dataclass(frozen=True, slots=True)
class LoadCurve:
    """Load per interval (any unit: only its shape counts), e.g. replicas needed a minute."""

    loads: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.loads or any(x < 0 or x != x for x in self.loads):
            raise TraceError("A load curve needs at least one non-negative load.")
        if not any(self.loads):
            raise TraceError("A load curve with no load at all cannot shape a plan.")

    @classmethod
    def of(cls, loads: Sequence[float] | np.ndarray) -> LoadCurve:
        return cls(tuple(float(x) for x in loads))

    @property
    def peak_to_average(self) -> float:
        values = np.asarray(self.loads)
        return float(values.max() / values.mean())

    def overflow_share(self, fraction_of_peak: float) -> float:
        """Share of the work above fixed capacity able to carry ``fraction_of_peak``."""
        values = np.asarray(self.loads)
        if fraction_of_peak >= 1:
            return 0.0
        if fraction_of_peak <= 0:
            return 1.0
        above = np.maximum(0.0, values - fraction_of_peak * values.max())
        return float(above.sum() / values.sum())
