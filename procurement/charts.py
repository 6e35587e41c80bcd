"""Comparison results → Plotly figure dicts (pure: no Django, no database, no browser).

`comparison_figures(comparison, rows)` (shared with the review pages) takes anything with
Comparison's `result` and rows with CandidateResult's attributes; the builders it calls take
rows and/or the `result` JSON. Each returns `{"data": [...], "layout": {...}}`, or None
when there is nothing to draw. Pages pass them through `json_script`; `static/js/app.js` plots.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from core.chart_text import plotly_escaped
from core.cost_lines import LINE_LABELS, ordered_names
from core.values import float_or_none

TOP_N = 15
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


def layout(title: str, **extra: Any) -> dict[str, Any]:
    """A figure's layout: the shared base, its title, then `extra` (axes, legend, size)."""
    return {**BASE_LAYOUT, "title": {"text": title, "font": {"size": 14}}, **extra}


CAPACITY_WORDS = {
    "on_demand": "on-demand",
    "spot": "spot",
    "reserved": "reserved",
    "marketplace": "marketplace",
    "dedicated_cluster": "dedicated cluster",
    "private_cloud": "private cloud",
    "managed_endpoint": "managed endpoint",
    "purchase": "purchase",
}
TITLE_CHARS = 44  # an offer's title in a legend or on an axis; the table has it whole


def offer_title(row: Any) -> str:
    """The offer as its vendor named it: the row's label ("Provider: title v3") without the
    provider and the version; the accelerator when the label says nothing more."""
    label = str(getattr(row, "label", "") or "")
    provider = str(getattr(row, "provider_name", "") or "")
    if provider and label.startswith(f"{provider}: "):
        label = label[len(provider) + 2 :]
    label = re.sub(r"\s+v\d+$", "", label).strip()
    if not label:
        label = re.sub(r"\([^)]*\)", "", row.accelerator_name or "model API").strip()
    return label if len(label) <= TITLE_CHARS else label[: TITLE_CHARS - 1].rstrip() + "…"


def _squeezed(text: str) -> str:
    """'On demand', 'on-demand', 'OnDemand' alike."""
    return re.sub(r"[\s_-]+", "", text).lower()


def short_label(row: Any) -> str:
    """'Provider · offer title (capacity)': how a person names the offer, never an id."""
    title = offer_title(row)
    capacity = CAPACITY_WORDS.get(row.capacity_model or "", "")
    if capacity and _squeezed(capacity) not in _squeezed(title):
        title = f"{title} ({capacity})"
    return " · ".join(p for p in (row.provider_name, title) if p)


def series_names(rows: Sequence[Any]) -> dict[str, str]:
    """Row key → its short label, unique among `rows`: two offers that read alike are told
    apart by region, then by version (a chart merges series of one name)."""
    names = {row.key: short_label(row) for row in rows}
    for extra in ("region", "quote_version"):
        seen: dict[str, int] = {}
        for name in names.values():
            seen[name] = seen.get(name, 0) + 1
        for row in rows:
            if seen[names[row.key]] > 1:
                value = (getattr(row, "detail", None) or {}).get(extra)
                if value not in (None, ""):
                    names[row.key] += f" · {'v' if extra == 'quote_version' else ''}{value}"
    counted: dict[str, int] = {}
    for row in rows:  # still alike (one vendor's twin offers): numbered in rank order
        counted[names[row.key]] = counted.get(names[row.key], 0) + 1
        if counted[names[row.key]] > 1:
            names[row.key] += f" ({counted[names[row.key]]})"
    return names


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
    names = series_names(top)
    labels = [names[r.key] for r in top]
    # Every line a row carries, so the bars add up to its unit cost (older engines' lines too)
    lines = ordered_names({n for r in top for n in (r.cost_lines or {})})
    data = []
    for name in lines:
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
                "name": LINE_LABELS.get(name, name.replace("_", " ")),
                "y": labels,
                "x": values,
            }
        )
    return {
        "data": data,
        "layout": layout(
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
    names = series_names(top)
    labels = [names[r.key] for r in top]
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
        "layout": layout(
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
        "layout": layout(
            f"Break-even across monthly volume: {data_in.get('accelerator', '')}",
            xaxis={"type": "log", "title": {"text": "accepted outputs per month"}},
            yaxis={"type": "log", "title": {"text": f"USD {unit}"}},
        ),
    }


def assumption_label(name: str, labels: Mapping[str, str]) -> str:
    """'quote:19:throughput_per_replica' → 'throughput per replica (Northwind · H100
    on-demand)': a candidate's own assumption, named by its row's offer."""
    key, _, own = name.rpartition(":")
    if key and key in labels:
        return f"{own.replace('_', ' ')} ({labels[key]})"
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
        "layout": layout(
            "What moves the recommendation (⚑: flips the winner)",
            barmode="overlay",
            xaxis={"title": {"text": f"USD {tornado.get('unit_label', '')}"}},
            yaxis={"automargin": True},
            height=_height(len(entries)),
        ),
    }


def comparison_figures(comparison: Any, rows: Sequence[Any]) -> dict[str, Any]:
    """Every figure of the results page, keyed by the element id it is rendered into."""
    result = getattr(comparison, "result", None) or {}
    unit, labels = str(result.get("unit_label", "")), series_names(rows)
    figures = {
        "fig-cost": cost_stack_figure(rows, unit),
        "fig-range": unit_cost_range_figure(rows, unit),
        "fig-breakeven": breakeven_from_result(result, labels),
        "fig-tornado": tornado_from_result(result, labels),
        "fig-trace": trace_replicas_figure(comparison, rows),
    }
    return {k: v for k, v in figures.items() if v is not None}


@plotly_escaped
def trace_replicas_figure(comparison: Any, rows: Sequence[Any]) -> dict[str, Any] | None:
    """Replicas a minute that hold the service level, sized from the brief's traffic trace,
    for the rows cheapest on it (result["trace"]["curves"])."""
    trace = (getattr(comparison, "result", None) or {}).get("trace") or {}
    curves = trace.get("curves") or []
    if trace.get("status") != "replayed" or not curves:
        return None
    names = series_names(rows)
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "line": {"shape": "hv"},
            "x": list(range(len(curve["replicas"]))),
            "y": curve["replicas"],
            "name": names.get(curve["key"], curve["key"]),
        }
        for curve in curves
    ]
    return {
        "data": data,
        "layout": layout(
            "Replicas a minute sized from the traffic trace",
            xaxis={"title": {"text": "Minute of the trace"}},
            yaxis={"title": {"text": "Replicas holding the service level"}, "rangemode": "tozero"},
        ),
    }
