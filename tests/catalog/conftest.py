"""Catalog scenarios: a loaded catalog, quotes of provider A and B, an RFQ to both."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.models import Accelerator
from catalog.services.seed_data import catalog_load
from tests.factories import AcceleratorFactory, QuoteFactory, RfqFactory


@pytest.fixture
def catalog(db):
    """The real catalog from catalog/data (32 accelerators, 18 models)."""
    catalog_load()
    return {a.slug: a for a in Accelerator.objects.all()}


@pytest.fixture
def h100(db):
    """H100 SXM with its datasheet figures (a factory row: faster than loading the catalog)."""
    return AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB", max_gpus_per_node=8)


@pytest.fixture
def rfq(db, provider_a, provider_b, lead):
    return RfqFactory(title="64 H100s", providers=[provider_a, provider_b], created_by=lead)


@pytest.fixture
def quote_a(db, provider_a, h100, vendor_a, rfq):
    return QuoteFactory(provider=provider_a, accelerator=h100, rfq=rfq, entered_by=vendor_a)


@pytest.fixture
def staff_quote(db, provider_a, h100, lead):
    """A quote procurement entered itself (no RFQ): staff may revise it."""
    return QuoteFactory(provider=provider_a, accelerator=h100, entered_by=lead)


@pytest.fixture
def quote_b(db, provider_b, h100, vendor_b, rfq):
    return QuoteFactory(
        provider=provider_b,
        accelerator=h100,
        rfq=rfq,
        entered_by=vendor_b,
        price_per_gpu_hour=Decimal("3.10"),
    )


@pytest.fixture
def quote_data(h100):
    """A complete, valid on-demand quote as services take it."""
    return {
        "accelerator": h100,
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": Decimal("2.49"),
        "gpus_per_node": 8,
        "region": "eu-west",
        "quoted_at": timezone.now() - timedelta(hours=1),
        "valid_until": timezone.now() + timedelta(days=30),
        "source_url": "https://example.com/prices",
    }


@pytest.fixture
def api(api_client):
    """api(user) → the DRF client logged in as that user."""

    def _as(user):
        api_client.force_authenticate(user=user)
        return api_client

    return _as
