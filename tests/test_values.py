"""core.values: the one lenient "value → number" conversion, never raising."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from core.values import decimal_or_none, finite_or_none, float_or_none

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
