"""V12: a sweep is shown as a sweep.

The audit's world: three one-level vLLM files of one sweep (concurrency 8, 32, 64 on 8 ×
H200; p95 TTFT 325, 752 and 2,091 ms) for a brief with TTFT p95 ≤ 800 ms, ITL p95 ≤ 60 ms and
E2E p99 ≤ 20,000 ms. The c64 level misses TTFT (2,091 > 800) and meets the others (ITL 41 ≤
60, E2E 16,500 ≤ 20,000), so TTFT p95 binds; the comparison costs the sweep at c32 (the
most tokens/s among the levels before the first miss).
"""

from __future__ import annotations

import json

import pytest

from benchmarks import charts
from benchmarks.file_figures import extra_rows
from benchmarks.models import BenchmarkResult
from tests.benchmarks.factories_benchmarks import (
    BenchmarkResultFactory,
    audit_sweep,
    level_metrics,
    metrics_dict,
)
from tests.factories import WorkloadBriefFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def sweep_world(lead, engineer, quote_b):
    brief = WorkloadBriefFactory(created_by=lead, ttft_p95_ms=800, itl_p95_ms=60, e2e_p99_ms=20_000)
    files = audit_sweep(quote=quote_b, brief=brief, uploaded_by=engineer)
    return brief, files


def test_v12_the_sweep_page_has_a_row_per_load_level_and_names_the_binding_target(
    sweep_world, login, engineer
):
    _brief, (c8, _c32, _c64) = sweep_world
    response = login(engineer).get(f"/benchmarks/sweeps/{c8.pk}/")
    assert response.status_code == 200
    report = response.context["report"]
    rows = report["rows"]
    assert [r["load"] for r in rows] == ["concurrency 8", "concurrency 32", "concurrency 64"]
    assert [r["ttft"]["p95"] for r in rows] == [325.0, 752.0, 2091.0]
    # tok/s per GPU = output tok/s ÷ 8 GPUs: 1,200 / 8 = 150, 2,400 / 8 = 300, 3,000 / 8 = 375
    assert [r["tokens_per_s_per_gpu"] for r in rows] == [150.0, 300.0, 375.0]
    assert [r["meets"] for r in rows] == [True, True, False]
    assert rows[2]["misses"] == ["TTFT p95 2,091 ms > 800 ms"]
    assert [r["chosen"] for r in rows] == [False, True, False]
    assert report["binding"].words == "TTFT p95 ≤ 800 ms"
    assert report["binding"].decided is True
    html = response.content.decode()
    assert "TTFT p95 ≤ 800 ms · binds" in html
    assert "costed here" in html
    assert "Workload measured" in html
    assert {"fig-sweep-ttft", "fig-sweep-itl", "fig-sweep-throughput", "fig-sweep-e2e"} == set(
        response.context["figures"]
    )
    for name in ("c8.json", "c32.json", "c64.json"):  # every file of the sweep is linked
        assert name in html


def test_v12_the_ttft_curve_draws_the_target_with_its_value_and_labels_each_load(
    sweep_world, login, engineer
):
    _brief, (c8, _c32, _c64) = sweep_world
    figures = login(engineer).get(f"/benchmarks/sweeps/{c8.pk}/").context["figures"]
    ttft = figures["fig-sweep-ttft"]
    p95 = next(t for t in ttft["data"] if t["name"] == "p95")
    assert p95["x"] == [8.0, 32.0, 64.0]
    assert p95["y"] == [325.0, 752.0, 2091.0]
    assert p95["text"] == ["c8", "c32", "c64"]
    (line,) = ttft["layout"]["shapes"]
    assert line["y0"] == line["y1"] == 800.0
    assert ttft["layout"]["annotations"][0]["text"] == "TTFT p95 ≤ 800 ms · binds"
    assert ttft["layout"]["xaxis"]["type"] == "log"  # 8 → 64: eight times the load
    itl_note = figures["fig-sweep-itl"]["layout"]["annotations"][0]["text"]
    assert itl_note == "ITL p95 ≤ 60 ms"  # valued, and not the one that binds
    throughput = figures["fig-sweep-throughput"]
    star = throughput["data"][-1]
    assert star["name"] == "the comparison costs it at concurrency 32"
    assert star["y"] == [300.0]
    missed = next(t for t in throughput["data"] if t["name"] == "misses the brief")
    assert missed["text"] == ["c64"]
    json.dumps(figures)


def test_v12_each_file_of_a_sweep_links_to_its_sweep_page(sweep_world, login, engineer):
    _brief, files = sweep_world
    client = login(engineer)
    head = files[0].pk
    for result in files:
        html = client.get(result.get_absolute_url()).content.decode()
        assert f'href="/benchmarks/sweeps/{head}/"' in html, result.original_name
        assert "one of the 3 files of a sweep of 3 load levels" in html
    # the sweep lives at its first file's address; another file's address leads there
    response = client.get(f"/benchmarks/sweeps/{files[2].pk}/")
    assert response.status_code == 302
    assert response["Location"] == f"/benchmarks/sweeps/{head}/"


def test_v12_a_result_alone_has_no_sweep_page(login, engineer, quote_a, brief):
    alone = BenchmarkResultFactory(
        quote=quote_a, accelerator=quote_a.accelerator, brief=brief, metrics=level_metrics(
            16, 1800.0, 400.0, 30.0, 9000.0
        )
    )  # fmt: skip
    client = login(engineer)
    response = client.get(f"/benchmarks/sweeps/{alone.pk}/")
    assert response.status_code == 302
    assert response["Location"] == alone.get_absolute_url()
    assert "/benchmarks/sweeps/" not in client.get(alone.get_absolute_url()).content.decode()


def test_v12_one_file_holding_several_levels_is_a_sweep_too(login, engineer, quote_a, brief):
    levels = [level_metrics(c, t, f, 30.0, 9000.0) for c, t, f in ((1, 150.0, 210.0),
              (16, 1800.0, 600.0), (64, 3000.0, 3500.0))]  # fmt: skip
    metrics = {**levels[-1], "operating_points": [m["operating_points"][0] for m in levels]}
    result = BenchmarkResultFactory(
        quote=quote_a, accelerator=quote_a.accelerator, brief=brief, metrics=metrics, gpu_count=4
    )
    client = login(engineer)
    assert f'href="/benchmarks/sweeps/{result.pk}/"' in (
        client.get(result.get_absolute_url()).content.decode()
    )
    report = client.get(f"/benchmarks/sweeps/{result.pk}/").context["report"]
    assert [r["tag"] for r in report["rows"]] == ["c1", "c16", "c64"]
    assert report["binding"].words == "TTFT p95 ≤ 800 ms"


def test_v12_the_compare_page_joins_a_sweeps_points_on_the_binding_targets_axis(
    sweep_world, login, engineer, quote_a
):
    brief, files = sweep_world
    other = BenchmarkResultFactory(  # a single-level result of another candidate
        quote=quote_a, accelerator=quote_a.accelerator, brief=brief, gpu_count=4,
        metrics=level_metrics(16, 2000.0, 500.0, 30.0, 9000.0),
    )  # fmt: skip
    response = login(engineer).get(f"/benchmarks/compare/?brief={brief.pk}")
    figure = response.context["figure"]
    assert response.context["binding"].words == "TTFT p95 ≤ 800 ms"
    swept = next(t for t in figure["data"] if t["mode"].startswith("lines"))
    assert swept["x"] == [325.0, 752.0, 2091.0]  # x: p95 TTFT, not p99 E2E
    assert swept["y"] == [150.0, 300.0, 375.0]
    assert swept["text"] == ["c8", "c32", "c64"]
    lone = next(t for t in figure["data"] if not t["mode"].startswith("lines"))
    assert (lone["x"], lone["y"], lone["text"]) == ([500.0], [500.0], ["c16"])
    assert figure["layout"]["shapes"][0]["x0"] == 800.0
    assert figure["layout"]["annotations"][0]["text"] == "brief: TTFT p95 ≤ 800 ms"
    assert "p95 time to first token" in figure["layout"]["xaxis"]["title"]["text"]
    # room right of the last point for its label: the axis runs 15 % past it
    assert figure["layout"]["xaxis"]["range"] == [0, pytest.approx(2091.0 * 1.15)]
    rows = {r["result_id"]: r for r in response.context["rows"]}
    assert rows[files[1].pk]["load"] == "concurrency 32"
    assert rows[files[1].pk]["sweep_id"] == files[0].pk
    assert rows[other.pk]["sweep_id"] is None
    html = response.content.decode()
    assert f'href="/benchmarks/sweeps/{files[0].pk}/"' in html
    assert "concurrency 64" in html


def test_v12_without_a_binding_target_the_compare_axis_stays_p99_e2e(login, engineer, quote_a):
    brief = WorkloadBriefFactory(ttft_p95_ms=None, itl_p95_ms=None, e2e_p99_ms=None)
    BenchmarkResultFactory(quote=quote_a, accelerator=quote_a.accelerator, brief=brief)
    response = login(engineer).get(f"/benchmarks/compare/?brief={brief.pk}")
    assert response.context["binding"] is None
    assert response.context["figure"]["data"][0]["x"] == [12000.0]
    assert response.context["figure"]["layout"]["shapes"] == []


def test_v12_percentiles_are_dots_on_the_log_axis_not_bars():
    figure = charts.latency_percentiles_figure(metrics_dict())
    assert {t["type"] for t in figure["data"]} == {"scatter"}
    assert {t["mode"] for t in figure["data"]} == {"markers"}
    assert figure["layout"]["yaxis"]["type"] == "log"


def test_v12_the_histograms_target_line_says_its_value(sweep_world, login, engineer):
    _brief, (c8, _c32, _c64) = sweep_world
    c8.distributions = {
        "ttft_ms": {"edges": [0, 200, 400, 600], "counts": [10, 70, 20], "count": 100,
                    "p50": 300.0, "p99": 590.0, "max": 600.0, "overflow": 0},
    }  # fmt: skip
    c8.save()
    figure = login(engineer).get(c8.get_absolute_url()).context["charts"]["ttft"]
    notes = [n["text"] for n in figure["layout"]["annotations"]]
    assert "brief: TTFT p95 ≤ 800 ms" in notes


def test_v12_the_files_other_figures_read_as_a_table_with_units():
    rows = extra_rows(
        {
            "mean_ttft_ms": 1210.652870045501,
            "request_throughput": 3.483002633829972,
            "total_input_tokens": 1599800,
            "power.draw_max": 74.31,
            "duration": 57.42171942605637,
            "backend": "openai",
        }
    )
    assert [(r["name"], r["value"], r["unit"]) for r in rows] == [
        ("Backend", "openai", ""),
        ("Duration", "57.4", "s"),
        ("Mean TTFT", "1,211", "ms"),
        ("Power draw max", "74.3", "W"),
        ("Request throughput", "3.48", "requests/s"),
        ("Total input tokens", "1,599,800", "tokens"),
    ]
    assert rows[2]["key"] == "mean_ttft_ms"  # the file's own key stays beside the name


def test_v12_the_result_page_shows_no_fifteen_digit_floats(login, engineer, quote_a):
    result = BenchmarkResultFactory(
        quote=quote_a,
        accelerator=quote_a.accelerator,
        metrics={**metrics_dict(), "extra": {"mean_ttft_ms": 1210.652870045501}},
    )
    html = login(engineer).get(result.get_absolute_url()).content.decode()
    assert "1210.652870045501" not in html
    assert '<th scope="row">Mean TTFT</th><td class="num">1,211</td><td>ms</td>' in html


def test_v12_parsed_status_only(login, engineer, quote_a):
    pending = BenchmarkResultFactory(
        quote=quote_a, accelerator=quote_a.accelerator, status=BenchmarkResult.Status.PENDING
    )
    response = login(engineer).get(f"/benchmarks/sweeps/{pending.pk}/")
    assert response.status_code == 302
    assert response["Location"] == pending.get_absolute_url()
