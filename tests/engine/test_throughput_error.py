"""P(cheapest) with the errors estimated rows share (findings P6, P7; issue 36 part 4)."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import numpy as np
import pytest

from engine import montecarlo
from engine.fitted import THROUGHPUT_BOUND, error_shares, regime_band
from engine.montecarlo.throughput_error import share_errors
from engine.types import CandidateInput, Range
from tests.engine.test_montecarlo import workload

D = Decimal
GROUP = f"fitted-roofline:{THROUGHPUT_BOUND}"


def _estimated(ident: str, price: str, tps: float, family: str) -> CandidateInput:
    p10, p90 = regime_band(THROUGHPUT_BOUND)
    return CandidateInput(
        id=ident,
        label=ident,
        kind="gpu",
        capacity_model="on_demand",
        price_per_gpu_hour=D(price),
        gpus_per_replica=1,
        throughput_per_replica=Range(tps * p10, tps, tps * p90),
        evidence_key=f"estimate:{ident}:llama-2-70b",
        throughput_error_group=f"{GROUP}|{family}",
    )


def test_overlapping_estimated_bands_never_read_cheapest_in_nine_of_ten():
    """Two estimated rows, 5 % apart in price on the same estimated throughput: their bands
    overlap almost entirely, so neither is cheapest in 90 % of samples."""
    a = _estimated("h100", "2.00", 3000.0, "hopper")
    b = _estimated("mi300x", "2.10", 3000.0, "cdna3")
    result = montecarlo.simulate(workload(), [a, b], seed=7, samples=4000)
    wins = [s.prob_cheapest for s in result.stats]
    assert sum(wins) == pytest.approx(1.0)
    assert 0.5 < wins[0] < 0.9
    assert wins[1] > 0.1


def test_shared_errors_keep_each_rows_band_and_move_rows_together():
    shares = error_shares()
    assert sum(shares.values()) == pytest.approx(1.0, abs=1e-3)
    assert shares["shared"] > 0
    rng = np.random.default_rng(1)
    own = rng.random((2, 20000))
    u = own.copy()
    share_errors(u, [("fitted-roofline:throughput-bound", "hopper")] * 2, shares, seed=3)
    # each row is still uniform: its deciles sit at 0.1, ..., 0.9
    for row in u:
        assert np.percentile(row, [10, 50, 90]) == pytest.approx([0.1, 0.5, 0.9], abs=0.02)
    # two rows of one family correlate by their shared + family shares (their normals add
    # √shared² + √family² of unit variance); independent draws would not correlate at all
    correlation = np.corrcoef(u)[0, 1]
    assert correlation == pytest.approx(shares["shared"] + shares["family"], abs=0.05)
    assert abs(np.corrcoef(own)[0, 1]) < 0.03


def test_measured_rows_and_old_snapshots_draw_as_before():
    a = _estimated("h100", "2.00", 3000.0, "hopper")
    b = _estimated("mi300x", "2.10", 3000.0, "cdna3")
    plain = [dataclasses.replace(c, throughput_error_group="") for c in (a, b)]
    first = montecarlo.simulate(workload(), plain, seed=7, samples=2000)
    again = montecarlo.simulate(workload(), plain, seed=7, samples=2000)
    assert first.stats == again.stats
    grouped = montecarlo.simulate(workload(), [a, b], seed=7, samples=2000)
    assert grouped.stats != first.stats
