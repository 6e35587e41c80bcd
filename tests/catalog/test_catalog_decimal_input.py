"""U11: a decimal comma is read where unambiguous and refused where not — never ×100."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django import forms

from catalog.forms.quotes import QuoteForm
from core.forms import decimal_text


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("2,29", "2.29"),
        ("2.29", "2.29"),
        ("1.234,56", "1234.56"),
        ("1,234.56", "1234.56"),
        ("1 234,5", "1234.5"),
        ("1,234,567", "1234567"),
        ("0,5", "0.5"),
    ],
)
def test_unambiguous_spellings_are_read(typed: str, read: str) -> None:
    assert decimal_text(typed) == read


@pytest.mark.parametrize("typed", ["1,234", "12.5,3", "1,2,3"])
def test_ambiguous_spellings_are_refused_with_a_reason(typed: str) -> None:
    with pytest.raises(forms.ValidationError):
        decimal_text(typed)


@pytest.mark.django_db
def test_u11_the_quote_form_reads_a_decimal_comma_as_a_decimal_point() -> None:
    form = QuoteForm(data={"price_per_gpu_hour": "2,29"})
    form.is_valid()
    assert "price_per_gpu_hour" not in form.errors
    assert form.cleaned_data["price_per_gpu_hour"] == Decimal("2.29")
    assert 'inputmode="decimal"' in str(form["price_per_gpu_hour"])


@pytest.mark.django_db
def test_u11_an_ambiguous_price_is_a_form_error_naming_both_readings() -> None:
    form = QuoteForm(data={"price_per_gpu_hour": "1,234"})
    assert not form.is_valid()
    message = form.errors["price_per_gpu_hour"][0]
    assert "1234" in message
    assert "1.234" in message


# Issue 15 (5): the API route and FX rate forms read prices the same way as the quote form.


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("form_class", "field"),
    [
        ("ApiRouteForm", "price_output_per_m_tokens"),
        ("ApiRouteForm", "price_input_per_m_tokens"),
        ("FxRateForm", "rate_to_base"),
    ],
)
def test_reference_forms_read_a_decimal_comma(form_class: str, field: str) -> None:
    from catalog.forms import reference

    form = getattr(reference, form_class)(data={field: "2,29"})
    form.is_valid()
    assert field not in form.errors
    assert form.cleaned_data[field] == Decimal("2.29")
    assert 'inputmode="decimal"' in str(form[field])


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("form_class", "field"),
    [("ApiRouteForm", "price_output_per_m_tokens"), ("FxRateForm", "rate_to_base")],
)
def test_reference_forms_refuse_an_ambiguous_number_naming_both_readings(
    form_class: str, field: str
) -> None:
    from catalog.forms import reference

    form = getattr(reference, form_class)(data={field: "1,234"})
    assert not form.is_valid()
    message = form.errors[field][0]
    assert "ambiguous" in message
    assert "1234" in message
    assert "1.234" in message
