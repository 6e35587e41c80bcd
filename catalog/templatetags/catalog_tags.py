"""Template helpers for catalog pages."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django import template

register = template.Library()


@register.filter
def dictget(mapping: Any, key: Any) -> Any:
    """{{ mapping|dictget:key }}: a dict lookup with a variable key (None if absent)."""
    if not isinstance(mapping, dict):
        return None
    return mapping.get(key)


@register.filter
def price(value: Any) -> str | None:
    """2.4900 → "2.49", 0.0750 → "0.075", 285000.0000 → "285,000.00"; None stays None."""
    if value is None or value == "":
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    exponent = number.normalize().as_tuple().exponent
    if not isinstance(exponent, int):  # NaN or infinity: no places to count
        return str(value)
    places = max(2, -exponent)
    return f"{number:,.{min(places, 4)}f}"
