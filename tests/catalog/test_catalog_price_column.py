"""U31, U36, U37: the catalog's price column from current quotes, sorting by it, CSV export
of the current view, and an empty state that knows about the filter."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest

from tests.factories import AcceleratorFactory, QuoteFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def priced(db, provider_a, provider_b):
    cheap = AcceleratorFactory(slug="cheap-gpu", name="Cheap GPU", memory_gb=48.0)
    dear = AcceleratorFactory(slug="dear-gpu", name="Dear GPU", memory_gb=141.0)
    AcceleratorFactory(slug="bare-gpu", name="Bare GPU", memory_gb=24.0)
    QuoteFactory(accelerator=cheap, provider=provider_a, price_per_gpu_hour=Decimal("0.79"))
    QuoteFactory(accelerator=cheap, provider=provider_b, price_per_gpu_hour=Decimal("0.99"))
    QuoteFactory(accelerator=dear, provider=provider_a, price_per_gpu_hour=Decimal("3.4900"))
    old = QuoteFactory(accelerator=dear, provider=provider_b, price_per_gpu_hour=Decimal("1.00"))
    QuoteFactory(
        accelerator=dear,
        provider=provider_b,
        price_per_gpu_hour=Decimal("4.10"),
        supersedes=old,
        version=2,
    )
    return cheap, dear


def names_in_order(html: str, names: list[str]) -> list[str]:
    return sorted(names, key=lambda n: html.index(f">{n}</a>"))


def test_price_column_shows_the_lowest_current_usd_price(login, engineer, priced):
    """U31: lowest current price per GPU-hour and the number of offers; superseded ignored."""
    html = login(engineer).get("/catalog/").content.decode()
    assert "Lowest USD / GPU-h" in html
    assert ">0.79<br>" in html
    assert "2 offers" in html
    assert "3.49" in html  # the dear GPU's current lowest (1.00 was superseded by 4.10)
    assert ">1.00<" not in html
    assert "no quote" in html  # the bare GPU


def test_catalog_sorts_by_price_both_ways_with_unpriced_last(login, engineer, priced):
    """U31, U36: ?sort=price ascending and -price descending; rows with no quote last."""
    client = login(engineer)
    names = ["Cheap GPU", "Dear GPU", "Bare GPU"]
    up = client.get("/catalog/?sort=price").content.decode()
    assert names_in_order(up, names) == ["Cheap GPU", "Dear GPU", "Bare GPU"]
    assert 'aria-sort="ascending"' in up
    down = client.get("/catalog/?sort=-price").content.decode()
    assert names_in_order(down, names) == ["Dear GPU", "Cheap GPU", "Bare GPU"]
    assert 'aria-sort="descending"' in down


def test_csv_export_follows_the_filters_and_the_sort(login, engineer, priced):
    """U31: the CSV holds the current view: filtered, sorted, with the price column."""
    client = login(engineer)
    page = client.get("/catalog/?min_memory_gb=40&sort=-price").content.decode()
    assert 'href="?min_memory_gb=40&amp;sort=-price&amp;format=csv"' in page
    response = client.get("/catalog/?min_memory_gb=40&sort=-price&format=csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["name"] for r in rows] == ["Dear GPU", "Cheap GPU"]
    assert Decimal(rows[1]["lowest_usd_per_gpu_hour"]) == Decimal("0.79")
    assert rows[1]["current_usd_offers"] == "2"


def test_empty_catalog_state_knows_about_the_filter(login, engineer, priced):
    """U37: a filter that matches nothing offers to clear it."""
    html = login(engineer).get("/catalog/?min_memory_gb=999").content.decode()
    assert "No accelerator matches these filters." in html
    assert "Clear the filters" in html


def test_price_column_converts_other_currencies_at_the_newest_rate(
    login, engineer, lead, provider_a, provider_b
):
    """A EUR quote counts at EUR's newest FX rate (1.10, not the older 1.50), so it can be the
    lowest; a currency without a rate is left out rather than read as USD."""
    from datetime import date

    from catalog.models import FxRate

    gpu = AcceleratorFactory(slug="fx-gpu", name="FX GPU", memory_gb=80.0)
    QuoteFactory(accelerator=gpu, provider=provider_a, price_per_gpu_hour=Decimal("2.50"))
    QuoteFactory(
        accelerator=gpu, provider=provider_b, currency="EUR", price_per_gpu_hour=Decimal("2.00")
    )
    QuoteFactory(
        accelerator=gpu, provider=provider_b, currency="JPY", price_per_gpu_hour=Decimal("1.00")
    )
    FxRate.objects.create(currency="EUR", rate_to_base=Decimal("1.50"), as_of=date(2026, 1, 1))
    FxRate.objects.create(currency="EUR", rate_to_base=Decimal("1.10"), as_of=date(2026, 6, 1))
    client = login(engineer)
    rows = list(csv.DictReader(io.StringIO(client.get("/catalog/?format=csv").content.decode())))
    row = next(r for r in rows if r["name"] == "FX GPU")
    assert Decimal(row["lowest_usd_per_gpu_hour"]) == Decimal("2.20")  # 2.00 EUR x 1.10
    assert row["current_usd_offers"] == "2"  # USD and EUR; JPY has no rate
    html = client.get("/catalog/").content.decode()
    assert ">2.20<br>" in html
    assert "newest exchange rate" in html
