"""The catalog seed (load_catalog) and the demo data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from catalog.models import Accelerator, ModelProfile, Quote, Rfq

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[2] / "catalog" / "data"


def test_load_catalog_holds_at_least_18_accelerators_with_the_files_figures(catalog):
    rows = json.loads((DATA / "accelerators.json").read_text())
    assert Accelerator.objects.count() == len(rows) >= 18
    for row in rows:
        stored = Accelerator.objects.get(slug=row["slug"])
        for key in (
            "memory_gb",
            "memory_bandwidth_tbps",
            "bf16_dense_tflops",
            "fp8_dense_tflops",
            "fp4_dense_tflops",
            "source_url",
            "max_gpus_per_node",
        ):
            assert getattr(stored, key) == row[key], (row["slug"], key)
        assert stored.source_url.startswith("https://")
        assert str(stored.verified_on) == row["verified_on"]
    assert ModelProfile.objects.count() == len(
        json.loads((DATA / "model_profiles.json").read_text())
    )


def test_load_catalog_is_idempotent_and_restores_edited_figures(capsys):
    call_command("load_catalog")
    Accelerator.objects.filter(slug="h100-sxm-80gb").update(memory_gb=1)
    call_command("load_catalog")
    assert Accelerator.objects.get(slug="h100-sxm-80gb").memory_gb == 80
    rows = len(json.loads((DATA / "accelerators.json").read_text()))
    assert Accelerator.objects.count() == rows
    assert f"0 created, {rows} updated" in capsys.readouterr().out


def test_detail_page_names_the_source(login, engineer, catalog):
    page = login(engineer).get("/catalog/accelerators/mi300x-192gb/")
    html = page.content.decode()
    assert page.status_code == 200
    assert catalog["mi300x-192gb"].source_url in html
    assert "Verified on 2026-12-02" in html
    assert 'data-plotly="fig-memory-bandwidth"' in html


def test_demo_is_idempotent_and_rich_enough_for_a_comparison():
    from accounts import demo as accounts_demo
    from catalog import demo

    accounts_demo.load()
    demo.load()
    counts = (Quote.objects.count(), Rfq.objects.count())
    demo.load()
    assert (Quote.objects.count(), Rfq.objects.count()) == counts
    current = Quote.objects.current()
    assert current.count() >= 30
    assert current.filter(provider__slug__in=["northwind", "contoso"]).count() >= 8
    assert Quote.objects.filter(version__gt=1).exists()
    assert Quote.objects.filter(status="withdrawn").exists()
    assert Quote.objects.current().stale().exists()
    assert {"on_demand", "spot", "reserved", "dedicated_cluster", "purchase"} <= set(
        current.values_list("capacity_model", flat=True)
    )
    assert {"EUR", "GBP"} <= set(current.values_list("currency", flat=True))
    assert current.filter(is_public_list_price=True).values("provider").distinct().count() >= 4
    rfq = Rfq.objects.get()
    assert rfq.is_open_for_answers()
    assert set(rfq.providers.values_list("slug", flat=True)) == {"northwind", "contoso"}


def test_the_demo_rfq_is_the_support_briefs_and_says_what_the_brief_says():
    """The demo RFQ asked for "Llama 3.3 70B … 32 concurrent sessions" and named no brief,
    while the support brief beside it is Llama 3.1 70B with 48 sequences at peak."""
    from accounts import demo as accounts_demo
    from briefs import demo as briefs_demo
    from catalog import demo

    accounts_demo.load()
    demo.load()
    briefs_demo.load()
    rfq = Rfq.objects.get()
    assert rfq.brief is not None
    assert rfq.brief.title == "Customer support chat assistant"
    assert "Llama 3.1 70B" in rfq.title
    assert "Llama 3.1 70B" in rfq.requirements
    assert "48 concurrent sequences" in rfq.requirements
    assert rfq.brief.model.name.startswith("Llama 3.1 70B")
    briefs_demo.load()  # idempotent: still the one link
    assert Rfq.objects.get().brief_id == rfq.brief_id
