"""Formats people read: ordinals ("33rd", not "33th") on the quote's market position and in
the price-change notice."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.templatetags.numbers import ordinal


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (21, "21st"),
        (33.3, "33rd"),
        (33.5, "34th"),
        (101, "101st"),
        (112, "112th"),
        (None, "—"),
    ],
)
def test_v18_v22_ordinals_read_right(value, text):
    assert ordinal(value) == text


def test_v18_the_quote_page_says_33rd_percentile():
    from django.template import engines

    html = (
        engines["django"]
        .from_string("{% load numbers %}{{ p|ordinal }} percentile (median {{ m|unit_price }})")
        .render({"p": 33.3, "m": "6.3100"})
    )
    assert html == "33rd percentile (median 6.31)"
    root = Path(__file__).resolve().parents[2]
    template = (root / "templates/catalog/quote_detail.html").read_text(encoding="utf-8")
    assert "th percentile" not in template
    assert "market.percentile|ordinal" in template
