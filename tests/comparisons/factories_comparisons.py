"""Factories and builders for comparison tests: accelerators with real datasheet figures,
checklist answers that satisfy every commitment level, and a ready-made scenario."""

from __future__ import annotations

from decimal import Decimal

from checklist.models import ChecklistAnswer, ChecklistItem
from tests.factories import AcceleratorFactory, ProviderFactory, QuoteFactory


def h100():
    return AcceleratorFactory(
        slug="h100-sxm-80gb",
        name="H100 SXM 80GB",
        memory_gb=80.0,
        memory_bandwidth_tbps=3.35,
        bf16_dense_tflops=989.5,
        fp8_dense_tflops=1979.0,
        interconnect_gbps=900.0,
        tdp_w=700,
    )


def l40s():
    return AcceleratorFactory(
        slug="l40s-48gb",
        name="L40S 48GB",
        architecture="Ada Lovelace",
        form_factor="PCIe",
        memory_gb=48.0,
        memory_type="GDDR6",
        memory_bandwidth_tbps=0.864,
        bf16_dense_tflops=362.0,
        fp8_dense_tflops=733.0,
        interconnect="PCIe Gen4",
        interconnect_gbps=64.0,
        pcie_gen=4,
        tdp_w=350,
    )


def answer_checklist(provider, user) -> None:
    """Provider-default answers to every item, with evidence, accepted by a reviewer: complete
    at every level (above the basic level only accepted answers count, M4)."""
    ChecklistAnswer.objects.bulk_create(
        [
            ChecklistAnswer(
                provider=provider,
                item=item,
                answer="Documented.",
                status="yes",
                evidence_url="https://example.com/evidence",
                answered_by=user,
                review_status=ChecklistAnswer.ReviewStatus.ACCEPTED,
            )
            for item in ChecklistItem.objects.all()
        ]
    )


def scenario_quotes(lead, *, provider_a=None, provider_b=None):
    """The cheap-hourly L40S (provider A) and the pricier, faster H100 (provider B)."""
    provider_a = provider_a or ProviderFactory(name="Cheap GPUs", slug="cheap-gpus")
    provider_b = provider_b or ProviderFactory(name="Fast GPUs", slug="fast-gpus")
    answer_checklist(provider_a, lead)
    answer_checklist(provider_b, lead)
    cheap = QuoteFactory(
        provider=provider_a,
        accelerator=l40s(),
        price_per_gpu_hour=Decimal("0.8900"),
        title="L40S on demand",
        entered_by=lead,
    )
    fast = QuoteFactory(
        provider=provider_b,
        accelerator=h100(),
        price_per_gpu_hour=Decimal("2.4900"),
        title="H100 on demand",
        entered_by=lead,
    )
    return cheap, fast


def many_quotes(n: int, lead, *, providers: int = 2) -> list:
    """`n` current H100 quotes spread over a few providers whose checklist is complete."""
    owners = []
    for i in range(providers):
        owner = ProviderFactory(name=f"Bulk provider {i}", slug=f"bulk-provider-{i}")
        answer_checklist(owner, lead)
        owners.append(owner)
    accelerator = h100()
    return [
        QuoteFactory(
            provider=owners[i % providers],
            accelerator=accelerator,
            entered_by=lead,
            price_per_gpu_hour=Decimal("2.0000") + Decimal(i) / 100,
            title=f"Offer {i}",
        )
        for i in range(n)
    ]


def ready_comparison(lead, brief, quotes, *, seed: int = 5):
    """A comparison of `quotes`, computed in-process."""
    from procurement.services.comparisons import comparison_create, comparison_run

    comparison = comparison_create(
        acting_user=lead, brief=brief, quote_ids=[q.pk for q in quotes], seed=seed
    ).comparison
    return comparison_run(comparison_id=comparison.pk)


def frozen(comparison):
    """The comparison once the worker has frozen its chosen candidates (L9), not computed."""
    from procurement.models import Comparison
    from procurement.services.comparisons.freezing import freeze_and_store

    row = Comparison.objects.select_related("brief", "created_by").get(pk=comparison.pk)
    assert freeze_and_store(row, Comparison.objects.filter(pk=row.pk)), "the row changed"
    return row
