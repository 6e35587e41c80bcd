"""U36 on the catalog: 50 accelerators a page, the pager keeping the filters, the sort and the
column choice (?cols=); a new sort starts on page 1; the CSV export stays whole."""

from __future__ import annotations

import csv
import io
import re

import pytest

from tests.factories import AcceleratorFactory

pytestmark = pytest.mark.django_db

PARAMS = {"vendor": "Acme", "sort": "-memory", "cols": ["memory", "price"]}
KEPT = "vendor=Acme&amp;sort=-memory&amp;cols=memory&amp;cols=price"


@pytest.fixture
def acme_55():
    for n in range(1, 56):
        AcceleratorFactory(vendor="Acme", name=f"Acme {n:02d}", memory_gb=float(n))
    AcceleratorFactory(vendor="Other", name="Filtered out")


def names(html: str) -> list[str]:
    return re.findall(r">(Acme \d\d|Filtered out)</a></td>", html)


def test_catalog_pages_by_50_keeping_filters_sort_and_columns(login, engineer, acme_55):
    client = login(engineer)
    first = client.get("/catalog/", PARAMS).content.decode()
    assert names(first) == [f"Acme {n:02d}" for n in range(55, 5, -1)]
    assert "55 accelerators." in first
    assert "Page 1 of 2 · 1–50 of 55" in first
    assert f'href="?{KEPT}&amp;page=2" rel="next"' in first
    second = client.get("/catalog/", {**PARAMS, "page": 2}).content.decode()
    assert names(second) == [f"Acme {n:02d}" for n in range(5, 0, -1)]
    assert f'href="?{KEPT}&amp;page=1" rel="prev"' in second
    assert re.findall(r'data-col="([a-z]+)"', second.split("<tbody>")[1].split("</tr>")[0]) == [
        "memory",
        "price",
    ]
    # A header click sorts afresh from page 1, with the filters and columns kept.
    assert 'href="?vendor=Acme&amp;cols=memory&amp;cols=price&amp;sort=memory"' in second
    assert "No accelerator matches" not in second  # the page is no filter


def test_catalog_csv_stays_whole_from_any_page(login, engineer, acme_55):
    client = login(engineer)
    second = client.get("/catalog/", {**PARAMS, "page": 2}).content.decode()
    export = re.search(r'id="catalog-csv" href="\?([^"]+)"', second)
    assert export
    assert "page=" not in export.group(1)
    response = client.get("/catalog/", {**PARAMS, "page": 2, "format": "csv"})
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert len(rows) == 1 + 55  # the header and every filtered accelerator


@pytest.mark.parametrize(("asked", "shown"), [("abc", 1), ("0", 2), ("99", 2)])
def test_catalog_odd_page_numbers_open_a_real_page(login, engineer, acme_55, asked, shown):
    response = login(engineer).get("/catalog/", {**PARAMS, "page": asked})
    assert response.status_code == 200
    assert f"Page {shown} of 2" in response.content.decode()
