"""Issue 14: the calibration ledger sets later estimates' uncertainty from observed ratios."""

from __future__ import annotations

import pytest

from engine.calibration import CalibrationEntry, calibrated_range, summarise


def _entry(est: float, meas: float, acc: str = "h100") -> CalibrationEntry:
    return CalibrationEntry(acc, "llama-3-1-70b", "in 1500 / out 300 / c32", est, meas)


def test_ratio_spread_per_accelerator_corrects_a_biased_estimate():
    ledger = summarise(
        [_entry(1000, 500), _entry(1000, 600), _entry(1000, 550), _entry(10, 9, "l40s")]
    )
    h100 = ledger["h100"]
    assert h100.entries == 3
    assert h100.median_ratio == pytest.approx(0.55)
    rng, words = calibrated_range(2000, h100, (0.6, 1.2))
    assert rng.likely == pytest.approx(1100)
    assert rng.low <= 1100 <= rng.high
    assert "median measured/estimate of 3" in words


def test_too_few_pairs_only_widen_the_default():
    ledger = summarise([_entry(1000, 400)])
    rng, words = calibrated_range(1000, ledger["h100"], (0.6, 1.2))
    assert (rng.low, rng.likely, rng.high) == pytest.approx((400, 1000, 1200))
    assert "widened" in words
    assert calibrated_range(1000, None, (0.6, 1.2))[1] == "no calibration data"


def test_a_measured_row_records_its_estimate_and_the_ratio():
    """Issue 14: wherever an estimate and a measurement exist for the same shape, keep both."""
    from procurement.snapshot import thaw
    from tests.engine.snapshot_world import quote, result, snapshot

    thawed = thaw(snapshot([quote(1, "2.50")], [result(5, "meta-llama/Llama-3.1-70B-Instruct")]))
    found = thawed.facts["quote:1"]["performance"]["calibration"]
    (pair,) = found["pairs"]  # a single-point file is one operating point
    assert pair["measured_tokens_per_s"] == 2000.0  # 500 per GPU × 4 GPUs
    assert pair["shape"] == "in 1,500 / out 300 / c32 / 4 GPUs"  # the result's own shape
    assert pair["measured_over_estimate"] == pytest.approx(
        2000.0 / pair["estimated_tokens_per_s"], rel=1e-3
    )
    assert (found["precision"], found["workload_class"]) == ("bf16", "realtime_inference")
