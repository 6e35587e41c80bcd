"""Request-size buckets of the mixed plan: from measured requests, from the brief, and what a
plan stores about where they came from (engine/plan/mixed_buckets.py, mixed_comparison.py)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from benchmarks.distributions import request_sizes
from benchmarks.parsers.types import RequestSamples
from engine.errors import EngineInputError
from engine.plan.mixed_adapter import sized_rates
from engine.plan.mixed_buckets import BucketSize, sample_sizes
from engine.plan.mixed_comparison import request_sizes as plan_request_sizes
from tests.engine.test_mixed_fleet_adapter import reserved, workload


def test_measured_requests_split_at_the_threshold_with_hand_computed_shares() -> None:
    # 6 short requests (prompts 100, 200, 300 ×2, 400, 500) and 2 long ones (4,000 and 6,000);
    # one output not recorded (the brief's 50 is taken), one request without a prompt (left out)
    pairs = [(100, 20), (200, 30), (300, 40), (300, None), (400, 50), (500, 60)]
    pairs += [(4000, 200), (6000, 400), (None, 10)]
    short, long = sample_sizes(pairs, threshold_input_tokens=3000, default_output_tokens=50)
    assert (short.name, short.share) == ("short", 6 / 8)
    assert short.input_tokens == (100 + 200 + 300 + 300 + 400 + 500) / 6  # 300
    assert short.output_tokens == (20 + 30 + 40 + 50 + 50 + 60) / 6  # 41.67
    assert (long.name, long.share, long.input_tokens, long.output_tokens) == (
        "long",
        2 / 8,
        5000.0,
        300.0,
    )


def test_a_bucket_no_request_falls_in_is_not_made_and_no_prompt_at_all_is_refused() -> None:
    (only,) = sample_sizes([(100, 10), (200, 10)], threshold_input_tokens=3000,
                           default_output_tokens=10)  # fmt: skip
    assert (only.name, only.share) == ("short", 1.0)
    with pytest.raises(EngineInputError, match="no measured request states its prompt"):
        sample_sizes([(None, 10), (float("nan"), 5)], threshold_input_tokens=1,
                     default_output_tokens=1)  # fmt: skip


def test_a_row_carrying_every_bucket_costs_what_it_costs_at_the_mean() -> None:
    """Rates go with the tokens a request takes: short 300 + 41.67, long 5,000 + 300 tokens;
    their share-weighted mean T = 0.75 × 341.67 + 0.25 × 5,300 = 1,581.25, so the short
    bucket runs at rate × 1,581.25 / 341.67 and the long one at rate × 1,581.25 / 5,300."""
    sizes = (BucketSize("short", 0.75, 300.0, 125 / 3), BucketSize("long", 0.25, 5000.0, 300.0))
    wl = workload(input_tokens_per_request=1000.0)
    small = dataclasses.replace(reserved("small", "1"), fits_at_p95_context=False)
    large = reserved("large", "3")
    buckets, rates = sized_rates(wl, [small, large], sizes)
    assert [(b.name, b.share) for b in buckets] == [("short", 0.75), ("long", 0.25)]
    assert set(rates["small"]) == {"short"}  # the long bucket needs the p95 context
    mean_rate = 3600.0  # 1 output/s a replica (tests/engine/test_mixed_fleet_adapter.py)
    assert rates["large"]["long"] == pytest.approx(mean_rate * 1581.25 / 5300)
    assert rates["large"]["short"] == pytest.approx(mean_rate * 1581.25 / (300 + 125 / 3))
    hours = 0.75 / rates["large"]["short"] + 0.25 / rates["large"]["long"]
    assert hours == pytest.approx(1 / mean_rate)


def test_the_plan_says_where_its_buckets_came_from() -> None:
    wl = workload(input_tokens_per_request=1000.0)
    one, said = plan_request_sizes(wl, p95_input_tokens=1000.0)
    assert one is None
    assert said["words"] == "one request size: the brief states no p95 prompt above its mean"
    brief, said = plan_request_sizes(wl, p95_input_tokens=9000.0)
    assert brief is not None
    assert [s.share for s in brief] == [0.95, 0.05]
    assert said == {
        "source": "brief",
        "threshold_input_tokens": 9000.0,
        "words": "from the brief: the top 5 % of requests are long, at its p95 prompt of "
        "9,000 tokens",
    }
    measured, said = plan_request_sizes(
        wl,
        p95_input_tokens=9000.0,
        samples=[(500, 100)] * 3 + [(9500, 100)],
        uploads=[7, 9],
        measured_total=40,
    )
    assert measured is not None
    assert [s.share for s in measured] == [0.75, 0.25]
    assert said["source"] == "samples"
    assert said["words"] == (
        "from 4 measured requests (an evenly spaced sample of 40) in 2 uploads made for this "
        "brief: prompts of 9,000 tokens or more (the brief's p95) are long"
    )


def test_an_upload_keeps_its_successful_requests_sizes_evenly_spaced() -> None:
    n = 5
    samples = RequestSamples(
        ttft_ms=np.full(n, 10.0),
        e2e_ms=np.full(n, 100.0),
        itl_ms=np.full(n, math.nan),
        input_tokens=np.array([100.0, 200.0, 300.0, 400.0, math.nan]),
        output_tokens=np.array([10.0, math.nan, 30.0, 40.0, 50.0]),
        success=np.array([True, True, False, True, True]),
    )
    kept = request_sizes(samples)
    assert kept == {
        "input_tokens": [100.0, 200.0, 400.0],  # failed and prompt-less requests left out
        "output_tokens": [10.0, None, 40.0],
        "requests": 3,
    }
    sampled = request_sizes(samples, limit=2)
    assert sampled is not None
    assert sampled["input_tokens"] == [100.0, 400.0]  # the first and the last
    assert sampled["requests"] == 3
    assert request_sizes(None) is None


def test_p8_a_fixed_length_benchmark_never_drops_a_bucket_the_brief_states() -> None:
    """Issue 37, P8: 200 requests of exactly 1,400 tokens (`--dataset-name random
    --random-input-len 1400`) against a brief whose p95 prompt is 3,500 over a mean of 1,000:
    the plan keeps the brief's buckets (95 % short at (1,000 − 0.05 × 3,500) / 0.95 = 868.4,
    5 % long at 3,500) and says why the uploads were not used."""
    wl = workload(input_tokens_per_request=1000.0)
    sizes, said = plan_request_sizes(
        wl, p95_input_tokens=3500.0, samples=[(1400, 128)] * 200, uploads=[12]
    )
    assert sizes is not None
    assert [(s.name, s.share) for s in sizes] == [("short", 0.95), ("long", 0.05)]
    assert sizes[0].input_tokens == pytest.approx(868.421, abs=1e-3)
    assert sizes[1].input_tokens == 3500.0
    assert said["source"] == "brief"
    assert said["words"] == (
        "from the brief: the top 5 % of requests are long, at its p95 prompt of 3,500 tokens; "
        "the 200 measured requests of the uploads made for this brief are all under it, so "
        "they are not the brief's traffic and are not used"
    )
