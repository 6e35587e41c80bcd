"""Linear percentiles (numpy's rule) of one column, by the engine's quantile kernel."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.quantiles import FloatArray, quantiles_in_place


def percentiles_in_place(values: FloatArray, qs: Sequence[float]) -> list[float]:
    """``np.percentile(values, qs, method="linear")`` for finite values, reordering them
    (``engine.quantiles``: nested single-rank partitions; ADR 0007)."""
    return quantiles_in_place(values, np.true_divide(np.asarray(qs, dtype=np.float64), 100))
