"""The side by side's third column (U28, V22): how row B differs from row A, figure by figure,
in the figure's own format: "+1,111.14 (×1.99)" for money, "+12 pp" for a probability,
"same" when equal, nothing when the figures are not numbers."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from core.templatetags.numbers import amount, thousands, unit_price
from core.values import decimal_or_none

# Formats whose ratio means something (a rank or a probability has a difference only).
RATIO_FORMATS = frozenset({"amount", "unit_price", "thousands"})


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return None
    return decimal_or_none(value)


def _magnitude(diff: Decimal, fmt: str) -> str:
    size = abs(diff)
    if fmt == "amount":
        return amount(size)
    if fmt == "unit_price":
        return unit_price(size)
    if fmt == "thousands":
        return thousands(size)
    if fmt == "pct":  # a fraction: the difference in percentage points
        return f"{size * 100:,.0f} pp"
    if size == size.to_integral_value():
        return f"{int(size):,}"
    return f"{size:,.2f}".rstrip("0").rstrip(".")  # an engine figure: 44.475 GB → 44.48


def pair_delta(a: Any, b: Any, fmt: str) -> str:
    """B − A in words for two figures of the same kind ("" when either is not a number)."""
    va, vb = _number(a), _number(b)
    if va is None or vb is None:
        return ""
    diff = vb - va
    if diff == 0:
        return "same"
    text = f"{'+' if diff > 0 else '−'}{_magnitude(diff, fmt)}"
    if fmt in RATIO_FORMATS and va > 0 and vb > 0:
        text += f" (×{vb / va:,.2f})"
    return text
