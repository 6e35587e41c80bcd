"""The product walked as its users walk it (round four): on the new-comparison page a quote
that answers an RFQ names the RFQ by its title, not by its database id."""

from __future__ import annotations

import pytest

from tests.comparisons.test_comparisons_wizard import _page, _row_of, world  # noqa: F401

pytestmark = pytest.mark.django_db


def test_j12_a_quote_answering_an_rfq_names_the_rfq_by_its_title(login, lead, world):  # noqa: F811
    _response, html = _page(login(lead), world)
    row = _row_of(html, "quotes", world["answer"].pk)
    assert "answers the RFQ “Chat capacity Q3”" in row
    assert f"answers RFQ {world['rfq'].pk}" not in row  # was the id
