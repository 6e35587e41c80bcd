"""S-04 field level: a vendor cannot write who owns, entered, versioned or decided anything;
such fields in a body are ignored, never applied."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from catalog.models import Quote
from tests.factories import AcceleratorFactory, QuoteFactory

pytestmark = pytest.mark.django_db

PROTECTED = {
    "provider": "provider-a",
    "status": "withdrawn",
    "version": 7,
    "entered_by": "lead",
    "is_public_list_price": True,
    "superseded_by": 1,
}


def as_user(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_vendor_quote_is_always_their_own_first_submitted_version(vendor_b, provider_a):
    h100 = AcceleratorFactory(slug="h100-sxm-80gb")
    body = {
        "accelerator": h100.slug,
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": "2.10",
        "gpus_per_node": 8,
        "quoted_at": (timezone.now() - timedelta(days=1)).isoformat(),
        "source_url": "https://example.com/b",
        **PROTECTED,
    }
    response = as_user(vendor_b).post("/api/v1/quotes/", body, format="json")
    assert response.status_code == 201, response.json()
    quote = Quote.objects.get(pk=response.json()["id"])
    assert quote.provider_id == vendor_b.provider_id
    assert quote.status == Quote.Status.SUBMITTED
    assert quote.version == 1
    assert quote.entered_by == vendor_b
    assert quote.is_public_list_price is False
    assert not Quote.objects.filter(provider=provider_a).exists()


def test_a_revision_cannot_move_a_quote_to_another_provider(vendor_a, provider_a, provider_b):
    quote = QuoteFactory(provider=provider_a, entered_by=vendor_a)
    response = as_user(vendor_a).post(
        f"/api/v1/quotes/{quote.pk}/revise/",
        {"price_per_gpu_hour": "2.20", "provider": "provider-b", "version": 1},
        format="json",
    )
    assert response.status_code == 201, response.json()
    new = Quote.objects.get(pk=response.json()["id"])
    assert (new.provider_id, new.version, new.supersedes_id) == (provider_a.pk, 2, quote.pk)
    assert not Quote.objects.filter(provider=provider_b).exists()
    quote.refresh_from_db()
    assert quote.price_per_gpu_hour != new.price_per_gpu_hour  # the old version is untouched


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_history_is_never_overwritten_through_the_api(vendor_a, lead, provider_a, method):
    quote = QuoteFactory(provider=provider_a, entered_by=vendor_a)
    for user in (vendor_a, lead):
        response = getattr(as_user(user), method)(
            f"/api/v1/quotes/{quote.pk}/", {"price_per_gpu_hour": "0.01"}, format="json"
        )
        assert response.status_code == 405
    quote.refresh_from_db()
    assert quote.price_per_gpu_hour != 0
