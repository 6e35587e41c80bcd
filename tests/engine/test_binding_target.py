"""V12/V17: which of the brief's targets binds a sweep (engine/operating_points/binding.py)."""

from __future__ import annotations

from engine.operating_points import ServiceLevel
from engine.operating_points.binding import Binding, binding_across, binding_target

SLO = ServiceLevel(ttft_p95_ms=800, itl_p95_ms=60, e2e_p99_ms=20_000)


def _p(ttft, itl=30.0, e2e=9000.0, errors=0.0):
    return {"ttft_p95_ms": ttft, "itl_p95_ms": itl, "e2e_p99_ms": e2e, "error_rate": errors}


def test_v12_the_first_target_missed_as_the_load_rises_binds():
    # c64 misses TTFT by 2,091 / 800 = 2.6× and nothing else: TTFT binds, decided
    sweep = [_p(325), _p(752), _p(2091, itl=41, e2e=16_500)]
    found = binding_target(sweep, SLO)
    assert found == Binding("ttft_p95_ms", 800.0, decided=True)
    assert found.words == "TTFT p95 ≤ 800 ms"


def test_v12_of_two_targets_missed_at_once_the_one_missed_by_most_binds():
    # at the miss: TTFT 900 / 800 = 1.125, E2E 30,000 / 20,000 = 1.5 → E2E binds
    sweep = [_p(400), _p(900, e2e=30_000)]
    assert binding_target(sweep, SLO) == Binding("e2e_p99_ms", 20_000.0, decided=True)


def test_v12_a_later_miss_does_not_move_the_binding_target():
    # ITL is missed first (70 / 60); TTFT is missed by more, but only at a higher load
    sweep = [_p(300, itl=70), _p(3000, itl=80)]
    assert binding_target(sweep, SLO).key == "itl_p95_ms"


def test_v12_without_a_miss_the_target_closest_to_its_limit_at_the_top_load_binds():
    # top load: TTFT 700 / 800 = 0.875, ITL 50 / 60 = 0.83, E2E 0.45 → TTFT, not decided
    found = binding_target([_p(200, itl=55), _p(700, itl=50)], SLO)
    assert found == Binding("ttft_p95_ms", 800.0, decided=False)


def test_v12_no_target_or_no_figure_binds_nothing():
    assert binding_target([_p(300)], ServiceLevel()) is None
    empty = {"ttft_p95_ms": None, "itl_p95_ms": None, "e2e_p99_ms": None, "error_rate": None}
    assert binding_target([empty], SLO) is None


def test_v12_the_error_rate_can_bind_and_is_said_in_percent():
    slo = ServiceLevel(ttft_p95_ms=800, max_error_rate=0.01)
    found = binding_target([_p(300), _p(500, errors=0.05)], slo)
    assert found.key == "error_rate"
    assert found.words == "error rate ≤ 1.0 %"


def test_v12_across_sweeps_the_target_binding_the_most_sweeps_binds():
    ttft_bound = [_p(300), _p(1200)]
    e2e_bound = [_p(300, e2e=25_000)]
    undecided_e2e = [_p(100, e2e=19_000)]
    assert binding_across([ttft_bound, ttft_bound, e2e_bound], SLO).key == "ttft_p95_ms"
    # a decided binding outweighs undecided ones
    found = binding_across([e2e_bound, [_p(700)], [_p(750)]], SLO)
    assert found == Binding("e2e_p99_ms", 20_000.0, decided=True)
    assert binding_across([undecided_e2e], SLO).decided is False
    assert binding_across([], SLO) is None
