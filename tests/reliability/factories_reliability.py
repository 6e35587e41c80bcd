"""Builders for the reliability tests: a big comparison, fast (one bulk insert of quotes)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from catalog.models import Quote
from tests.comparisons.factories_comparisons import answer_checklist, h100
from tests.factories import ProviderFactory, QuoteFactory, WorkloadBriefFactory


def bulk_quotes(n: int, lead: Any, *, providers: int = 4) -> list[Quote]:
    """`n` current H100 quotes over a few providers whose checklist is complete."""
    owners = []
    for i in range(providers):
        owner = ProviderFactory(name=f"Reliability provider {i}", slug=f"reliability-{i}")
        answer_checklist(owner, lead)
        owners.append(owner)
    accelerator = h100()
    built = [
        QuoteFactory.build(
            provider=owners[i % providers],
            accelerator=accelerator,
            entered_by=lead,
            price_per_gpu_hour=Decimal("2.0000") + Decimal(i) / 100,
            title=f"Reliability offer {i}",
        )
        for i in range(n)
    ]
    return Quote.objects.bulk_create(built)


def complete_brief(lead: Any) -> Any:
    """A complete real-time inference brief the slower candidates still pass (p99 30 s)."""
    return WorkloadBriefFactory(created_by=lead, e2e_p99_ms=30_000)
