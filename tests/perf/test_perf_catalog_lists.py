"""What was removed from the catalog's long lists: the quotes list loads a page's keys before
its joined rows (same rows, same order, HTML and API alike), "current" is an anti-join the
planner estimates right, and the catalog's price column is one grouped query, not two
correlated subqueries per accelerator."""

from __future__ import annotations

from decimal import Decimal

from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog import selectors
from catalog.models import Quote
from core.paging import rows_in_order
from tests.factories import AcceleratorFactory, QuoteFactory


def _quotes(provider, accelerators, n):
    return [
        QuoteFactory(
            provider=provider,
            accelerator=accelerators[i % len(accelerators)],
            price_per_gpu_hour=Decimal("1.00") + Decimal(i % 7) / 10,
        )
        for i in range(n)
    ]


def test_a_page_by_keys_is_the_sliced_page(db, provider_a):
    h100 = AcceleratorFactory(name="H100")
    _quotes(provider_a, [h100, AcceleratorFactory(name="A100")], 12)
    qs = Quote.objects.select_related("provider", "accelerator").order_by(
        "accelerator__name", "price_per_gpu_hour", "pk"
    )
    for start, stop in ((0, 5), (5, 10), (10, 15), (20, 25)):
        assert rows_in_order(qs, start, stop) == list(qs[start:stop])


def test_quotes_page_and_api_list_the_same_rows_by_key(login, api_client, lead, provider_a):
    h100 = AcceleratorFactory(name="H100")
    quotes = _quotes(provider_a, [h100, AcceleratorFactory(name="A100")], 8)
    old = quotes[0]
    Quote.objects.filter(pk=quotes[1].pk).update(supersedes=old)  # quotes[1] replaces quotes[0]
    client = login(lead)
    with CaptureQueriesContext(connection) as ctx:
        html = client.get("/catalog/quotes/").content.decode()
    assert f"/catalog/quotes/{old.pk}/" not in html  # superseded: not current
    assert f"/catalog/quotes/{quotes[1].pk}/" in html
    sql = " ".join(q["sql"] for q in ctx.captured_queries)
    assert "NOT EXISTS" in sql
    assert 'LEFT OUTER JOIN "catalog_quote"' not in sql  # no self-join … IS NULL
    api_client.force_authenticate(lead)
    body = api_client.get("/api/v1/quotes/?current=true&ordering=price_per_gpu_hour").json()
    ids = [row["id"] for row in body["results"]]
    expected = (
        Quote.objects.current()
        .order_by("price_per_gpu_hour", "-created_at")
        .values_list("pk", flat=True)
    )
    assert sorted(ids) == sorted(expected)
    assert old.pk not in ids


def test_price_column_is_one_grouped_query(db, provider_a, django_assert_num_queries):
    h100 = AcceleratorFactory(name="H100")
    a100 = AcceleratorFactory(name="A100")
    unpriced = AcceleratorFactory(name="Z-none")
    _quotes(provider_a, [h100, a100], 6)
    QuoteFactory(provider=provider_a, accelerator=h100, currency="EUR", price_per_gpu_hour=1)
    with django_assert_num_queries(2):
        rows = {a.pk: a for a in selectors.accelerators_list({})}
    assert rows[h100.pk].lowest_usd_per_gpu_hour == Decimal("1.00")
    assert rows[h100.pk].usd_offers == 3
    assert rows[unpriced.pk].lowest_usd_per_gpu_hour is None
    assert rows[unpriced.pk].usd_offers is None
    by_price = [a.pk for a in selectors.accelerators_list({"sort": "price"})]
    assert by_price.index(h100.pk) < by_price.index(a100.pk) < by_price.index(unpriced.pk)
    by_price_desc = [a.pk for a in selectors.accelerators_list({"sort": "-price"})]
    assert by_price_desc.index(a100.pk) < by_price_desc.index(h100.pk)
    assert by_price_desc[-1] != h100.pk
