"""Linear quantiles (numpy's rule) by nested single-rank partitions, 1-D and row-wise.

One kernel for the engine's Monte Carlo (row-wise over candidates) and the benchmark parsers
(one column of a result file). ``np.quantile(..., method="linear")`` partitions once at all
neighbouring ranks, which takes numpy's generic multi-rank path: about ten times a single-rank
partition (ADR 0007). These functions partition at one rank at a time, take the smallest or
largest of a block in one pass where a rank sits at its edge, and interpolate with numpy's own
rule, so the results equal ``np.quantile`` bit for bit. Where the values are few or the call is
not hot, call ``np.quantile`` directly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
_Position = tuple[int, int, float]


def _positions(qs: Sequence[float] | FloatArray, n: int) -> list[_Position]:
    """For each q in [0, 1]: (rank below, rank above, weight of the upper rank)."""
    out = []
    for q in qs:
        virtual = float(q * (n - 1))
        low = math.floor(virtual)
        out.append((low, min(low + 1, n - 1), virtual - low))
    return out


def _order_statistics(part: FloatArray, ks: list[int]) -> dict[int, FloatArray]:
    """Row-wise k-th smallest values of a 2-D ``part`` for sorted ``ks``, partitioning it.

    numpy's single-k partition is SIMD-accelerated and far faster than one call with many
    k; the smallest and largest of a block are one pass, not a partition (after a partition
    at k + 1 the k-th is the largest on the left). The values are exact order statistics,
    so the result does not depend on the path taken.
    """
    found: dict[int, FloatArray] = {}
    n = part.shape[1]
    if ks and ks[0] == 0:
        found[0] = part.min(axis=1)
        ks = ks[1:]
    if ks and ks[-1] == n - 1:
        found[n - 1] = part.max(axis=1)
        ks = ks[:-1]
    if not ks:
        return found
    mid = ks[len(ks) // 2]
    part.partition(mid, axis=1)
    found[mid] = part[:, mid].copy()
    found.update(_order_statistics(part[:, :mid], [k for k in ks if k < mid]))
    right = _order_statistics(part[:, mid + 1 :], [k - mid - 1 for k in ks if k > mid])
    found.update({k + mid + 1: v for k, v in right.items()})
    return found


def _ranks(positions: list[_Position]) -> list[int]:
    return sorted({k for low, high, _ in positions for k in (low, high)})


def row_quantiles(
    values: FloatArray, qs: Sequence[float], *, scratch: FloatArray | None = None
) -> FloatArray:
    """Row-wise quantiles of a 2-D array, shape (rows, len(qs)); equal to
    ``np.quantile(values, qs, axis=1).T``.

    ``scratch``: an array of ``values``' shape to partition in (else a copy is made)."""
    positions = _positions(qs, values.shape[1])
    work = values.copy() if scratch is None else scratch
    if scratch is not None:
        np.copyto(work, values)
    stats = _order_statistics(work, _ranks(positions))
    out = np.empty((values.shape[0], len(qs)))
    for j, (low, high, t) in enumerate(positions):
        a, b = stats[low], stats[high]
        diff = b - a
        # numpy's _lerp: exact at both ends of the interval
        out[:, j] = a + diff * t if t < 0.5 else b - diff * (1 - t)
    return out


def quantiles_in_place(values: FloatArray, qs: Sequence[float] | FloatArray) -> list[float]:
    """``np.quantile(values, qs, method="linear")`` of a 1-D array of finite values, as floats;
    reorders ``values`` (no copy)."""
    row = values.reshape(1, -1)
    return [float(x) for x in row_quantiles(row, list(qs), scratch=row)[0]]
