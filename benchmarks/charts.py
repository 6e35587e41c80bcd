"""Plotly figure dicts for the benchmark pages (pure: plain data in, JSON-ready dicts out).

Views pass them to templates with `json_script`; `static/js/app.js` draws them.
"""

from __future__ import annotations

import itertools
from typing import Any

from benchmarks import figures
from core.chart_text import plotly_escaped

_PERCENTILE_COLOURS = {"p50": "#7aa2ff", "p95": "#2454c5", "p99": "#17213a"}
_HIST_MARKERS = (("p50", "#5d6675"), ("p99", "#a35b00"))
_FONT = {"family": "system-ui, sans-serif", "size": 12}


def _layout(title: str, **extra: Any) -> dict[str, Any]:
    return {
        "title": {"text": title, "x": 0.01},
        "font": _FONT,
        "margin": {"l": 60, "r": 20, "t": 50, "b": 60},
        "plot_bgcolor": "#fff",
        "paper_bgcolor": "#fff",
        **extra,
    }


@plotly_escaped
def latency_percentiles_figure(metrics: dict[str, Any]) -> dict[str, Any] | None:
    """Grouped bars: TTFT / ITL / TPOT / E2E at p50, p95, p99 (ms). None without latencies."""
    rows = figures.percentile_rows(metrics)
    if not rows:
        return None
    labels = [row["label"] for row in rows]
    data = [
        {
            "type": "bar",
            "name": which,
            "x": labels,
            "y": [row[which] for row in rows],
            "marker": {"color": colour},
            "hovertemplate": "%{x} " + which + ": %{y:,.1f} ms<extra></extra>",
        }
        for which, colour in _PERCENTILE_COLOURS.items()
    ]
    layout = _layout(
        "Latency percentiles",
        barmode="group",
        yaxis={"title": {"text": "ms"}, "type": "log", "dtick": 1, "gridcolor": "#eef1f6"},
        legend={"orientation": "h", "y": -0.15},
    )
    return {"data": data, "layout": layout}


def _marker(
    x: float, label: str, colour: str, row: int = 0
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A dashed vertical line with its label; `row` staggers labels that would overlap."""
    shape = {
        "type": "line",
        "x0": x,
        "x1": x,
        "yref": "paper",
        "y0": 0,
        "y1": 1,
        "line": {"color": colour, "dash": "dash", "width": 1.5},
    }
    note = {
        "x": x,
        "yref": "paper",
        "y": 1.02 + 0.07 * row,
        "text": label,
        "showarrow": False,
        "font": {"color": colour, "size": 11},
    }
    return shape, note


def distribution_figure(
    hist: dict[str, Any], *, title: str, target_ms: float | None = None, target_label: str = ""
) -> dict[str, Any]:
    """Bars of a stored histogram with p50 / p99 markers and, if given, the brief's target."""
    edges = hist["edges"]
    centres = [(a + b) / 2 for a, b in itertools.pairwise(edges)]
    widths = [b - a for a, b in itertools.pairwise(edges)]
    shapes, notes = [], []
    markers: list[tuple[float | None, str, str]] = [
        (hist.get(k), f"{k} {hist.get(k) or 0:,.0f} ms", c) for k, c in _HIST_MARKERS
    ]
    if target_ms:
        markers.append((float(target_ms), target_label or "target", "#b3261e"))
    shown = [(x, label, colour) for x, label, colour in markers if x is not None]
    for row, (x, label, colour) in enumerate(shown):
        shape, note = _marker(x, label, colour, row)
        shapes.append(shape)
        notes.append(note)
    subtitle = f"{hist['count']:,} successful requests"
    if hist.get("overflow"):
        subtitle += f"; {hist['overflow']:,} slower than the last bin (max {hist['max']:,.0f} ms)"
    data = [
        {
            "type": "bar",
            "x": centres,
            "y": hist["counts"],
            "width": widths,
            "marker": {"color": "#2454c5"},
            "hovertemplate": "%{x:,.0f} ms: %{y:,} requests<extra></extra>",
            "name": "requests",
        }
    ]
    layout = _layout(
        f"{title}<br><sup>{subtitle}</sup>",
        bargap=0.02,
        shapes=shapes,
        annotations=notes,
        showlegend=False,
        margin={"l": 60, "r": 20, "t": 100, "b": 50},
        xaxis={"title": {"text": "ms"}},
        yaxis={"title": {"text": "requests"}, "gridcolor": "#eef1f6"},
    )
    return {"data": data, "layout": layout}


@plotly_escaped
def compare_scatter_figure(
    points: list[dict[str, Any]], *, target_e2e_p99_ms: float | None
) -> dict[str, Any] | None:
    """Throughput per GPU (y) against p99 end-to-end latency (x), one point per result.

    `points` items carry `label`, `e2e_p99_ms`, `tokens_per_s_per_gpu`, `result_id`; those
    missing either figure cannot be placed and are left to the table below the chart.
    """
    placed = [
        p
        for p in points
        if p.get("e2e_p99_ms") is not None and p.get("tokens_per_s_per_gpu") is not None
    ]
    if not placed:
        return None
    groups: dict[str, list[dict[str, Any]]] = {}
    for point in placed:
        groups.setdefault(point.get("group") or "results", []).append(point)
    data = [
        {
            "type": "scatter",
            "mode": "markers+text",
            "textposition": "top center",
            "name": group,
            "x": [p["e2e_p99_ms"] for p in items],
            "y": [p["tokens_per_s_per_gpu"] for p in items],
            "text": [p["label"] for p in items],
            "customdata": [p["result_id"] for p in items],
            "marker": {"size": 11, "line": {"width": 1, "color": "#fff"}},
            "hovertemplate": (
                "%{text}<br>p99 E2E %{x:,.0f} ms<br>%{y:,.1f} tok/s per GPU<extra></extra>"
            ),
        }
        for group, items in groups.items()
    ]
    shapes, notes = [], []
    if target_e2e_p99_ms:
        shape, note = _marker(
            float(target_e2e_p99_ms), f"brief target p99 {target_e2e_p99_ms:,.0f} ms", "#b3261e"
        )
        shapes.append(shape)
        notes.append(note)
    layout = _layout(
        "Throughput per GPU against p99 end-to-end latency",
        shapes=shapes,
        annotations=notes,
        xaxis={
            "title": {"text": "p99 end-to-end latency (ms); left of the line meets it"},
            "rangemode": "tozero",
        },
        yaxis={
            "title": {"text": "output tokens/s per GPU"},
            "gridcolor": "#eef1f6",
            "rangemode": "tozero",
        },
        legend={"orientation": "h", "y": -0.2},
    )
    return {"data": data, "layout": layout}
