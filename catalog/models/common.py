"""What every catalog model shares: money field sizes and the positive-value validator."""

from __future__ import annotations

from decimal import Decimal
from typing import TypedDict

from django.core.validators import MinValueValidator


class _Money(TypedDict):
    max_digits: int
    decimal_places: int


MONEY: _Money = {"max_digits": 14, "decimal_places": 4}
# Token prices per million tokens are stored as published: LiteLLM's per-token prices × 10⁶
# need up to 8 decimals (0.0046875 $/1M), which 4 places would round.
TOKEN_MONEY: _Money = {"max_digits": 18, "decimal_places": 8}
POSITIVE = [MinValueValidator(Decimal("0"))]
