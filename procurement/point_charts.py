"""Operating-point charts: cost per accepted output against tokens/s per user.

Pure: rows with CandidateResult's attributes in, Plotly figure dicts out. Every figure reads
the per-point costs the engine froze with the row (`detail["operating_points"]`,
engine/point_costs.py); nothing is recomputed here.

- One figure per candidate: every point of its sweep, labelled with its load ("c32"),
  points meeting the brief's service level filled, points missing it open and grey, points
  that cannot be checked hollow diamonds, the chosen point a star; the service-level
  boundary is a dashed line at the highest-load point still meeting it, the side past it
  shaded, and it says which target binds ("TTFT p95 ≤ 800 ms binds").
- One figure across candidates: each candidate's sweep as a line, its chosen point a star,
  and always the recommended row: a row costed without a sweep (a proxy or an estimate) is
  drawn as its single costed point, marked as such. Series are named by provider and offer,
  never by ids; the legend sits below the plot.

Points without tokens/s per user or a cost stay out of the figures; the page's table (the
text alternative) lists every point.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.values import float_or_none
from engine.operating_points import ServiceLevel
from engine.operating_points.binding import binding_target
from procurement.charts import BASE_LAYOUT, layout, series_names, short_label

LEGEND_MARGIN_PX = 150  # x-axis ticks and title (~55 px) and up to four legend rows
ACROSS_TOP = 8  # candidates in the across-candidates figure (the cheapest eligible ones)
MISS_COLOUR = "#9ca3af"
MEET_COLOUR = "#1d4ed8"
CHOSEN_COLOUR = "#b45309"
MEETS_WORDS = {True: "meets the service level", False: "misses the service level"}
# Horizontal, in the figure's bottom margin, clear of the box's bottom border.
LEGEND_BELOW = {
    "orientation": "h",
    "x": 0,
    "xanchor": "left",
    "y": 0.02,
    "yanchor": "bottom",
    "yref": "container",
}


def points_of(row: Any) -> list[dict[str, Any]]:
    """The row's frozen operating points ([] for a row costed without a sweep)."""
    found = (getattr(row, "detail", None) or {}).get("operating_points")
    return list(found) if isinstance(found, list) else []


def _cost(point: dict[str, Any]) -> float | None:
    return float_or_none(point.get("unit_cost"))


def drawable(points: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Points that can be placed: tokens/s per user and a cost, ordered along the x axis."""
    out = [p for p in points if p.get("tokens_per_s_per_user") and _cost(p) is not None]
    return sorted(out, key=lambda p: float(p["tokens_per_s_per_user"]))


def _hover(point: dict[str, Any], unit_label: str) -> str:
    meets = point.get("meets")
    verdict = MEETS_WORDS[meets] if isinstance(meets, bool) else "service level not checked"
    text = f"{point.get('statement', '')}<br>USD {_cost(point):,.4f} {unit_label}<br>{verdict}"
    if point.get("goodput") is not None:
        text += f" · SLO attainment {float(point['goodput']):.0%}"
    return text


def _axes(unit_label: str) -> dict[str, Any]:
    return {
        "xaxis": {"title": {"text": "output tokens/s per user (interactivity)"}},
        "yaxis": {"title": {"text": f"USD {unit_label}"}, "rangemode": "tozero"},
    }


def _boundary(
    points: Sequence[dict[str, Any]], words: str = "service-level boundary"
) -> tuple[list[dict[str, Any]], list[Any]]:
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
            "text": words,
            "showarrow": False,
            "xanchor": "left",
            "yanchor": "bottom",
            "font": {"size": 11, "color": "#b91c1c"},
        }
    ]
    return shapes, notes


def load_tag(point: dict[str, Any]) -> str:
    """The load beside a point: 'c32' (concurrency), '4/s' (request rate), else its label."""
    for key, shown in (("concurrency", "c{:g}"), ("request_rate_per_s", "{:g}/s")):
        value = point.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return shown.format(value)
    return str(point.get("label") or "")


def _markers(
    points: Sequence[dict[str, Any]],
    unit_label: str,
    name: str,
    marker: dict[str, Any],
    *,
    tagged: bool = True,
) -> dict[str, Any]:
    trace = {
        "type": "scatter",
        "mode": "markers",
        "name": name,
        "x": [p["tokens_per_s_per_user"] for p in points],
        "y": [_cost(p) for p in points],
        "hovertext": [_hover(p, unit_label) for p in points],
        "hoverinfo": "text",
        "marker": marker,
        "cliponaxis": False,
    }
    if tagged:
        trace.update(
            mode="markers+text",
            text=[load_tag(p) for p in points],
            textposition="top center",
            textfont={"size": 10},
        )
    return trace


def _load_words(point: dict[str, Any]) -> str:
    """The table's name of a point, with its load when its label does not say it."""
    label, tag = str(point.get("label") or ""), load_tag(point)
    said = ("concurrency", "rate", "request rate")
    if not label or label == tag:
        return tag
    return label if label.startswith(said) else f"{label} ({tag})"


def service_level_of(brief: Any) -> ServiceLevel:
    """The brief's targets (a model or its values dict; None: no target)."""

    def get(name: str) -> Any:
        return brief.get(name) if isinstance(brief, dict) else getattr(brief, name, None)

    return ServiceLevel(
        ttft_p95_ms=get("ttft_p95_ms"),
        itl_p95_ms=get("itl_p95_ms"),
        e2e_p99_ms=get("e2e_p99_ms"),
        max_error_rate=get("max_error_rate"),
    )


def boundary_words(points: Sequence[dict[str, Any]], slo: ServiceLevel | None) -> str:
    """'service-level boundary: TTFT p95 ≤ 800 ms binds' (points in load order)."""
    found = binding_target(points, slo) if slo is not None else None
    if found is None:
        return "service-level boundary"
    return f"service-level boundary: {found.words} binds"


def candidate_figure(
    row: Any, unit_label: str, slo: ServiceLevel | None = None
) -> dict[str, Any] | None:
    """One candidate's sweep: cost per accepted output at each point (None: under 2 points);
    `slo`, the brief's targets, names the one that binds on the boundary."""
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
        data.append(
            _markers(picked, unit_label, f"costed at: {picked[0]['statement']}", star, tagged=False)
        )
    shapes, notes = _boundary(points, boundary_words(points_of(row), slo))
    return {
        "data": data,
        "layout": layout(
            f"{short_label(row)}: cost by operating point",
            **_axes(unit_label),
            shapes=shapes,
            annotations=notes,
            # Below the plot, in the figure's own bottom margin: a legend placed in plot
            # units (y < 0) overflowed the chart's border once the long "costed at" entry
            # wrapped at 1,024 px. The margin holds the axis title and four legend rows; no
            # fixed height, so the figure fills its box (comparisons.css) and never spills.
            legend={**LEGEND_BELOW},
            margin={**BASE_LAYOUT["margin"], "b": LEGEND_MARGIN_PX},
        ),
    }


def _single_point(row: Any) -> dict[str, Any] | None:
    """A row costed without a sweep, as one point: its unit cost at the tokens/s per user
    its own figures give (1000 / its ITL); None when it has no ITL to place it by."""
    perf = getattr(row, "performance", None) or {}
    itl = perf.get("itl_p95_ms")
    cost = _cost({"unit_cost": getattr(row, "unit_cost_usd", None)})
    if cost is None:
        return None
    return {
        "tokens_per_s_per_user": 1000.0 / float(itl) if itl else None,
        "unit_cost": getattr(row, "unit_cost_usd", None),
        "statement": (perf.get("evidence") or {}).get("operating_point")
        or f"{perf.get('throughput_source') or 'estimated'} throughput, no sweep",
        "meets": None,
        "chosen": True,
    }


def _recommended_trace(
    row: Any, unit_label: str, label: str
) -> tuple[list[Any], list[Any], list[Any]]:
    """(traces, shapes, notes) for a recommended row without a sweep: its single costed
    point, or, without a figure to place it by, a dashed line at its unit cost."""
    point = _single_point(row)
    if point is None:
        return [], [], []
    kind = (getattr(row, "performance", None) or {}).get("throughput_source") or "estimated"
    name = f"recommended: {label}, {kind}, no sweep: one costed point"
    if point["tokens_per_s_per_user"]:
        marker = {"symbol": "diamond", "size": 14, "color": CHOSEN_COLOUR,
                  "line": {"width": 2, "color": "#111827"}}  # fmt: skip
        trace = _markers([point], unit_label, name, marker, tagged=False)
        trace["hovertext"] = [f"{label}<br>{_hover(point, unit_label)}"]
        return [trace], [], []
    cost = _cost(point)
    line = {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": cost,
            "y1": cost, "line": {"dash": "dot", "color": CHOSEN_COLOUR, "width": 1.5}}  # fmt: skip
    note = {"xref": "paper", "x": 1, "xanchor": "right", "yref": "y", "y": cost,
            "yanchor": "bottom", "showarrow": False, "text": name,
            "font": {"size": 11, "color": CHOSEN_COLOUR}}  # fmt: skip
    return [], [line], [note]


def across_figure(
    rows: Sequence[Any], unit_label: str, recommended: Any = None
) -> dict[str, Any] | None:
    """The cheapest eligible candidates' sweeps on one chart, each chosen point a star, and
    always the recommended row (module docstring). None when no row has a sweep."""
    ranked = sorted(
        (r for r in rows if r.eligible and r.rank is not None and drawable(points_of(r))),
        key=lambda r: r.rank,
    )[:ACROSS_TOP]
    swept = [r for r in ranked if len(drawable(points_of(r))) >= 2]
    recommended_swept = recommended is not None and len(drawable(points_of(recommended))) >= 2
    if recommended_swept and all(r.key != recommended.key for r in swept):
        swept = [recommended, *swept][:ACROSS_TOP]
    if not swept:
        return None
    data: list[dict[str, Any]] = []
    stars: list[dict[str, Any]] = []
    is_recommended = recommended is not None and any(r.key == recommended.key for r in swept)
    names = series_names(
        [*swept, *([] if is_recommended or recommended is None else [recommended])]
    )
    for row in swept:
        points = drawable(points_of(row))
        name = names[row.key]
        if recommended is not None and row.key == recommended.key:
            name = f"recommended: {name}"
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers+text",
                "name": name,
                "x": [p["tokens_per_s_per_user"] for p in points],
                "y": [_cost(p) for p in points],
                "text": [load_tag(p) for p in points],
                "textposition": "top center",
                "textfont": {"size": 10},
                "cliponaxis": False,
                "hovertext": [_hover(p, unit_label) for p in points],
                "hoverinfo": "text",
                "marker": {
                    "symbol": ["x" if p.get("meets") is False else "circle" for p in points],
                    "size": 8,
                },
            }
        )
        stars += [{**p, "who": names[row.key]} for p in points if p.get("chosen")]
    if stars:
        star = {"symbol": "star", "size": 15, "color": CHOSEN_COLOUR}
        trace = _markers(stars, unit_label, "chosen points", star, tagged=False)
        trace["hovertext"] = [f"{p['who']}<br>{_hover(p, unit_label)}" for p in stars]
        data.append(trace)
    shapes: list[Any] = []
    notes: list[Any] = []
    if recommended is not None and not is_recommended:
        traces, shapes, notes = _recommended_trace(recommended, unit_label, names[recommended.key])
        data += traces
    return {
        "data": data,
        "layout": layout(
            "Cost by operating point across candidates (×: misses the service level)",
            **_axes(unit_label),
            shapes=shapes,
            annotations=notes,
            # Below the plot, full width: on the right it took half the card (V17).
            legend={**LEGEND_BELOW, "font": {"size": 11}},
            margin={**BASE_LAYOUT["margin"], "b": (bottom := _legend_margin(data))},
            height=PLOT_HEIGHT_PX + bottom,
        ),
    }


PLOT_HEIGHT_PX = 380  # the plot and its title; the legend's rows come on top of it
LEGEND_ROW_PX = 22


def _legend_margin(data: Sequence[dict[str, Any]]) -> int:
    """The bottom margin for the x-axis title and a legend of every named trace: one row
    each when names are long (half a card holds one), else two a row."""
    names = [str(t.get("name", "")) for t in data if t.get("showlegend", True)]
    per_row = 1 if any(len(n) > 40 for n in names) else 2
    rows = -(-len(names) // per_row)
    return 64 + LEGEND_ROW_PX * rows


def point_sections(
    rows: Sequence[Any], unit_label: str, slo: ServiceLevel | None = None
) -> list[dict[str, Any]]:
    """Per candidate with a sweep: its figure (None when it cannot be drawn), its points and
    the target that binds it, for the page's expandable sections and their tables."""
    out = []
    for index, row in enumerate(rows):
        points = points_of(row)
        if len(points) < 2:
            continue
        out.append(
            {
                "row": row,
                "figure_id": f"fig-points-{index}",
                "figure": candidate_figure(row, unit_label, slo),
                "points": [{**p, "load": _load_words(p)} for p in points],
                "binding": binding_target(points, slo) if slo is not None else None,
                "chosen": next((p for p in points if p.get("chosen")), None),
            }
        )
    return out
