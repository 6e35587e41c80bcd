"""Figure builders are pure: rows and result JSON in, JSON-ready Plotly dicts out."""

from __future__ import annotations

import json
from types import SimpleNamespace

from procurement import charts
from procurement.models import CandidateResult


def _row(key, rank, unit, p, lines, eligible=True):
    return SimpleNamespace(
        key=key,
        rank=rank,
        eligible=eligible,
        unit_cost_usd=unit,
        total_usd=sum(lines.values()),
        cost_lines={k: str(v) for k, v in lines.items()},
        p10=p[0],
        p50=p[1],
        p90=p[2],
        provider_name="P",
        accelerator_name="H100",
        capacity_model="on_demand",
    )


def test_cost_stack_bars_add_up_to_the_unit_cost():
    rows = [
        _row("quote:1", 1, 10.0, (9, 10, 11), {"gpu_compute": 600, "platform_labor": 400}),
        _row("quote:2", None, None, (None, None, None), {}, eligible=False),
    ]
    fig = charts.cost_stack_figure(rows, "per 1M accepted output tokens")
    assert [t["name"] for t in fig["data"]] == ["GPU compute", "Platform labour"]  # the labels
    assert sum(t["x"][0] for t in fig["data"]) == 10.0  # horizontal bars
    assert len(fig["data"][0]["y"]) == 1  # the ineligible row is not drawn
    json.dumps(fig)


def test_unit_cost_range_is_p10_to_p90_around_p50():
    fig = charts.unit_cost_range_figure([_row("quote:1", 1, 10.0, (8, 10, 13), {"x": 1})], "u")
    trace = fig["data"][0]
    assert trace["x"] == [10]
    assert trace["error_x"]["array"] == [3]
    assert trace["error_x"]["arrayminus"] == [2]


def test_nothing_to_draw_gives_none():
    empty = SimpleNamespace(result={})
    assert charts.cost_stack_figure([], "") is None
    assert charts.unit_cost_range_figure([], "") is None
    assert charts.breakeven_from_result(empty.result, {}) is None
    assert charts.tornado_from_result(empty.result, {}) is None
    assert charts.comparison_figures(empty, []) == {}


def test_figures_of_a_real_comparison_are_json_ready(computed):
    rows = list(CandidateResult.objects.filter(comparison=computed))
    figures = charts.comparison_figures(computed, rows)
    assert {"fig-cost", "fig-range", "fig-tornado"} <= set(figures)
    tornado = figures["fig-tornado"]["data"][0]
    assert tornado["orientation"] == "h"
    assert tornado["base"] == float(computed.result["tornado"]["baseline_unit_cost"])
    json.dumps(figures)


def test_v17_a_candidates_own_assumption_is_named_by_its_offer_not_an_id():
    labels = {"quote:19": "RunPod · MI300X secure cloud (on-demand)"}
    assert charts.assumption_label("quote:19:throughput_per_replica", labels) == (
        "throughput per replica (RunPod · MI300X secure cloud (on-demand))"
    )
    assert charts.assumption_label("monthly_accepted_outputs", labels) == (
        "monthly accepted outputs"
    )


def test_v17_short_label_is_provider_offer_title_and_capacity_never_an_id():
    row = SimpleNamespace(
        key="quote:31",
        label="Northwind: NW B200 64x eu-west v2",
        provider_name="Northwind",
        accelerator_name="B200 (HGX B200) 180GB",
        capacity_model="dedicated_cluster",
    )
    assert charts.short_label(row) == "Northwind · NW B200 64x eu-west (dedicated cluster)"
    untitled = SimpleNamespace(  # str(quote) without a title: accelerator and capacity
        key="quote:32",
        label="Northwind: H100 SXM 80GB On-demand v1",
        provider_name="Northwind",
        accelerator_name="H100 SXM 80GB",
        capacity_model="on_demand",
    )
    assert charts.short_label(untitled) == "Northwind · H100 SXM 80GB On-demand"
    assert "#" not in charts.short_label(row) + charts.short_label(untitled)
