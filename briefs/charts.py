"""Plotly figure dicts for a brief's memory fit (pure: engine results in, dicts out).

The page passes each dict through `json_script`; `static/js/app.js` draws it. No Django here,
so the figures are tested without a browser.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from briefs.fit import AcceleratorFit
from core.chart_text import plotly_escape

# Per-GPU parts of the breakdown, in stacking order, with their colours.
PARTS: tuple[tuple[str, str, str], ...] = (
    ("weights", "Weights", "#2454c5"),
    ("adapters", "Adapters", "#6c8ee0"),
    ("kv", "KV cache", "#e08a1e"),
    ("activations", "Activations", "#d4691c"),
    ("gradients", "Gradients", "#8e5bb8"),
    ("optimizer", "Optimizer states", "#b07cd8"),
    ("overhead", "Runtime overhead", "#7b8494"),
    ("free", "Headroom (usable, free)", "#cfe8d6"),
    ("margin", "Safety margin", "#e6e9ef"),
)
LAYOUT_BASE: dict[str, Any] = {
    "margin": {"l": 60, "r": 20, "t": 40, "b": 80},
    "legend": {"orientation": "h", "y": -0.25},
    "font": {"family": "system-ui, sans-serif", "size": 12},
    "paper_bgcolor": "#ffffff",
    "plot_bgcolor": "#ffffff",
}


def _bar_label(row: AcceleratorFit) -> str:
    gpus = row.result.gpus_required if row.result is not None else 0
    return f"{plotly_escape(row.name)} ×{gpus}"


def _tick_label(row: AcceleratorFit) -> str:
    """Two short lines under a bar: the accelerator, then the GPU count."""
    gpus = row.result.gpus_required if row.result is not None else 0
    # The name is escaped (Plotly reads its text as markup); the line break is ours.
    return f"{plotly_escape(row.name)}<br>×{gpus} GPU{'s' if gpus != 1 else ''}"


def per_gpu_parts(row: AcceleratorFit) -> dict[str, float]:
    """GB per GPU for each part; the parts add up to the accelerator's memory."""
    result = row.result
    if result is None:
        return {}
    parts = {key: float(result.breakdown.get(key, 0.0)) for key, _, _ in PARTS[:6]}
    parts["overhead"] = float(result.overhead_gb)
    parts["margin"] = float(result.margin_gb)
    parts["free"] = max(0.0, float(result.usable_gb_per_gpu - result.per_gpu_gb))
    return parts


def memory_breakdown_figure(rows: Sequence[AcceleratorFit], *, title: str = "") -> dict[str, Any]:
    """Stacked bars per accelerator: per-GPU weights / KV / … / overhead / free / margin,
    with a marker at the usable memory (memory − margin − overhead)."""
    rows = [row for row in rows if row.result is not None]
    labels = [_tick_label(row) for row in rows]
    parts = [per_gpu_parts(row) for row in rows]
    data: list[dict[str, Any]] = []
    for key, name, colour in PARTS:
        values = [round(p.get(key, 0.0), 2) for p in parts]
        if not any(values):
            continue
        data.append(
            {
                "type": "bar",
                "name": name,
                "x": labels,
                "y": values,
                "marker": {"color": colour},
                "hovertemplate": f"{name}: %{{y:.1f}} GB per GPU<extra></extra>",
            }
        )
    data.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": "Usable per GPU",
            "x": labels,
            "y": [
                round(float(row.result.usable_gb_per_gpu), 2)
                for row in rows
                if row.result is not None
            ],
            "marker": {
                "symbol": "line-ew-open",
                "size": 28,
                "color": "#1d2330",
                "line": {"width": 3},
            },
            "hovertemplate": "Usable: %{y:.1f} GB per GPU<extra></extra>",
        }
    )
    layout = {
        **LAYOUT_BASE,
        "title": {"text": title or "Memory per GPU at the brief's p95 context"},
        "barmode": "stack",
        "yaxis": {"title": {"text": "GB per GPU (10⁹ bytes)"}, "rangemode": "tozero"},
        "xaxis": {"title": {"text": "Accelerator × GPUs required"}},
    }
    return {"data": data, "layout": layout}


def concurrency_curve_figure(
    rows: Sequence[AcceleratorFit], *, training: bool = False, title: str = ""
) -> dict[str, Any]:
    """Max concurrent sequences (training: micro-batch) against context length, one line per
    accelerator on the GPU count it needs at the brief's context."""
    data: list[dict[str, Any]] = []
    for row in rows:
        if row.result is None:
            continue
        curve = row.result.fit_curve
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": _bar_label(row),
                "x": [point.context_tokens for point in curve],
                "y": [point.max_concurrent_sequences for point in curve],
                "hovertemplate": "%{x:,} tokens: %{y:,}<extra>" + _bar_label(row) + "</extra>",
            }
        )
    what = "Max micro-batch" if training else "Max concurrent sequences"
    layout = {
        **LAYOUT_BASE,
        "title": {"text": title or f"{what} by context length"},
        "xaxis": {"title": {"text": "Context tokens (log scale)"}, "type": "log"},
        "yaxis": {"title": {"text": what}, "rangemode": "tozero"},
    }
    return {"data": data, "layout": layout}


def arrivals_figure(requests_per_minute: Sequence[int], *, title: str) -> dict[str, Any]:
    """Requests a minute over a trace: the arrival pattern that replaces peak-to-average."""
    minutes = list(range(len(requests_per_minute)))
    return {
        "data": [
            {
                "type": "bar",
                "x": minutes,
                "y": list(requests_per_minute),
                "name": "Requests a minute",
                "marker": {"color": "#2454c5"},
                "hovertemplate": "minute %{x}: %{y} requests<extra></extra>",
            }
        ],
        "layout": {
            **LAYOUT_BASE,
            "title": {"text": plotly_escape(title)},
            "xaxis": {"title": {"text": "Minute of the trace"}},
            "yaxis": {"title": {"text": "Requests"}, "rangemode": "tozero"},
            "showlegend": False,
        },
    }
