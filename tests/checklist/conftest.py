"""Checklist fixtures: seeded items, private storage in a temp folder, quotes of A and B."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from checklist.models import ChecklistAnswer, ChecklistItem
from tests.factories import QuoteFactory

_seed = importlib.import_module("checklist.migrations.0002_seed_items")


@pytest.fixture(autouse=True)
def _private_storage(settings, tmp_path):
    """Evidence goes to a temp folder, so tests can assert nothing is left behind."""
    root = tmp_path / "private"
    root.mkdir()
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(root)},
        },
    }
    settings.MEDIA_ROOT = str(root)
    return root


@pytest.fixture
def private_root(_private_storage):
    return _private_storage


@pytest.fixture
def items(db):
    """The 20 seeded items (re-seeded if a transactional test elsewhere flushed them)."""
    if ChecklistItem.objects.count() != len(_seed.ITEMS):
        _seed.seed_items(apps, None)
    return list(ChecklistItem.objects.order_by("order"))


@pytest.fixture
def quote_a(items, provider_a, vendor_a):
    return QuoteFactory(
        provider=provider_a, capacity_model="reserved", term_months=12, entered_by=vendor_a
    )


@pytest.fixture
def quote_b(items, provider_b, vendor_b):
    return QuoteFactory(
        provider=provider_b, capacity_model="reserved", term_months=12, entered_by=vendor_b
    )


@pytest.fixture
def answer_a(quote_a, vendor_a, items):
    """Vendor A's quote-specific answer to the first (hardware) item, with a link."""
    return ChecklistAnswer.objects.create(
        provider=quote_a.provider,
        quote=quote_a,
        item=items[0],
        answer="8x H100 SXM 80 GB per node",
        status="yes",
        evidence_url="https://example.com/a-spec",
        answered_by=vendor_a,
    )


@pytest.fixture
def answer_b(quote_b, vendor_b, items):
    return ChecklistAnswer.objects.create(
        provider=quote_b.provider,
        quote=quote_b,
        item=items[0],
        answer="8x H200 per node",
        status="yes",
        evidence_url="https://example.com/b-spec",
        answered_by=vendor_b,
    )
