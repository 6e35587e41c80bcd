"""Many ``SeedSequence(seed, spawn_key=key)`` states at once, bit for bit numpy's.

A comparison opens one random stream per candidate and assumption (sampling.py); numpy's
SeedSequence spends ~30 µs mixing each one's entropy, more than drawing its 10,000
uniforms takes. The mixing is a fixed sequence of 32-bit hash steps (numpy's
``bit_generator.pyx``: ``hashmix``, ``mix``, ``generate_state``), so it runs here once over
a vector of keys. ``tests/engine/test_seeding.py`` holds it equal to numpy's for random
seeds and keys, so a change in numpy would fail there, not silently change results.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
from numpy.random.bit_generator import ISeedSequence
from numpy.typing import DTypeLike, NDArray

_INIT_A = np.uint32(0x43B0D7E5)
_MULT_A = np.uint32(0x931E8875)
_INIT_B = np.uint32(0x8B51F9DD)
_MULT_B = np.uint32(0x58F38DED)
_MIX_MULT_L = np.uint32(0xCA01F9DD)
_MIX_MULT_R = np.uint32(0x4973F715)
_XSHIFT = np.uint32(16)
_POOL_SIZE = 4
_WORD = 1 << 32

U32Array = NDArray[np.uint32]


def batchable(seed: int, keys: Sequence[tuple[int, ...]]) -> bool:
    """Whether every entropy word fits 32 bits (a stored seed does; larger ones take numpy's)."""
    return 0 <= seed < _WORD and all(0 <= w < _WORD for k in keys for w in k)


def pcg_states(seed: int, keys: Sequence[tuple[int, ...]]) -> NDArray[np.uint64]:
    """(len(keys), 4) uint64: ``SeedSequence(seed, spawn_key=k).generate_state(4, uint64)``.

    Keys of one length only (every stream key of the engine has 5 or 9 words)."""
    width = {len(k) for k in keys}
    if len(width) != 1:
        raise ValueError("keys of one length only")
    entropy = np.array([[seed, 0, 0, 0, *k] for k in keys], dtype=np.uint32).T
    hash_const = _INIT_A

    def hashmix(value: U32Array) -> U32Array:
        nonlocal hash_const
        value = value ^ hash_const
        hash_const = hash_const * _MULT_A
        value = value * hash_const
        mixed: U32Array = value ^ (value >> _XSHIFT)
        return mixed

    def mix(x: U32Array, y: U32Array) -> U32Array:
        result = _MIX_MULT_L * x - _MIX_MULT_R * y
        mixed: U32Array = result ^ (result >> _XSHIFT)
        return mixed

    with np.errstate(over="ignore"):  # uint32 arithmetic wraps, as in numpy's C
        pool = [hashmix(entropy[i]) for i in range(_POOL_SIZE)]
        for src in range(_POOL_SIZE):
            for dst in range(_POOL_SIZE):
                if src != dst:
                    pool[dst] = mix(pool[dst], hashmix(pool[src]))
        for src in range(_POOL_SIZE, entropy.shape[0]):
            for dst in range(_POOL_SIZE):
                pool[dst] = mix(pool[dst], hashmix(entropy[src]))
        words = np.empty((len(keys), 8), dtype=np.uint32)
        out_const = _INIT_B
        for i in range(8):
            value = pool[i % _POOL_SIZE] ^ out_const
            out_const = out_const * _MULT_B
            value = value * out_const
            words[:, i] = value ^ (value >> _XSHIFT)
    return words.view("<u8").astype(np.uint64)


class StateSeed(ISeedSequence):
    """A seed whose state is already mixed (pcg_states), for ``PCG64DXSM(StateSeed(row))``.

    numpy's bit generators take any ISeedSequence (its documented interface for custom
    seed sequences); its type stubs name SeedSequence only, hence ``as_seed``."""

    def as_seed(self) -> np.random.SeedSequence:
        return cast(np.random.SeedSequence, self)

    def __init__(self, state: NDArray[np.uint64]) -> None:
        self._state = state

    def generate_state(self, n_words: int, dtype: DTypeLike = np.uint32) -> NDArray[np.uint64]:
        if n_words != len(self._state) or np.dtype(dtype) != np.uint64:
            raise ValueError("a StateSeed serves the PCG64 family's 4 uint64 words only")
        return self._state
