"""Monte Carlo: reproducible, chunk-independent, equal to the pure-Python reference, fast."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.engine_reference import reference_unit_costs, triangular_value
from engine import cost, montecarlo
from engine.errors import EngineInputError
from engine.types import (
    ApiPricing,
    CandidateInput,
    MediaSpec,
    PurchaseSpec,
    Range,
    TrainingSpec,
    WorkloadInput,
)

D = Decimal


def workload(**kw: object) -> WorkloadInput:
    base: dict[str, object] = {
        "workload_class": "realtime_inference",
        "monthly_accepted_outputs": Range(4e5, 1e6, 2.5e6),
        "acceptance_rate": Range(0.80, 0.90, 0.97),
        "failure_rate": Range(0.0, 0.02, 0.06),
        "utilisation": Range(0.35, 0.6, 0.85),
        "peak_to_average": Range(1.5, 2.5, 4.0),
        "input_tokens_per_request": 1500,
        "output_tokens_per_request": 400,
        "platform_labor_fte": 0.5,
        "loaded_monthly_cost_per_fte": D(15000),
        "storage_gb": 500,
        "egress_gb_per_month": 80,
        "observability_per_month": D(300),
    }
    base.update(kw)
    return WorkloadInput(**base)  # type: ignore[arg-type]


def make_candidates(n: int, *, seed: int = 3) -> list[CandidateInput]:
    """A mix of every capacity model, with ranged throughput and some utilisation overrides."""
    rng = np.random.default_rng(seed)
    models = ["on_demand", "spot", "reserved", "purchase", "dedicated_cluster", "marketplace"]
    out: list[CandidateInput] = []
    for i in range(n):
        if i % 9 == 8:
            out.append(
                CandidateInput(
                    id=f"api-{i}",
                    label=f"API {i}",
                    kind="api",
                    capacity_model="api",
                    api_pricing=ApiPricing(D("0.5") + D(i % 5) / 10, D("1.5"), D("0.1")),
                )
            )
            continue
        model = models[i % len(models)]
        tps = float(rng.uniform(400, 6000))
        kw: dict[str, object] = {
            "throughput_per_replica": Range(tps * 0.75, tps, tps * 1.1),
            "gpus_per_replica": int(rng.choice([1, 2, 4, 8])),
            "storage_price_per_gb_month": D("0.08"),
            "egress_price_per_gb": D("0.05"),
            "min_commitment_gpu_hours_per_month": D(200) if model == "reserved" else D(0),
        }
        if model == "purchase":
            kw["purchase"] = PurchaseSpec(D(280_000), 36, D("0.12"), gpu_tdp_w=D(700))
        else:
            kw["price_per_gpu_hour"] = D(str(round(float(rng.uniform(0.8, 4.5)), 2)))
        if i % 4 == 1 and model in ("on_demand", "spot", "marketplace"):
            kw["utilisation"] = Range(0.3, 0.5, 0.9)
        if i % 10 == 3:
            kw["idle_billed"] = False
        out.append(
            CandidateInput(id=f"gpu-{i}", label=f"GPU {i}", kind="gpu", capacity_model=model, **kw)  # type: ignore[arg-type]
        )
    return out


def training_workload(cls: str = "training") -> WorkloadInput:
    return WorkloadInput(
        workload_class=cls,  # type: ignore[arg-type]
        acceptance_rate=Range(0.5, 0.7, 0.9),
        training=TrainingSpec(
            active_params_b=8.0,
            tokens=Range(8e10, 1e11, 1.5e11),
            checkpoint_write_s=90,
            checkpoint_interval_h=2.0,
            node_mtbf_h=Range(2000, 5000, 9000),
            mfu=Range(0.3, 0.4, 0.5),
            success_probability=Range(0.7, 0.85, 0.95),
            checkpoint_size_gb=120,
        ),
        platform_labor_fte=1,
        loaded_monthly_cost_per_fte=D(20000),
    )


def training_candidates() -> list[CandidateInput]:
    return [
        CandidateInput(
            id="h100-measured",
            label="H100 measured",
            kind="gpu",
            capacity_model="on_demand",
            price_per_gpu_hour=D("2.90"),
            gpus_per_replica=64,
            throughput_per_replica=Range(4e5, 5e5, 5.5e5),
            storage_price_per_gb_month=D("0.1"),
        ),
        CandidateInput(
            id="h200-peak",
            label="H200 roofline",
            kind="gpu",
            capacity_model="reserved",
            price_per_gpu_hour=D("3.40"),
            gpus_per_replica=64,
            peak_dense_tflops_per_gpu=989.0,
            min_commitment_gpu_hours_per_month=D(20_000),
        ),
        CandidateInput(
            id="a100-peak",
            label="A100 roofline",
            kind="gpu",
            capacity_model="spot",
            price_per_gpu_hour=D("1.20"),
            gpus_per_replica=128,
            peak_dense_tflops_per_gpu=312.0,
            checkpoint_write_s=300,
        ),
    ]


def media_workload() -> WorkloadInput:
    return WorkloadInput(
        workload_class="media",
        monthly_accepted_outputs=Range(5e4, 1e5, 2e5),
        acceptance_rate=Range(0.6, 0.75, 0.9),
        failure_rate=Range(0.01, 0.03, 0.08),
        media=MediaSpec(
            moderation_cost_per_asset=D("0.002"),
            review_fraction=0.05,
            review_cost_per_asset=D("0.40"),
            asset_size_gb=0.004,
        ),
    )


def media_candidates() -> list[CandidateInput]:
    return [
        CandidateInput(
            id="l40s",
            label="L40S",
            kind="gpu",
            capacity_model="on_demand",
            price_per_gpu_hour=D("1.10"),
            throughput_per_replica=Range(0.2, 0.25, 0.3),
            throughput_unit="outputs_per_s",
            storage_price_per_gb_month=D("0.02"),
        ),
        CandidateInput(
            id="image-api",
            label="Image API",
            kind="api",
            capacity_model="api",
            api_pricing=ApiPricing(price_per_output=D("0.04")),
        ),
    ]


# ------------------------------------------------------------------ reproducibility


def test_same_seed_same_stats_different_seed_different() -> None:
    w, cands = workload(), make_candidates(40)
    a = montecarlo.simulate(w, cands, seed=12345, samples=4000)
    b = montecarlo.simulate(w, cands, seed=12345, samples=4000)
    c = montecarlo.simulate(w, cands, seed=54321, samples=4000)
    assert a == b
    assert [s.p50 for s in a.stats] != [s.p50 for s in c.stats]


@pytest.mark.parametrize("chunk", [1, 7, 64, 1000])
def test_chunk_size_does_not_change_a_bit(chunk: int) -> None:
    w, cands = workload(), make_candidates(60)
    base = montecarlo.sample_unit_costs(w, cands, seed=9, samples=3000)
    other = montecarlo.sample_unit_costs(w, cands, seed=9, samples=3000, chunk_candidates=chunk)
    assert np.array_equal(base, other)
    s1 = montecarlo.simulate(w, cands, seed=9, samples=3000)
    s2 = montecarlo.simulate(w, cands, seed=9, samples=3000, chunk_candidates=chunk)
    assert s1 == s2


def test_a_candidates_draws_do_not_depend_on_the_others() -> None:
    w, cands = workload(), make_candidates(30)
    full = montecarlo.sample_unit_costs(w, cands, seed=5, samples=2000)
    subset = [cands[17], cands[3]]
    alone = montecarlo.sample_unit_costs(w, subset, seed=5, samples=2000)
    assert np.array_equal(alone[0], full[17])
    assert np.array_equal(alone[1], full[3])


def test_common_random_numbers_across_candidates() -> None:
    """Two offers that differ only in price: with the same workload draws in each sample
    (and no draws of their own), the cheaper one wins every sample."""
    w = workload()
    a = make_candidates(1)[0]
    cheap = dataclasses.replace(
        a, id="cheap", throughput_per_replica=Range(1000, 1000, 1000), utilisation=None
    )
    dear = dataclasses.replace(
        cheap, id="dear", price_per_gpu_hour=(cheap.price_per_gpu_hour or D(1)) + D("0.01")
    )
    result = montecarlo.simulate(w, [dear, cheap], seed=1, samples=5000)
    assert result.stats[0].prob_cheapest == 0.0
    assert result.stats[1].prob_cheapest == 1.0


def test_exact_ties_go_to_the_earlier_candidate() -> None:
    w = workload()
    a = make_candidates(9)[8]  # an API route: no own draws
    twin = dataclasses.replace(a, id="twin")
    result = montecarlo.simulate(w, [a, twin], seed=2, samples=1000)
    assert [s.prob_cheapest for s in result.stats] == [1.0, 0.0]


def test_prob_cheapest_sums_to_one_and_percentiles_are_ordered() -> None:
    result = montecarlo.simulate(workload(), make_candidates(50), seed=8, samples=3000)
    assert sum(s.prob_cheapest for s in result.stats) == pytest.approx(1.0)
    for s in result.stats:
        assert s.p10 <= s.p50 <= s.p90


# ------------------------------------------------------------------ vectorised vs reference


def _assert_close(vec: np.ndarray, ref: list[list[float]]) -> None:
    r = np.array(ref)
    assert r.shape == vec.shape
    assert np.all(np.isfinite(r))
    np.testing.assert_allclose(vec, r, rtol=1e-9, atol=0)


def test_vectorised_matches_reference_inference() -> None:
    w, cands = workload(), make_candidates(45)
    vec = montecarlo.sample_unit_costs(w, cands, seed=77, samples=600, chunk_candidates=8)
    _assert_close(vec, reference_unit_costs(w, cands, seed=77, samples=600))


@pytest.mark.parametrize("cls", ["training", "full_finetune", "adapter_finetune"])
def test_vectorised_matches_reference_training(cls: str) -> None:
    w, cands = training_workload(cls), training_candidates()
    vec = montecarlo.sample_unit_costs(w, cands, seed=3, samples=800)
    _assert_close(vec, reference_unit_costs(w, cands, seed=3, samples=800))


def test_vectorised_matches_reference_media() -> None:
    w, cands = media_workload(), media_candidates()
    vec = montecarlo.sample_unit_costs(w, cands, seed=4, samples=800)
    _assert_close(vec, reference_unit_costs(w, cands, seed=4, samples=800))


def _at_likely(w: WorkloadInput) -> WorkloadInput:
    fields = {}
    for f in dataclasses.fields(w):
        value = getattr(w, f.name)
        if isinstance(value, Range):
            fields[f.name] = Range(value.likely, value.likely, value.likely)
    return dataclasses.replace(w, **fields)


def test_degenerate_ranges_equal_the_decimal_point_estimate() -> None:
    w = _at_likely(workload())
    cands = [
        dataclasses.replace(
            c,
            throughput_per_replica=(
                Range(
                    c.throughput_per_replica.likely,
                    c.throughput_per_replica.likely,
                    c.throughput_per_replica.likely,
                )
                if c.throughput_per_replica
                else None
            ),
            utilisation=None,
        )
        for c in make_candidates(36)
    ]
    vec = montecarlo.sample_unit_costs(w, cands, seed=1, samples=3)
    for i, c in enumerate(cands):
        exact = float(cost.point_estimate(w, c).unit_cost_exact)
        assert vec[i, 0] == vec[i, 2]
        # the point estimate rounds each line to the cent; the simulation does not
        assert vec[i, 0] == pytest.approx(exact, rel=1e-5)


# ------------------------------------------------------------------ building blocks


@settings(max_examples=60, deadline=None)
@given(
    low=st.floats(min_value=-1e6, max_value=1e6),
    a=st.floats(min_value=0, max_value=1e6),
    b=st.floats(min_value=0, max_value=1e6),
    u=st.floats(min_value=0, max_value=1, exclude_max=True),
)
def test_triangular_stays_in_range_and_matches_scalar(
    low: float, a: float, b: float, u: float
) -> None:
    r = Range(low, low + a, low + a + b)
    x = montecarlo.triangular(np.array([u]), np.array(r.low), np.array(r.likely), np.array(r.high))[
        0
    ]
    assert r.low - 1e-6 <= x <= r.high + 1e-6
    assert x == pytest.approx(triangular_value(u, r), rel=1e-12, abs=1e-9)


def test_triangular_mean_is_the_average_of_its_three_points() -> None:
    r = Range(2.0, 3.0, 7.0)
    x = montecarlo.draw(r, 11, montecarlo.shared_stream_key("x"), 200_000)
    assert x.mean() == pytest.approx(4.0, rel=5e-3)
    assert x.min() >= 2.0
    assert x.max() <= 7.0


def test_quantiles_equal_numpy() -> None:
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 10, 101, 5000):
        x = rng.lognormal(size=(4, n))
        q = montecarlo.quantiles(x, (0.1, 0.5, 0.9))
        assert np.array_equal(q, np.quantile(x, [0.1, 0.5, 0.9], axis=1).T)


def test_invalid_seed_and_samples() -> None:
    w, cands = workload(), make_candidates(2)
    with pytest.raises(EngineInputError) as err:
        montecarlo.simulate(w, cands, seed=-1)
    assert err.value.field == "seed"
    with pytest.raises(EngineInputError) as err:
        montecarlo.simulate(w, cands, seed=1, samples=0)
    assert err.value.field == "samples"


def test_tornado_sorted_by_swing_and_includes_own_throughput() -> None:
    w, cands = workload(), make_candidates(20)
    rec = cands[4].id
    t = montecarlo.tornado(w, cands, recommended_id=rec, unit_label="x")
    swings = [e.swing for e in t.entries]
    assert swings == sorted(swings, reverse=True)
    names = {e.assumption for e in t.entries}
    assert "monthly_accepted_outputs" in names
    assert f"{rec}:throughput_per_replica" in names
