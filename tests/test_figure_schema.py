"""The figures are plain dicts for plotly.js; plotly's Python schema checks their keys here,
in the tests, so a misspelt key fails a test instead of being ignored by the browser (ADR 0017).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from benchmarks import charts
from benchmarks.distributions import histogram
from tests.benchmarks.factories_benchmarks import metrics_dict


def _figures() -> dict[str, dict[str, object] | None]:
    points = [
        {
            "label": "A",
            "group": "H100",
            "e2e_p99_ms": 9000,
            "tokens_per_s_per_gpu": 1200,
            "result_id": 1,
        },
        {
            "label": "C",
            "group": "H200",
            "e2e_p99_ms": 15000,
            "tokens_per_s_per_gpu": 2000,
            "result_id": 3,
        },
    ]
    hist = histogram(np.arange(1, 1001, dtype=float), bins=10)
    return {
        "percentiles": charts.latency_percentiles_figure(metrics_dict()),
        "distribution": charts.distribution_figure(
            hist, title="TTFT", target_ms=800, target_label="target"
        ),
        "scatter": charts.compare_scatter_figure(points, target_e2e_p99_ms=10000),
    }


@pytest.mark.parametrize("name", sorted(_figures()))
def test_benchmark_figures_use_only_keys_plotly_knows(name: str) -> None:
    figure = _figures()[name]
    assert figure is not None
    go.Figure(figure)  # raises ValueError on a key plotly's schema does not have


def test_a_misspelt_key_is_refused() -> None:
    figure = _figures()["percentiles"]
    assert figure is not None
    with pytest.raises(ValueError, match="titel"):
        go.Figure({**figure, "layout": {"titel": "x"}})
