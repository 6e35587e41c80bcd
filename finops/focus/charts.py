"""The reconciliation chart: forecast against actual cost per accepted output, per month
(a Plotly figure dict; pure, tested without a browser)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any


@dataclass(frozen=True, slots=True)
class MonthPoint:
    month: str  # YYYY-MM
    forecast_unit_cost: Decimal
    actual_unit_cost: Decimal
    drift: bool


def unit_cost_by_month(points: Sequence[MonthPoint], currency: str) -> dict[str, Any]:
    months = [p.month for p in points]
    return {
        "data": [
            {
                "type": "bar",
                "name": "Forecast",
                "x": months,
                "y": [float(p.forecast_unit_cost) for p in points],
                "marker": {"color": "#8a96a8"},
            },
            {
                "type": "bar",
                "name": "Actual",
                "x": months,
                "y": [float(p.actual_unit_cost) for p in points],
                "marker": {"color": ["#c0392b" if p.drift else "#2f8a3b" for p in points]},
            },
        ],
        "layout": {
            "title": {
                "text": "Cost per accepted output, forecast and actual",
                "font": {"size": 15},
            },
            "barmode": "group",
            "xaxis": {"title": {"text": "Month"}, "type": "category"},
            "yaxis": {"title": {"text": f"{currency} per accepted output"}},
            "margin": {"l": 70, "r": 20, "t": 45, "b": 50},
            "legend": {"orientation": "h", "y": -0.2},
        },
    }
