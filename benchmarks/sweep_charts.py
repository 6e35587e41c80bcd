"""Curves of a sweep against its load, as GuideLLM's report draws them (pure: the rows of
`sweep_report.sweep_report` in, Plotly figure dicts out).

- TTFT, ITL (else TPOT) and, when the brief sets one, E2E: p50 / p95 / p99 against
  concurrency (or request rate), the brief's target a dashed line that says its value
  ("TTFT p95 ≤ 800 ms"), and "binds" on the target that binds the sweep;
- throughput: output tokens/s per GPU against the same load, levels meeting the brief filled,
  missing it crossed, the level the comparison would cost it at a star.

Each point carries its load ("c8", "2/s"). Points a file has no figure for are left out; the
page's table (the text alternative) lists every level.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.chart_text import plotly_escaped
from engine.operating_points.binding import Binding

FONT = {"family": "system-ui, sans-serif", "size": 12}
PERCENTILE_STYLE = {
    "p50": {"color": "#7aa2ff", "dash": "dot"},
    "p95": {"color": "#2454c5", "dash": "solid"},
    "p99": {"color": "#17213a", "dash": "dash"},
}
TARGET_COLOUR = "#b3261e"
MEET_COLOUR = "#1d4ed8"
MISS_COLOUR = "#6b7280"
CHOSEN_COLOUR = "#b45309"
AXIS_TITLES = {"concurrency": "concurrency (requests in flight)", "rate": "request rate (/s)"}
# family on the page → (row key, title, the target's figure key, its percentile)
FAMILIES = {
    "ttft": ("ttft", "Time to first token", "ttft_p95_ms", "p95"),
    "gap": ("gap", "Inter-token latency", "itl_p95_ms", "p95"),
    "e2e": ("e2e", "End-to-end latency", "e2e_p99_ms", "p99"),
}


def _x_axis(rows: Sequence[Mapping[str, Any]], axis: str) -> dict[str, Any]:
    loads = sorted({float(r["load_value"]) for r in rows if r.get("load_value")})
    spread = bool(loads) and min(loads) > 0 and max(loads) / min(loads) >= 8
    out: dict[str, Any] = {
        "title": {"text": AXIS_TITLES.get(axis, "load")},
        "automargin": True,
        # a tick at each measured load, nothing between ("2 3 4 5" of a log axis says nothing)
        "tickvals": loads,
        "ticktext": [f"{v:g}" for v in loads],
    }
    if spread:
        out["type"] = "log"  # 1, 8, 32, 64, 128: even steps of load, none squeezed
    return out


def _layout(title: str, x_axis: dict[str, Any], y_title: str, **extra: Any) -> dict[str, Any]:
    return {
        "title": {"text": title, "x": 0.01, "font": {"size": 14}},
        "font": FONT,
        "margin": {"l": 64, "r": 24, "t": 70, "b": 90},
        "plot_bgcolor": "#fff",
        "paper_bgcolor": "#fff",
        "xaxis": x_axis,
        "yaxis": {"title": {"text": y_title}, "gridcolor": "#eef1f6", "rangemode": "tozero"},
        "legend": {"orientation": "h", "x": 0, "y": -0.28, "yanchor": "top"},
        **extra,
    }


def _target_line(value: float, words: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A dashed horizontal line at the target, labelled with its value at the right edge."""
    shape = {
        "type": "line",
        "xref": "paper",
        "x0": 0,
        "x1": 1,
        "yref": "y",
        "y0": value,
        "y1": value,
        "line": {"color": TARGET_COLOUR, "dash": "dash", "width": 1.5},
    }
    note = {  # at the left, where latency is low: clear of the curves climbing to the right
        "xref": "paper",
        "x": 0,
        "xanchor": "left",
        "yref": "y",
        "y": value,
        "yanchor": "bottom",
        "text": words,
        "showarrow": False,
        "font": {"color": TARGET_COLOUR, "size": 11},
        "bgcolor": "rgba(255,255,255,0.8)",
    }
    return shape, note


def _placed(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r for r in rows if r.get("load_value") is not None]


@plotly_escaped
def latency_curve_figure(
    rows: Sequence[Mapping[str, Any]],
    family: str,
    *,
    axis: str,
    target_ms: float | None,
    binding: Binding | None,
) -> dict[str, Any] | None:
    """p50 / p95 / p99 of one latency family against the load (module docstring)."""
    key, title, target_key, _which = FAMILIES[family]
    placed = _placed(rows)
    if family == "gap" and placed:
        title = "Inter-token latency" if placed[0].get("gap_name") == "ITL" else "Time per token"
    data = []
    for which, style in PERCENTILE_STYLE.items():
        pairs = [(r, r[key].get(which)) for r in placed if r[key].get(which) is not None]
        if not pairs:
            continue
        trace: dict[str, Any] = {
            "type": "scatter",
            "mode": "lines+markers",
            "name": which,
            "x": [r["load_value"] for r, _ in pairs],
            "y": [v for _, v in pairs],
            "cliponaxis": False,
            "line": {"color": style["color"], "dash": style["dash"], "width": 2},
            "marker": {"color": style["color"], "size": 7},
            "hovertemplate": "%{x:g}: " + which + " %{y:,.1f} ms<extra></extra>",
        }
        if which == "p95":  # the load beside each point, once
            trace.update(
                mode="lines+markers+text",
                text=[r["tag"] for r, _ in pairs],
                textposition="top left",
            )
        data.append(trace)
    if not data:
        return None
    shapes, notes = [], []
    if target_ms:
        name = {"ttft": "TTFT p95", "gap": "ITL p95", "e2e": "E2E p99"}[family]
        words = f"{name} ≤ {float(target_ms):,.0f} ms"
        if binding is not None and binding.key == target_key:
            words += " · binds" if binding.decided else " · closest to its limit"
        shape, note = _target_line(float(target_ms), words)
        shapes.append(shape)
        notes.append(note)
    against = "concurrency" if axis == "concurrency" else "request rate"
    return {
        "data": data,
        "layout": _layout(
            f"{title} against {against}",
            _x_axis(placed, axis),
            "ms",
            shapes=shapes,
            annotations=notes,
        ),
    }


@plotly_escaped
def throughput_curve_figure(
    rows: Sequence[Mapping[str, Any]], *, axis: str, per_gpu: bool
) -> dict[str, Any] | None:
    """Output tokens/s (per GPU when the upload says how many) against the load."""
    key = "tokens_per_s_per_gpu" if per_gpu else "output_tokens_per_s"
    placed = [r for r in _placed(rows) if r.get(key) is not None]
    if not placed:
        return None
    data: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "lines",
            "name": "sweep",
            "showlegend": False,
            "hoverinfo": "skip",
            "x": [r["load_value"] for r in placed],
            "y": [r[key] for r in placed],
            "line": {"color": "#cbd5e1", "width": 1.5},
        }
    ]
    groups = (
        (True, "meets the brief", {"color": MEET_COLOUR, "size": 10}),
        (False, "misses the brief", {"color": MISS_COLOUR, "size": 10, "symbol": "x"}),
        (None, "not checked", {"color": MISS_COLOUR, "size": 10, "symbol": "diamond-open"}),
    )
    for verdict, name, marker in groups:
        chosen = [r for r in placed if r.get("meets") is verdict]
        if chosen:
            data.append(
                {
                    "type": "scatter",
                    "mode": "markers+text",
                    "name": name,
                    "x": [r["load_value"] for r in chosen],
                    "y": [r[key] for r in chosen],
                    "text": [r["tag"] for r in chosen],
                    "textposition": "top left",
                    "cliponaxis": False,
                    "marker": marker,
                    "hovertemplate": "%{text}: %{y:,.1f} tok/s<extra></extra>",
                }
            )
    picked = [r for r in placed if r.get("chosen")]
    if picked:
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"the comparison costs it at {picked[0]['load']}",
                "x": [picked[0]["load_value"]],
                "y": [picked[0][key]],
                "marker": {"symbol": "star", "size": 16, "color": CHOSEN_COLOUR},
                "hovertemplate": "costed here: %{y:,.1f} tok/s<extra></extra>",
            }
        )
    against = "concurrency" if axis == "concurrency" else "request rate"
    y_title = "output tokens/s per GPU" if per_gpu else "output tokens/s"
    return {
        "data": data,
        "layout": _layout(f"Throughput against {against}", _x_axis(placed, axis), y_title),
    }


def sweep_figures(
    report: Mapping[str, Any], targets: Any, *, per_gpu: bool = True
) -> dict[str, dict[str, Any]]:
    """The sweep page's figures by element id (only those with something to draw)."""
    rows, axis, binding = report["rows"], report["axis"], report["binding"]
    if not axis:
        return {}
    figures = {
        "fig-sweep-ttft": latency_curve_figure(
            rows, "ttft", axis=axis, target_ms=targets.ttft_p95_ms, binding=binding
        ),
        "fig-sweep-itl": latency_curve_figure(
            rows, "gap", axis=axis, target_ms=targets.itl_p95_ms, binding=binding
        ),
        "fig-sweep-throughput": throughput_curve_figure(rows, axis=axis, per_gpu=per_gpu),
    }
    if targets.e2e_p99_ms:
        figures["fig-sweep-e2e"] = latency_curve_figure(
            rows, "e2e", axis=axis, target_ms=targets.e2e_p99_ms, binding=binding
        )
    return {k: v for k, v in figures.items() if v is not None}
