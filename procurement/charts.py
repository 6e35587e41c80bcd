"""Comparison results → Plotly figure dicts (pure: no Django, no database, no browser).

The `*_figure(comparison, rows)` builders (shared with the review pages) take anything with
Comparison's `result` and rows with CandidateResult's attributes; the lower-level builders
take rows and/or the `result` JSON. Each returns `{"data": [...], "layout": {...}}`, or None
when there is nothing to draw. Pages pass them through `json_script`; `static/js/app.js` plots.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from core.chart_text import plotly_escaped
from core.values import float_or_none

TOP_N = 15
LINE_ORDER = (
    "gpu_compute", "gpu_cost", "api_compute", "retry_waste", "failed_renders", "idle_capacity",
    "queue_overhead", "checkpointing", "failed_run_waste", "storage", "network",
    "serving_stack", "moderation_or_quality_filtering", "operator_review", "observability",
    "platform_labor",
)  # fmt: skip
OPTION_LABELS = {
    "on_demand": "On-demand / elastic",
    "reserved": "Reserved",
    "purchase": "Purchase",
    "api": "Model API",
}
BASE_LAYOUT: dict[str, Any] = {
    "margin": {"l": 60, "r": 20, "t": 40, "b": 60},
    "font": {"family": "system-ui, sans-serif", "size": 12},
    "legend": {"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1, "font": {"size": 11}},
    "paper_bgcolor": "#ffffff",
    "plot_bgcolor": "#ffffff",
}


def _layout(title: str, **extra: Any) -> dict[str, Any]:
    return {**BASE_LAYOUT, "title": {"text": title, "font": {"size": 14}}, **extra}


def short_label(row: Any) -> str:
    """'Provider · accelerator · capacity #id', short enough for an axis."""
    name = re.sub(r"\([^)]*\)", "", row.accelerator_name or "model API")
    name = " ".join(w for w in name.split() if not w.upper().endswith("GB"))
    capacity = (row.capacity_model or "").replace("_", "-")
    parts = [row.provider_name, name, capacity if capacity != "api" else ""]
    text = " · ".join(p for p in parts if p)
    return f"{text} #{row.key.split(':')[-1]}"


def _height(rows: int) -> int:
    return max(320, 30 * rows + 140)


def _log_if_spread(values: Sequence[float | None]) -> dict[str, Any]:
    """A log axis when the costs span more than 5×, so one outlier does not flatten the rest."""
    finite = [v for v in values if v is not None and v > 0]
    if finite and max(finite) / min(finite) > 5:
        return {"type": "log"}
    return {}


def ranked(rows: Sequence[Any], top: int = TOP_N) -> list[Any]:
    """The eligible rows by rank by unit cost, best first, at most `top`."""
    out = [r for r in rows if r.eligible and r.rank is not None and r.unit_cost_usd is not None]
    return sorted(out, key=lambda r: r.rank)[:top]


@plotly_escaped
def cost_stack_figure(rows: Sequence[Any], unit_label: str) -> dict[str, Any] | None:
    """Stacked cost lines per candidate, each scaled to the unit (bar height = unit cost)."""
    top = ranked(rows)
    if not top:
        return None
    top = list(reversed(top))  # best at the top of a horizontal chart
    labels = [short_label(r) for r in top]
    names = [n for n in LINE_ORDER if any(n in (r.cost_lines or {}) for r in top)]
    data = []
    for name in names:
        values = []
        for row in top:
            total = float_or_none(row.total_usd) or 0.0
            unit = float_or_none(row.unit_cost_usd) or 0.0
            line = float_or_none((row.cost_lines or {}).get(name)) or 0.0
            values.append(round(line * unit / total, 6) if total else 0.0)
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": name.replace("_", " "),
                "y": labels,
                "x": values,
            }
        )
    return {
        "data": data,
        "layout": _layout(
            "Cost per accepted output, by line",
            barmode="stack",
            xaxis={"title": {"text": f"USD {unit_label}"}},
            yaxis={"automargin": True},
            height=_height(len(top)),
        ),
    }


@plotly_escaped
def unit_cost_range_figure(rows: Sequence[Any], unit_label: str) -> dict[str, Any] | None:
    """p10–p90 of the unit cost (Monte Carlo) around the p50, with the point estimate."""
    top = [r for r in ranked(rows) if r.p50 is not None]
    if not top:
        return None
    top.reverse()  # best at the top of a horizontal chart
    labels = [short_label(r) for r in top]
    p50 = [r.p50 for r in top]
    return {
        "data": [
            {
                "type": "scatter",
                "mode": "markers",
                "name": "p50 (bars: p10–p90)",
                "x": p50,
                "y": labels,
                "error_x": {
                    "type": "data",
                    "symmetric": False,
                    "array": [r.p90 - r.p50 for r in top],
                    "arrayminus": [r.p50 - r.p10 for r in top],
                },
            },
            {
                "type": "scatter",
                "mode": "markers",
                "name": "point estimate",
                "marker": {"symbol": "diamond-open", "size": 9},
                "x": [float_or_none(r.unit_cost_usd) for r in top],
                "y": labels,
            },
        ],
        "layout": _layout(
            "Uncertainty: p10–p90 of the unit cost",
            xaxis={"title": {"text": f"USD {unit_label}"}, **_log_if_spread(p50)},
            yaxis={"automargin": True},
            height=_height(len(top)),
        ),
    }


@plotly_escaped
def breakeven_from_result(
    result: Mapping[str, Any], labels: Mapping[str, str]
) -> dict[str, Any] | None:
    """Unit cost of each capacity option across monthly volume (log axis)."""
    data_in = result.get("breakeven")
    if not data_in or not data_in.get("curves"):
        return None
    volumes = [float(v) for v in data_in["volumes"]]
    data = []
    for curve in data_in["curves"]:
        option = OPTION_LABELS.get(curve["option"], curve["option"])
        who = labels.get(curve["candidate_id"], curve["candidate_id"])
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": f"{option}: {who}",
                "x": volumes,
                "y": [float_or_none(v) for v in curve["unit_costs"]],
            }
        )
    unit = data_in.get("unit_label", "")
    return {
        "data": data,
        "layout": _layout(
            f"Break-even across monthly volume: {data_in.get('accelerator', '')}",
            xaxis={"type": "log", "title": {"text": "accepted outputs per month"}},
            yaxis={"type": "log", "title": {"text": f"USD {unit}"}},
        ),
    }


def assumption_label(name: str, labels: Mapping[str, str]) -> str:
    """'quote:19:throughput_per_replica' → 'throughput per replica (#19)': a candidate's own
    assumption, named by the id its row label ends with."""
    key, _, own = name.rpartition(":")
    if key and key in labels:
        return f"{own.replace('_', ' ')} (#{key.rpartition(':')[2]})"
    return name.replace("_", " ")


@plotly_escaped
def tornado_from_result(
    result: Mapping[str, Any], labels: Mapping[str, str] | None = None
) -> dict[str, Any] | None:
    """How far each assumption, alone at its low/high, moves the recommended unit cost."""
    tornado = result.get("tornado")
    if not tornado or not tornado.get("entries"):
        return None
    entries = list(reversed(tornado["entries"][:TOP_N]))  # largest swing on top
    base = float(tornado["baseline_unit_cost"])
    names = [
        assumption_label(e["assumption"], labels or {}) + (" ⚑" if e.get("flips") else "")
        for e in entries
    ]

    def trace(name: str, key: str) -> dict[str, Any]:
        return {
            "type": "bar",
            "orientation": "h",
            "name": name,
            "y": names,
            "x": [float(e[key]) - base for e in entries],
            "base": base,
        }

    return {
        "data": [
            trace("assumption at low", "unit_cost_at_low"),
            trace("assumption at high", "unit_cost_at_high"),
        ],
        "layout": _layout(
            "What moves the recommendation (⚑: flips the winner)",
            barmode="overlay",
            xaxis={"title": {"text": f"USD {tornado.get('unit_label', '')}"}},
            yaxis={"automargin": True},
            height=_height(len(entries)),
        ),
    }


def _unit(comparison: Any) -> str:
    return str((getattr(comparison, "result", None) or {}).get("unit_label", ""))


def cost_breakdown_figure(comparison: Any, rows: Sequence[Any]) -> dict[str, Any] | None:
    """`cost_stack_figure` for a comparison (signature shared with the review pages)."""
    return cost_stack_figure(rows, _unit(comparison))


def uncertainty_figure(comparison: Any, rows: Sequence[Any]) -> dict[str, Any] | None:
    return unit_cost_range_figure(rows, _unit(comparison))


def breakeven_figure(comparison: Any, rows: Sequence[Any]) -> dict[str, Any] | None:
    labels = {r.key: short_label(r) for r in rows}
    return breakeven_from_result(getattr(comparison, "result", None) or {}, labels)


def tornado_figure(comparison: Any, rows: Sequence[Any]) -> dict[str, Any] | None:
    labels = {r.key: short_label(r) for r in rows}
    return tornado_from_result(getattr(comparison, "result", None) or {}, labels)


def comparison_figures(comparison: Any, rows: Sequence[Any]) -> dict[str, Any]:
    """Every figure of the results page, keyed by the element id it is rendered into."""
    figures = {
        "fig-cost": cost_breakdown_figure(comparison, rows),
        "fig-range": uncertainty_figure(comparison, rows),
        "fig-breakeven": breakeven_figure(comparison, rows),
        "fig-tornado": tornado_figure(comparison, rows),
    }
    return {k: v for k, v in figures.items() if v is not None}
