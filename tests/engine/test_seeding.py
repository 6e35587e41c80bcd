"""The batched SeedSequence mixing equals numpy's, so the engine's draws never change."""

from __future__ import annotations

import numpy as np
import pytest

from engine import seeding
from engine.montecarlo.sampling import candidate_stream_key, shared_stream_key


@pytest.mark.parametrize("seed", [0, 7, 123_456_789, 2**32 - 1])
def test_states_equal_numpys_seed_sequence(seed: int) -> None:
    rng = np.random.default_rng(seed % 1000)
    keys = [tuple(int(w) for w in rng.integers(0, 2**32, 9)) for _ in range(50)]
    keys += [candidate_stream_key("gpu-1", "throughput_per_replica")]
    states = seeding.pcg_states(seed, keys)
    for key, state in zip(keys, states, strict=True):
        expected = np.random.SeedSequence(seed, spawn_key=key).generate_state(4, np.uint64)
        assert np.array_equal(state, expected)


def test_a_generator_from_a_state_draws_numpys_stream() -> None:
    key = shared_stream_key("utilisation")
    state = seeding.pcg_states(42, [key])[0]
    ours = np.random.Generator(np.random.PCG64DXSM(seeding.StateSeed(state).as_seed())).random(1000)
    numpys = np.random.Generator(
        np.random.PCG64DXSM(np.random.SeedSequence(42, spawn_key=key))
    ).random(1000)
    assert np.array_equal(ours, numpys)


def test_large_seeds_are_left_to_numpy() -> None:
    assert seeding.batchable(2**32 - 1, [(1, 2)])
    assert not seeding.batchable(2**32, [(1, 2)])
    with pytest.raises(ValueError, match="one length"):
        seeding.pcg_states(1, [(1,), (1, 2)])
