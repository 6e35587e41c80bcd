"""What every catalog model shares: money field sizes and the validators of a figure's limits."""

from __future__ import annotations

from decimal import Decimal
from typing import TypedDict

from django.core.validators import BaseValidator, MaxValueValidator, MinValueValidator
from django.db import models


class _Money(TypedDict):
    max_digits: int
    decimal_places: int


MONEY: _Money = {"max_digits": 14, "decimal_places": 4}
# Token prices per million tokens are stored as published: LiteLLM's per-token prices × 10⁶
# need up to 8 decimals (0.0046875 $/1M), which 4 places would round.
TOKEN_MONEY: _Money = {"max_digits": 18, "decimal_places": 8}
POSITIVE = [MinValueValidator(Decimal("0"))]


class CostableMax(MaxValueValidator):
    """The highest figure the engine can cost (a field's upper limit, read by `limits_of`)."""


def within(low: int, high: int) -> list[BaseValidator]:
    """A figure's inclusive limits, declared on its model field: what the engine can cost
    (a 10^9-month term, a 10^8 price cannot). Generous on purpose (a KRW or JPY hourly price
    is in the thousands); a price far from the market is the plausibility check's business."""
    return [MinValueValidator(low), CostableMax(high)]


def optional_money(
    verbose_name: str | None = None, *, high: int, help_text: str
) -> models.DecimalField[Decimal | None, Decimal | None]:
    """A price an offer may leave blank (not stated), between 0 and `high`."""
    return models.DecimalField(
        verbose_name,
        **MONEY,
        null=True,
        blank=True,
        validators=within(0, high),
        help_text=help_text,
    )


def limits_of(field: models.Field[object, object]) -> tuple[int, int] | None:
    """(low, high) of a field declared with `within`; None for a field without limits."""
    found = {type(v): v.limit_value for v in field.validators if isinstance(v, BaseValidator)}
    if CostableMax not in found:
        return None
    return found[MinValueValidator], found[CostableMax]
