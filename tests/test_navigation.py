"""U17: the top navigation marks one link as the current page, the longest that holds it
(round four underlined both "Catalog" and "RFQs" on an RFQ, "Catalog" and "Quotes" on a
quote)."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from core.navigation import navigation


@pytest.mark.parametrize(
    ("path", "current"),
    [
        ("/", ["Dashboard"]),
        ("/catalog/", ["Catalog"]),
        ("/catalog/accelerators/h100-sxm-80gb/", ["Catalog"]),
        ("/catalog/rfqs/2/", ["RFQs"]),
        ("/catalog/quotes/44/", ["Quotes"]),
        ("/comparisons/1/review/", ["Comparisons"]),
        ("/accounts/password/", []),
    ],
)
def test_one_current_link(lead, path, current):
    request = RequestFactory().get(path)
    request.user = lead
    links = navigation(request)["nav_links"]
    assert [link["label"] for link in links if link["active"]] == current
