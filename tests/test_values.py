"""core.values: the one lenient "value → number" conversion, never raising."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from core.values import (
    decimal_or_none,
    finite_or_none,
    float_or_none,
    money_decimal,
    plain_number,
)

NOT_NUMBERS = [None, "", "  ", "abc", "12abc", True, False, [], [1], {}, object(), b"1"]


@pytest.mark.parametrize("value", NOT_NUMBERS)
def test_what_is_not_a_number_is_none(value: object) -> None:
    assert float_or_none(value) is None
    assert finite_or_none(value) is None
    assert decimal_or_none(value) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [(3, 3.0), (2.5, 2.5), ("1.25", 1.25), (" 7 ", 7.0), (Decimal("0.1"), 0.1), ("1e3", 1000.0)],
)
def test_numbers_and_numeric_strings(value: object, expected: float) -> None:
    assert float_or_none(value) == expected
    assert finite_or_none(value) == expected


def test_strings_false_takes_numbers_only() -> None:
    assert float_or_none("1.5", strings=False) is None
    assert finite_or_none("1.5", strings=False) is None
    assert float_or_none(1.5, strings=False) == 1.5
    assert finite_or_none(Decimal("2"), strings=False) == 2.0


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, "nan", "inf", Decimal("NaN")])
def test_finite_refuses_nan_and_infinities_float_keeps_them(value: object) -> None:
    assert finite_or_none(value) is None
    assert decimal_or_none(value) is None
    number = float_or_none(value)
    assert number is not None
    assert not math.isfinite(number)


def test_huge_integer_is_none_not_an_overflow() -> None:
    assert float_or_none(10**400) is None


def test_decimal_keeps_the_written_digits() -> None:
    assert decimal_or_none(0.1) == Decimal("0.1")
    assert decimal_or_none("12.50") == Decimal("12.50")
    assert decimal_or_none(Decimal("3.1")) == Decimal("3.1")
    assert decimal_or_none(7) == Decimal(7)


@pytest.mark.parametrize(
    ("value", "whole_places", "text"),
    [
        (Decimal("2.4900"), None, "2.49"),  # a stored price: two decimals
        (Decimal("0.0750"), None, "0.075"),  # more only where the source has them
        (Decimal("2.48512"), None, "2.4851"),  # at most four
        (1307.4, None, "1307.40"),
        (5.454726735199813, 2, "5.45"),  # a Monte Carlo quantile: to the cent
        (0.0375, 2, "0.0375"),  # a cost per 1M tokens under one keeps its places
        (Decimal("400000000.0000"), 2, "400000000.00"),
        (-3.256, 2, "-3.26"),
        (None, None, None),
        ("not a number", None, None),
    ],
)
def test_v19_v21_money_has_two_decimals_unless_the_source_has_more(value, whole_places, text):
    found = money_decimal(value, whole_places=whole_places)
    assert (None if found is None else str(found)) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (192.0, "192"),
        (1307.4, "1307.4"),
        (0.30000000000000004, "0.3"),
        (1.555, "1.555"),
        (None, None),
    ],
)
def test_v19_figures_without_float_noise(value, text):
    found = plain_number(value)
    assert (None if found is None else str(found)) == text
