"""Random streams and the triangular distribution, shared by the Monte Carlo and its reference.

Every stream is ``Generator(PCG64DXSM(SeedSequence(seed, spawn_key=key)))`` (see
montecarlo.py for the keys); a number depends only on (seed, key, sample index).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from engine import seeding
from engine.errors import EngineInputError
from engine.types import Range

SHARED_STREAM = 0
CANDIDATE_STREAM = 1
FloatArray = NDArray[np.float64]


@lru_cache(maxsize=8192)
def _words(text: str) -> tuple[int, ...]:
    """The first four little-endian 32-bit words of sha256(text)."""
    return struct.unpack("<4I", hashlib.sha256(text.encode("utf-8")).digest()[:16])


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


def stream_states(
    seed: int, keys: Sequence[tuple[int, ...]]
) -> dict[tuple[int, ...], NDArray[np.uint64]]:
    """The PCG64DXSM seed state of each stream (seed, key), mixed in one batch per key length;
    empty where numpy's SeedSequence must do it (seeds of more than 32 bits)."""
    unique = list(dict.fromkeys(keys))
    if not seeding.batchable(seed, unique):
        return {}
    states: dict[tuple[int, ...], NDArray[np.uint64]] = {}
    for width in {len(k) for k in unique}:
        group = [k for k in unique if len(k) == width]
        states.update(zip(group, seeding.pcg_states(seed, group), strict=True))
    return states


def fill_uniforms(
    seed: int,
    keys: Sequence[tuple[int, ...]],
    out: FloatArray,
    states: dict[tuple[int, ...], NDArray[np.uint64]] | None = None,
) -> None:
    """Row i of ``out`` := the uniforms of stream (seed, keys[i]); equal keys draw once.

    ``states``: from stream_states, so a caller filling many chunks mixes seeds once."""
    if states is None:
        states = stream_states(seed, keys)
    first: dict[tuple[int, ...], int] = {}
    for i, key in enumerate(keys):
        if key in first:
            out[i] = out[first[key]]
            continue
        first[key] = i
        state = states.get(key)
        if state is None:
            uniforms(seed, key, out.shape[1], out=out[i])
        else:
            bits = np.random.PCG64DXSM(seeding.StateSeed(state).as_seed())
            np.random.Generator(bits).random(out=out[i])


def _triangular_params(
    low: FloatArray, likely: FloatArray, high: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(F(likely), (high − low)(likely − low), (high − low)(high − likely))."""
    width = high - low
    cut = np.divide(likely - low, width, out=np.full_like(width, 0.5), where=width > 0)
    return cut, width * (likely - low), width * (high - likely)


def triangular(
    u: FloatArray,
    low: FloatArray,
    likely: FloatArray,
    high: FloatArray,
    *,
    out: FloatArray | None = None,
    scratch: tuple[FloatArray, FloatArray] | None = None,
) -> FloatArray:
    """Inverse CDF of triangular(low, likely, high) at u; parameters broadcast against u.

    ``out`` may be ``u`` itself; ``scratch``: two arrays of the result's shape, so a caller
    looping over chunks allocates nothing (fresh large arrays cost page faults). The branch
    is taken through the sign bit of ``u − cut`` (negative exactly when u < cut) with bit
    masks, not a masked copy, which branches per element and costs four times as much on
    random masks; the square root is taken once, of the selected operand. The same
    operations as the scalar formula, so the same bits.
    """
    cut, k_left, k_right = _triangular_params(low, likely, high)
    shape = np.broadcast_shapes(u.shape, cut.shape)
    left, below = scratch if scratch is not None else (np.empty(shape), np.empty(shape))
    np.subtract(u, cut, out=below)
    below_bits = below.view(np.int64)
    np.right_shift(below_bits, 63, out=below_bits)  # −1 (all ones) where u < cut, else 0
    np.multiply(u, k_left, out=left)
    right = np.subtract(1.0, u, out=out)
    right *= k_right
    _take_where_below(right, left, below_bits)
    root = np.sqrt(right, out=right)
    np.add(low, root, out=left)
    np.subtract(high, root, out=right)
    _take_where_below(right, left, below_bits)
    return right


def _take_where_below(dst: FloatArray, src: FloatArray, below_bits: NDArray[np.int64]) -> None:
    """dst := src where below_bits is all ones; bit operations, branch-free. Spoils src."""
    dst_bits, src_bits = dst.view(np.int64), src.view(np.int64)
    np.bitwise_xor(src_bits, dst_bits, out=src_bits)
    np.bitwise_and(src_bits, below_bits, out=src_bits)
    np.bitwise_xor(dst_bits, src_bits, out=dst_bits)


def draw(rng_range: Range, seed: int, key: tuple[int, ...], n: int) -> FloatArray:
    if rng_range.is_fixed:
        return np.full(n, rng_range.likely)
    one = np.array(rng_range.low), np.array(rng_range.likely), np.array(rng_range.high)
    return triangular(uniforms(seed, key, n), *one)
