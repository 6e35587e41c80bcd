"""The parsers' percentiles equal numpy's linear percentiles exactly, however they are found."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.parsers._percentiles import percentiles_in_place
from benchmarks.parsers._util import PERCENTILE_QS


@pytest.mark.parametrize("n", [1, 2, 3, 7, 100, 101, 1000, 20_001])
def test_equal_to_numpy(n: int) -> None:
    rng = np.random.default_rng(n)
    for values in (rng.lognormal(size=n), np.round(rng.normal(size=n), 1)):
        expected = np.percentile(values, PERCENTILE_QS, method="linear")
        assert percentiles_in_place(values.copy(), PERCENTILE_QS) == expected.tolist()


def test_any_quantiles() -> None:
    values = np.random.default_rng(0).random(5_000)
    qs = (0.0, 10.0, 50.0, 90.0, 100.0)
    assert percentiles_in_place(values.copy(), qs) == np.percentile(values, qs).tolist()
