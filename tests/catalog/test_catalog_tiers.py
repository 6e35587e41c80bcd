"""R8, R17: a route's batch and long-context tiers are what a batch or long-context brief
pays; a brief longer than the model accepts is flagged."""

from __future__ import annotations

from decimal import Decimal

from catalog.tiers import input_limit_reason, prices_for

ROUTE = {
    "price_input_per_m_tokens": "3.0000",
    "price_output_per_m_tokens": "15.0000",
    "price_cached_input_per_m_tokens": "0.3000",
    "price_tiers": {
        "batch": {"input_per_m": "1.5", "output_per_m": "7.5"},
        "above_200k_tokens": {
            "above_input_tokens": 200_000,
            "input_per_m": "6",
            "output_per_m": "22.5",
        },
        "standard": {"cache_write_per_m": "3.75"},
    },
    "max_input_tokens": 1_000_000,
}


def test_base_prices_without_a_matching_tier():
    prices = prices_for(ROUTE, batch=False, input_tokens=2_000)
    assert (prices.input_per_m, prices.output_per_m, prices.tiers) == (
        Decimal("3.0000"),
        Decimal("15.0000"),
        (),
    )


def test_r8_batch_brief_pays_the_batch_tier():
    prices = prices_for(ROUTE, batch=True, input_tokens=2_000)
    assert (prices.input_per_m, prices.output_per_m) == (Decimal("1.5"), Decimal("7.5"))
    assert prices.cached_input_per_m == Decimal("0.3000")
    assert prices.tiers == ("batch",)


def test_r8_long_prompts_pay_the_long_context_tier():
    prices = prices_for(ROUTE, batch=False, input_tokens=250_000)
    assert (prices.input_per_m, prices.output_per_m) == (Decimal("6"), Decimal("22.5"))
    assert prices.tiers == ("above_200k_tokens",)


def test_r17_input_longer_than_the_model_accepts_is_flagged():
    assert input_limit_reason(ROUTE, 1_200_000) == (
        "the model accepts at most 1,000,000 input tokens; the brief's p95 input is 1,200,000"
    )
    assert input_limit_reason(ROUTE, 100_000) is None
    assert input_limit_reason({**ROUTE, "max_input_tokens": None}, 5_000_000) is None


def test_r8_comparison_of_a_batch_brief_uses_the_batch_tier(lead, db):
    """R8, R17: the batch price reaches the comparison for a batch-inference brief; a route
    whose model accepts less input than the brief needs is refused with a reason."""
    from procurement.models import CandidateResult
    from procurement.services.comparisons import comparison_create, comparison_run
    from tests.factories import ModelApiRouteFactory, WorkloadBriefFactory

    tiers = {"batch": {"input_per_m": "0.5", "output_per_m": "1"}}
    route = ModelApiRouteFactory(price_tiers=tiers, model_name="tiered")
    short = ModelApiRouteFactory(max_input_tokens=1000, model_name="short-context")
    rows = {}
    for workload_class in ("batch_inference", "realtime_inference"):
        brief = WorkloadBriefFactory(
            created_by=lead,
            workload_class=workload_class,
            allowed_regions=[],
            batch_size=32,
            p95_input_tokens=5000,
        )
        comparison = comparison_create(
            acting_user=lead, brief=brief, api_route_ids=[route.pk, short.pk]
        ).comparison
        comparison_run(comparison_id=comparison.pk)
        rows[workload_class] = {
            r.api_route_id: r for r in CandidateResult.objects.filter(comparison=comparison)
        }
    batch, realtime = rows["batch_inference"][route.pk], rows["realtime_inference"][route.pk]
    assert batch.detail["price_tiers_applied"] == ["batch"]
    assert realtime.detail["price_tiers_applied"] == []
    refused = rows["realtime_inference"][short.pk]
    assert not refused.eligible
    assert any("accepts at most 1,000 input tokens" in r for r in refused.reasons)
