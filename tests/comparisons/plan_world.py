"""Two H200 offers whose cheapest plan splits the fleet: Fabrikam's 16 GPUs (2 nodes) at
2.00 a GPU-hour on a 12-month reservation, the rest (104 GPUs, 13 replicas of 8) at Contoso.

300 M answers a month at 300 output tokens need 15 replicas of 8 GPUs (120) at peak on either
offer (the engineer's 8-GPU TP=8 sweep on each); Fabrikam offers 16, so alone it is refused
for capacity and the plan takes all of it and the rest from Contoso:

    Fabrikam  16 × 730 × 2.00 = 23,360.00 a month
    Contoso  104 × 730 × 3.00 = 227,760.00 a month (reserved)

The commitment of each part is the larger of its contract (committed GPU-hours × price ×
term) and its expected spend over the brief's horizon ((monthly cost + the 11.50 of storage
its vendor bills) × horizon), as the rows state theirs (ADR 0006).
"""

from __future__ import annotations

from decimal import Decimal

from checklist.models import ChecklistAnswer, ChecklistItem
from tests.deployments.conftest import h200, h200_quote, run_rows, sweep_on
from tests.factories import (
    AcceleratorFactory,
    ProviderFactory,
    QuoteFactory,
    WorkloadBriefFactory,
)

HOURS = Decimal(730)
FABRIKAM_MONTHLY = 16 * HOURS * Decimal(2)  # 23,360.00
CONTOSO_GPUS = 104
# The brief's 500 GB at the storage default of 0.023 a GB-month: each vendor holding the model
# bills it, so each part's expected spend counts it as its row does (P15).
STORAGE_MONTHLY = 500 * Decimal("0.023")  # 11.50


def plan_brief(lead, *, horizon_months):
    return WorkloadBriefFactory(
        created_by=lead,
        horizon_months=horizon_months,
        monthly_accepted_outputs_low=200_000_000,
        monthly_accepted_outputs_likely=300_000_000,
        monthly_accepted_outputs_high=400_000_000,
    )


def fabrikam(lead):
    """The cheap reservation with 2 nodes (16 GPUs) of capacity: too small for the fleet."""
    quote = h200_quote(
        lead,
        provider=ProviderFactory(name="Fabrikam", slug="fabrikam"),
        price_per_gpu_hour=Decimal("2.0000"),
        title="Fabrikam H200 reserved",
        max_gpus_available=16,
    )
    sweep_on(lead, quote, sha="a")
    return quote


def contoso_reserved(lead, *, term_months):
    quote = h200_quote(
        lead,
        provider=ProviderFactory(name="Contoso", slug="contoso"),
        price_per_gpu_hour=Decimal("3.0000"),
        title="Contoso H200 reserved",
        term_months=term_months,
    )
    sweep_on(lead, quote, sha="b")
    return quote


def self_attested(provider, user) -> None:
    """Provider-default answers "yes" to every item, without evidence, not yet reviewed:
    complete at the basic level, short of every item at the full level."""
    ChecklistAnswer.objects.bulk_create(
        [
            ChecklistAnswer(
                provider=provider,
                item=item,
                answer="We do this.",
                status="yes",
                answered_by=user,
            )
            for item in ChecklistItem.objects.all()
        ]
    )


def contoso_on_demand(lead, *, evidenced: bool):
    """On demand, no term: its own checklist level is basic. `evidenced`: every answer has
    evidence a reviewer accepted (complete at the full level too), else self-attested."""
    provider = ProviderFactory(name="Contoso", slug="contoso")
    if evidenced:
        quote = h200_quote(
            lead,
            provider=provider,
            price_per_gpu_hour=Decimal("3.0000"),
            title="Contoso H200 on demand",
            capacity_model="on_demand",
            term_months=0,
        )
    else:
        self_attested(provider, lead)
        quote = QuoteFactory(
            provider=provider,
            accelerator=h200(),
            capacity_model="on_demand",
            term_months=0,
            price_per_gpu_hour=Decimal("3.0000"),
            title="Contoso H200 on demand",
            entered_by=lead,
        )
    sweep_on(lead, quote, sha="b")
    return quote


def computed(lead, brief, quotes, *, residual_use=1):
    """The comparison of ``quotes`` for ``brief``. The team keeps using a reservation after
    the brief's horizon (``term_residual_use_share`` 1) unless ``residual_use`` says less:
    these worlds test what each part commits; the months a term strands past the horizon
    (paid on the rows and in the plan alike) have their own test."""
    return run_rows(lead, brief, quotes, assumptions={"term_residual_use_share": residual_use})


def l40s_beside_h200(lead, *, window):
    """300 M answers a month with a ``window``-token context: Fabrikam's L40S at 1.00 a
    GPU-hour (fits the p95 context; not a 32k window) and Contoso's H200 at 4.00, each with
    the same measured 8-GPU sweep. Returns the brief and the two quotes (L40S, H200)."""
    brief = WorkloadBriefFactory(
        created_by=lead,
        context_window_tokens=window,
        monthly_accepted_outputs_low=200_000_000,
        monthly_accepted_outputs_likely=300_000_000,
        monthly_accepted_outputs_high=400_000_000,
    )
    l40s = AcceleratorFactory(
        slug="l40s-48gb",
        name="L40S 48GB",
        memory_gb=48.0,
        memory_bandwidth_tbps=0.864,
        bf16_dense_tflops=362.0,
        fp8_dense_tflops=733.0,
        interconnect_gbps=64.0,
        tdp_w=350,
        form_factor="PCIe",
    )
    small = h200_quote(
        lead,
        provider=ProviderFactory(name="Fabrikam", slug="fabrikam"),
        accelerator=l40s,
        price_per_gpu_hour=Decimal("1.0000"),
        title="Fabrikam L40S reserved",
    )
    large = h200_quote(lead, price_per_gpu_hour=Decimal("4.0000"))
    sweep_on(lead, small, sha="c")
    sweep_on(lead, large, sha="b")
    return brief, small, large
