"""Lenient "value → number" conversions for data read back from JSON, forms and snapshots.

Stored metrics, frozen snapshots and submitted forms hold numbers as ints, floats, Decimals or
strings, and sometimes as something else (None, "", a bool, a list). These helpers answer the
number or None; they never raise. Booleans are never numbers here, although Python counts
``True`` as 1.
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from typing import SupportsFloat, SupportsIndex


def float_or_none(value: object, *, strings: bool = True) -> float | None:
    """The value as a float; None for None, "", a bool, a non-number or an unparsable string.

    ``strings=False``: only numbers count (a numeric string is None too). NaN and infinities
    pass through; use ``finite_or_none`` to refuse them."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        if not strings:
            return None
    elif not isinstance(value, SupportsFloat | SupportsIndex):
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


def finite_or_none(value: object, *, strings: bool = True) -> float | None:
    """As ``float_or_none``, and None for NaN and infinities."""
    number = float_or_none(value, strings=strings)
    return number if number is not None and math.isfinite(number) else None


def decimal_or_none(value: object) -> Decimal | None:
    """The value as a finite Decimal (through its text, so 0.1 stays 0.1); None for None, "",
    a bool, a non-number, NaN and infinities."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        number = value if isinstance(value, Decimal) else Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None
