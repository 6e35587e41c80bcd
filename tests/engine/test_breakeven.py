"""Break-even across volume and the load-duration curve the plan across offers uses."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import cost
from engine.plan.breakeven import breakeven
from engine.plan.mixed_recost import overflow_share
from engine.types import (
    ApiPricing,
    CandidateInput,
    PointEstimate,
    TrainingSpec,
    WorkloadInput,
)
from tests.engine.builders import fixed

D = Decimal


def workload(volume: float = 5000, peak: float = 1.0) -> WorkloadInput:
    return WorkloadInput(
        workload_class="batch_inference",
        monthly_accepted_outputs=fixed(volume),
        utilisation=fixed(1.0),
        peak_to_average=fixed(peak),
        output_tokens_per_request=3600,
    )


def gpu(cid: str, model: str, price: str, accelerator: str = "h100") -> CandidateInput:
    # 100 tokens/s and 3,600 tokens per output: 36 GPU-seconds per output.
    return CandidateInput(
        id=cid,
        label=cid,
        kind="gpu",
        capacity_model=model,  # type: ignore[arg-type]
        accelerator=accelerator,
        price_per_gpu_hour=D(price),
        throughput_per_replica=fixed(100),
    )


def api_route(per_output: str) -> CandidateInput:
    return CandidateInput(
        id="api",
        label="API",
        kind="api",
        capacity_model="api",
        api_pricing=ApiPricing(price_per_output=D(per_output)),
    )


def estimates(w: WorkloadInput, cands: list[CandidateInput]) -> dict[str, PointEstimate]:
    return {c.id: cost.point_estimate(w, c) for c in cands}


# ------------------------------------------------------------------ break-even


def test_on_demand_vs_reserved_crossing_is_hand_computed() -> None:
    # on-demand: 4.00/h × 36 s = 0.04 per output; reserved: one replica all month,
    # 730 h × 2.00 = 1,460 (it serves up to 73,000 outputs a month). 0.04 × V = 1,460.
    w = workload()
    cands = [
        gpu("od", "on_demand", "4.00"),
        gpu("rs", "reserved", "2.00"),
        gpu("other-rs", "reserved", "0.50", accelerator="l40s"),
        api_route("0.05"),
    ]
    result = breakeven(w, cands, estimates(w, cands), accelerator="h100")
    assert result is not None
    assert [c.option for c in result.curves] == ["on_demand", "reserved", "api"]
    assert {c.candidate_id for c in result.curves} == {"od", "rs", "api"}  # not the L40S
    found = {(x.option_a, x.option_b): x for x in result.crossings}
    assert found[("on_demand", "reserved")].monthly_accepted_outputs == pytest.approx(
        36_500, rel=1e-5
    )
    assert found[("on_demand", "reserved")].cheaper_above == "reserved"
    assert found[("reserved", "api")].monthly_accepted_outputs == pytest.approx(29_200, rel=1e-5)
    assert found[("reserved", "api")].cheaper_above == "reserved"
    assert ("on_demand", "api") not in found  # the API is dearer at every volume
    assert result.cheapest_by_volume[0] == "on_demand"
    assert result.cheapest_by_volume[-1] == "reserved"
    assert result.volumes[0] == pytest.approx(500)
    assert result.volumes[-1] == pytest.approx(50_000)


def test_curves_are_decimal_and_consistent_with_point_estimates() -> None:
    w = workload()
    cands = [gpu("od", "on_demand", "4.00"), gpu("rs", "reserved", "2.00")]
    result = breakeven(w, cands, estimates(w, cands), accelerator="h100")
    assert result is not None
    od = result.curves[0]
    for volume, total, unit in zip(result.volumes, od.monthly_totals, od.unit_costs, strict=True):
        assert isinstance(total, Decimal)
        assert isinstance(unit, Decimal)
        assert total == cost.money(D(4) * cost.dec(volume) * 36 / 3600)
    assert result.to_dict()["curves"][0]["monthly_totals"][0] == "20.00"


def test_breakeven_needs_two_options_and_skips_training() -> None:
    w = workload()
    only = [gpu("od", "on_demand", "4.00")]
    assert breakeven(w, only, estimates(w, only), accelerator="h100") is None
    t = WorkloadInput(
        workload_class="training",
        training=TrainingSpec(
            active_params_b=1,
            tokens=fixed(1e9),
            checkpoint_write_s=10,
            checkpoint_interval_h=1,
            node_mtbf_h=fixed(1000),
        ),
    )
    assert breakeven(t, only, {}, accelerator="h100") is None


# ------------------------------------------------------------------ load-duration curve


def test_overflow_share_closed_forms() -> None:
    for f in (0.0, 0.2, 0.5, 0.9, 1.0):
        assert overflow_share(f, 1.0) == pytest.approx(1 - f)
        assert overflow_share(f, 2.0) == pytest.approx((1 - f) ** 2)


@pytest.mark.parametrize("peak", [1.5, 3.0, 6.0])
def test_overflow_share_matches_numeric_integration(peak: float) -> None:
    x = np.linspace(0, 1, 200_001)
    load = peak * (1 - x) ** (peak - 1)
    assert np.trapezoid(load, x) == pytest.approx(1.0, rel=1e-6)  # mean load is 1
    for f in (0.1, 0.3, 0.6):
        numeric = np.trapezoid(np.maximum(load - f * peak, 0), x)
        assert overflow_share(f, peak) == pytest.approx(numeric, rel=1e-4, abs=1e-7)


@given(
    peak=st.floats(min_value=1.0, max_value=20.0),
    f1=st.floats(min_value=0.0, max_value=1.0),
    f2=st.floats(min_value=0.0, max_value=1.0),
)
def test_overflow_share_decreases_with_fixed_capacity(peak: float, f1: float, f2: float) -> None:
    lo, hi = sorted((f1, f2))
    assert 0.0 <= overflow_share(hi, peak) <= overflow_share(lo, peak) + 1e-12 <= 1.0 + 1e-12
