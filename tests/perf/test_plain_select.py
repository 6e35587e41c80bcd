"""The quotes page's one-pass <select> writes exactly what Django's template would."""

from __future__ import annotations

from django import forms

from core.forms import PlainSelect

CHOICES = [
    ("", "any accelerator"),
    ("h100-sxm", "H100 SXM <80 GB>"),
    ("a&b", 'quote "A" & B'),
    ("Group", [("g1", "first"), ("g2", "second")]),
]


def _both(value: object, attrs: dict[str, object] | None = None) -> tuple[str, str]:
    django_select = forms.Select(attrs=attrs, choices=CHOICES)
    plain = PlainSelect(attrs=attrs, choices=CHOICES)
    return django_select.render("accelerator", value), plain.render("accelerator", value)


def test_plain_select_matches_django_markup_with_and_without_a_selection() -> None:
    for value in (None, "", "h100-sxm", "a&b", "g2", "missing"):
        expected, got = _both(value)
        assert got == expected


def test_plain_select_matches_django_attributes() -> None:
    attrs = {"id": "id_x", "required": True, "disabled": False, "data-note": '<"x">'}
    expected, got = _both("g1", attrs)
    assert got == expected


def test_plain_select_matches_django_for_a_multiple_select() -> None:
    class Multiple(PlainSelect):
        allow_multiple_selected = True

    expected = forms.SelectMultiple(choices=CHOICES).render("m", ["g1", "h100-sxm"])
    got = Multiple(attrs={"multiple": True}, choices=CHOICES).render("m", ["g1", "h100-sxm"])
    assert got == expected
