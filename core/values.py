"""Lenient "value → number" conversions for data read back from JSON, forms and snapshots.

Stored metrics, frozen snapshots and submitted forms hold numbers as ints, floats, Decimals or
strings, and sometimes as something else (None, "", a bool, a list). These helpers answer the
number or None; they never raise. Booleans are never numbers here, although Python counts
``True`` as 1.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
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


def money_decimal(
    value: object, *, most: int = 4, whole_places: int | None = None
) -> Decimal | None:
    """Money as a file should hold it: two decimals, more (up to `most`) only where the source
    carries them: 2.4900 → 2.49, 0.0750 → 0.075, 1307.4 → 1307.40, 2.48512 → 2.4851.

    ``whole_places=2``: a computed amount of one or more keeps two places whatever it carries
    (a Monte Carlo quantile's 5.454726735199813 is 5.45); below one, a per-token unit cost,
    it keeps up to `most` (0.0375 stays 0.0375)."""
    number = decimal_or_none(value)
    if number is None:
        return None
    exponent = number.normalize().as_tuple().exponent
    carried = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    places = min(max(2, carried), most)
    if whole_places is not None and abs(number) >= 1:
        places = whole_places
    return number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def plain_number(value: object) -> int | Decimal | None:
    """A measured figure without float noise, for a file: 192.0 → 192, 1307.4 → 1307.4,
    0.30000000000000004 → 0.3 (up to six decimals kept)."""
    number = decimal_or_none(value)
    if number is None:
        return None
    rounded = number.quantize(Decimal("0.000001"), rounding=ROUND_HALF_UP).normalize()
    if rounded == rounded.to_integral_value():
        return int(rounded)
    return rounded
