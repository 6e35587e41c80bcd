"""Sizing from a request trace: the replay's replicas per interval, checked by hand, against a
brute-force replay, against the closed form of a constant-rate trace, and by its properties
(time compressed, volume scaled). The model is in docs/engine/trace-sizing.md."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.trace import (
    CurvePoint,
    LoadCurve,
    OperatingCurve,
    RequestTrace,
    TraceError,
    scale_to_volume,
    size_trace,
    sustainable_point,
    trace_fleet,
)

# One replica holds 4 requests within the targets at 400 output tokens/s: a request of 100
# output tokens is in flight 4 × 100 / 400 = 1 s.
FLAT = OperatingCurve.of(
    [CurvePoint(2, 250.0), CurvePoint(4, 400.0)], input_tokens=500, output_tokens=100
)
FLAT_POINT = sustainable_point(FLAT, ttft_p95_ms=None, itl_p95_ms=None)


def _trace(arrivals: list[float], output: float = 100.0, prompt: float = 500.0) -> RequestTrace:
    n = len(arrivals)
    return RequestTrace.of(arrivals, [prompt] * n, [output] * n)


def test_a_hand_built_three_minute_trace_gives_its_replica_curve() -> None:
    """Minute 0: 4 requests 0.25 s apart, each in flight 1 s: 1, 2, 3, 4 in flight at their
    arrivals, needing 0.25 … 1 replica: 1 replica. Minute 1: 12 requests 0.05 s apart: up to
    12 in flight, needing up to 3 replicas; 95 % of 12 is the 12th: 3 replicas. Minute 2: one
    request: 1 replica. Held fixed, 95 % of the 17 requests is the 17th: 3 replicas."""
    arrivals = [0.0, 0.25, 0.5, 0.75] + [60 + 0.05 * i for i in range(12)] + [150.0]
    assert FLAT_POINT is not None
    sizing = size_trace(_trace(arrivals), FLAT, FLAT_POINT)
    assert sizing.replicas.tolist() == [1, 3, 1]
    assert sizing.attainment == 1.0
    assert sizing.fixed_replicas == 3
    assert sizing.peak_replicas == 3
    assert sizing.replica_hours == pytest.approx(5 * 60 / 3600)


def test_an_interval_of_twenty_requests_leaves_its_busiest_one_to_the_five_percent() -> None:
    """20 requests at once need 20 / 4 = 5 replicas each … but in arrival order the in-flight
    count is 1 … 20: needs 0.25 … 5.0; the 19th (95 % of 20) needs 4.75: 5 replicas. With a
    p90 target, the 18th needs 4.5: 5; with p50, the 10th needs 2.5: 3 replicas, 12 of 20
    requests (needs ≤ 3) within the targets."""
    assert FLAT_POINT is not None
    burst = _trace([0.01 * i for i in range(20)])
    assert size_trace(burst, FLAT, FLAT_POINT).replicas.tolist() == [5]
    half = size_trace(burst, FLAT, FLAT_POINT, attainment_target=0.5)
    assert half.replicas.tolist() == [3]
    assert half.attainment == pytest.approx(12 / 20)


def _brute_force(
    arrivals: list[float], seconds: list[float], concurrency: float, interval: float, target: float
) -> list[int]:
    """The replay's definition, one request and one replica count at a time."""
    n = len(arrivals)
    needs = []
    for j in range(n):
        in_flight = sum(
            1 for i in range(n) if arrivals[i] <= arrivals[j] < arrivals[i] + seconds[i]
        )
        needs.append(in_flight / concurrency)
    count = int((arrivals[-1] - arrivals[0]) // interval) + 1
    replicas = []
    for k in range(count):
        mine = [needs[j] for j in range(n) if int((arrivals[j] - arrivals[0]) // interval) == k]
        r = 0
        while mine and sum(1 for x in mine if x <= r + 1e-9) < target * len(mine) - 1e-9:
            r += 1
        replicas.append(r)
    return replicas


@settings(max_examples=60, deadline=None)
@given(
    gaps=st.lists(st.floats(min_value=0, max_value=20), min_size=1, max_size=60),
    outputs=st.lists(st.integers(min_value=1, max_value=400), min_size=60, max_size=60),
    target=st.sampled_from([0.5, 0.9, 0.95, 1.0]),
)
def test_the_vectorised_replay_equals_a_brute_force_replay(
    gaps: list[float], outputs: list[int], target: float
) -> None:
    arrivals = list(np.cumsum(gaps))
    n = len(arrivals)
    trace = RequestTrace.of(arrivals, [500] * n, outputs[:n])
    assert FLAT_POINT is not None
    sizing = size_trace(trace, FLAT, FLAT_POINT, interval_s=30, attainment_target=target)
    seconds = [4 * o / 400 for o in outputs[:n]]
    assert sizing.replicas.tolist() == _brute_force(arrivals, seconds, 4, 30, target)


@pytest.mark.parametrize("rate_per_s", [0.5, 3.0, 17.0, 40.0])
def test_a_constant_rate_trace_needs_the_steady_state_replicas_of_its_point(
    rate_per_s: float,
) -> None:
    """Steady state: rate × output tokens ÷ the replica's tokens/s at c* replicas (± 1)."""
    curve = OperatingCurve.of(
        [
            CurvePoint(1, 60.0, ttft_p95_ms=150, itl_p95_ms=18),
            CurvePoint(16, 700.0, ttft_p95_ms=400, itl_p95_ms=24),
            CurvePoint(64, 1800.0, ttft_p95_ms=2000, itl_p95_ms=40),
        ],
        input_tokens=800,
        output_tokens=200,
    )
    point = sustainable_point(curve, ttft_p95_ms=1000, itl_p95_ms=35)
    assert point is not None
    assert point.binding == "TTFT p95"
    arrivals = np.arange(0, 1800, 1 / rate_per_s)
    sizing = size_trace(_trace(list(arrivals), output=200, prompt=800), curve, point)
    steady = rate_per_s * 200 / point.output_tokens_per_s
    settled = sizing.replicas[2:]  # the first minute fills up from empty
    assert settled.min() >= math.floor(steady) - 1
    assert settled.max() <= math.ceil(steady) + 1


@settings(max_examples=50, deadline=None)
@given(
    gaps=st.lists(st.floats(min_value=0, max_value=5), min_size=2, max_size=120),
    outputs=st.lists(st.integers(min_value=1, max_value=800), min_size=120, max_size=120),
)
def test_compressing_a_trace_in_time_never_lowers_the_fleet(
    gaps: list[float], outputs: list[int]
) -> None:
    arrivals = list(np.cumsum(gaps))
    n = len(arrivals)
    trace = RequestTrace.of(arrivals, [300] * n, outputs[:n])
    assert FLAT_POINT is not None
    before = size_trace(trace, FLAT, FLAT_POINT)
    # the same requests arriving twice as fast
    faster = arrivals[0] + (np.asarray(arrivals) - arrivals[0]) / 2.0
    after = size_trace(RequestTrace.of(faster, [300] * n, outputs[:n]), FLAT, FLAT_POINT)
    assert after.fixed_replicas >= before.fixed_replicas


@pytest.mark.parametrize("k", [2, 3, 5])
def test_a_trace_k_times_the_volume_needs_about_k_times_the_replica_hours(k: int) -> None:
    """Each request repeated k times is the trace at volume scale k, exactly; its replica-hours
    are k× the trace's, less what rounding up each interval's fleet gives away."""
    rng = np.random.default_rng(7)
    n = 20_000  # about 5.6 requests a second of ~1,000 output tokens: some 15 replicas
    arrivals = np.sort(rng.uniform(0, 3600, n))
    outputs = rng.integers(100, 2000, n)
    trace = RequestTrace.of(arrivals, np.full(n, 400), outputs)
    repeated = RequestTrace.of(np.repeat(arrivals, k), np.full(n * k, 400), np.repeat(outputs, k))
    assert FLAT_POINT is not None
    base = size_trace(trace, FLAT, FLAT_POINT)
    scaled = size_trace(trace, FLAT, FLAT_POINT, volume_scale=k)
    assert size_trace(repeated, FLAT, FLAT_POINT).replicas.tolist() == scaled.replicas.tolist()
    intervals = scaled.replicas.shape[0]
    rounding_hours = intervals * 60 / 3600
    assert k * base.replica_hours - k * rounding_hours <= scaled.replica_hours
    assert scaled.replica_hours <= k * base.replica_hours + rounding_hours
    assert scaled.replica_hours / base.replica_hours == pytest.approx(k, rel=0.1)


def test_the_sustainable_point_interpolates_on_the_binding_target() -> None:
    """TTFT 400 ms at 16, 2,000 ms at 64: 1,000 ms is crossed at 16 + 48 × 600 / 1,600 = 34;
    the throughput there 700 + 1,100 × 18 / 48 = 1,112.5 tokens/s."""
    curve = OperatingCurve.of(
        [
            CurvePoint(16, 700.0, ttft_p95_ms=400, itl_p95_ms=24),
            CurvePoint(64, 1800.0, ttft_p95_ms=2000, itl_p95_ms=40),
        ],
        input_tokens=800,
        output_tokens=200,
    )
    point = sustainable_point(curve, ttft_p95_ms=1000, itl_p95_ms=None)
    assert point is not None
    assert point.concurrency == pytest.approx(34)
    assert point.output_tokens_per_s == pytest.approx(1112.5)
    assert point.interpolated
    # A trace whose p95 prompt is twice the curve's stretches its TTFT ×2: 800 → crossed at
    # 16 + 48 × (500 − 400·… ) — here the first point already reads 800 ms, and 1,000 ms is
    # crossed at 16 + 48 × 200 / 3,200 = 19.
    longer = sustainable_point(curve, ttft_p95_ms=1000, itl_p95_ms=None, input_tokens_p95=1600)
    assert longer is not None
    assert longer.concurrency == pytest.approx(19)
    # Even the lightest point misses: no load holds the targets.
    assert sustainable_point(curve, ttft_p95_ms=300, itl_p95_ms=None) is None
    # A target the curve has no figure for is named, not assumed.
    bare = OperatingCurve.of([CurvePoint(8, 500.0)], input_tokens=800, output_tokens=200)
    unchecked = sustainable_point(bare, ttft_p95_ms=1000, itl_p95_ms=30)
    assert unchecked is not None
    assert unchecked.unchecked == ("TTFT p95", "ITL p95")
    assert unchecked.binding == "the curve's last point"


def test_a_slower_profile_needs_at_least_the_centre_fleet() -> None:
    rng = np.random.default_rng(3)
    trace = RequestTrace.of(
        np.sort(rng.uniform(0, 600, 3000)), np.full(3000, 300), rng.integers(10, 500, 3000)
    )
    curve = OperatingCurve.of(
        [
            CurvePoint(4, 300.0, ttft_p95_ms=200, itl_p95_ms=15),
            CurvePoint(32, 1500.0, ttft_p95_ms=900, itl_p95_ms=30),
        ],
        input_tokens=300,
        output_tokens=200,
    )
    sizes = {}
    for name, factor in (("p10", 0.7), ("centre", 1.0), ("p90", 1.3)):
        profile = curve.scaled(factor)
        point = sustainable_point(profile, ttft_p95_ms=1000, itl_p95_ms=30)
        assert point is not None
        sizes[name] = size_trace(trace, profile, point)
    assert sizes["p10"].fixed_replicas >= sizes["centre"].fixed_replicas
    assert sizes["centre"].fixed_replicas >= sizes["p90"].fixed_replicas
    assert sizes["p10"].replica_hours >= sizes["centre"].replica_hours


def test_a_window_is_scaled_to_the_briefs_volume_by_rate_and_says_how() -> None:
    """A representative day of 20,000 requests for a brief of 30 M a month: 30 M ÷ 730 h =
    41,096 an hour, 986,301 a day, each request counting 49.3 times. The same 20,000 requests
    over 6 hours of that day stand for a quarter of it: 246,575, 12.3 times each. The busiest
    hour at 2× the average: 30 M / 730 × 2 = 82,192 in the hour, 4.11 per request; over 30
    minutes of it, 41,096, 2.05."""
    day = scale_to_volume(requests=20_000, window="day", monthly_requests=30e6)
    assert day.factor == pytest.approx(30e6 / (730 / 24) / 20_000)
    assert day.repeats_per_month == pytest.approx(730 / 24)
    assert "986,301" in day.words
    quarter = scale_to_volume(requests=20_000, window="day", monthly_requests=30e6, span_s=6 * 3600)
    assert quarter.factor == pytest.approx(day.factor / 4)
    assert "246,575 in that time" in quarter.words
    assert "over 6.0 hours" in quarter.words
    peak = scale_to_volume(
        requests=20_000, window="peak_hour", monthly_requests=30e6, peak_to_average=2
    )
    assert peak.factor == pytest.approx(30e6 / 730 * 2 / 20_000)
    assert peak.repeats_per_month is None
    assert "82,192" in peak.words
    half = scale_to_volume(
        requests=20_000,
        window="peak_hour",
        monthly_requests=30e6,
        peak_to_average=2,
        span_s=1800,
    )
    assert half.factor == pytest.approx(peak.factor / 2)
    with pytest.raises(TraceError, match="Unknown window"):
        scale_to_volume(requests=10, window="fortnight", monthly_requests=1e6)


@pytest.mark.parametrize(
    ("arrivals", "inputs", "outputs", "message"),
    [
        ([0.0, 2.0, 1.0], [1, 1, 1], [1, 1, 1], "ascending"),
        ([0.0, 1.0], [1, -3], [1, 1], "input tokens is negative"),
        ([0.0, 1.0], [1, 1], [1, float("nan")], "missing or not a number"),
        ([], [], [], "no request"),
    ],
)
def test_a_bad_trace_is_refused_with_its_reason(
    arrivals: list[float], inputs: list[float], outputs: list[float], message: str
) -> None:
    with pytest.raises(TraceError, match=message):
        RequestTrace.of(arrivals, inputs, outputs)


def test_a_load_curve_gives_the_plan_its_overflow_shares() -> None:
    """Loads 1, 1, 2, 4 (mean 2, peak 4: peak-to-average 2). Capacity for half the peak (2)
    leaves 4 − 2 = 2 of the 8 units above it: 25 %; for a quarter (1): 0 + 0 + 1 + 3 = 4: 50 %."""
    curve = LoadCurve.of([1, 1, 2, 4])
    assert curve.peak_to_average == 2.0
    assert curve.overflow_share(0.5) == pytest.approx(0.25)
    assert curve.overflow_share(0.25) == pytest.approx(0.5)
    assert curve.overflow_share(1.0) == 0.0
    assert curve.overflow_share(0.0) == 1.0
    with pytest.raises(TraceError, match="no load"):
        LoadCurve.of([0, 0])


def test_the_replay_load_is_the_replica_curve_before_rounding_up() -> None:
    assert FLAT_POINT is not None
    arrivals = [0.0, 0.25, 0.5, 0.75] + [60 + 0.05 * i for i in range(12)] + [150.0]
    sizing = size_trace(_trace(arrivals), FLAT, FLAT_POINT)
    assert sizing.load.tolist() == [1.0, 3.0, 0.25]
    assert LoadCurve.of(sizing.load).peak_to_average == pytest.approx(3 / (4.25 / 3))


def test_an_offer_sized_from_the_trace_pays_as_used_or_for_its_fixed_fleet() -> None:
    """The three-minute trace (replicas 1, 3, 1: a mean of 5 / 3; fixed fleet 3) on 2-GPU
    replicas at USD 2.50 a GPU-hour: on demand, 5/3 × 2 × 730 = 2,433.333 GPU-hours, USD
    6,083.33; reserved, 3 × 2 × 730 = 4,380 GPU-hours, USD 10,950.00; a busiest-hour trace is
    costed at the fixed fleet on demand too."""
    assert FLAT_POINT is not None
    arrivals = [0.0, 0.25, 0.5, 0.75] + [60 + 0.05 * i for i in range(12)] + [150.0]
    sizing = size_trace(_trace(arrivals), FLAT, FLAT_POINT)
    price = Decimal("2.50")
    elastic = trace_fleet(
        sizing, gpus_per_replica=2, price_per_gpu_hour=price, fixed_capacity=False
    )
    assert (elastic.peak_gpus, elastic.fixed_gpus) == (6, 6)
    assert elastic.monthly_gpu_hours == Decimal("2433.333")
    assert elastic.monthly_cost == Decimal("6083.33")
    assert elastic.basis == "as used"
    fixed = trace_fleet(sizing, gpus_per_replica=2, price_per_gpu_hour=price, fixed_capacity=True)
    assert fixed.monthly_gpu_hours == Decimal("4380")
    assert fixed.monthly_cost == Decimal("10950.00")
    peak_hour = trace_fleet(
        sizing, gpus_per_replica=2, price_per_gpu_hour=price, fixed_capacity=False, repeats=False
    )
    assert peak_hour.monthly_cost == Decimal("10950.00")
    assert peak_hour.basis == "fixed fleet"
