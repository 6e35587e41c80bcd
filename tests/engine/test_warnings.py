"""Each warning code fires on the fact behind it, with its severity, and only then."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.types import (
    ApiPricing,
    CandidateInput,
    EngineWarning,
    PurchaseSpec,
    TrainingSpec,
    WorkloadInput,
)
from engine.warnings import (
    WarningCode,
    candidate_warnings,
    interconnect_bars,
    latency_status,
)
from tests.engine.builders import fixed

D = Decimal


def workload(**kw: object) -> WorkloadInput:
    base: dict[str, object] = {
        "workload_class": "realtime_inference",
        "monthly_accepted_outputs": fixed(1e6),
        "output_tokens_per_request": 300,
        "platform_labor_fte": 0.5,
        "loaded_monthly_cost_per_fte": D(15000),
    }
    base.update(kw)
    return WorkloadInput(**base)  # type: ignore[arg-type]


def clean(**kw: object) -> CandidateInput:
    """A GPU offer that raises no warning at all under ``workload()``."""
    base: dict[str, object] = {
        "id": "c",
        "label": "c",
        "kind": "gpu",
        "capacity_model": "on_demand",
        "price_per_gpu_hour": D("2.00"),
        "throughput_per_replica": fixed(1000),
        "perf_source": "measured",
        "has_acceptance_data": True,
    }
    base.update(kw)
    return CandidateInput(**base)  # type: ignore[arg-type]


def codes(ws: tuple[EngineWarning, ...]) -> dict[str, str]:
    return {w.code: w.severity for w in ws}


def test_clean_candidate_has_no_warnings() -> None:
    assert candidate_warnings(workload(), clean()) == ()


@pytest.mark.parametrize(
    ("facts", "code", "severity"),
    [
        ({"fits": False}, "MEMORY_DOES_NOT_FIT", "block"),
        ({"fits_at_p95_context": False}, "FIT_ONLY_AT_AVERAGE_CONTEXT", "warn"),
        ({"headroom_pct": 4.0}, "HEADROOM_BELOW_MARGIN", "warn"),
        ({"gpus_per_replica": 2, "interconnect_gbps": 64.0}, "WEAK_INTERCONNECT", "warn"),
        ({"gpus_per_replica": 2}, "WEAK_INTERCONNECT", "warn"),
        (
            {
                "gpus_per_replica": 16,
                "crosses_nodes": True,
                "interconnect_gbps": 900.0,
                "fabric_gbps": 12.5,
            },
            "WEAK_INTERCONNECT",
            "warn",
        ),
        ({"has_acceptance_data": False}, "NO_ACCEPTANCE_DATA", "warn"),
        ({"term_months": 36}, "COMMITMENT_EXCEEDS_MODEL_CHURN", "warn"),
        ({"quote_age_days": 45.0}, "STALE_QUOTE", "warn"),
        ({"quote_stale": True}, "STALE_QUOTE", "warn"),
        ({"fx_available": False}, "FX_MISSING", "block"),
        ({"perf_source": "estimated"}, "PERF_ESTIMATED", "warn"),
        ({"checklist_complete": False}, "CHECKLIST_BELOW_COMMITMENT", "block"),
        ({"latency_met": False}, "LATENCY_TARGET_UNMET", "block"),
        ({"data_boundary_ok": False}, "DATA_BOUNDARY_VIOLATED", "block"),
    ],
)
def test_each_fact_raises_its_code(facts: dict[str, object], code: str, severity: str) -> None:
    found = codes(candidate_warnings(workload(), clean(**facts)))
    assert found == {code: severity}


def test_codes_are_stable_strings() -> None:
    assert {c.value for c in WarningCode} == {
        "CHEAPEST_HOURLY_NOT_CHEAPEST_OUTPUT",
        "FIT_ONLY_AT_AVERAGE_CONTEXT",
        "HEADROOM_BELOW_MARGIN",
        "WEAK_INTERCONNECT",
        "NO_ACCEPTANCE_DATA",
        "NO_PLATFORM_LABOR",
        "COMMITMENT_EXCEEDS_MODEL_CHURN",
        "STALE_QUOTE",
        "FX_MISSING",
        "PERF_ESTIMATED",
        "CHECKLIST_BELOW_COMMITMENT",
        "LATENCY_TARGET_UNMET",
        "LATENCY_UNMEASURED",
        "DATA_BOUNDARY_VIOLATED",
        "MEMORY_DOES_NOT_FIT",
        "TERM_OUTLASTS_USE",
        "TERM_NOT_STATED",
        "STORAGE_NOT_PRICED",
        "PERF_PROXY",
        "PERF_PUBLISHED",
        "MODEL_SUBSTITUTION",
        "PRICE_FAR_FROM_MARKET",
    }


@pytest.mark.parametrize(("unverified", "severity"), [(True, "block"), (False, "warn")])
def test_a_price_far_from_the_market_blocks_unless_staff_confirmed_it(
    unverified: bool, severity: str
) -> None:
    cand = clean(
        price_far_from_market="0.01 USD per GPU-hour is far from the market.",
        price_far_unverified=unverified,
    )
    (w,) = [w for w in candidate_warnings(workload(), cand) if w.code == "PRICE_FAR_FROM_MARKET"]
    assert w.severity == severity
    assert w.detail.startswith("0.01 USD per GPU-hour is far from the market.")


def test_warning_carries_candidate_id_and_detail() -> None:
    (w,) = candidate_warnings(workload(), clean(id="h100-a", quote_age_days=40.0))
    assert w.candidate_id == "h100-a"
    assert "40 days" in w.detail
    assert w.to_dict() == {
        "code": "STALE_QUOTE",
        "candidate_id": "h100-a",
        "detail": w.detail,
        "severity": "warn",
    }


def test_no_platform_labor_for_self_managed_only() -> None:
    w = workload(platform_labor_fte=0.0)
    assert codes(candidate_warnings(w, clean())) == {"NO_PLATFORM_LABOR": "warn"}
    managed = clean(capacity_model="managed_endpoint")
    assert "NO_PLATFORM_LABOR" not in codes(candidate_warnings(w, managed))
    route = CandidateInput(
        id="a",
        label="a",
        kind="api",
        capacity_model="api",
        api_pricing=ApiPricing(D(1), D(2)),
        has_acceptance_data=True,
    )
    assert candidate_warnings(w, route) == ()


def test_stale_threshold_comes_from_the_brief() -> None:
    assert candidate_warnings(workload(), clean(quote_age_days=29.0)) == ()
    assert "STALE_QUOTE" in codes(
        candidate_warnings(workload(stale_quote_days=14), clean(quote_age_days=29.0))
    )
    assert candidate_warnings(workload(), clean(quote_age_days=90.0, quote_stale=False)) == ()


def test_purchase_life_counts_as_commitment() -> None:
    spec = PurchaseSpec(D(200_000), 48, D("0.1"), power_kw_per_node=D(10))
    c = clean(capacity_model="purchase", price_per_gpu_hour=None, purchase=spec)
    found = candidate_warnings(workload(expected_model_churn_months=18), c)
    assert codes(found) == {"COMMITMENT_EXCEEDS_MODEL_CHURN": "warn"}
    assert "48-month" in found[0].detail


def test_latency_derived_from_figures_and_targets() -> None:
    w = workload(ttft_p95_target_ms=500, e2e_p99_target_ms=4000)
    ok = clean(p95_ttft_ms=300, p99_e2e_ms=3000, latency_source="measured")
    assert latency_status(w, ok) is True
    assert candidate_warnings(w, ok) == ()
    slow = clean(p95_ttft_ms=800, p99_e2e_ms=3000, latency_source="measured")
    assert latency_status(w, slow) is False
    assert codes(candidate_warnings(w, slow)) == {"LATENCY_TARGET_UNMET": "block"}
    estimated = clean(p95_ttft_ms=300, p99_e2e_ms=3000, latency_source="estimated")
    assert codes(candidate_warnings(w, estimated)) == {"LATENCY_UNMEASURED": "warn"}
    missing = clean(p95_ttft_ms=300)
    assert latency_status(w, missing) is None
    assert codes(candidate_warnings(w, missing)) == {"LATENCY_UNMEASURED": "warn"}
    # without targets nothing is said about latency
    assert latency_status(workload(), clean()) is True


def test_interconnect_bars_depend_on_the_class() -> None:
    assert interconnect_bars(workload()) == (100.0, 25.0)
    t = WorkloadInput(
        workload_class="training",
        training=TrainingSpec(
            active_params_b=8,
            tokens=fixed(1e10),
            checkpoint_write_s=30,
            checkpoint_interval_h=1,
            node_mtbf_h=fixed(5000),
        ),
    )
    assert interconnect_bars(t) == (300.0, 50.0)
    assert interconnect_bars(workload(min_interconnect_gbps=50, min_fabric_gbps=10)) == (50, 10)
    pcie_pair = clean(gpus_per_replica=2, interconnect_gbps=128.0, fabric_gbps=None)
    assert candidate_warnings(workload(), pcie_pair) == ()
    assert "WEAK_INTERCONNECT" in codes(candidate_warnings(t, pcie_pair))


def test_headroom_at_margin_is_fine_and_not_checked_when_it_does_not_fit() -> None:
    assert candidate_warnings(workload(), clean(headroom_pct=10.0)) == ()
    found = codes(candidate_warnings(workload(), clean(fits=False, headroom_pct=-5.0)))
    assert found == {"MEMORY_DOES_NOT_FIT": "block"}


@pytest.mark.parametrize(
    ("capacity_model", "words"),
    [("on_demand", "an on-demand offer"), ("dedicated_cluster", "a dedicated cluster")],
)
def test_the_checklist_block_names_the_offers_terms_in_words(capacity_model, words):
    """The record read "short of what a on_demand commitment needs"."""
    from engine.warnings import _capacity_phrase

    assert _capacity_phrase(capacity_model) == words
    assert _capacity_phrase("new_kind") == "a new kind offer"
