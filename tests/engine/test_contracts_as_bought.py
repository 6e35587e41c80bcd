"""Contracts priced as they are bought (issue 38: P1, P3, P4, P5, P10, P11, P19), in the engine.

The hand figures are those of the round-4 decision audit (briefs A, B and D).
"""

from __future__ import annotations

from decimal import Decimal

from engine.comparison import run_comparison
from engine.cost.contracts import (
    CAPACITY_STARTS_LATE,
    RATE_LIMIT_NOT_STATED,
    UNIT_OF_SALE_NOT_STATED,
)
from engine.plan.mixed_adapter import plan_inputs
from engine.types import ApiPricing, CandidateInput, ComparisonInput, TrainingSpec, WorkloadInput
from tests.engine.builders import fixed

D = Decimal


def brief_d(**kw: object) -> WorkloadInput:
    """Pre-training an 8B model on 2 T tokens, 128 GPUs, MFU 0.40, 3-month horizon."""
    base: dict[str, object] = {
        "workload_class": "training",
        "utilisation": fixed(0.9),
        "platform_labor_fte": 1.0,
        "loaded_monthly_cost_per_fte": D(20_000),
        "storage_gb": 5_000,
        "horizon_months": 3,
        "training": TrainingSpec(
            active_params_b=8.03,
            tokens=fixed(2e12),
            mfu=fixed(0.40),
            checkpoint_write_s=60,
            checkpoint_interval_h=1.0,
            node_mtbf_h=fixed(24 / 0.005),  # 0.005 node failures a day
            restart_h=0.25,
            checkpoint_size_gb=120,
            checkpoints_retained=3,
            success_probability=fixed(0.9),
        ),
    }
    base.update(kw)
    return WorkloadInput(**base)  # type: ignore[arg-type]


def cluster(cid: str, capacity_model: str, price: str, term: int, **kw: object) -> CandidateInput:
    base: dict[str, object] = {
        "id": cid,
        "label": cid,
        "kind": "gpu",
        "capacity_model": capacity_model,
        "price_per_gpu_hour": D(price),
        "gpus_per_replica": 128,
        "gpus_per_node": 8,
        "peak_dense_tflops_per_gpu": 989.5,
        "term_months": term,
        "storage_price_per_gb_month": D("0.023"),
        "interconnect_gbps": 900,
        "fabric_gbps": 50,
        "has_acceptance_data": True,
    }
    if capacity_model == "reserved":
        base["min_commitment_gpu_hours_per_month"] = D(128 * 730)
    base.update(kw)
    return CandidateInput(**base)  # type: ignore[arg-type]


def _rows(workload: WorkloadInput, *cands: CandidateInput):
    out = run_comparison(ComparisonInput(workload, cands), seed=3, samples=400)
    return {c.candidate_id: c for c in out.candidates}, out


def test_p1_a_training_run_on_a_3_month_reservation_pays_the_whole_contract() -> None:
    """Brief D: the run holds 128 GPUs for 598.314 h of a 3-month, 128-GPU contract.

    Run's share (as before): 76,584.2 GPU-h × 2.20 = 168,485.15; + checkpoint storage 6.79
    + storage 94.25 + labour 16,392.16 = 184,978.35. The contract: 128 × 730 × 3 × 2.20 =
    616,704.00, so 448,218.85 of it is unused by the run and the row costs
    616,704.00 + 6.79 + 94.25 + 16,392.16 = 633,197.20 a run. On demand: 245,479.84 wins.
    """
    reserved = cluster("nw-h100-3m", "reserved", "2.20", 3)
    h200 = cluster("ct-h200-6m", "reserved", "2.60", 6)
    on_demand = cluster("ct-h100-od", "on_demand", "2.99", 0)
    rows, out = _rows(brief_d(), reserved, h200, on_demand)
    row = rows["nw-h100-3m"]
    assert row.gpu_spend == D("168485.15")  # the run's share, as the finding computed it
    assert row.cost_lines["term_beyond_horizon"] == D("448218.85")  # 616,704.00 − 168,485.15
    assert row.total == D("633197.20")
    assert row.commitment is not None
    assert row.commitment.contract_usd == D("616704.00")
    assert rows["ct-h100-od"].total == D("245479.84")
    # The 6-month H200 contract counts in full too: 128 × 730 × 6 × 2.60 = 1,457,664.00
    assert rows["ct-h200-6m"].commitment.contract_usd == D("1457664.00")  # type: ignore[union-attr]
    assert rows["ct-h200-6m"].total > D("1457664.00")
    assert out.recommended_candidate_id == "ct-h100-od"
    assert rows["ct-h100-od"].rank_by_unit_cost == 1
    # P(cheapest) follows: the Monte Carlo pays the contract on every draw
    assert rows["ct-h100-od"].prob_cheapest == 1.0
    assert rows["nw-h100-3m"].prob_cheapest == 0.0


def test_p1_a_stated_residual_use_of_the_contract_lowers_the_unused_part() -> None:
    """Half the unused months stated as used by other work: 448,218.85 × 0.5 = 224,109.42
    (half-even on 224,109.425)."""
    rows, _ = _rows(brief_d(term_residual_use_share=0.5), cluster("r", "reserved", "2.20", 3))
    assert rows["r"].cost_lines["term_beyond_horizon"] == D("224109.42")
    assert rows["r"].total == D("184978.35") + D("224109.42")


def test_p1_a_run_that_uses_the_whole_term_pays_nothing_more() -> None:
    """A run longer than the contract: no unused part (the term is the run's)."""
    long_run = brief_d(
        training=TrainingSpec(
            active_params_b=8.03,
            tokens=fixed(8e12),
            mfu=fixed(0.40),
            checkpoint_write_s=60,
            checkpoint_interval_h=1.0,
            node_mtbf_h=fixed(4800),
            restart_h=0.25,
        )
    )
    rows, _ = _rows(long_run, cluster("r", "reserved", "2.20", 3))
    assert "term_beyond_horizon" not in rows["r"].cost_lines


def chat_8b(**kw: object) -> WorkloadInput:
    """The round-3 8B brief at 30 M accepted a month: 1,000 in / 200 out, acceptance 0.8,
    no failures, utilisation 0.5, peak 2, 20 % peak headroom on fixed capacity, no labour."""
    base: dict[str, object] = {
        "workload_class": "realtime_inference",
        "monthly_accepted_outputs": fixed(30e6),
        "acceptance_rate": fixed(0.8),
        "failure_rate": fixed(0.0),
        "utilisation": fixed(0.5),
        "peak_to_average": fixed(2.0),
        "input_tokens_per_request": 1000,
        "output_tokens_per_request": 200,
        "fixed_peak_headroom": 0.2,
        "vendor_management_fte": 0.0,
        "horizon_months": 12,
    }
    base.update(kw)
    return WorkloadInput(**base)  # type: ignore[arg-type]


def h100(cid: str, capacity_model: str, price: str, **kw: object) -> CandidateInput:
    """One H100 per replica at 2,500 tokens/s, measured, TTFT p95 400 ms."""
    base: dict[str, object] = {
        "id": cid,
        "label": cid,
        "kind": "gpu",
        "capacity_model": capacity_model,
        "price_per_gpu_hour": D(price),
        "throughput_per_replica": fixed(2500),
        "perf_source": "measured",
        "latency_source": "measured",
        "p95_ttft_ms": 400.0,
        "gpus_per_node": 8,
        "has_acceptance_data": True,
        "accelerator_name": "H100 SXM 80GB",
    }
    base.update(kw)
    return CandidateInput(**base)  # type: ignore[arg-type]


def test_p3_capacity_sold_by_the_node_is_billed_and_bought_in_whole_nodes() -> None:
    """The audit's small case. Work 30e6 / 0.8 × 200 / 2,500 / 3,600 = 833.33 h; replicas at
    peak ceil(2 × 833.33 / (730 × 0.8)) = 3. By the GPU: 3 × 730 × 1.80 = 3,942.00 a month,
    commitment 47,304.00. By the node: 8 × 730 × 1.80 = 10,512.00, commitment 126,144.00,
    so on demand (1,666.67 h × 2.50 = 4,166.67) is the cheaper answer."""
    node = h100("rs-node", "reserved", "1.80", term_months=12, unit_of_sale="node")
    by_gpu = h100("rs-gpu", "reserved", "1.80", term_months=12, unit_of_sale="gpu")
    on_demand = h100("od", "on_demand", "2.50")
    rows, out = _rows(chat_8b(), node, on_demand)
    assert rows["rs-node"].gpu_spend == D("10512.00")
    assert rows["rs-node"].commitment_usd == D("126144.00")
    assert rows["rs-node"].fleet is not None
    assert rows["rs-node"].fleet.bought.startswith("1 × 8-GPU H100 SXM 80GB nodes, 12 months")
    assert rows["od"].total == D("4166.67")
    assert out.recommended_candidate_id == "od"
    # The plan across offers holds the node-sold offer in whole nodes too
    planned = plan_inputs((node, on_demand), out.candidates, chat_8b())
    assert planned is not None
    assert {o.id: o.whole_nodes for o in planned[1]} == {"rs-node": True, "od": False}
    rows, out = _rows(chat_8b(), by_gpu, on_demand)
    assert rows["rs-gpu"].gpu_spend == D("3942.00")
    assert rows["rs-gpu"].commitment_usd == D("47304.00")
    assert rows["rs-gpu"].fleet is not None
    assert rows["rs-gpu"].fleet.bought.startswith("3 H100 SXM 80GB GPUs (0.375 × 8-GPU nodes)")
    assert out.recommended_candidate_id == "rs-gpu"
    assert UNIT_OF_SALE_NOT_STATED not in {w.code for w in rows["rs-gpu"].warnings}


def test_p3_a_quote_that_does_not_state_its_unit_of_sale_says_what_a_node_would_cost() -> None:
    """Billed by the GPU (3,942.00), warned: whole nodes hold 5 more GPUs, 5 × 730 × 1.80 =
    6,570.00 more a month."""
    rows, _ = _rows(chat_8b(), h100("rs", "reserved", "1.80", term_months=12))
    assert rows["rs"].gpu_spend == D("3942.00")
    found = {w.code: w.detail for w in rows["rs"].warnings}
    assert "costs 6,570.00 more a month" in found[UNIT_OF_SALE_NOT_STATED]


def test_p4_a_real_time_brief_with_latency_targets_is_never_recommended_spot_alone() -> None:
    """Spot 1,666.67 h × 1.65 = 2,750.00 is the cheapest row, on demand 1,666.67 h × 2.69 =
    4,483.33 is recommended, and the note says why; the plan leaves spot out."""
    workload = chat_8b(ttft_p95_target_ms=800.0)
    spot = h100("spot", "spot", "1.65")
    on_demand = h100("od", "on_demand", "2.69")
    rows, out = _rows(workload, spot, on_demand)
    assert rows["spot"].total == D("2750.00")
    assert rows["spot"].rank_by_unit_cost == 1
    assert rows["od"].total == D("4483.33")
    assert out.recommended_candidate_id == "od"
    assert any("spot" in n and "not recommended" in n for n in out.recommendation_notes)
    planned = plan_inputs((spot, on_demand), out.candidates, workload)
    assert planned is not None
    assert [o.id for o in planned[1]] == ["od"]
    # Without latency targets (or for batch work) spot may win
    rows, out = _rows(chat_8b(), spot, on_demand)
    assert out.recommended_candidate_id == "spot"


def test_p4_spot_alone_with_no_other_offer_is_no_recommendation() -> None:
    _, out = _rows(chat_8b(ttft_p95_target_ms=800.0), h100("spot", "spot", "1.65"))
    assert out.recommended_candidate_id is None
    assert any("spot" in n for n in out.recommendation_notes)


def test_p5_capacity_that_starts_after_the_horizon_is_not_eligible() -> None:
    """Brief D's 3-month reservation delivered in 150 days: the horizon is 3 × 30.42 = 91
    days, so the row is refused; delivered in 30 days it is warned about."""
    late = cluster("late", "reserved", "2.20", 3, capacity_starts_in_days=150.0)
    on_demand = cluster("od", "on_demand", "2.99", 0)
    rows, out = _rows(brief_d(), late, on_demand)
    assert not rows["late"].eligible
    assert any("150 days" in r and "3-month horizon" in r for r in rows["late"].reasons)
    assert out.recommended_candidate_id == "od"
    soon = cluster("soon", "reserved", "2.20", 3, capacity_starts_in_days=30.0)
    rows, _ = _rows(brief_d(), soon)
    assert rows["soon"].eligible
    assert CAPACITY_STARTS_LATE in {w.code for w in rows["soon"].warnings}


def test_p19_an_expired_price_is_not_eligible() -> None:
    """An H100 at 2.00 past its valid_until against the current 2.50: 111.11 would rank first,
    but the price cannot be bought; the current quote (138.89) is recommended."""
    workload = chat_8b(monthly_accepted_outputs=fixed(1e6))
    expired = h100("old", "on_demand", "2.00", quote_expired_on="2026-11-07")
    current = h100("new", "on_demand", "2.50")
    rows, out = _rows(workload, expired, current)
    assert not rows["old"].eligible
    assert any("expired on 2026-11-07" in r for r in rows["old"].reasons)
    assert rows["old"].total == D("111.11")  # 55.56 h × 2.00, shown, not ranked
    assert rows["new"].total == D("138.89")
    assert out.recommended_candidate_id == "new"


def api_route(cid: str, **kw: object) -> CandidateInput:
    base: dict[str, object] = {
        "id": cid,
        "label": cid,
        "kind": "api",
        "capacity_model": "api",
        "api_pricing": ApiPricing(D("0.23"), D("0.40")),
        "p95_ttft_ms": 300.0,
        "storage_price_per_gb_month": D("0.023"),
    }
    base.update(kw)
    return CandidateInput(**base)  # type: ignore[arg-type]


def brief_a(**kw: object) -> WorkloadInput:
    """Brief A's volume: 30 M answers, 1,500 in / 300 out, acceptance 0.95, failure 1 %,
    peak 2.5."""
    base: dict[str, object] = {
        "workload_class": "realtime_inference",
        "monthly_accepted_outputs": fixed(30e6),
        "acceptance_rate": fixed(0.95),
        "failure_rate": fixed(0.01),
        "peak_to_average": fixed(2.5),
        "input_tokens_per_request": 1500,
        "output_tokens_per_request": 300,
        "storage_gb": 2000,
        "loaded_monthly_cost_per_fte": D(20_000),
    }
    base.update(kw)
    return WorkloadInput(**base)  # type: ignore[arg-type]


def test_p10_an_api_route_with_no_stated_rate_limit_is_warned_about() -> None:
    """Attempts 30e6 / (0.95 × 0.99) = 31,897,926.6 a month; at peak × 2.5 over 730 h:
    30.3 requests/s (1,820.66 a minute, × 1,800 tokens = 3,277,184 tokens a minute)."""
    rows, _ = _rows(brief_a(), api_route("deepinfra"))
    found = {w.code: w.detail for w in rows["deepinfra"].warnings}
    assert "~30.3 requests/s" in found[RATE_LIMIT_NOT_STATED]
    assert "~3,277,184 tokens/min" in found[RATE_LIMIT_NOT_STATED]
    assert rows["deepinfra"].eligible


def test_p10_a_stated_rate_limit_is_a_capacity_the_peak_must_fit() -> None:
    rows, _ = _rows(brief_a(), api_route("limited", rate_limit_rpm=1000))
    assert not rows["limited"].eligible
    assert "peak load needs ~1,821 requests/min; the route allows 1,000" in rows["limited"].reasons
    assert RATE_LIMIT_NOT_STATED not in {w.code for w in rows["limited"].warnings}
    rows, _ = _rows(brief_a(), api_route("roomy", rate_limit_rpm=2000, rate_limit_tpm=4_000_000))
    assert rows["roomy"].eligible
    assert RATE_LIMIT_NOT_STATED not in {w.code for w in rows["roomy"].warnings}


def brief_b(**kw: object) -> WorkloadInput:
    """Brief B: 0.5 M documents a month, 3,600 in / 400 out, billed per input + output token,
    acceptance 0.97, failure 1 %, 500 GB, 0.1 FTE vendor management at 20,000."""
    base: dict[str, object] = {
        "workload_class": "batch_inference",
        "monthly_accepted_outputs": fixed(500_000),
        "acceptance_rate": fixed(0.97),
        "failure_rate": fixed(0.01),
        "input_tokens_per_request": 3600,
        "output_tokens_per_request": 400,
        "tokens_billed": "total",
        "storage_gb": 500,
        "vendor_management_fte": 0.1,
        "loaded_monthly_cost_per_fte": D(20_000),
        "vendor_management_cap_share": 0.25,
    }
    base.update(kw)
    return WorkloadInput(**base)  # type: ignore[arg-type]


def test_p11_the_default_vendor_management_labour_never_dominates_a_small_api_bill() -> None:
    """API compute 500,000 × (3,600 × 0.03 + 400 × 0.05) / 1e6 = 64.00; retry 2.65; storage
    500 × 0.023 = 11.50: a bill of 78.15. The default labour is at most 25 % of it, 19.54
    (19.5375), not 0.1 × 20,000 = 2,000.00: total 97.69, 0.048845 per 1M tokens (2,000 M
    billed tokens). A stated FTE counts in full: 2,078.15, as before."""
    route = api_route("deepinfra-8b", api_pricing=ApiPricing(D("0.03"), D("0.05")))
    rows, _ = _rows(brief_b(), route)
    row = rows["deepinfra-8b"]
    assert row.cost_lines["api_compute"] == D("64.00")
    assert row.cost_lines["retry_waste"] == D("2.65")
    assert row.cost_lines["storage"] == D("11.50")
    assert row.cost_lines["platform_labor"] == D("19.54")
    assert row.total == D("97.69")
    assert row.unit_cost == D("0.048845")
    stated, _ = _rows(brief_b(vendor_management_cap_share=None), route)
    assert stated["deepinfra-8b"].cost_lines["platform_labor"] == D("2000.00")
    assert stated["deepinfra-8b"].total == D("2078.15")


def test_p11_a_large_api_bill_keeps_the_full_default() -> None:
    """Brief A at DeepInfra: 13,950.00 + 882.54 + 46.00 = 14,878.54 a month; 25 % of it is
    3,719.64, above the default 0.1 FTE (2,000.00), which counts in full: 16,878.54."""
    rows, _ = _rows(brief_a(vendor_management_cap_share=0.25), api_route("deepinfra"))
    row = rows["deepinfra"]
    assert row.cost_lines["api_compute"] == D("13950.00")
    assert row.cost_lines["retry_waste"] == D("882.54")
    assert row.cost_lines["platform_labor"] == D("2000.00")
    assert row.total == D("16878.54")


def test_p15_owned_hardware_says_its_amortisation_not_a_horizon_term() -> None:
    from engine.types import PurchaseSpec

    server = h100(
        "own",
        "purchase",
        "0",
        price_per_gpu_hour=None,
        purchase=PurchaseSpec(
            capex_per_node=D("250000"),
            life_months=36,
            price_per_kwh=D("0.12"),
            power_kw_per_node=D("10.2"),
        ),
    )
    rows, _ = _rows(chat_8b(), server)
    assert rows["own"].fleet is not None
    assert rows["own"].fleet.bought == (
        "1 × 8-GPU H100 SXM 80GB nodes, amortised over 36 months, purchased"
    )
