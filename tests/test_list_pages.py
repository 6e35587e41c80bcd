"""U36, U37: the quotes, benchmark results and comparisons lists sort by header, page, keep
their filters and sort in the URL, and an empty filtered page says it is the filters."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

import pytest
from django.test import RequestFactory

from core.listing import Column, is_filtered, sort_headers
from tests.benchmarks.factories_benchmarks import BenchmarkResultFactory, metrics_dict
from tests.factories import AcceleratorFactory, ComparisonFactory, FxRateFactory, QuoteFactory

pytestmark = pytest.mark.django_db


def cells(html: str, table_class: str, column: int) -> list[str]:
    table = re.search(rf'<table class="table {table_class}.*?</table>', html, re.S)
    assert table, table_class
    rows = re.findall(r"<tr>\s*(.*?)</tr>", table.group(0).split("<tbody>")[1], re.S)
    out = []
    for row in rows:
        tds = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        if len(tds) > column:
            out.append(re.sub(r"<[^>]+>|\s+", " ", tds[column]).strip())
    return out


def test_headers_toggle_and_keep_the_filters():
    request = RequestFactory().get("/x/", {"status": "ready", "sort": "price", "page": "3"})
    columns = (Column("price", "Price", "price", numeric=True), Column("notes", "Notes"))
    price, notes = sort_headers(request, columns, "price")
    assert price.aria_sort == "ascending"
    assert price.arrow == " ▲"
    assert price.query == "status=ready&sort=-price"  # the page is dropped: back to page 1
    assert notes.query == ""  # not sortable
    assert is_filtered(request)
    assert not is_filtered(RequestFactory().get("/x/", {"sort": "price", "page": "2"}))


def test_u36_quotes_sort_by_price_both_ways_and_page_with_the_filters(login, lead):
    h100 = AcceleratorFactory(name="H100 SXM")
    for price in ("3.10", "1.95", "2.49"):
        QuoteFactory(accelerator=h100, price_per_gpu_hour=Decimal(price))
    QuoteFactory(price_per_gpu_hour=Decimal("0.50"))  # another accelerator, filtered out
    client = login(lead)
    html = client.get("/catalog/quotes/", {"accelerator": h100.slug, "sort": "price"}).content
    html = html.decode()
    assert cells(html, "quotes", 3) == ["USD 1.95", "USD 2.49", "USD 3.10"]
    assert 'aria-sort="ascending"' in html
    assert f'href="?accelerator={h100.slug}&amp;sort=-price" data-sort="price"' in html
    down = client.get("/catalog/quotes/", {"accelerator": h100.slug, "sort": "-price"})
    assert cells(down.content.decode(), "quotes", 3) == ["USD 3.10", "USD 2.49", "USD 1.95"]


def test_quotes_sort_by_price_compares_values_in_the_base_currency(login, lead):
    """A list mixing currencies sorts by value: EUR 2.00 at 1.10 is USD 2.20, dearer than
    USD 2.10 though its number is smaller; the newest rate counts; a currency without a
    rate cannot be compared and comes last both ways."""
    h100 = AcceleratorFactory(name="H100 SXM")
    FxRateFactory(currency="EUR", rate_to_base=Decimal("0.90"), as_of=date(2026, 1, 5))
    FxRateFactory(currency="EUR", rate_to_base=Decimal("1.10"), as_of=date(2026, 6, 1))
    for currency, price in (("EUR", "2.00"), ("USD", "2.10"), ("USD", "2.30"), ("CHF", "1.00")):
        QuoteFactory(accelerator=h100, currency=currency, price_per_gpu_hour=Decimal(price))
    client = login(lead)
    up = client.get("/catalog/quotes/", {"accelerator": h100.slug, "sort": "price"})
    assert cells(up.content.decode(), "quotes", 3) == [
        "USD 2.10",
        "EUR 2.00",
        "USD 2.30",
        "CHF 1.00",
    ]
    down = client.get("/catalog/quotes/", {"accelerator": h100.slug, "sort": "-price"})
    assert cells(down.content.decode(), "quotes", 3) == [
        "USD 2.30",
        "EUR 2.00",
        "USD 2.10",
        "CHF 1.00",
    ]


def test_u37_quotes_empty_state_knows_the_filters(login, lead):
    QuoteFactory(region="us-east")
    html = login(lead).get("/catalog/quotes/", {"region": "mars"}).content.decode()
    assert "No quote matches these filters." in html


def test_u36_benchmark_results_sort_by_throughput_with_blanks_last(login, engineer):
    h100 = AcceleratorFactory()
    for name, tps in (("slow.json", 900.0), ("none.json", None), ("fast.json", 3100.0)):
        BenchmarkResultFactory(
            accelerator=h100,
            original_name=name,
            metrics=metrics_dict(output_tokens_per_s=tps),
        )
    client = login(engineer)
    up = client.get("/benchmarks/", {"sort": "output"}).content.decode()
    assert re.findall(r">(\w+)\.json</a>", up) == ["slow", "fast", "none"]
    down = client.get("/benchmarks/", {"sort": "-output"}).content.decode()
    assert re.findall(r">(\w+)\.json</a>", down) == ["fast", "slow", "none"]
    assert 'aria-sort="descending"' in down
    assert '<input type="hidden" name="sort" value="-output">' in down  # filters keep it


def test_u36_comparisons_page_by_25_and_the_pager_keeps_sort_and_filter(login, lead):
    for n in range(27):
        ComparisonFactory(title=f"Plan {n:02d}", created_by=lead, status="ready")
    client = login(lead)
    html = client.get("/comparisons/", {"status": "ready", "sort": "title"}).content.decode()
    titles = re.findall(r">(Plan \d\d)</a>", html)
    assert titles == [f"Plan {n:02d}" for n in range(25)]
    assert "Page 1 of 2 · 1–25 of 27" in html
    assert 'href="?status=ready&amp;sort=title&amp;page=2"' in html
    second = client.get("/comparisons/", {"status": "ready", "sort": "title", "page": 2})
    assert re.findall(r">(Plan \d\d)</a>", second.content.decode()) == ["Plan 25", "Plan 26"]
    empty = client.get("/comparisons/", {"status": "failed"}).content.decode()
    assert "No comparison matches these filters." in empty
