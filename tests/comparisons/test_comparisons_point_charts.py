"""Issue 17: operating-point charts read the per-point costs frozen with each row."""

from __future__ import annotations

import json
import re

import pytest

from procurement import point_charts
from procurement.models import CandidateResult
from procurement.services.comparisons import comparison_create, comparison_run
from tests.comparisons.factories_point_charts import SWEEP
from tests.comparisons.factories_point_charts import point as _p
from tests.comparisons.factories_point_charts import sweep_result as _sweep_result
from tests.comparisons.factories_point_charts import swept_row as _row

UNIT = "per 1M accepted output tokens"


def test_issue17_candidate_chart_marks_the_chosen_point_and_styles_misses_apart():
    fig = point_charts.candidate_figure(_row(), UNIT)
    names = [t["name"] for t in fig["data"]]
    assert names == [
        "sweep",
        "meets the service level",
        "misses the service level",
        "costed at: concurrency 32, TTFT p95 …",
    ]
    meets, misses, chosen = fig["data"][1:]
    assert meets["x"] == [50.0, 80.0]  # along the x axis
    assert misses["x"] == [25.0]
    assert misses["marker"]["symbol"] == "x"
    assert chosen["y"] == [0.95]
    assert chosen["marker"]["symbol"] == "star"
    assert fig["layout"]["yaxis"]["title"]["text"] == f"USD {UNIT}"
    assert "tokens/s per user" in fig["layout"]["xaxis"]["title"]["text"]
    json.dumps(fig)


def test_candidate_chart_legend_sits_below_the_plot_inside_the_figure():
    layout = point_charts.candidate_figure(_row(), UNIT)["layout"]
    legend = layout["legend"]
    assert (legend["orientation"], legend["yref"], legend["yanchor"]) == (
        "h",
        "container",
        "bottom",
    )
    assert layout["margin"]["b"] >= 150  # the axis title and the wrapped legend rows
    assert "height" not in layout  # the chart's box sets it: the figure cannot outgrow it


def test_issue17_the_service_level_boundary_is_drawn_at_the_last_point_meeting_it():
    fig = point_charts.candidate_figure(_row(), UNIT)
    line, shade = fig["layout"]["shapes"]
    assert line["x0"] == line["x1"] == 50.0
    assert line["line"]["dash"] == "dash"
    assert shade["x1"] == 50.0
    assert shade["x0"] < 25.0
    assert fig["layout"]["annotations"][0]["text"] == "service-level boundary"
    every_point_meets = [_p("a", 10.0, "1", True), _p("b", 20.0, "2", True, chosen=True)]
    fig = point_charts.candidate_figure(_row(points=every_point_meets), UNIT)
    assert fig["layout"]["shapes"] == []


def test_issue17_across_candidates_one_line_each_and_the_chosen_points_as_stars():
    rows = [
        _row("quote:1", 1),
        _row(
            "quote:2", 2, points=[_p("a", 30.0, "2", True, chosen=True), _p("b", 9.0, "1", False)]
        ),
        _row("quote:3", None, eligible=False),
        _row("quote:4", 3, points=SWEEP[:1]),  # a single drawable point: no line
    ]
    fig = point_charts.across_figure(rows, UNIT)
    assert [t["name"] for t in fig["data"]] == [
        "P · Offer 1 (on-demand)",
        "P · Offer 2 (on-demand)",
        "chosen points",
    ]
    assert fig["data"][1]["marker"]["symbol"] == ["x", "circle"]
    assert fig["data"][-1]["y"] == [0.95, 2.0]
    assert point_charts.across_figure([_row(points=[])], UNIT) is None


def test_issue17_sections_list_every_point_for_the_table():
    (section,) = point_charts.point_sections([_row(), _row("quote:9", points=SWEEP[:1])], UNIT)
    assert len(section["points"]) == 4  # the point without tokens/s per user too
    assert section["chosen"]["label"] == "concurrency 32"
    assert section["figure_id"] == "fig-points-0"


# --- the page, from a real comparison over a benchmark sweep --------------------------------


@pytest.fixture
def swept(scenario, lead):
    from tests.factories import WorkloadBriefFactory

    quote = scenario["fast"]
    _sweep_result(lead, quote)
    brief = WorkloadBriefFactory(
        created_by=lead, e2e_p99_ms=30_000, ttft_p95_ms=2000, itl_p95_ms=100
    )
    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[quote.pk], seed=7
    ).comparison
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    return comparison, CandidateResult.objects.get(comparison=comparison, key=f"quote:{quote.pk}")


def test_issue17_the_page_shows_each_sweep_with_its_chart_and_table(swept, login, lead):
    comparison, row = swept
    points = row.detail["operating_points"]
    assert [p["chosen"] for p in points] == [False, True, False]
    assert row.performance["evidence"]["operating_point"].startswith("concurrency 32, TTFT p95 835")
    html = login(lead).get(comparison.get_absolute_url()).content.decode()
    assert "Operating points at the brief" in html
    assert f'id="points-{row.key.replace(":", "")}"' in html
    assert "at concurrency 32, TTFT p95 835 ms" in html  # the row says the point
    assert 'id="fig-points-0"' in html
    assert 'data-plotly="fig-points-0"' in html
    assert 'id="fig-points"' in html  # the across-candidates chart
    assert html.count("costed here") == 1
    assert "misses" in html
    assert f"USD {UNIT}" in html


def test_issue17_the_review_page_and_record_say_where_the_row_was_costed(swept, login, finance):
    comparison, _row = swept
    client = login(finance)
    for path in ("review", "record"):
        html = client.get(f"/comparisons/{comparison.pk}/{path}/").content.decode()
        assert "at concurrency 32, TTFT p95 835 ms" in html, path


def test_issue17_a_row_past_the_costed_rows_says_its_point_and_why_it_has_no_chart(
    scenario, lead, login, monkeypatch
):
    from tests.factories import WorkloadBriefFactory

    # Given two offers measured with a sweep, and only the recommended row's points costed
    # (as for a row past the first 50 eligible ones)
    monkeypatch.setattr("procurement.snapshot.sweeps.CHARTED_ROWS", 0)
    quotes = [scenario["fast"], scenario["cheap"]]
    for sha, quote in zip("12", quotes, strict=True):
        _sweep_result(lead, quote, sha=sha)
    brief = WorkloadBriefFactory(
        created_by=lead, e2e_p99_ms=30_000, ttft_p95_ms=2000, itl_p95_ms=100
    )
    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[q.pk for q in quotes], seed=7
    ).comparison
    # When the comparison runs
    comparison_run(comparison_id=comparison.pk)
    comparison.refresh_from_db()
    rows = {r.key: r for r in CandidateResult.objects.filter(comparison=comparison)}
    (other,) = [r for k, r in rows.items() if k != comparison.recommended_key]
    # Then the recommended row has its points; the other keeps its chosen point and says why
    # it has no chart
    assert rows[comparison.recommended_key].detail["operating_points"]
    assert "operating_points" not in other.detail
    assert other.performance["evidence"]["operating_point"].startswith("concurrency 32")
    assert other.detail["operating_points_uncosted"] == {
        "points": 3,
        "note": "points are costed for the first 0 eligible rows",
    }
    html = login(lead).get(comparison.get_absolute_url()).content.decode()
    uncosted_line = re.search(
        r'class="muted small operating-point">at concurrency 32, TTFT p95 835 ms[^<]*'
        r' · 3 points, no chart: <span class="points-uncosted">'
        r"points are costed for the first 0 eligible rows</span>",
        html,
    )
    assert uncosted_line is not None  # the row says its point, and why it has no chart
    assert f'id="points-{other.key.replace(":", "")}"' not in html
