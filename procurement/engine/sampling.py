"""Random streams and the triangular distribution, shared by the Monte Carlo and its reference.

Every stream is ``Generator(PCG64DXSM(SeedSequence(seed, spawn_key=key)))`` (see
montecarlo.py for the keys); a number depends only on (seed, key, sample index).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from procurement.engine.errors import EngineInputError
from procurement.engine.types import Range

SHARED_STREAM = 0
CANDIDATE_STREAM = 1
FloatArray = NDArray[np.float64]


def _words(text: str) -> tuple[int, ...]:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))


def shared_stream_key(name: str) -> tuple[int, ...]:
    return (SHARED_STREAM, *_words(name))


def candidate_stream_key(candidate_id: str, name: str) -> tuple[int, ...]:
    return (CANDIDATE_STREAM, *_words(candidate_id), *_words(name))


def check_seed(seed: int, samples: int) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise EngineInputError("seed", f"must be an integer ≥ 0, got {seed!r}")
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise EngineInputError("samples", f"must be an integer ≥ 1, got {samples!r}")


def uniforms(seed: int, key: tuple[int, ...], n: int, out: FloatArray | None = None) -> FloatArray:
    """n uniforms in [0, 1) from the stream (seed, key)."""
    gen = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(seed, spawn_key=key)))
    if out is None:
        return gen.random(n)
    gen.random(out=out)
    return out


def _triangular_params(
    low: FloatArray, likely: FloatArray, high: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(F(likely), (high − low)(likely − low), (high − low)(high − likely))."""
    width = high - low
    cut = np.divide(likely - low, width, out=np.full_like(width, 0.5), where=width > 0)
    return cut, width * (likely - low), width * (high - likely)


def triangular(u: FloatArray, low: FloatArray, likely: FloatArray, high: FloatArray) -> FloatArray:
    """Inverse CDF of triangular(low, likely, high) at u; parameters broadcast against u."""
    cut, k_left, k_right = _triangular_params(low, likely, high)
    left = u * k_left
    np.sqrt(left, out=left)
    left += low
    right = 1.0 - u
    right *= k_right
    np.sqrt(right, out=right)
    np.subtract(high, right, out=right)
    np.copyto(right, left, where=u < cut)
    return right


def _order_statistics(values: FloatArray, ks: list[int]) -> dict[int, FloatArray]:
    """Row-wise k-th smallest values for sorted ``ks``, by nested single-k partitions.

    numpy's single-k partition is SIMD-accelerated and far faster than one call with many
    k; the values are exact order statistics, so the result does not depend on the path.
    """
    mid = ks[len(ks) // 2]
    part = np.partition(values, mid, axis=1)
    found = {mid: part[:, mid]}
    left = [k for k in ks if k < mid]
    right = [k - mid - 1 for k in ks if k > mid]
    if left == [mid - 1]:
        found[mid - 1] = part[:, :mid].max(axis=1)
    elif left:
        found.update(_order_statistics(part[:, :mid], left))
    if right == [0]:
        found[mid + 1] = part[:, mid + 1 :].min(axis=1)
    elif right:
        found.update(
            {k + mid + 1: v for k, v in _order_statistics(part[:, mid + 1 :], right).items()}
        )
    return found


def quantiles(values: FloatArray, qs: Sequence[float]) -> FloatArray:
    """Row-wise quantiles (C, len(qs)), linear interpolation; equal to ``np.quantile``."""
    n = values.shape[1]
    positions = []
    for q in qs:
        virtual = q * (n - 1)
        k = int(np.floor(virtual))
        positions.append((k, min(k + 1, n - 1), virtual - k))
    stats = _order_statistics(values, sorted({k for p in positions for k in p[:2]}))
    out = np.empty((values.shape[0], len(qs)))
    for j, (lo, hi, t) in enumerate(positions):
        a, b = stats[lo], stats[hi]
        diff = b - a
        # numpy's _lerp: exact at both ends of the interval
        out[:, j] = a + diff * t if t < 0.5 else b - diff * (1 - t)
    return out


def draw(rng_range: Range, seed: int, key: tuple[int, ...], n: int) -> FloatArray:
    if rng_range.is_fixed:
        return np.full(n, rng_range.likely)
    one = np.array(rng_range.low), np.array(rng_range.likely), np.array(rng_range.high)
    return triangular(uniforms(seed, key, n), *one)
