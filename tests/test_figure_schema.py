"""The figures are plain dicts for plotly.js; plotly's Python schema checks their keys here,
in the tests, so a misspelt key fails a test instead of being ignored by the browser (ADR 0017).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import plotly.graph_objects as go
import pytest

from benchmarks import charts
from benchmarks.distributions import histogram
from benchmarks.latency_verdict import Targets
from benchmarks.sweep_charts import sweep_figures
from benchmarks.sweep_report import sweep_report
from briefs.charts import concurrency_curve_figure, memory_breakdown_figure
from catalog import charts as catalog_charts
from engine.operating_points import ServiceLevel
from procurement import charts as comparison_charts
from procurement import point_charts
from tests.benchmarks.factories_benchmarks import AUDIT_LEVELS, level_metrics, metrics_dict
from tests.briefs.test_briefs_charts import _row as fit_row
from tests.comparisons.factories_point_charts import SWEEP
from tests.comparisons.factories_point_charts import costed_row as _costed
from tests.comparisons.factories_point_charts import swept_row as _row


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
    accelerators = [
        catalog_charts.AcceleratorPoint("h100", "H100", "NVIDIA", 80, 3.35, 989, 1979),
        catalog_charts.AcceleratorPoint("h200", "H200", "NVIDIA", 141, 4.8, 989, 1979),
        catalog_charts.AcceleratorPoint("mi300x", "MI300X", "AMD", 192, 5.3, 1307, 2615),
    ]
    at = datetime(2026, 11, 1, tzinfo=UTC)
    prices = [
        catalog_charts.PricePoint(1, at, 2.99, "superseded"),
        catalog_charts.PricePoint(2, at + timedelta(days=7), 2.69, "current"),
    ]
    fits = [fit_row("H100", 80.0), fit_row("H200", 141.0)]
    targets = Targets(ttft_p95_ms=800, itl_p95_ms=60, e2e_p99_ms=20_000)
    entry = {
        "gpu_count": 8,
        "operating_points": [level_metrics(*lv)["operating_points"][0] for lv in AUDIT_LEVELS],
    }
    sweep = sweep_figures(sweep_report(entry, targets), targets)
    swept = [
        {**p, "line": "sweep A", "point_label": f"c{i}", "ttft_p95_ms": 300.0 * i}
        for i, p in enumerate(points, start=1)
    ]
    winner = _costed("quote:9", 1, "Northwind: NW L40S spot v1", capacity="spot")
    winner.performance = {"itl_p95_ms": 25.0, "throughput_source": "proxy"}
    slo = ServiceLevel(ttft_p95_ms=800)
    return {
        **{name.replace("fig-", ""): figure for name, figure in sweep.items()},
        "compare_lines": charts.compare_scatter_figure(
            swept, axis_key="ttft_p95_ms", target=800.0, target_words="TTFT p95 ≤ 800 ms"
        ),
        "points_candidate": point_charts.candidate_figure(_row(points=SWEEP), "per 1M", slo),
        "points_across": point_charts.across_figure(
            [winner, _row("quote:2", 2)], "per 1M", recommended=winner
        ),
        "cost_stack": comparison_charts.cost_stack_figure([winner], "per 1M"),
        "unit_cost_range": comparison_charts.unit_cost_range_figure([winner], "per 1M"),
        "percentiles": charts.latency_percentiles_figure(metrics_dict()),
        "distribution": charts.distribution_figure(
            hist, title="TTFT", target_ms=800, target_label="target"
        ),
        "scatter": charts.compare_scatter_figure(points, target=10000),
        "memory_bandwidth": catalog_charts.memory_vs_bandwidth(accelerators, highlight="h200"),
        "compare_compute": catalog_charts.compare_compute(accelerators),
        "price_history": catalog_charts.price_history(prices, "USD"),
        "brief_breakdown": memory_breakdown_figure(fits),
        "brief_curve": concurrency_curve_figure(fits),
    }


@pytest.mark.parametrize("name", sorted(_figures()))
def test_figures_use_only_keys_plotly_knows(name: str) -> None:
    figure = _figures()[name]
    assert figure is not None
    go.Figure(figure)  # raises ValueError on a key plotly's schema does not have


def test_a_misspelt_key_is_refused() -> None:
    figure = _figures()["percentiles"]
    assert figure is not None
    with pytest.raises(ValueError, match="titel"):
        go.Figure({**figure, "layout": {"titel": "x"}})
