"""A request trace: when each request arrived and how many tokens it read and wrote.

The arrays are what the replay needs and nothing more; a trace is validated once, here, so
the sizing never meets an unsorted or negative figure (a file with one is refused by its
reader with the line that holds it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


class TraceError(ValueError):
    """A trace that cannot be replayed, and why (in words a user can act on)."""


@dataclass(frozen=True, slots=True, eq=False)
class RequestTrace:
    """Arrivals in seconds from the trace's start (ascending), input and output tokens."""

    arrival_s: FloatArray
    input_tokens: FloatArray
    output_tokens: FloatArray

    def __post_init__(self) -> None:
        n = self.arrival_s.shape[0]
        if n == 0:
            raise TraceError("The trace holds no request.")
        if self.input_tokens.shape[0] != n or self.output_tokens.shape[0] != n:
            raise TraceError("Arrival times and token counts differ in length.")
        for name, values in (
            ("arrival time", self.arrival_s),
            ("input tokens", self.input_tokens),
            ("output tokens", self.output_tokens),
        ):
            if not np.all(np.isfinite(values)):
                raise TraceError(f"A request's {name} is missing or not a number.")
            if np.any(values < 0):
                raise TraceError(f"A request's {name} is negative.")
        if n > 1 and np.any(np.diff(self.arrival_s) < 0):
            raise TraceError("Arrival times are not in ascending order.")

    @classmethod
    def of(
        cls,
        arrival_s: npt.ArrayLike,
        input_tokens: npt.ArrayLike,
        output_tokens: npt.ArrayLike,
    ) -> RequestTrace:
        return cls(
            np.asarray(arrival_s, dtype=np.float64),
            np.asarray(input_tokens, dtype=np.float64),
            np.asarray(output_tokens, dtype=np.float64),
        )

    @property
    def requests(self) -> int:
        return int(self.arrival_s.shape[0])

    @property
    def span_s(self) -> float:
        """From the first arrival to the last (0 for one request)."""
        return float(self.arrival_s[-1] - self.arrival_s[0])

    def size_percentile(self, q: float) -> tuple[float, float]:
        """The q-th percentile (0–100) of input and of output tokens."""
        return (
            float(np.percentile(self.input_tokens, q)),
            float(np.percentile(self.output_tokens, q)),
        )
