"""U31: the catalog's column chooser: the choice is in the URL (shareable), remembered in a
cookie for the next visit, and vendor and name always show."""

from __future__ import annotations

import re

import pytest

from tests.factories import AcceleratorFactory

pytestmark = pytest.mark.django_db


def data_cols(html: str) -> list[str]:
    first_row = html.split("<tbody>")[1].split("</tr>")[0]
    return re.findall(r'data-col="([a-z0-9]+)"', first_row)


def test_u31_catalog_columns_chosen_in_the_url_and_remembered(login, engineer):
    AcceleratorFactory(name="H100 SXM")
    client = login(engineer)
    full = client.get("/catalog/").content.decode()
    assert len(data_cols(full)) == 11
    assert 'id="column-chooser"' in full

    response = client.get("/catalog/", {"cols": ["price", "memory", "bogus"]})
    html = response.content.decode()
    assert data_cols(html) == ["memory", "price"]  # table order, unknown keys ignored
    head = html.split("<thead>")[1].split("</thead>")[0]
    assert "Vendor" in head
    assert "Name" in head
    assert "Memory" in head
    assert "TDP" not in head
    assert "Segment" not in head
    assert 'value="price" checked' in html
    assert 'value="tdp" checked' not in html
    assert response.cookies["catalog_cols"].value == "price,memory"
    assert "No accelerator matches" not in html  # choosing columns is no filter

    later = client.get("/catalog/").content.decode()
    assert data_cols(later) == ["memory", "price"]
