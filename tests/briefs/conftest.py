"""Fixtures for the briefs area: the checked-in catalog, and briefs of each kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog.models import Accelerator, ModelProfile
from tests.briefs.factories_briefs import brief_factory_kwargs
from tests.factories import WorkloadBriefFactory

DATA = Path(__file__).resolve().parents[2] / "catalog" / "data"


def load_catalog_rows(model: type, filename: str) -> None:
    # The model's fields only: a row also carries data kept beside them (an accelerator's
    # price band, read by catalog.plausibility), as the seed loader skips it.
    fields = {f.name for f in model._meta.concrete_fields}
    rows = [
        model(**{k: v for k, v in row.items() if k in fields})
        for row in json.loads((DATA / filename).read_text())
    ]
    model.objects.bulk_create(rows, ignore_conflicts=True)


@pytest.fixture
def catalog(db) -> None:
    """Every accelerator and model profile of catalog/data/*.json."""
    load_catalog_rows(Accelerator, "accelerators.json")
    load_catalog_rows(ModelProfile, "model_profiles.json")


@pytest.fixture
def brief(db, lead, catalog):
    """A complete real-time brief on the catalog's Llama 3.1 70B, written by `lead`."""
    return WorkloadBriefFactory(
        created_by=lead, model=ModelProfile.objects.get(slug="llama-3-1-70b")
    )


@pytest.fixture
def incomplete_brief(db, lead, catalog):
    return WorkloadBriefFactory(
        created_by=lead,
        title="Draft contract search",
        **brief_factory_kwargs("retrieval", complete=False),
    )
