"""Ready comparisons with computed rows, built without the engine (the reviews area's world)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import factory
from factory.django import DjangoModelFactory

from core.roles import Role
from procurement.models import CandidateResult, Comparison
from tests.factories import (
    AcceleratorFactory,
    ComparisonFactory,
    ModelApiRouteFactory,
    ProviderFactory,
    QuoteFactory,
    UserFactory,
)

UNIT_LABEL = "per 1M accepted output tokens"


class CandidateResultFactory(DjangoModelFactory[CandidateResult]):
    class Meta:
        model = CandidateResult

    comparison = factory.SubFactory(ComparisonFactory)
    key = factory.Sequence(lambda n: f"q{n}")
    kind = CandidateResult.Kind.GPU
    label = factory.Sequence(lambda n: f"Candidate {n}")
    provider_name = "Provider"
    accelerator_name = "H100 SXM"
    capacity_model = "on_demand"
    gpus = 8
    hourly_price_usd = Decimal("2.4900")
    eligible = True
    cost_lines = factory.LazyFunction(
        lambda: {"gpu_compute": "10000.00", "storage": "250.00", "platform_labor": "9000.00"}
    )
    total_usd = Decimal("19250.00")
    accepted_outputs = Decimal("3000000.0000")
    unit_cost_usd = Decimal("6.416667")
    unit_label = UNIT_LABEL
    p10 = 5.5
    p50 = 6.4
    p90 = 7.9
    prob_cheapest = 0.5
    perf_source = "estimated"
    fit = factory.LazyFunction(lambda: {"fits": True, "gpus_required": 2, "headroom_pct": 22.5})
    performance = factory.LazyFunction(
        lambda: {
            "tokens_per_s": 2400.0,
            "ttft_p95_ms": 450.0,
            "throughput_source": "estimated",
            "latency_source": "estimated",
        }
    )
    checklist = factory.LazyFunction(
        lambda: {"required_level": "basic", "completeness_pct": 100, "missing_items": []}
    )
    warnings = factory.LazyFunction(list)


def _lines(gpu: str, storage: str, labour: str) -> dict[str, str]:
    return {"gpu_compute": gpu, "storage": storage, "platform_labor": labour}


def ready_comparison(
    *,
    created_by: Any = None,
    required_approvals: int = 1,
    commitment_usd: Decimal | None = None,
    provider_names: tuple[str, str, str] = ("Northwind", "Contoso", "Fabrikam"),
    **fields: Any,
) -> Comparison:
    """A READY comparison with three rows: a recommended H100, a runner-up H200, an ineligible
    L40S; quotes behind the GPU rows. `created_by` defaults to a fresh procurement lead."""
    creator = created_by or UserFactory(role=Role.PROCUREMENT_LEAD)
    comparison = ComparisonFactory(
        created_by=creator,
        status=Comparison.Status.READY,
        required_approvals=required_approvals,
        commitment_usd=commitment_usd,
        engine_version="1.0.0",
        recommended_key="q-h100",
        assumptions={"utilisation_likely": 0.55},
        result={"assumptions": {"hours_per_month": "730", "money_rounding": "ROUND_HALF_EVEN"}},
        **fields,
    )
    prov = [ProviderFactory(name=n, slug=n.lower().replace(" ", "-")) for n in provider_names]
    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")
    h200 = AcceleratorFactory(slug="h200-sxm-141gb", name="H200 SXM 141GB", memory_gb=141.0)
    l40s = AcceleratorFactory(slug="l40s-48gb", name="L40S 48GB", memory_gb=48.0)
    q1 = QuoteFactory(provider=prov[0], accelerator=h100, title="H100 on-demand")
    q2 = QuoteFactory(
        provider=prov[1],
        accelerator=h200,
        title="H200 reserved",
        capacity_model="reserved",
        price_per_gpu_hour=Decimal("3.1000"),
    )
    q3 = QuoteFactory(provider=prov[2], accelerator=l40s, title="L40S spot", capacity_model="spot")
    comparison.quotes.set([q1, q2, q3])
    CandidateResultFactory(
        comparison=comparison,
        key="q-h100",
        quote=q1,
        label=str(q1),
        provider_name=prov[0].name,
        accelerator_name=h100.name,
        capacity_model="on_demand",
        hourly_price_usd=Decimal("2.4900"),
        cost_lines=_lines("10000.00", "250.00", "9000.00"),
        total_usd=Decimal("19250.00"),
        unit_cost_usd=Decimal("6.416667"),
        p10=5.5,
        p50=6.4,
        p90=7.9,
        prob_cheapest=0.71,
        rank=1,
        rank_hourly=1,
        perf_source="measured",
        performance={
            "tokens_per_s": 3100.0,
            "ttft_p95_ms": 420.0,
            "throughput_source": "measured",
            "latency_source": "estimated",
        },
        warnings=[{"code": "HEADROOM_BELOW_MARGIN", "detail": "8% headroom", "severity": "warn"}],
    )
    CandidateResultFactory(
        comparison=comparison,
        key="q-h200",
        quote=q2,
        label=str(q2),
        provider_name=prov[1].name,
        accelerator_name=h200.name,
        capacity_model="reserved",
        hourly_price_usd=Decimal("3.1000"),
        cost_lines=_lines("12500.00", "250.00", "9000.00"),
        total_usd=Decimal("21750.00"),
        unit_cost_usd=Decimal("7.250000"),
        p10=6.1,
        p50=7.2,
        p90=8.8,
        prob_cheapest=0.29,
        rank=2,
        rank_hourly=2,
        checklist={"required_level": "full", "completeness_pct": 60, "missing_items": ["sla"]},
        warnings=[
            {"code": "CHECKLIST_BELOW_COMMITMENT", "detail": "60% of 100%", "severity": "warn"}
        ],
    )
    CandidateResultFactory(
        comparison=comparison,
        key="q-l40s",
        quote=q3,
        label=str(q3),
        provider_name=prov[2].name,
        accelerator_name=l40s.name,
        capacity_model="spot",
        hourly_price_usd=Decimal("0.9900"),
        eligible=False,
        reasons=["weights do not fit in 48 GB"],
        cost_lines={},
        total_usd=None,
        accepted_outputs=None,
        unit_cost_usd=None,
        p10=None,
        p50=None,
        p90=None,
        prob_cheapest=None,
        rank=None,
        rank_hourly=None,
        fit={"fits": False, "gpus_required": 4},
        warnings=[{"code": "MEMORY_DOES_NOT_FIT", "detail": "needs 160 GB", "severity": "block"}],
    )
    return comparison


def add_api_candidate(comparison: Comparison, *, key: str = "api-route") -> CandidateResult:
    route = ModelApiRouteFactory(provider=ProviderFactory(name="Route Co", slug="route-co"))
    comparison.api_routes.add(route)
    return CandidateResultFactory(
        comparison=comparison,
        key=key,
        kind=CandidateResult.Kind.API,
        api_route=route,
        label=str(route),
        provider_name="Route Co",
        accelerator_name="",
        capacity_model="api",
        gpus=None,
        hourly_price_usd=None,
        cost_lines={"api_compute": "21000.00", "platform_labor": "1800.00"},
        total_usd=Decimal("22800.00"),
        unit_cost_usd=Decimal("7.600000"),
        p10=7.0,
        p50=7.6,
        p90=8.3,
        prob_cheapest=0.0,
        rank=3,
        rank_hourly=None,
    )


def deliver_price_changes() -> list[str]:
    """What the worker does after a vendor's revision, run in this process (tests without a
    Celery worker): the task's service for every price-change flag still pending, oldest
    first. Returns each run's outcome."""
    from procurement.models import PriceChange
    from procurement.services.price_change_delivery import price_change_assess_and_notify

    pending = PriceChange.objects.filter(notified_at__isnull=True).order_by("pk")
    return [
        price_change_assess_and_notify(flag_id=pk) for pk in pending.values_list("pk", flat=True)
    ]
