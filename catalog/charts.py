"""Plotly figure dicts for catalog pages (pure: plain values in, JSON-able dicts out)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.chart_text import plotly_escaped

PALETTE = {"NVIDIA": "#2f8a3b", "AMD": "#c0392b", "Intel": "#2454c5"}
HIGHLIGHT = "#f39c12"


@dataclass(frozen=True, slots=True)
class AcceleratorPoint:
    slug: str
    name: str
    vendor: str
    memory_gb: float
    memory_bandwidth_tbps: float
    bf16_dense_tflops: float
    fp8_dense_tflops: float | None = None
    fp4_dense_tflops: float | None = None


@dataclass(frozen=True, slots=True)
class PricePoint:
    version: int
    at: datetime
    price: float | None
    status: str


def _layout(title: str, x: str, y: str) -> dict[str, object]:
    return {
        "title": {"text": title, "font": {"size": 15}},
        "xaxis": {"title": {"text": x}, "zeroline": False},
        "yaxis": {"title": {"text": y}, "zeroline": False},
        "margin": {"l": 60, "r": 20, "t": 45, "b": 50},
        "legend": {"orientation": "h", "y": -0.2},
        "hovermode": "closest",
    }


@plotly_escaped
def memory_vs_bandwidth(points: Sequence[AcceleratorPoint], highlight: str = "") -> dict[str, Any]:
    """Scatter of every accelerator, one trace per vendor; the highlighted one stands out."""
    traces: list[dict[str, object]] = []
    for vendor in sorted({p.vendor for p in points}):
        group = [p for p in points if p.vendor == vendor and p.slug != highlight]
        if not group:
            continue
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": vendor,
                "x": [p.memory_gb for p in group],
                "y": [p.memory_bandwidth_tbps for p in group],
                "text": [p.name for p in group],
                "hovertemplate": "%{text}<br>%{x} GB, %{y} TB/s<extra></extra>",
                "marker": {"size": 10, "color": PALETTE.get(vendor, "#7f8c8d"), "opacity": 0.75},
            }
        )
    chosen = [p for p in points if p.slug == highlight]
    if chosen:
        p = chosen[0]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers+text",
                "name": p.name,
                "x": [p.memory_gb],
                "y": [p.memory_bandwidth_tbps],
                "text": [p.name],
                "textposition": "top center",
                "hovertemplate": "%{text}<br>%{x} GB, %{y} TB/s<extra></extra>",
                "marker": {
                    "size": 16,
                    "color": HIGHLIGHT,
                    "symbol": "star",
                    "line": {"width": 1, "color": "#333"},
                },
            }
        )
    return {
        "data": traces,
        "layout": _layout("Memory vs memory bandwidth", "Memory (GB)", "Bandwidth (TB/s)"),
    }


@plotly_escaped
def compare_compute(points: Sequence[AcceleratorPoint]) -> dict[str, Any]:
    """Grouped bars of dense tensor throughput per precision (missing precision = no bar)."""
    names = [p.name for p in points]
    series = (
        ("BF16", [p.bf16_dense_tflops for p in points]),
        ("FP8", [p.fp8_dense_tflops for p in points]),
        ("FP4", [p.fp4_dense_tflops for p in points]),
    )
    data = [
        {"type": "bar", "name": label, "x": names, "y": values}
        for label, values in series
        if any(v is not None for v in values)
    ]
    layout = _layout("Dense tensor throughput", "", "TFLOPS (dense)")
    layout["barmode"] = "group"
    return {"data": data, "layout": layout}


@plotly_escaped
def price_history(points: Sequence[PricePoint], currency: str) -> dict[str, Any]:
    """Price per GPU-hour of each version of a quote, as a step line."""
    shown = [p for p in points if p.price is not None]
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers+text",
            "line": {"shape": "hv"},
            "x": [p.at.isoformat() for p in shown],
            "y": [p.price for p in shown],
            "text": [
                f"v{p.version}" + (" (withdrawn)" if p.status == "withdrawn" else "") for p in shown
            ],
            "textposition": "top center",
            "cliponaxis": False,
            "name": "price per GPU-hour",
        }
    ]
    return {
        "data": data,
        "layout": _layout(
            "Price per GPU-hour by version", "Captured at (UTC)", f"{currency} per GPU-hour"
        ),
    }
