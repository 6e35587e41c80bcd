"""Numbers a real sweep survives (issue 24), in the engine: C1, N1, N6, N8, N9 and the
brief's maximum error rate, with hypothesis property tests over random sweeps and mixes."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import montecarlo
from engine.comparison import run_comparison
from engine.operating_points import Latency, MeasuredPoint, ServiceLevel, choose_point
from engine.operating_points.costs import point_costs
from procurement.snapshot import thaw
from procurement.snapshot.sweeps import charted_point_costs
from tests.engine.builders import fixed, gpu
from tests.engine.snapshot_world import quote, result, snapshot
from tests.engine.test_billed_tokens import chat
from tests.engine.test_montecarlo import (
    make_candidates,
    media_candidates,
    media_workload,
    workload,
)

MODEL = "meta-llama/Llama-3.1-70B-Instruct"
SLO = ServiceLevel(ttft_p95_ms=500, itl_p95_ms=50, e2e_p99_ms=15_000)


def _pt(c: float, tps: float, ttft: float, errors: float | None = None) -> MeasuredPoint:
    return MeasuredPoint(
        f"c{c:g}",
        concurrency=c,
        output_tokens_per_s=tps,
        ttft_ms=Latency(p95=ttft),
        itl_ms=Latency(p50=20, p95=30),
        e2e_ms=Latency(p99=9000),
        error_rate=errors,
    )


# --- C1: the Monte Carlo, whatever the chunk size and the mix ------------------------------


def test_c1_one_gpu_quote_and_two_api_routes_chunked_by_path():
    """The sort workspace was sized by the first chunk (one GPU row); the API chunk of two
    rows that came next overflowed it."""
    w = workload()
    cands = [c for c in make_candidates(18) if c.kind == "api"][:2]
    cands.insert(0, next(c for c in make_candidates(3) if c.kind == "gpu"))
    result = montecarlo.simulate(w, cands, seed=5, samples=500, chunk_candidates=4)
    assert [s.candidate_id for s in result.stats] == [c.id for c in cands]
    assert sum(s.prob_cheapest for s in result.stats) == 1.0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    picks=st.lists(st.integers(0, 35), min_size=1, max_size=10),
    chunk=st.integers(1, 12),
    media=st.booleans(),
)
def test_c1_property_same_answer_for_any_chunk_size_and_mix(picks, chunk, media):
    if media:
        pool = media_candidates()
        w = media_workload()
    else:
        pool = make_candidates(36)
        w = workload()
    cands = []
    for n, i in enumerate(picks):
        base = pool[i % len(pool)]
        cands.append(base.__class__(**{**_fields(base), "id": f"{base.id}#{n}"}))
    whole = montecarlo.simulate(w, cands, seed=9, samples=300)
    chunked = montecarlo.simulate(w, cands, seed=9, samples=300, chunk_candidates=chunk)
    assert whole.stats == chunked.stats


def _fields(obj) -> dict:
    return {name: getattr(obj, name) for name in obj.__dataclass_fields__}


# --- N9: no point past the first miss -------------------------------------------------------


def test_n9_the_row_says_the_sweep_is_non_monotone():
    sweep = [
        _point_dict(4, 800.0, 100.0, 0.0, []),
        _point_dict(8, 1500.0, 520.0, 0.0, []),
        _point_dict(16, 2500.0, 480.0, 0.0, []),
    ]
    res = result(5, MODEL, operating_points=sweep)
    thawed = thaw(snapshot([quote(1, "2.50")], [res], ttft_p95_ms=500, concurrency=4))
    perf = thawed.facts["quote:1"]["performance"]
    assert perf["tokens_per_s"] == 800.0  # c4, not c16
    assert "non-monotone" in perf["evidence"]["non_monotone"]
    assert "non-monotone" in thawed.input.candidates[0].evidence_detail


def test_n9_a_point_past_a_failing_one_is_not_chosen_and_the_row_says_why():
    sweep = [_pt(4, 800, 100), _pt(8, 1500, 520), _pt(16, 2500, 480)]
    choice = choose_point(sweep, SLO)
    assert choice is not None
    assert choice.label == "c4"  # was c16, past the c8 miss
    assert "non-monotone" in choice.non_monotone
    assert "concurrency 16" in choice.non_monotone
    assert "concurrency 8 misses it" in choice.non_monotone
    monotone = choose_point([_pt(4, 800, 100), _pt(8, 1500, 300)], SLO)
    assert monotone is not None
    assert monotone.non_monotone == ""


# --- N8 and the maximum error rate -----------------------------------------------------------


def test_n8_the_chosen_point_is_the_cheapest_point_on_the_rows_chart():
    """c16 2,500 tok/s without errors; c32 3,200 tok/s with 30 % errors, both within the
    latency targets. Throughput is successful tokens per second, so c32 is cheaper, and it
    is the one chosen; the chart costs it at its own throughput."""
    sweep = [_pt(16, 2500, 300, errors=0.0), _pt(32, 3200, 450, errors=0.3)]
    choice = choose_point(sweep, SLO)
    assert choice is not None
    assert choice.label == "c32"
    assert choice.error_rate == 0.3
    w = chat(workload_class="realtime_inference", output_tokens_per_request=200)
    costed = point_costs(
        w,
        gpu(throughput_per_replica=fixed(3200)),
        sweep,
        SLO,
        realtime=True,
        chosen_label=choice.label,
    )
    cheapest = min((p for p in costed if p["meets"]), key=lambda p: Decimal(p["unit_cost"] or 0))
    assert cheapest["chosen"]
    assert cheapest["label"] == "c32"
    # 1e6 × 200 / 3,200 / 3,600 = 17.361 h × 2.50 = 43.40 (to the cent) / 200 = 0.217000
    assert cheapest["unit_cost"] == "0.217000"


def test_n8_the_briefs_maximum_error_rate_is_a_gate():
    sweep = [_pt(16, 2500, 300, errors=0.0), _pt(32, 3200, 450, errors=0.3)]
    capped = ServiceLevel(ttft_p95_ms=500, itl_p95_ms=50, e2e_p99_ms=15_000, max_error_rate=0.05)
    choice = choose_point(sweep, capped)
    assert choice is not None
    assert choice.label == "c16"
    assert "errors" not in choice.statement  # c16 has none
    assert "errors 30.0 %" in choose_point(sweep[1:], capped).statement
    every_point_errs = [_pt(16, 2500, 300, errors=0.2), _pt(32, 3200, 450, errors=0.3)]
    worst = choose_point(every_point_errs, capped)
    assert worst is not None
    assert worst.meets is False
    no_figure = [
        MeasuredPoint("c16", concurrency=16, output_tokens_per_s=2500, ttft_ms=Latency(p95=300))
    ]
    open_verdict = choose_point(no_figure, ServiceLevel(ttft_p95_ms=500, max_error_rate=0.05))
    assert open_verdict is not None
    assert open_verdict.meets is None
    assert "error rate" in open_verdict.unchecked


def test_n8_the_maximum_error_rate_makes_the_row_ineligible_with_its_reason():
    points = [
        {
            "label": "concurrency 16",
            "concurrency": 16.0,
            "output_tokens_per_s": 2500.0,
            "ttft_ms": {"p95": 300.0},
            "error_rate": 0.2,
        }
    ]
    res = result(5, MODEL, operating_points=points, failure_rate=0.2)
    thawed = thaw(
        snapshot([quote(1, "2.50")], [res], ttft_p95_ms=500, max_error_rate=0.05, concurrency=16)
    )
    (cand,) = thawed.input.candidates
    assert any("error rate 20.0 %" in r and "maximum 5.0 %" in r for r in cand.ineligible_reasons)
    output = run_comparison(thawed.input, seed=3, samples=200)
    assert output.candidates[0].eligible is False


# --- N1 and the property: random sweeps never fail a comparison ------------------------------


def _point_dict(c, tps, ttft, errors, samples):
    return {
        "label": f"concurrency {c:g}",
        "concurrency": c,
        "output_tokens_per_s": tps,
        "ttft_ms": {"p50": None, "p95": ttft, "p99": None, "mean": None},
        "itl_ms": {"p50": 20.0, "p95": 30.0, "p99": None, "mean": None},
        "e2e_ms": {"p50": None, "p95": None, "p99": 9000.0, "mean": None},
        "error_rate": errors,
        "request_samples": samples,
    }


def test_n1_a_point_no_request_meets_is_kept_and_the_comparison_is_ready():
    every_miss = [[900.0, 20.0, 9000.0, True]] * 4
    sweep = [
        _point_dict(8, 1500.0, 200.0, 0.0, [[200.0, 20.0, 9000.0, True]] * 4),
        _point_dict(32, 3500.0, 900.0, 0.0, every_miss),
        _point_dict(64, 0.0, None, 1.0, [[None, None, None, False]] * 4),  # all failed
    ]
    res = result(5, MODEL, operating_points=sweep, acceptance_rate=0.8)
    thawed = thaw(snapshot([quote(1, "2.50")], [res], ttft_p95_ms=500))
    output = run_comparison(thawed.input, seed=3, samples=200)
    points = charted_point_costs(thawed, output)["quote:1"]
    by = {p["concurrency"]: p for p in points}
    assert by[8.0]["chosen"] is True
    assert by[32.0]["meets"] is False
    assert by[32.0]["slo_attainment"] == 0.0
    assert by[32.0]["costable"] is True  # costed at its own throughput, shown as a miss
    assert by[64.0]["costable"] is False
    assert by[64.0]["reason"] == "not costable: every request failed"


_sample = st.tuples(
    st.one_of(st.none(), st.floats(0, 3000)),
    st.one_of(st.none(), st.floats(0, 200)),
    st.one_of(st.none(), st.floats(0, 30000)),
    st.booleans(),
).map(list)
_points = st.lists(
    st.builds(
        _point_dict,
        st.sampled_from([1.0, 4.0, 8.0, 16.0, 16.0, 32.0, 64.0]),  # repeated points too
        st.one_of(st.just(0.0), st.floats(0, 20000)),
        st.one_of(st.none(), st.floats(0, 5000)),
        st.one_of(st.none(), st.floats(0, 1)),
        st.lists(_sample, max_size=6),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sweep=_points,
    acceptance=st.one_of(st.none(), st.floats(0.01, 1)),
    cap=st.one_of(st.none(), st.floats(0, 0.5)),
    failure=st.one_of(st.none(), st.floats(0, 1)),
)
def test_n1_property_random_sweeps_never_fail_a_comparison(sweep, acceptance, cap, failure):
    res = result(5, MODEL, operating_points=sweep, acceptance_rate=acceptance, failure_rate=failure)
    thawed = thaw(
        snapshot([quote(1, "2.50")], [res], ttft_p95_ms=500, itl_p95_ms=50, max_error_rate=cap)
    )
    output = run_comparison(thawed.input, seed=3, samples=100)
    assert len(output.candidates) == 1
    for p in charted_point_costs(thawed, output).get("quote:1", []):
        assert p["costable"] or p["reason"].startswith("not costable")
        assert np.isfinite(p["tokens_per_s"])
