"""Fixtures of the benchmarks area: a private storage folder per test, and candidates."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from tests.factories import AcceleratorFactory, QuoteFactory, WorkloadBriefFactory


@pytest.fixture(autouse=True)
def private_storage(settings, tmp_path) -> Path:
    """Every test stores raw files in its own folder, so "nothing was stored" is checkable."""
    root = tmp_path / "private"
    root.mkdir()
    storages = copy.deepcopy(settings.STORAGES)
    storages["default"]["OPTIONS"]["location"] = str(root)
    settings.STORAGES = storages
    settings.MEDIA_ROOT = str(root)
    return root


def stored_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


@pytest.fixture
def h100(db):
    return AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")


@pytest.fixture
def h200(db):
    return AcceleratorFactory(slug="h200-sxm-141gb", name="H200 SXM 141GB", memory_gb=141.0)


@pytest.fixture
def quote_a(db, provider_a, h100):
    return QuoteFactory(provider=provider_a, accelerator=h100, title="A H100 on-demand")


@pytest.fixture
def quote_b(db, provider_b, h200):
    return QuoteFactory(provider=provider_b, accelerator=h200, title="B H200 on-demand")


@pytest.fixture
def brief(db, lead):
    return WorkloadBriefFactory(created_by=lead, e2e_p99_ms=20000, ttft_p95_ms=800)
