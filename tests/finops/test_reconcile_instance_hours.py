"""P18: a bill in instance-hours read as GPU-hours is flagged, not blamed on the price."""

from __future__ import annotations

from decimal import Decimal

from finops.focus.reconcile import Actual, Forecast, reconcile

D = Decimal


def test_p18_a_utilisation_above_1_says_the_hours_look_like_instance_hours() -> None:
    """The audit's decision 21: 3 reserved GPUs at 1.80 (2,190 GPU-h, 3,942.00), whose work
    is 30e6 / 0.8 × 200 / 2,500 / 3,600 = 833.33 h (utilisation 833.33 / 2,190 = 0.3805).
    The bill: 730 "Hrs" for one 8-GPU instance, 10,512.00. Read as 730 GPU-hours the work
    would fill them 833.33 / 730 = 1.1416 times."""
    work = D(30_000_000) / D("0.8") * 200 / 2500 / 3600
    forecast = Forecast(
        spend=D("3942.00"),
        accepted_outputs=D(30_000_000),
        acceptance=D("0.8"),
        gpu_spend=D("3942.00"),
        gpu_hours=D(2190),
        utilisation=work / 2190,
    )
    actual = Actual(
        spend=D("10512.00"),
        accepted_outputs=D(30_000_000),
        acceptance=D("0.8"),
        gpu_cost=D("10512.00"),
        gpu_hours=D(730),
    )
    result = reconcile(forecast, actual, tolerance=D("0.1"))
    assert result.actual_utilisation is not None
    assert round(result.actual_utilisation, 6) == D("1.141553")
    assert "look like instance-hours" in result.note
    assert "utilisation 1.142, above 1" in result.note


def test_p18_a_bill_in_gpu_hours_carries_no_such_note() -> None:
    forecast = Forecast(
        spend=D("3942.00"),
        accepted_outputs=D(30_000_000),
        acceptance=D("0.8"),
        gpu_spend=D("3942.00"),
        gpu_hours=D(2190),
        utilisation=D("0.4"),
    )
    actual = Actual(
        spend=D("10512.00"),
        accepted_outputs=D(30_000_000),
        acceptance=D("0.8"),
        gpu_cost=D("10512.00"),
        gpu_hours=D(5840),
    )
    assert reconcile(forecast, actual, tolerance=D("0.1")).note == ""
