"""V17: chart labels and coverage on /comparisons/<id>/.

Series are named by provider and offer (title, capacity), never by internal ids; the
recommended row is always on the cross-candidate "cost by operating point" chart (a row
costed without a sweep as its single costed point, marked as such); that chart's legend sits
below the plot; the per-candidate boundary says which target binds, and points carry their
concurrency.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest

from engine.operating_points import ServiceLevel
from procurement import charts, point_charts
from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from tests.comparisons.factories_point_charts import SWEEP, sweep_result
from tests.comparisons.factories_point_charts import costed_row as _costed
from tests.comparisons.factories_point_charts import point as _p
from tests.comparisons.factories_point_charts import swept_row as _row

UNIT = "per 1M accepted output tokens"
ID = re.compile(r"#\d+\b|\bquote:\d")  # "#38", "quote:38"


def _words(node):
    """Every text a figure shows a reader: series names, category labels, point text,
    hover text, titles and annotations (colours like "#1d4ed8" are not words)."""
    if isinstance(node, dict):
        out = []
        for key, value in node.items():
            shown = key in ("name", "text", "hovertext", "x", "y")
            if shown and isinstance(value, list):
                out += [v for v in value if isinstance(v, str)]
            elif shown and isinstance(value, str):
                out.append(value)
            else:
                out += _words(value)
        return out
    if isinstance(node, list):
        return [w for item in node for w in _words(item)]
    return []


SLO = ServiceLevel(ttft_p95_ms=800, itl_p95_ms=60, e2e_p99_ms=20_000)


def test_v17_series_are_named_by_provider_and_offer_never_by_ids():
    rows = [
        _costed("quote:38", 1, "Northwind: NW H100 8x eu-west on-demand v3"),
        _costed("quote:41", 2, "Contoso: H200 reserved 12 months v1", capacity="reserved"),
        # twins: one vendor's same offer in two regions, told apart by region
        _costed("quote:44", 3, "Contoso: H100 spot v1", capacity="spot", region="eu-west"),
        _costed("quote:45", 4, "Contoso: H100 spot v2", capacity="spot", region="eu-central"),
    ]
    stack = charts.cost_stack_figure(rows, UNIT)
    labels = list(reversed(stack["data"][0]["y"]))  # best on top of a horizontal chart
    assert labels == [
        "Northwind · NW H100 8x eu-west on-demand",
        "Contoso · H200 reserved 12 months",
        "Contoso · H100 spot · eu-west",
        "Contoso · H100 spot · eu-central",
    ]
    ranges = charts.unit_cost_range_figure(rows, UNIT)
    assert not [t for t in _words([stack, ranges]) if ID.search(t)], "an id reached a chart"


def test_v17_the_recommended_row_without_a_sweep_is_drawn_as_its_single_costed_point():
    # Given a proxy-costed winner with no sweep (ITL 25 ms → 1000 / 25 = 40 tok/s per user)
    # and a runner-up measured with a sweep
    winner = _costed("quote:38", 1, "Northwind: NW L40S spot v1", capacity="spot", cost="0.61")
    winner.performance = {"itl_p95_ms": 25.0, "throughput_source": "proxy"}
    winner.detail = {}
    swept = _row("quote:2", 2)
    # When the cross-candidate chart is built
    fig = point_charts.across_figure([winner, swept], UNIT, recommended=winner)
    # Then the winner is on it, as one point, marked as costed without a sweep
    names = [t["name"] for t in fig["data"]]
    assert names[0] == "P · Offer 2 (on-demand)"
    (mark,) = [t for t in fig["data"] if t["name"].startswith("recommended: ")]
    assert mark["name"] == (
        "recommended: Northwind · NW L40S spot, proxy, no sweep: one costed point"
    )
    assert (mark["x"], mark["y"]) == ([40.0], [0.61])
    assert mark["marker"]["symbol"] == "diamond"


def test_v17_a_recommended_row_with_no_figure_to_place_it_is_a_line_at_its_unit_cost():
    winner = _costed("quote:38", 1, "Northwind: NW L40S spot v1", capacity="spot", cost="0.61")
    winner.performance = {"throughput_source": "estimated"}
    fig = point_charts.across_figure([winner, _row("quote:2", 2)], UNIT, recommended=winner)
    (line,) = fig["layout"]["shapes"]
    assert line["y0"] == line["y1"] == 0.61
    assert fig["layout"]["annotations"][0]["text"].startswith(
        "recommended: Northwind · NW L40S spot, estimated, no sweep"
    )


def test_v17_a_recommended_sweep_is_named_so_on_its_own_line():
    best = _row("quote:1", 1)
    fig = point_charts.across_figure([best, _row("quote:2", 2)], UNIT, recommended=best)
    assert fig["data"][0]["name"] == "recommended: P · Offer 1 (on-demand)"


def test_v17_the_cross_candidate_legend_sits_below_the_plot():
    rows = [_row(f"quote:{i}", i) for i in range(1, 6)]
    layout = point_charts.across_figure(rows, UNIT)["layout"]
    legend = layout["legend"]
    assert (legend["orientation"], legend["yref"], legend["yanchor"]) == (
        "h",
        "container",
        "bottom",
    )
    # six legend entries of short names, two a row: 3 rows × 22 px + 64 px for the axis
    assert layout["margin"]["b"] == 64 + 3 * 22
    assert layout["height"] == 380 + layout["margin"]["b"]  # the plot keeps its 380 px


def test_v17_the_boundary_names_the_binding_target_and_points_carry_their_concurrency():
    points = [
        _p("concurrency 8", 80.0, "1.90", True, concurrency=8.0, ttft_p95_ms=325.0),
        _p("concurrency 32", 50.0, "0.95", True, chosen=True, concurrency=32.0, ttft_p95_ms=752.0),
        _p("concurrency 64", 25.0, "0.76", False, concurrency=64.0, ttft_p95_ms=2091.0),
    ]
    fig = point_charts.candidate_figure(_row(points=points), UNIT, SLO)
    assert fig["layout"]["annotations"][0]["text"] == (
        "service-level boundary: TTFT p95 ≤ 800 ms binds"
    )
    meets = next(t for t in fig["data"] if t["name"] == "meets the service level")
    assert meets["text"] == ["c32", "c8"]  # along the x axis: tokens/s per user 50, 80
    misses = next(t for t in fig["data"] if t["name"] == "misses the service level")
    assert misses["text"] == ["c64"]
    (section,) = point_charts.point_sections([_row(points=points)], UNIT, SLO)
    assert section["binding"].words == "TTFT p95 ≤ 800 ms"
    assert [p["load"] for p in section["points"]] == [
        "concurrency 8",
        "concurrency 32",
        "concurrency 64",
    ]
    # without the brief's targets the boundary is drawn unnamed, as before
    assert (
        point_charts.candidate_figure(_row(points=SWEEP), UNIT)["layout"]["annotations"][0]["text"]
        == "service-level boundary"
    )


@pytest.mark.django_db
def test_v17_the_comparison_page_draws_the_recommended_row_and_names_series_by_offer(
    scenario, lead, login
):
    from tests.browser.worlds_browser import h200
    from tests.comparisons.factories_comparisons import answer_checklist
    from tests.factories import ProviderFactory, QuoteFactory, WorkloadBriefFactory

    # Given the cheap L40S and the fast H100, both only estimated, and a pricey H200 offer
    # measured with a sweep
    cheap, fast = scenario["cheap"], scenario["fast"]
    pricey = QuoteFactory(
        provider=ProviderFactory(name="Pricey GPUs", slug="pricey-gpus"),
        accelerator=h200(),
        price_per_gpu_hour=Decimal("9.9900"),
        title="H200 premium",
        entered_by=lead,
    )
    answer_checklist(pricey.provider, lead)
    sweep_result(lead, pricey)
    brief = WorkloadBriefFactory(
        created_by=lead, e2e_p99_ms=30_000, ttft_p95_ms=2000, itl_p95_ms=100
    )
    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[cheap.pk, fast.pk, pricey.pk], seed=7
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    recommended = CandidateResult.objects.get(comparison=comparison, key=comparison.recommended_key)
    assert recommended.quote_id != pricey.pk  # the winner has no sweep
    assert not recommended.detail.get("operating_points")
    # When the lead opens the results
    html = login(lead).get(comparison.get_absolute_url()).content.decode()
    figures = {
        name: json.loads(body)
        for name, body in re.findall(
            r'<script id="(fig-[a-z-]+)" type="application/json">(.*?)</script>', html, re.S
        )
    }
    # Then the cross-candidate chart carries the recommended row, named by its offer and
    # marked as costed without a sweep
    across = figures["fig-points"]
    drawn = [t["name"] for t in across["data"]] + [
        n["text"] for n in across["layout"].get("annotations", [])
    ]
    offer = {cheap.pk: "Cheap GPUs · L40S on demand", fast.pk: "Fast GPUs · H100 on demand"}
    wanted = f"recommended: {offer[recommended.quote_id]}"
    assert any(n.startswith(wanted) and "no sweep: one costed point" in n for n in drawn), drawn
    assert "Pricey GPUs · H200 premium (on-demand)" in drawn
    # and no chart names a series by an internal id
    assert not [t for t in _words(figures) if ID.search(t)], "an internal id reached a chart"
    # the sweep's section says which target binds
    assert re.search(r'class="binding-target">[^<]+ (binds|is closest to its limit)</span>', html)
