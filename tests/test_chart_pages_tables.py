"""U22, U35: every chart on every page carries its text alternative: a figure role with a
label, and the table of the figures behind it (`{% chart_table fig %}`), one per chart."""

from __future__ import annotations

import re

import pytest

from tests.browser.worlds_browser import (
    AIPERF_SAMPLE,
    VLLM_SAMPLE,
    catalog_world,
    decision_world,
    upload_result,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def checklist_seeded(db):
    """The seeded checklist items (a transactional test elsewhere may have flushed them)."""
    import importlib

    from django.apps import apps

    from checklist.models import ChecklistItem

    if not ChecklistItem.objects.exists():
        importlib.import_module("checklist.migrations.0002_seed_items").seed_items(apps, None)


CHART = re.compile(r'<div class="chart[^"]*" data-plotly="[^"]+"([^>]*)>')


def charts_and_tables(html: str) -> tuple[list[str], int]:
    return CHART.findall(html), html.count('<details class="chart-table">')


def assert_each_chart_has_its_table(client, path: str, charts: int) -> None:
    response = client.get(path)
    assert response.status_code == 200, path
    attributes, tables = charts_and_tables(response.content.decode())
    assert len(attributes) == charts, (path, attributes)
    assert tables == charts, f"{path}: {charts} charts but {tables} tables"
    for attrs in attributes:
        assert 'role="figure"' in attrs, (path, attrs)
        assert re.search(r'aria-label="[^"]+"', attrs), (path, attrs)


def test_catalog_and_vendor_chart_pages(
    client, lead, vendor_a, provider_a, provider_b, checklist_seeded
):
    world = catalog_world(
        lead=lead, vendor_a=vendor_a, provider_a=provider_a, provider_b=provider_b
    )
    client.force_login(lead)
    assert_each_chart_has_its_table(client, "/catalog/", 1)
    assert_each_chart_has_its_table(
        client, "/catalog/compare/?a=h100-sxm-80gb&b=h200-sxm-141gb&c=l40s-48gb", 2
    )
    assert_each_chart_has_its_table(client, "/catalog/accelerators/h100-sxm-80gb/", 1)
    assert_each_chart_has_its_table(client, f"/catalog/quotes/{world.fresh.pk}/", 1)
    client.force_login(vendor_a)
    assert_each_chart_has_its_table(client, f"/vendor/quotes/{world.fresh.pk}/", 1)


def test_benchmark_and_decision_record_chart_pages(
    client,
    settings,
    tmp_path,
    lead,
    engineer,
    finance,
    vendor_a,
    provider_a,
    provider_b,
    checklist_seeded,
):
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path)},
        },
    }
    world = catalog_world(
        lead=lead, vendor_a=vendor_a, provider_a=provider_a, provider_b=provider_b
    )
    decision = decision_world(lead=lead)
    summary = upload_result(
        engineer=engineer, quote=world.fresh, brief=decision.brief, sample=VLLM_SAMPLE, gpus=2
    )
    per_request = upload_result(
        engineer=engineer, quote=world.stale, brief=decision.brief, sample=AIPERF_SAMPLE, gpus=1
    )
    client.force_login(engineer)
    assert_each_chart_has_its_table(client, f"/benchmarks/results/{summary.pk}/", 1)
    assert_each_chart_has_its_table(client, f"/benchmarks/results/{per_request.pk}/", 3)
    assert_each_chart_has_its_table(client, f"/benchmarks/compare/?brief={decision.brief.pk}", 1)
    client.force_login(finance)
    html = client.get(f"/comparisons/{decision.comparison.pk}/record/").content.decode()
    charts, tables = charts_and_tables(html)
    assert charts
    assert tables == len(charts)
