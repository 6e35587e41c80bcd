"""The mixed-fleet optimiser: hand-checked plans and the brute-force minimum."""

from __future__ import annotations

import itertools
import math
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.plan.mixed import layer_energies, optimise
from engine.plan.mixed_recost import layer_energies_exact
from engine.plan.mixed_types import PlanBucket, PlanConfig, PlanDemand, PlanOffer
from tests.engine.builders import fixed_energy, served_exact

# 100 accepted outputs an hour on average
VOLUME = 73_000.0


def fixed(oid: str, price: str, rate: float, **kw: object) -> PlanOffer:
    cfg = PlanConfig("1x", 1, {"all": rate})
    return PlanOffer(oid, "fixed", (cfg,), price_per_gpu_hour=Decimal(price), **kw)  # type: ignore[arg-type]


def test_layers_follow_the_load_duration_curve() -> None:
    assert layer_energies(1.0, 10) == [1.0]
    energies = layer_energies(2.0, 4)
    assert math.isclose(sum(energies), 1.0)
    assert energies == sorted(energies, reverse=True)  # the base layers carry the most
    # linear curve (p = 2): capacity for half the peak serves 1 − 1/4 of the month
    assert math.isclose(fixed_energy(0.5, 2.0, 4), 0.75)


def test_a_cheapest_capacity_taken_whole_rest_from_the_next_offer() -> None:
    # 10 replicas at 10 outputs/h are needed; A ($2) has 4 GPUs, B ($3) is unlimited
    a = fixed("a", "2", 10.0, max_gpus=4)
    b = fixed("b", "3", 10.0)
    plan = optimise(PlanDemand(VOLUME), [a, b])
    assert plan.status == "optimal"
    assert {(ln.offer_id, ln.replicas) for ln in plan.lines} == {("a", 4), ("b", 6)}
    expected = 4 * 730 * Decimal(2) + 6 * 730 * Decimal(3)  # 5,840 + 13,140
    assert plan.monthly_cost == expected == Decimal("18980.00")
    assert plan.cost_per_accepted_output == Decimal("0.26")
    assert plan.best_single_id == "b/1x"
    assert plan.best_single_cost == Decimal(21900)
    assert plan.saving_vs_single == Decimal(2920)
    assert [v.monthly_cost for v in plan.vendors] == [Decimal(5840), Decimal(13140)]


def test_b_short_requests_on_the_cheaper_gpu_long_ones_on_the_larger() -> None:
    demand = PlanDemand(VOLUME, buckets=(PlanBucket("short", 0.8), PlanBucket("long", 0.2)))
    # L40S-like: $1, 20 short/h, misses the long-request service level
    small = PlanOffer(
        "l40s", "fixed", (PlanConfig("1x", 1, {"short": 20.0}),), price_per_gpu_hour=Decimal(1)
    )
    # H200-like: $4, 25 short/h or 10 long/h
    large = PlanOffer(
        "h200",
        "fixed",
        (PlanConfig("1x", 1, {"short": 25.0, "long": 10.0}),),
        price_per_gpu_hour=Decimal(4),
    )
    plan = optimise(demand, [small, large])
    # short: 80/h ÷ 20 = 4 L40S; long: 20/h ÷ 10 = 2 H200
    expected = 4 * 730 * Decimal(1) + 2 * 730 * Decimal(4)
    assert plan.monthly_cost == expected == Decimal(8760)
    by_offer = {ln.offer_id: ln for ln in plan.lines}
    assert by_offer["l40s"].replicas == 4
    assert by_offer["h200"].replicas == 2
    assert by_offer["l40s"].bucket_shares == {"short": 1.0}
    assert by_offer["h200"].bucket_shares == {"long": 1.0}
    # the H200 alone needs ceil(80/25 + 20/10) = 6 replicas
    assert plan.best_single_cost == 6 * 730 * Decimal(4)
    assert plan.monthly_cost < plan.best_single_cost


def test_c_a_minimum_commitment_that_makes_a_split_dearer_is_not_split() -> None:
    # A's 4 GPUs come with an 8-GPU monthly commitment: 5,840 h × $2 + 6 × 730 × $3 = 24,820
    a = fixed("a", "2", 10.0, max_gpus=4, min_commitment_gpu_hours=Decimal(5840))
    b = fixed("b", "3", 10.0)
    plan = optimise(PlanDemand(VOLUME), [a, b])
    assert [ln.offer_id for ln in plan.lines] == ["b"]
    assert plan.monthly_cost == Decimal(21900) == plan.best_single_cost
    assert plan.saving_vs_single == 0


def test_d_infeasible_capacity_gives_the_shortfall() -> None:
    a = fixed("a", "2", 10.0, max_gpus=4)
    b = fixed("b", "3", 10.0, max_gpus=4)
    plan = optimise(PlanDemand(VOLUME), [a, b])
    assert plan.status == "infeasible"
    assert not plan.feasible
    assert plan.reason == "capacity short by 2 GPUs (1 node)"
    assert plan.monthly_cost is None


def test_no_offer_meets_the_long_request_service_level() -> None:
    demand = PlanDemand(VOLUME, buckets=(PlanBucket("short", 0.8), PlanBucket("long", 0.2)))
    small = PlanOffer(
        "l40s", "fixed", (PlanConfig("1x", 1, {"short": 20.0}),), price_per_gpu_hour=Decimal(1)
    )
    plan = optimise(demand, [small])
    assert plan.reason == "no offer meets the long-request service level"


def test_ineligible_offers_take_no_part() -> None:
    a = fixed("a", "1", 10.0, eligible=False)
    b = fixed("b", "3", 10.0)
    plan = optimise(PlanDemand(VOLUME), [a, b])
    assert [ln.offer_id for ln in plan.lines] == ["b"]


def test_base_and_api_overflow_with_a_peak() -> None:
    # linear load-duration curve (p = 2): peak 200/h; a fixed base and an API for the rest
    base = fixed("base", "2", 10.0, term_months=12)
    api = PlanOffer(
        "api", "api", (PlanConfig("route", 0, api_price_per_output={"all": Decimal("0.5")}),)
    )
    demand = PlanDemand(VOLUME, peak_to_average=2.0, layers=10)
    plan = optimise(demand, [base, api])
    base_line = next(ln for ln in plan.lines if ln.offer_id == "base")
    covered = base_line.replicas * 10 / 200
    overflow = Decimal(repr(1 - fixed_energy(covered, 2.0, 10))) * Decimal(VOLUME)
    expected = base_line.replicas * 730 * Decimal(2) + overflow * Decimal("0.5")
    assert plan.monthly_cost is not None
    assert plan.best_single_cost is not None
    assert abs(plan.monthly_cost - expected) < Decimal("0.01")
    assert plan.monthly_cost <= plan.best_single_cost
    assert 0 < base_line.replicas < 20  # a split: neither the base nor the API alone
    base_part = next(v for v in plan.vendors if v.offer_id == "base")
    assert base_part.commitment_total == base_line.replicas * 730 * Decimal(2) * 12
    assert plan.total_commitment == base_part.commitment_total


def _brute_force(demand: PlanDemand, offers: list[PlanOffer], api_price: Decimal) -> Decimal:
    volume = Decimal(repr(demand.monthly_outputs))
    peak = Decimal(repr(demand.peak_to_average)) * volume / 730
    energies = layer_energies_exact(demand.peak_to_average, demand.layers)
    ranges = []
    for offer in offers:
        cfg = offer.configs[0]
        rate = cfg.outputs_per_hour["all"]
        most = math.ceil(float(peak) / rate)
        if offer.max_gpus is not None:
            most = min(most, offer.max_gpus // cfg.gpus_per_replica)
        ranges.append(range(most + 1))
    best: Decimal | None = None
    for counts in itertools.product(*ranges):
        total = Decimal(0)
        capacity = Decimal(0)
        for offer, n in zip(offers, counts, strict=True):
            if n == 0:
                continue
            cfg = offer.configs[0]
            hours = 730 * n * cfg.gpus_per_replica
            billed = max(Decimal(hours), offer.min_commitment_gpu_hours)
            total += (billed * offer.price_per_gpu_hour).quantize(Decimal("0.01"))
            total += offer.fixed_monthly
            capacity += n * Decimal(repr(cfg.outputs_per_hour["all"]))
        left = (1 - served_exact(min(Decimal(1), capacity / peak), energies)) * volume
        total += (left * api_price).quantize(Decimal("0.01"))
        best = total if best is None else min(best, total)
    assert best is not None
    return best


offer_strategy = st.builds(
    lambda i, price, rate, gpus, cap, commit, fee: PlanOffer(
        f"o{i}",
        "fixed",
        (PlanConfig("c", gpus, {"all": float(rate)}),),
        price_per_gpu_hour=Decimal(price) / 4,
        max_gpus=cap,
        min_commitment_gpu_hours=Decimal(commit * 730),
        fixed_monthly=Decimal(fee * 100),
    ),
    st.just(0),
    st.integers(2, 20),
    st.integers(5, 40),
    st.integers(1, 2),
    st.one_of(st.none(), st.integers(0, 8)),
    st.integers(0, 3),
    st.integers(0, 5),
)


@settings(max_examples=60, deadline=None)
@given(
    offers=st.lists(offer_strategy, min_size=1, max_size=3),
    volume=st.integers(20, 120),
    peak=st.sampled_from([1.0, 1.5, 2.0, 3.0]),
    api_cents=st.integers(2, 60),
)
def test_the_plan_costs_the_brute_force_minimum(
    offers: list[PlanOffer], volume: int, peak: float, api_cents: int
) -> None:
    offers = [
        PlanOffer(
            f"o{i}",
            o.capacity,
            o.configs,
            price_per_gpu_hour=o.price_per_gpu_hour,
            max_gpus=o.max_gpus,
            min_commitment_gpu_hours=o.min_commitment_gpu_hours,
            fixed_monthly=o.fixed_monthly,
        )
        for i, o in enumerate(offers)
    ]
    api_price = Decimal(api_cents) / 100
    api = PlanOffer("api", "api", (PlanConfig("r", 0, api_price_per_output={"all": api_price}),))
    demand = PlanDemand(float(volume * 730), peak_to_average=peak, layers=6)
    plan = optimise(demand, [*offers, api])
    assert plan.monthly_cost is not None
    expected = _brute_force(demand, offers, api_price)
    assert plan.monthly_cost == expected
    assert plan.best_single_cost is not None
    assert plan.monthly_cost <= plan.best_single_cost


def test_owned_hardware_is_paid_in_whole_nodes() -> None:
    # 10 one-GPU replicas on 8-GPU nodes: 2 nodes, 16 GPUs paid
    own = fixed("own", "1", 10.0, whole_nodes=True, gpus_per_node=8)
    plan = optimise(PlanDemand(VOLUME), [own])
    assert plan.monthly_cost == 16 * 730 * Decimal(1)
    assert plan.vendors[0].committed_gpu_hours_per_month == 16 * 730


def test_elastic_overflow_within_its_capacity() -> None:
    # elastic at 50 % utilisation costs 2 × 2.00 / 10 = 0.40 an output, the API 0.50:
    # the elastic offer takes what its 6 GPUs carry at the peak, the API the rest
    elastic = PlanOffer(
        "od",
        "elastic",
        (PlanConfig("1x", 1, {"all": 10.0}),),
        price_per_gpu_hour=Decimal(2),
        utilisation=0.5,
        max_gpus=6,
    )
    api = PlanOffer(
        "api", "api", (PlanConfig("r", 0, api_price_per_output={"all": Decimal("0.5")}),)
    )
    plan = optimise(PlanDemand(VOLUME), [elastic, api])
    shares = {ln.offer_id: ln.traffic_share for ln in plan.lines}
    assert shares == {"od": 0.6, "api": 0.4}
    expected = Decimal("0.6") * 73_000 * Decimal("0.4") + Decimal("0.4") * 73_000 * Decimal("0.5")
    assert plan.monthly_cost == expected
    assert next(ln.gpus for ln in plan.lines if ln.offer_id == "od") == 6


def test_a_stop_at_the_time_limit_is_stated_and_never_dearer_than_one_offer() -> None:
    from bench.bench_plan import instance

    demand, offers = instance(1e9)
    plan = optimise(demand, offers, time_limit=0.05)
    assert plan.status in ("time_limit", "single")
    assert "time limit" in plan.outcome
    assert plan.monthly_cost is not None
    assert plan.best_single_cost is not None
    assert plan.monthly_cost <= plan.best_single_cost


def _two_bucket_brute_force(
    demand: PlanDemand, singles: list[PlanOffer], both: PlanOffer
) -> Decimal:
    """Offers serving one bucket each, enumerated; the one serving both takes the rest."""
    load = {b.name: b.share * demand.monthly_outputs / 730 for b in demand.buckets}
    ranges = []
    for offer in singles:
        cfg = offer.configs[0]
        (bucket, rate), *_ = cfg.outputs_per_hour.items()
        most = math.ceil(load[bucket] / rate)
        if offer.max_gpus is not None:
            most = min(most, offer.max_gpus // cfg.gpus_per_replica)
        ranges.append(range(most + 1))
    rates = both.configs[0].outputs_per_hour
    best: Decimal | None = None
    for counts in itertools.product(*ranges):
        total = Decimal(0)
        carried = {"short": 0.0, "long": 0.0}
        for offer, n in zip(singles, counts, strict=True):
            if n == 0:
                continue
            cfg = offer.configs[0]
            (bucket, rate), *_ = cfg.outputs_per_hour.items()
            carried[bucket] += n * rate
            billed = max(Decimal(730 * n * cfg.gpus_per_replica), offer.min_commitment_gpu_hours)
            total += (billed * offer.price_per_gpu_hour).quantize(Decimal("0.01"))
            total += offer.fixed_monthly
        need = sum(max(0.0, load[b] - carried[b]) / rates[b] for b in rates)
        n_both = math.ceil(need - 1e-9)
        if n_both:
            g = both.configs[0].gpus_per_replica
            total += (Decimal(730 * n_both * g) * both.price_per_gpu_hour).quantize(Decimal("0.01"))
        best = total if best is None else min(best, total)
    assert best is not None
    return best


@settings(max_examples=40, deadline=None)
@given(
    specs=st.lists(
        st.tuples(
            st.sampled_from(["short", "long"]),
            st.integers(2, 12),  # price in quarters
            st.integers(5, 30),  # outputs an hour
            st.one_of(st.none(), st.integers(0, 6)),  # GPUs available
            st.integers(0, 4),  # commitment in GPU-months
        ),
        min_size=1,
        max_size=3,
    ),
    long_share=st.sampled_from([0.1, 0.25, 0.5]),
    big_price=st.integers(8, 20),
)
def test_two_buckets_cost_the_brute_force_minimum(
    specs: list[tuple[str, int, int, int | None, int]], long_share: float, big_price: int
) -> None:
    singles = [
        PlanOffer(
            f"o{i}",
            "fixed",
            (PlanConfig("c", 1, {bucket: float(rate)}),),
            price_per_gpu_hour=Decimal(price) / 4,
            max_gpus=cap,
            min_commitment_gpu_hours=Decimal(730 * commit),
        )
        for i, (bucket, price, rate, cap, commit) in enumerate(specs)
    ]
    both = PlanOffer(
        "big",
        "fixed",
        (PlanConfig("c", 1, {"short": 16.0, "long": 8.0}),),
        price_per_gpu_hour=Decimal(big_price) / 4,
    )
    demand = PlanDemand(
        VOLUME, buckets=(PlanBucket("short", 1 - long_share), PlanBucket("long", long_share))
    )
    plan = optimise(demand, [*singles, both])
    assert plan.monthly_cost == _two_bucket_brute_force(demand, singles, both)
