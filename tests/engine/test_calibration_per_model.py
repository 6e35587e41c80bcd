"""The calibration ledger per model, counted by distinct results (issue 24, N3)."""

from __future__ import annotations

import dataclasses

import pytest

from engine.calibration import (
    CalibrationEntry,
    calibrated_range,
    ledger_key,
    model_key,
    summarise,
)
from procurement.snapshot import thaw
from tests.engine.snapshot_world import quote, snapshot

DEFAULT = (0.75, 1.10)


def _pair(
    ratio: float,
    result_id: int,
    model: str = "profile:7",
    *,
    precision: str = "bf16",
    workload_class: str = "realtime_inference",
) -> CalibrationEntry:
    return CalibrationEntry(
        "h100-sxm-80gb",
        model,
        "",
        1000.0,
        1000.0 * ratio,
        result_id,
        precision=precision,
        workload_class=workload_class,
        model_label="Llama 3.1 70B" if model == "profile:7" else model,
    )


def test_n3_three_pairs_of_one_result_are_one_measurement():
    """One file compared under three briefs gave three pairs at 0.30: one result, so the
    centre stays and the default band is only widened to cover 0.30 (was ±3 % at 600)."""
    (summary,) = summarise([_pair(0.30, 5)] * 3, by_model=True).values()
    assert (summary.entries, summary.independent) == (3, 1)
    rng, words = calibrated_range(2000, summary, DEFAULT)
    assert rng.likely == 2000
    assert (rng.low, rng.high) == pytest.approx((600, 2200))
    assert "1 benchmark result of Llama 3.1 70B at bf16 (Real-time inference)" in words


def test_n3_the_band_is_never_narrower_than_the_default_below_ten_results():
    five = [_pair(0.50 + i / 1000, i) for i in range(5)]
    (summary,) = summarise(five, by_model=True).values()
    rng, _ = calibrated_range(2000, summary, DEFAULT)
    assert rng.likely == pytest.approx(2000 * 0.502)
    assert rng.low <= rng.likely * DEFAULT[0] + 1e-9
    assert rng.high >= rng.likely * DEFAULT[1] - 1e-9
    ten = [_pair(0.50 + i / 1000, i) for i in range(10)]
    (agreed,) = summarise(ten, by_model=True).values()
    narrow, _ = calibrated_range(2000, agreed, DEFAULT)
    assert narrow.high - narrow.low < rng.high - rng.low  # ten agreeing results narrow it


def _thawed(calibration: dict) -> object:
    snap = snapshot([quote(1, "2.50")])
    snap["calibration"] = calibration
    return thaw(snap)


def test_n3_another_models_pairs_never_move_this_models_estimate_and_the_row_shows_it():
    pairs = [_pair(1.40, i, model="profile:99") for i in range(8)]  # another model's uploads
    other = {k: dataclasses.asdict(v) for k, v in summarise(pairs, by_model=True).items()}
    thawed = _thawed(other)
    perf = thawed.facts["quote:1"]["performance"]
    assert "calibration_applied" not in perf
    (cand,) = thawed.input.candidates
    assert cand.throughput_per_replica.likely == perf["tokens_per_s"]
    # the same pairs measured on this model (profile 7) do move it, and the row shows the
    # throughput it is costed at, the roofline figure beside it
    own = {
        k: dataclasses.asdict(v)
        for k, v in summarise([_pair(1.40, i) for i in range(8)], by_model=True).items()
    }
    assert ledger_key("h100-sxm-80gb", "profile:7", "bf16", "realtime_inference") in own
    thawed = _thawed(own)
    perf = thawed.facts["quote:1"]["performance"]
    (cand,) = thawed.input.candidates
    assert "estimate × 1.40" in perf["calibration_applied"]
    assert perf["tokens_per_s"] == pytest.approx(perf["estimated_tokens_per_s"] * 1.40, rel=1e-4)
    assert cand.throughput_per_replica.likely == pytest.approx(perf["tokens_per_s"], abs=1e-3)


def test_n3_a_sweep_of_many_points_weighs_as_one_result():
    """Nine points of one sweep at 0.30 and two single-point results at 0.90 and 1.00: the
    centre is the median over results (0.30, 0.90, 1.00 → 0.90), not over the eleven pairs
    (0.30); the band still reaches every pair's p10."""
    pairs = [_pair(0.30, 1)] * 9 + [_pair(0.90, 2), _pair(1.00, 3)]
    (summary,) = summarise(pairs, by_model=True).values()
    assert (summary.entries, summary.independent) == (11, 3)
    assert summary.median_ratio == pytest.approx(0.90)
    rng, words = calibrated_range(1000, summary, DEFAULT)
    assert rng.likely == pytest.approx(900)
    assert rng.low == pytest.approx(300)  # the pairs' p10 (0.30) is below 0.90 × 0.75
    assert "3 benchmark results" in words


def test_n3_the_key_holds_precision_and_workload_class_and_a_1_4_0_snapshot_reads_as_frozen():
    fp8 = [_pair(1.40, i, precision="fp8") for i in range(8)]
    batch = [_pair(1.40, i, workload_class="batch_inference") for i in range(8)]
    for pairs in (fp8, batch):
        other = {k: dataclasses.asdict(v) for k, v in summarise(pairs, by_model=True).items()}
        perf = _thawed(other).facts["quote:1"]["performance"]
        assert "calibration_applied" not in perf  # the brief is BF16, real-time
    # engine 1.4.0 froze its summaries by accelerator and model only: still read
    (summary,) = summarise([_pair(1.40, i) for i in range(8)], by_model=True).values()
    old = {model_key("h100-sxm-80gb", "profile:7"): dataclasses.asdict(summary)}
    perf = _thawed(old).facts["quote:1"]["performance"]
    assert "estimate × 1.40" in perf["calibration_applied"]
