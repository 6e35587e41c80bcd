"""Operating-point charts: cost per accepted output against tokens/s per user.

Pure: rows with CandidateResult's attributes in, Plotly figure dicts out. Every figure reads
the per-point costs the engine froze with the row (`detail["operating_points"]`,
engine/point_costs.py); nothing is recomputed here.

- One figure per candidate: every point of its sweep, points meeting the brief's service
  level filled, points missing it open and grey, points that cannot be checked hollow
  diamonds, the chosen point a star; the service-level boundary is a dashed line at the
  highest-load point still meeting it, the side past it shaded.
- One figure across candidates: each candidate's sweep as a line, its chosen point a star.

Points without tokens/s per user or a cost stay out of the figures; the page's table (the
text alternative) lists every point.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from procurement.charts import BASE_LAYOUT, short_label

LEGEND_MARGIN_PX = 150  # x-axis ticks and title (~55 px) and up to four legend rows
ACROSS_TOP = 8  # candidates in the across-candidates figure (the cheapest eligible ones)
MISS_COLOUR = "#9ca3af"
MEET_COLOUR = "#1d4ed8"
CHOSEN_COLOUR = "#b45309"


def points_of(row: Any) -> list[dict[str, Any]]:
    """The row's frozen operating points ([] for a row costed without a sweep)."""
    found = (getattr(row, "detail", None) or {}).get("operating_points")
    return list(found) if isinstance(found, list) else []


def _cost(point: dict[str, Any]) -> float | None:
    try:
        return float(Decimal(str(point.get("unit_cost"))))
    except (InvalidOperation, ValueError):
        return None


def drawable(points: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Points that can be placed: tokens/s per user and a cost, ordered along the x axis."""
    out = [p for p in points if p.get("tokens_per_s_per_user") and _cost(p) is not None]
    return sorted(out, key=lambda p: float(p["tokens_per_s_per_user"]))


def _hover(point: dict[str, Any], unit_label: str) -> str:
    meets = point.get("meets")
    verdict = (
        "meets the service level"
        if meets is True
        else "misses the service level"
        if meets is False
        else "service level not checked"
    )
    text = f"{point.get('statement', '')}<br>USD {_cost(point):,.4f} {unit_label}<br>{verdict}"
    if point.get("goodput") is not None:
        text += f" · SLO attainment {float(point['goodput']):.0%}"
    return text


def _axes(unit_label: str) -> dict[str, Any]:
    return {
        "xaxis": {"title": {"text": "output tokens/s per user (interactivity)"}},
        "yaxis": {"title": {"text": f"USD {unit_label}"}, "rangemode": "tozero"},
    }


def _boundary(points: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Any]]:
    """The dashed line at the highest-load point still meeting the service level (lowest
    tokens/s per user), with the side past it shaded, when some point misses beyond it."""
    meeting = [float(p["tokens_per_s_per_user"]) for p in points if p.get("meets") is True]
    missing = [float(p["tokens_per_s_per_user"]) for p in points if p.get("meets") is False]
    if not meeting or not missing or min(missing) >= min(meeting):
        return [], []
    edge = min(meeting)
    shapes = [
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": edge,
            "x1": edge,
            "y0": 0,
            "y1": 1,
            "line": {"dash": "dash", "color": "#b91c1c", "width": 1.5},
        },
        {
            "type": "rect",
            "xref": "x",
            "yref": "paper",
            "x0": min(missing) * 0.9,
            "x1": edge,
            "y0": 0,
            "y1": 1,
            "fillcolor": "#fee2e2",
            "opacity": 0.4,
            "line": {"width": 0},
            "layer": "below",
        },
    ]
    notes = [
        {
            "x": edge,
            "y": 1,
            "xref": "x",
            "yref": "paper",
            "text": "service-level boundary",
            "showarrow": False,
            "xanchor": "left",
            "yanchor": "bottom",
            "font": {"size": 11, "color": "#b91c1c"},
        }
    ]
    return shapes, notes


def _markers(
    points: Sequence[dict[str, Any]], unit_label: str, name: str, marker: dict[str, Any]
) -> dict[str, Any]:
    return {
        "type": "scatter",
        "mode": "markers",
        "name": name,
        "x": [p["tokens_per_s_per_user"] for p in points],
        "y": [_cost(p) for p in points],
        "text": [_hover(p, unit_label) for p in points],
        "hoverinfo": "text",
        "marker": marker,
    }


def candidate_figure(row: Any, unit_label: str) -> dict[str, Any] | None:
    """One candidate's sweep: cost per accepted output at each point (None: under 2 points)."""
    points = drawable(points_of(row))
    if len(points) < 2:
        return None
    data: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "lines",
            "name": "sweep",
            "showlegend": False,
            "hoverinfo": "skip",
            "x": [p["tokens_per_s_per_user"] for p in points],
            "y": [_cost(p) for p in points],
            "line": {"color": "#cbd5e1", "width": 1},
        }
    ]
    groups = (
        (True, "meets the service level", {"color": MEET_COLOUR, "size": 9}),
        (False, "misses the service level", {"color": MISS_COLOUR, "size": 9, "symbol": "x"}),
        (None, "not checked", {"color": MISS_COLOUR, "size": 9, "symbol": "diamond-open"}),
    )
    for verdict, name, marker in groups:
        chosen = [p for p in points if p.get("meets") is verdict]
        if chosen:
            data.append(_markers(chosen, unit_label, name, marker))
    picked = [p for p in points if p.get("chosen")]
    if picked:
        star = {"symbol": "star", "size": 16, "color": CHOSEN_COLOUR}
        data.append(_markers(picked, unit_label, f"costed at: {picked[0]['statement']}", star))
    shapes, notes = _boundary(points)
    return {
        "data": data,
        "layout": {
            **BASE_LAYOUT,
            "title": {"text": f"{short_label(row)}: cost by operating point", "font": {"size": 14}},
            **_axes(unit_label),
            "shapes": shapes,
            "annotations": notes,
            # Below the plot, in the figure's own bottom margin: a legend placed in plot
            # units (y < 0) overflowed the chart's border once the long "costed at" entry
            # wrapped at 1,024 px. The margin holds the axis title and four legend rows; no
            # fixed height, so the figure fills its box (comparisons.css) and never spills.
            "legend": {
                "orientation": "h",
                "x": 0,
                "xanchor": "left",
                "y": 0.02,  # clear of the box's bottom border
                "yanchor": "bottom",
                "yref": "container",
            },
            "margin": {**BASE_LAYOUT["margin"], "b": LEGEND_MARGIN_PX},
        },
    }


def across_figure(rows: Sequence[Any], unit_label: str) -> dict[str, Any] | None:
    """The cheapest eligible candidates' sweeps on one chart, each chosen point a star."""
    ranked = sorted(
        (r for r in rows if r.eligible and r.rank is not None and drawable(points_of(r))),
        key=lambda r: r.rank,
    )[:ACROSS_TOP]
    swept = [r for r in ranked if len(drawable(points_of(r))) >= 2]
    if not swept:
        return None
    data: list[dict[str, Any]] = []
    stars: list[dict[str, Any]] = []
    for row in swept:
        points = drawable(points_of(row))
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": short_label(row),
                "x": [p["tokens_per_s_per_user"] for p in points],
                "y": [_cost(p) for p in points],
                "text": [_hover(p, unit_label) for p in points],
                "hoverinfo": "text",
                "marker": {
                    "symbol": ["x" if p.get("meets") is False else "circle" for p in points],
                    "size": 8,
                },
            }
        )
        stars += [{**p, "who": short_label(row)} for p in points if p.get("chosen")]
    if stars:
        star = {"symbol": "star", "size": 15, "color": CHOSEN_COLOUR}
        trace = _markers(stars, unit_label, "chosen points", star)
        trace["text"] = [f"{p['who']}<br>{_hover(p, unit_label)}" for p in stars]
        data.append(trace)
    return {
        "data": data,
        "layout": {
            **BASE_LAYOUT,
            "title": {
                "text": "Cost by operating point across candidates (×: misses the service level)",
                "font": {"size": 14},
            },
            **_axes(unit_label),
        },
    }


def point_sections(rows: Sequence[Any], unit_label: str) -> list[dict[str, Any]]:
    """Per candidate with a sweep: its figure (None when it cannot be drawn) and its points,
    for the page's expandable sections and their tables."""
    out = []
    for index, row in enumerate(rows):
        points = points_of(row)
        if len(points) < 2:
            continue
        out.append(
            {
                "row": row,
                "figure_id": f"fig-points-{index}",
                "figure": candidate_figure(row, unit_label),
                "points": points,
                "chosen": next((p for p in points if p.get("chosen")), None),
            }
        )
    return out
