"""Plotly figure dicts for the benchmark pages (pure: plain data in, JSON-ready dicts out).

Views pass them to templates with `json_script`; `static/js/app.js` draws them.
"""

from __future__ import annotations

import itertools
from typing import Any

from benchmarks import figures
from core.chart_text import plotly_escaped
from engine.operating_points.binding import target_words as binding_words

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
    """Dots: TTFT / ITL / TPOT / E2E at p50, p95, p99 (ms) on a log axis, so 20 ms and
    9,000 ms both read; dots, not bars, since a bar's length on a log axis means nothing.
    None without latencies."""
    rows = figures.percentile_rows(metrics)
    if not rows:
        return None
    labels = [row["label"] for row in rows]
    data = [
        {
            "type": "scatter",
            "mode": "markers",
            "name": which,
            "x": labels,
            "y": [row[which] for row in rows],
            "marker": {"color": colour, "size": 11, "symbol": symbol},
            "hovertemplate": "%{x} " + which + ": %{y:,.1f} ms<extra></extra>",
        }
        for (which, colour), symbol in zip(
            _PERCENTILE_COLOURS.items(), ("circle", "diamond", "square"), strict=True
        )
    ]
    layout = _layout(
        "Latency percentiles (log scale)",
        yaxis={"title": {"text": "ms"}, "type": "log", "dtick": 1, "gridcolor": "#eef1f6"},
        xaxis={"automargin": True},
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


AXES = {
    "e2e_p99_ms": "p99 end-to-end latency (ms)",
    "ttft_p95_ms": "p95 time to first token (ms)",
    "itl_p95_ms": "p95 inter-token latency (ms)",
    "error_rate": "error rate (share of requests)",
}


@plotly_escaped
def compare_scatter_figure(
    points: list[dict[str, Any]],
    *,
    axis_key: str = "e2e_p99_ms",
    target: float | None = None,
    target_words: str = "",
) -> dict[str, Any] | None:
    """Throughput per GPU (y) against the latency the brief's binding target reads (x): the
    p99 end-to-end latency unless `axis_key` names another figure (`ttft_p95_ms`, …).

    `points` items carry `label`, the axis figure, `tokens_per_s_per_gpu`, `result_id`, their
    load in `point_label` ("c8") and the name of their `series`; the points of one sweep
    share a `line` (drawn joined, in order). Items with neither are grouped by `group`.
    Points missing either figure cannot be placed and are left to the table below the chart.
    """
    placed = [
        p
        for p in points
        if p.get(axis_key) is not None and p.get("tokens_per_s_per_gpu") is not None
    ]
    if not placed:
        return None
    groups: dict[str, list[dict[str, Any]]] = {}
    for point in placed:
        name = point.get("series") or point.get("line") or point.get("group") or "results"
        groups.setdefault(str(name), []).append(point)
    axis_title = AXES.get(axis_key, axis_key)
    data = []
    for name, items in groups.items():
        joined = len(items) > 1 and all(p.get("line") for p in items)
        data.append(
            {
                "type": "scatter",
                "mode": ("lines+" if joined else "") + "markers+text",
                "textposition": "top center",
                "cliponaxis": False,
                "name": name,
                "x": [p[axis_key] for p in items],
                "y": [p["tokens_per_s_per_gpu"] for p in items],
                "text": [p.get("point_label") or "" for p in items],
                "hovertext": [p.get("label") or name for p in items],
                "customdata": [p["result_id"] for p in items],
                "marker": {"size": 10, "line": {"width": 1, "color": "#fff"}},
                "hovertemplate": (
                    "%{hovertext} %{text}<br>" + axis_title + " %{x:,.0f}"
                    "<br>%{y:,.1f} tok/s per GPU<extra></extra>"
                ),
            }
        )
    xs = [float(p[axis_key]) for p in placed]
    shapes, notes = [], []
    if target:
        words = target_words or f"brief target: {binding_words(axis_key, float(target))}"
        shape, note = _marker(float(target), words, "#b3261e")
        note.update(xanchor="left", yanchor="bottom", y=1.0)
        shapes.append(shape)
        notes.append(note)
        xs.append(float(target))
    layout = _layout(
        f"Throughput per GPU against {axis_title.split(' (')[0]}",
        shapes=shapes,
        annotations=notes,
        xaxis={
            "title": {"text": f"{axis_title}; left of the line meets it"},
            "range": [0, max(xs) * 1.15],  # room for the right-most point's label
            "automargin": True,
        },
        yaxis={
            "title": {"text": "output tokens/s per GPU"},
            "gridcolor": "#eef1f6",
            "rangemode": "tozero",
            "automargin": True,
        },
        legend={"orientation": "h", "x": 0, "y": -0.22, "yanchor": "top"},
        margin={"l": 64, "r": 24, "t": 70, "b": 110},
    )
    return {"data": data, "layout": layout}
