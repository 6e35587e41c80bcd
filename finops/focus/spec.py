"""The FOCUS columns this product writes and reads, and their value formats.

FOCUS (FinOps Open Cost and Usage Specification) version 1.3, published by the FinOps
Foundation (https://focus.finops.org/focus-specification/v1-3/). Version 1.3 defines the
Contract Commitment dataset: thirteen mandatory columns, the first fields of
`export.CommitmentRow`. `ContractCommitmentPaymentModel` and `ServiceProviderName` are
written beside them: the first is defined for the same dataset by the 1.4 working draft
(allowed values "No Upfront", "Partial Upfront", "All Upfront"), the second is the 1.3 name
of the provider column of the Cost and Usage dataset; finance tools that know only 1.3
ignore columns they do not define.

No price-sheet dataset exists in 1.3 (it is announced for later versions), so price rows use
the Cost and Usage dataset's own price columns (`export.PriceRow`: `SkuId`, `SkuPriceId`,
`ListUnitPrice`, `ContractedUnitPrice`, `PricingCategory`, `PricingUnit`, …).

Value formats (FOCUS "Attributes"): date/times are ISO 8601 in UTC with a `Z`
(`2026-01-01T00:00:00Z`); periods are half-open (the end is exclusive); numbers are plain
decimals with a dot and no thousands separator, never in exponent form; currencies are
ISO 4217 codes; units follow the UnitFormat attribute (`GPU-Hours`, `1000000 Tokens`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

FOCUS_VERSION = "1.3"

# The Cost and Usage columns an import needs; any other column of the file is ignored.
# `ServiceProviderName` (1.3) or `ProviderName` (1.0-1.2, deprecated since) names the provider.
BILLING_REQUIRED: tuple[str, ...] = (
    "BillingAccountId",
    "BillingCurrency",
    "BillingPeriodStart",
    "ChargePeriodStart",
    "EffectiveCost",
)
PROVIDER_COLUMNS: tuple[str, ...] = ("ServiceProviderName", "ProviderName")
BILLING_OPTIONAL: tuple[str, ...] = (
    "BilledCost",
    "SubAccountId",
    "ResourceId",
    "SkuId",
    "Tags",
    "ConsumedQuantity",
    "ConsumedUnit",
    "PricingQuantity",
    "PricingUnit",
    "ChargeCategory",
)


def focus_datetime(value: datetime) -> str:
    """A UTC date/time in FOCUS's format; a naive value is refused (never guessed)."""
    if value.tzinfo is None:
        raise ValueError("FOCUS date/times are UTC: a naive datetime has no zone")
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def focus_number(value: Decimal | None) -> str:
    """A decimal as FOCUS writes it: plain notation, no exponent, no separators."""
    if value is None:
        return ""
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def parse_focus_datetime(text: str) -> datetime:
    """A FOCUS date/time (also accepting `+00:00`, a date alone, or a space for the `T`, as
    provider exports write them) as an aware UTC datetime; ValueError otherwise."""
    raw = text.strip()
    if not raw:
        raise ValueError("empty")
    raw = raw.replace(" ", "T", 1)
    if raw.endswith("Z"):
        raw = raw[:-1] + "+00:00"
    parsed = datetime.fromisoformat(raw)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)
