"""Issue 17: every operating point of a sweep costed by the engine and frozen with its row."""

from __future__ import annotations

from decimal import Decimal

from engine.comparison import run_comparison
from engine.operating_points import Latency, MeasuredPoint, ServiceLevel
from engine.operating_points.costs import point_costs, tokens_per_user
from procurement.snapshot import thaw
from procurement.snapshot.sweeps import charted_point_costs
from tests.engine.builders import fixed, gpu
from tests.engine.snapshot_world import quote, result, snapshot
from tests.engine.test_billed_tokens import chat

MODEL = "meta-llama/Llama-3.1-70B-Instruct"


def _point(c: float, tps: float, ttft: float, itl_p50: float, samples=()) -> dict:
    return {
        "label": f"concurrency {c:g}",
        "concurrency": c,
        "output_tokens_per_s": tps,
        "ttft_ms": {"p50": None, "p95": ttft, "p99": None, "mean": None},
        "itl_ms": {"p50": itl_p50, "p95": itl_p50 * 1.5, "p99": None, "mean": None},
        "request_samples": [list(s) for s in samples],
    }


SWEEP = [_point(8, 1200, 300, 12), _point(32, 2400, 835, 20), _point(64, 3000, 2600, 40)]


def _thawed(sweep=SWEEP, **brief):
    res = result(5, MODEL, operating_points=sweep)
    targets = {"ttft_p95_ms": 2000, "concurrency": 32, **brief}
    return thaw(snapshot([quote(1, "2.50")], [res], **targets))


def _points(thawed, key="quote:1"):
    """The row's sweep as compute() freezes it: costed once the engine has ranked the rows."""
    output = run_comparison(thawed.input, seed=3, samples=200)
    return charted_point_costs(thawed, output).get(key)


def test_issue17_each_point_is_costed_and_the_chosen_one_costs_what_the_row_does():
    thawed = _thawed()
    points = _points(thawed)
    assert [p["label"] for p in points] == ["concurrency 8", "concurrency 32", "concurrency 64"]
    assert [p["chosen"] for p in points] == [False, True, False]
    assert [p["meets"] for p in points] == [True, True, False]
    assert points[1]["statement"] == "concurrency 32, TTFT p95 835 ms, ITL p95 30.0 ms"
    out = run_comparison(thawed.input, seed=3, samples=200)
    (row,) = out.candidates
    assert Decimal(points[1]["unit_cost"]) == row.unit_cost
    costs = [Decimal(p["unit_cost"]) for p in points]
    # more tokens per second for the same GPU-hours: cheaper per token, even past the SLO
    assert costs[0] > costs[1] > costs[2]


def test_issue17_the_x_axis_is_tokens_per_second_per_user():
    points = _points(_thawed())
    assert [p["tokens_per_s_per_user"] for p in points] == [
        83.333,  # 1000 / 12 ms, frozen to 0.001
        50.0,
        25.0,
    ]
    no_gap = MeasuredPoint("r", concurrency=10, output_tokens_per_s=900)
    assert tokens_per_user(no_gap) == 90.0
    rate_only = MeasuredPoint("r", request_rate_per_s=4, output_tokens_per_s=900)
    assert tokens_per_user(rate_only) is None
    mean_only = MeasuredPoint("m", output_tokens_per_s=9, tpot_ms=Latency(mean=25.0))
    assert tokens_per_user(mean_only) == 40.0


def test_n6_slo_attainment_is_shown_per_point_and_does_not_raise_its_cost():
    """Half of the point's requests miss TTFT 2 s: attainment 0.5 is shown, the cost is the
    same as without samples (the requests were served; the p95 gate decides)."""
    slo = ServiceLevel(ttft_p95_ms=2000)
    samples = ((500.0, 10.0, 900.0, True), (2500.0, 10.0, 900.0, True))
    point = MeasuredPoint(
        "c32", concurrency=32, output_tokens_per_s=2400, ttft_ms=Latency(p95=1900)
    )
    offer = gpu(throughput_per_replica=fixed(2400))
    workload = chat(workload_class="realtime_inference")
    (plain,) = point_costs(workload, offer, [point], slo, realtime=True, chosen_label="c32")
    halved = MeasuredPoint(**{**_fields(point), "request_samples": samples})
    (good,) = point_costs(workload, offer, [halved], slo, realtime=True, chosen_label="c32")
    assert good["goodput"] == 0.5
    assert plain["goodput"] is None
    assert good["unit_cost"] == plain["unit_cost"]
    assert good["slo_attainment"] == 0.5
    (batch,) = point_costs(workload, offer, [halved], slo, realtime=False, chosen_label="x")
    assert batch["goodput"] is None
    assert batch["unit_cost"] == plain["unit_cost"]
    assert batch["chosen"] is False


def _fields(point: MeasuredPoint) -> dict:
    return {name: getattr(point, name) for name in point.__slots__}


def test_issue17_a_single_point_result_freezes_no_sweep():
    assert _points(_thawed(sweep=SWEEP[1:2])) is None


def test_issue17_batch_takes_the_cheapest_point_its_window_allows_and_says_so():
    """Batch: no goodput; the cheapest point whose p99 end-to-end fits the window."""
    sweep = [
        {**_point(8, 1200, 300, 12), "e2e_ms": {"p99": 4000.0}},
        {**_point(64, 3000, 2600, 40), "e2e_ms": {"p99": 11000.0}},
        {**_point(256, 4200, 9000, 90), "e2e_ms": {"p99": 30000.0}},
    ]
    thawed = _thawed(sweep, workload_class="batch_inference", ttft_p95_ms=None, e2e_p99_ms=12000)
    perf = thawed.facts["quote:1"]["performance"]
    assert perf["tokens_per_s"] == 3000.0
    assert perf["evidence"]["operating_point"] == (
        "concurrency 64, TTFT p95 2,600 ms, ITL p95 60.0 ms, E2E p99 11,000 ms"
        " (batch: the cheapest point the window allows)"
    )
    assert perf["evidence"]["goodput"] is None
    points = _points(thawed)
    assert [p["meets"] for p in points] == [True, True, False]
    assert [p["goodput"] for p in points] == [None, None, None]
    assert [p["chosen"] for p in points] == [False, True, False]
    unbounded = _thawed(sweep, workload_class="batch_inference", ttft_p95_ms=None)
    assert unbounded.facts["quote:1"]["performance"]["tokens_per_s"] == 4200.0
    assert unbounded.facts["quote:1"]["performance"]["evidence"]["operating_point"].endswith(
        "(batch: the cheapest point, no latency objective)"
    )


def test_issue17_only_the_charted_rows_get_their_points_costed():
    """60 offers on one sweep: the 50 cheapest (the first results page) carry their points."""
    res = result(5, MODEL, operating_points=SWEEP)
    offers = [quote(i, f"{2 + i / 100:.2f}") for i in range(1, 61)]
    thawed = thaw(snapshot(offers, [res], ttft_p95_ms=2000, concurrency=32))
    output = run_comparison(thawed.input, seed=3, samples=100)
    costed = charted_point_costs(thawed, output)
    assert sorted(costed, key=lambda k: int(k.split(":")[1])) == [
        f"quote:{i}" for i in range(1, 51)
    ]
    assert charted_point_costs(thawed, output, rows=3).keys() == {"quote:1", "quote:2", "quote:3"}
