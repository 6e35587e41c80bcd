"""V18: the quotes list carries each quote's market position (its percentile among the public
list prices current on its quoted date, the outlier and far-from-market flags) and exports the
whole filtered, sorted list as CSV, in a fixed number of queries. V19: the catalog's CSV
writes numbers as people type them, and the sorted header carries aria-sort."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from catalog.market import market_positions, quote_market_position
from catalog.models import Accelerator, Quote
from core.templatetags.numbers import ordinal
from tests.factories import AcceleratorFactory, ProviderFactory, QuoteFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def market(db):
    """Three H100 on-demand list prices (2.00, 2.60, 3.00 USD) quoted three days ago; a
    negotiated offer at 2.70, one far from the market at 30.00 (confirmed when entered), and
    an L4 list price that is no peer of theirs."""
    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")
    day = timezone.now() - timedelta(days=3)
    listed = [
        QuoteFactory(
            provider=ProviderFactory(slug=f"list-{i}", name=f"List cloud {i}"),
            accelerator=h100,
            price_per_gpu_hour=Decimal(price),
            is_public_list_price=True,
            quoted_at=day,
            title=f"list {price}",
        )
        for i, price in enumerate(("2.00", "2.60", "3.00"))
    ]
    negotiated = QuoteFactory(
        provider=ProviderFactory(slug="northwind", name="Northwind"),
        accelerator=h100,
        price_per_gpu_hour=Decimal("2.7000"),
        quoted_at=day + timedelta(hours=2),
        title="negotiated",
    )
    far = QuoteFactory(
        provider=ProviderFactory(slug="bait", name="Bait cloud"),
        accelerator=h100,
        price_per_gpu_hour=Decimal("30.0000"),
        quoted_at=day + timedelta(hours=3),
        title="far",
        price_far_from_market=True,
        price_check={"message": "30 USD per GPU-hour is far from the market: …"},
    )
    l4 = QuoteFactory(
        accelerator=AcceleratorFactory(slug="l4-24gb", name="L4 24GB"),
        price_per_gpu_hour=Decimal("0.7052"),
        is_public_list_price=True,
        title="l4",
    )
    return {"listed": listed, "negotiated": negotiated, "far": far, "l4": l4, "h100": h100}


def _row(html: str, title: str) -> str:
    """The table row of the quote whose detail link follows the given quote's id."""
    quote = Quote.objects.get(title=title)
    rows = re.findall(r"<tr>.*?</tr>", html, re.S)
    return next(r for r in rows if f'href="/catalog/quotes/{quote.pk}/"' in r)


def test_v18_quotes_list_has_market_column(market, login, lead):
    html = login(lead).get("/catalog/quotes/").content.decode()
    assert ">Market position</th>" in html
    # 2.70 among 2.00, 2.60, 3.00: two of three priced below → 2/3 = 66.7 → "67th".
    row = _row(html, "negotiated")
    assert "67th percentile" in row
    assert "of 3 list prices" in row
    # A list price is judged against the other two: 2.60 among 2.00, 3.00 → 1/2 → 50th.
    assert "50th percentile" in _row(html, "list 2.60")
    assert "of 2 list prices" in _row(html, "list 2.60")
    # The ends in words, not "0th percentile"; 30.00 above all three, flagged far.
    assert "below every list price" in _row(html, "list 2.00")
    far = _row(html, "far")
    assert "above every list price" in far
    assert "far from market" in far
    # An accelerator with no other list price says so.
    assert "no list prices" in _row(html, "l4")
    assert "th percentile" not in html.replace("67th percentile", "").replace("50th percentile", "")


def test_v18_ordinals_read_right_everywhere_a_percentile_shows():
    assert [ordinal(n) for n in (33.3, 21, 12, 111, 1, 2, 3, 11, 13, 22, 101)] == [
        "33rd",
        "21st",
        "12th",
        "111th",
        "1st",
        "2nd",
        "3rd",
        "11th",
        "13th",
        "22nd",
        "101st",
    ]


def test_v18_the_batched_market_positions_equal_the_quote_page(market):
    quotes = list(Quote.objects.select_related("accelerator"))
    batched = market_positions(quotes)
    assert len(batched) == len(quotes)
    for quote in quotes:
        assert batched[quote.pk] == quote_market_position(quote), quote.title


def test_v18_a_revised_list_price_counts_once_and_only_from_its_quoted_date(market):
    """The 3.00 list price is revised to 2.50 a day later: the negotiated offer (quoted before
    the revision) is still judged against 3.00, an offer quoted after it against 2.50."""
    old = market["listed"][2]
    new = QuoteFactory(
        provider=old.provider,
        accelerator=old.accelerator,
        price_per_gpu_hour=Decimal("2.50"),
        is_public_list_price=True,
        quoted_at=old.quoted_at + timedelta(days=1),
        supersedes=old,
        version=2,
        title="list 2.50",
    )
    later = QuoteFactory(
        accelerator=old.accelerator,
        price_per_gpu_hour=Decimal("2.55"),
        quoted_at=new.quoted_at + timedelta(hours=1),
        title="later",
    )
    positions = market_positions(
        Quote.objects.select_related("accelerator").filter(
            pk__in=[market["negotiated"].pk, later.pk]
        )
    )
    assert positions[market["negotiated"].pk]["percentile"] == pytest.approx(66.7)
    # 2.55 among 2.00, 2.60 and 2.50 (the revision; 3.00 is replaced by then): 2 of 3 below.
    assert positions[later.pk]["peers"] == 3
    assert positions[later.pk]["percentile"] == pytest.approx(66.7)
    assert positions[later.pk]["median"] == "2.5000"


def _queries(client, path: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200
    if hasattr(response, "streaming_content"):
        b"".join(response.streaming_content)
    return len(captured.captured_queries)


def _bulk(accelerator, n: int, start: int = 0) -> None:
    day = timezone.now() - timedelta(days=2)
    providers = [ProviderFactory(slug=f"bulk-{start + i}") for i in range(n)]
    Quote.objects.bulk_create(
        Quote(
            provider=provider,
            accelerator=accelerator,
            capacity_model="on_demand",
            currency="USD",
            price_per_gpu_hour=Decimal("2.00") + Decimal(i) / 100,
            gpus_per_node=8,
            region="eu-west",
            quoted_at=day,
            is_public_list_price=i % 2 == 0,
            title=f"bulk {start + i}",
        )
        for i, provider in enumerate(providers)
    )


def test_v18_the_list_and_its_csv_read_a_fixed_number_of_queries(market, login, lead):
    """No query per row: 6 quotes and 56 quotes (a full page of 50) cost the same."""
    client = login(lead)
    small_page = _queries(client, "/catalog/quotes/")
    small_csv = _queries(client, "/catalog/quotes/?format=csv")
    _bulk(market["h100"], 50)
    assert Quote.objects.count() == 56
    assert _queries(client, "/catalog/quotes/") == small_page
    assert _queries(client, "/catalog/quotes/?format=csv") == small_csv
    assert small_page <= 20
    assert small_csv <= 20


def test_v18_csv_exports_the_whole_filtered_sorted_list(market, login, lead):
    _bulk(market["h100"], 55)
    response = login(lead).get(
        "/catalog/quotes/", {"accelerator": "h100-sxm-80gb", "sort": "-price", "format": "csv"}
    )
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="quotes.csv"' in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    # Every H100 quote (5 of the world + 55 bulk), not one page of 50, and no L4.
    assert len(rows) == 60
    assert all(r["Accelerator"] == "H100 SXM 80GB" for r in rows)
    prices = [Decimal(r["Price per GPU-hour"]) for r in rows]
    assert prices == sorted(prices, reverse=True)  # the list's sort kept
    far = rows[0]
    assert (far["Offer"], far["Price per GPU-hour"], far["Far from market"]) == (
        "far",
        "30.00",
        "yes",
    )
    negotiated = next(r for r in rows if r["Offer"] == "negotiated")
    assert negotiated["Price per GPU-hour"] == "2.70"  # stored 2.7000: two decimals
    assert negotiated["Market position"] == "67th percentile"
    assert negotiated["Market percentile"] == "66.7"
    # The 55 bulk prices start on a later day; the negotiated offer sees only its 3 peers.
    assert negotiated["Comparable list prices"] == "3"
    assert negotiated["Market median"] == "2.60"
    assert negotiated["Capacity model"] == "On-demand"
    assert list(rows[0])[-1] == "Quote id"


def test_v18_csv_keeps_more_decimals_only_where_the_quote_has_them(market, login, lead):
    rows = list(
        csv.DictReader(
            io.StringIO(
                login(lead).get("/catalog/quotes/?format=csv&accelerator=l4-24gb").content.decode()
            )
        )
    )
    assert [r["Price per GPU-hour"] for r in rows] == ["0.7052"]


def test_v18_the_list_links_the_csv_of_its_filters_and_sort(market, login, lead):
    html = login(lead).get("/catalog/quotes/?accelerator=h100-sxm-80gb&sort=-price").content
    link = re.search(rb'id="quotes-csv" href="\?([^"]+)"', html).group(1).decode()
    assert "accelerator=h100-sxm-80gb" in link
    assert "sort=-price" in link
    assert link.endswith("format=csv")


def test_v19_catalog_csv_writes_numbers_as_people_type_them(login, lead):
    AcceleratorFactory(
        slug="mi300x-192gb",
        name="Instinct MI300X 192GB",
        vendor="AMD",
        memory_gb=192.0,
        memory_bandwidth_tbps=5.3,
        bf16_dense_tflops=1307.4,
        fp8_dense_tflops=2614.9,
        interconnect_gbps=896.0,
    )
    mi300x = Accelerator.objects.get(slug="mi300x-192gb")
    QuoteFactory(accelerator=mi300x, price_per_gpu_hour=Decimal("2.4900"))
    text = login(lead).get("/catalog/?format=csv&vendor=AMD").content.decode()
    row = next(csv.DictReader(io.StringIO(text)))
    assert row["memory_gb"] == "192"  # not 192.0
    assert row["interconnect_gbps"] == "896"
    assert row["memory_bandwidth_tbps"] == "5.3"
    assert row["bf16_dense_tflops"] == "1307.4"
    assert row["lowest_usd_per_gpu_hour"] == "2.49"  # not 2.4900


def test_v19_the_default_sort_is_announced_with_aria_sort(login, lead):
    AcceleratorFactory(slug="h100", name="H100", vendor="NVIDIA")
    html = login(lead).get("/catalog/").content.decode()
    sorted_headers = re.findall(r'<th[^>]*aria-sort="(\w+)"[^>]*><a[^>]*data-sort="(\w+)"', html)
    assert sorted_headers == [("ascending", "vendor")]
    html = login(lead).get("/catalog/?sort=-price").content.decode()
    sorted_headers = re.findall(r'<th[^>]*aria-sort="(\w+)"[^>]*><a[^>]*data-sort="(\w+)"', html)
    assert sorted_headers == [("descending", "price")]
