"""The text alternative of a chart: the table behind a Plotly figure dict.

``{% chart_table fig %}`` renders a ``<details>`` holding one row per category (the bar or
point label, or the x value of a curve) and one column per trace, so a screen reader, a
keyboard user or someone who wants the exact figures reads what the chart draws. Error bars
(p10–p90 around a p50) become a low and a high column. Works on any figure the pages build:
it reads only ``data[*].x/y/name/orientation/error_x/error_y`` and the axis titles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django import template
from django.utils.html import json_script
from django.utils.safestring import SafeString

from core.chart_text import figure_for_page, plotly_unescape
from core.templatetags.numbers import DASH, LABELS, thousands

register = template.Library()


@dataclass
class ChartTable:
    """The table of one figure: a caption, the header and rows of display text."""

    caption: str
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)


def _title(node: Any) -> str:
    if isinstance(node, dict):
        node = node.get("text", "")
    return plotly_unescape(str(node or ""))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def column_places(values: list[Any]) -> int | None:
    """One number of decimals per column, so the figures line up: none for whole numbers,
    one from 100 up, two otherwise; None (three significant digits each) for tiny values."""
    numbers = [abs(float(v)) for v in values if _is_number(v)]
    if not numbers or all(n.is_integer() for n in numbers):
        return 0
    if max(numbers) >= 100:
        return 1
    if min((n for n in numbers if n), default=1.0) >= 0.01:
        return 2
    return None


def cell_text(value: Any, places: int | None = 2) -> str:
    if value is None or value == "":
        return DASH
    if not _is_number(value):
        return plotly_unescape(str(value))  # the figure's escaping; the template escapes
    if places is None:
        return f"{float(value):.3g}"
    return thousands(value, places)


def _category_axis(trace: dict[str, Any]) -> str:
    """Which of x and y holds the labels: "h" bars and string y values put them on y."""
    if trace.get("orientation") == "h":
        return "y"
    ys = trace.get("y") or []
    if ys and all(isinstance(v, str) for v in ys):
        return "y"
    return "x"


def _error_bounds(
    trace: dict[str, Any], axis: str, values: list[Any]
) -> tuple[list[Any], list[Any]]:
    error = trace.get(f"error_{axis}") or {}
    plus = error.get("array")
    if error.get("type") != "data" or not plus:
        return [], []
    minus = error.get("arrayminus") or plus
    # Plotly ignores the bars of points past the end of an error array, so zip short.
    pairs = list(zip(values, minus, plus, strict=False))
    low = [v - m if _is_number(v) and _is_number(m) else None for v, m, _ in pairs]
    high = [v + p if _is_number(v) and _is_number(p) else None for v, _, p in pairs]
    return low, high


def figure_table(fig: dict[str, Any] | None) -> ChartTable | None:
    """The table behind a figure, or None when it draws nothing."""
    if not fig or not fig.get("data"):
        return None
    layout = fig.get("layout") or {}
    traces = [t for t in fig["data"] if t.get("x") is not None and t.get("y") is not None]
    if not traces:
        return None
    category_axis = _category_axis(traces[0])
    value_axis = "x" if category_axis == "y" else "y"
    categories: dict[Any, dict[str, Any]] = {}
    columns: list[str] = []
    for number, trace in enumerate(traces, start=1):
        name = plotly_unescape(str(trace.get("name") or f"series {number}"))
        name = LABELS.get(name.replace(" ", "_"), name)  # "gpu compute" reads "GPU compute"
        labels, values = list(trace[category_axis]), list(trace[value_axis])
        low, high = _error_bounds(trace, value_axis, values)
        series = [(name, values)]
        if low:
            series += [(f"{name}: low", low), (f"{name}: high", high)]
        for column, column_values in series:
            columns.append(column)
            for label, value in zip(labels, column_values, strict=False):
                categories.setdefault(label, {})[column] = value
    category_title = _title((layout.get(f"{category_axis}axis") or {}).get("title")) or "Item"
    value_title = _title((layout.get(f"{value_axis}axis") or {}).get("title"))
    order = list(categories)
    if category_axis == "y":
        order.reverse()  # horizontal charts draw their first row at the bottom
    caption = _title(layout.get("title")) or "Chart data"
    table = ChartTable(
        # The unit once, in the caption: every series shares the value axis.
        caption=f"{caption} ({value_title})" if value_title else caption,
        header=[category_title, *columns],
    )
    # Every series shares the value axis, hence one format for all value columns.
    places = column_places([v for row in categories.values() for v in row.values()])
    label_places = column_places(order)
    for label in order:
        row = categories[label]
        cells = [cell_text(row.get(c), places) for c in columns]
        table.rows.append([cell_text(label, label_places), *cells])
    return table


@register.filter
def plotly_json(fig: Any, element_id: str) -> SafeString:
    """The only way a page embeds a figure (R2): no markup but the code's own, then
    `json_script` (core.chart_text.figure_for_page)."""
    return json_script(figure_for_page(fig), element_id)


@register.inclusion_tag("components/_chart_table.html")
def chart_table(fig: dict[str, Any] | None, summary: str = "") -> dict[str, Any]:
    return {"table": figure_table(fig), "summary": summary}
