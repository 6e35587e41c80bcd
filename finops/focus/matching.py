"""Which rows of a provider's bill belong to an approved decision, and what they add up to.

A row belongs to the decision when all three hold (an empty list of ids is no condition):

1. its provider (`ServiceProviderName`, or the older `ProviderName`) is the offer's provider;
2. its billing or sub-account is one of the decision's accounts, or one of its tags
   (`Tags`, a JSON object) is one of the decision's `key=value` tags;
3. its `SkuId` is one of the offer's SKUs or its `ResourceId` one of its resources.

Every other row is counted as unmatched with its reason and cost, and the first
`SAMPLE_UNMATCHED` are kept with their row numbers: nothing is dropped silently.

A row outside the billing month, a number that is not a number, or a currency without an FX
rate to the base currency stops the whole import with `BillingRowError`, which names the row
and the column (nothing is half-imported: the caller writes only a complete summary).

GPU-hours: a row whose unit (`ConsumedUnit`, else `PricingUnit`) names hours counts its
quantity as GPU-hours when the unit says GPU, and as instance-hours × GPUs per instance
otherwise (a cloud GPU instance is billed by the instance-hour).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation

from finops.focus.reader import Batch, Row
from finops.focus.spec import parse_focus_datetime

SAMPLE_UNMATCHED = 100
HOUR_UNIT = re.compile(r"hour|\bhrs?\b", re.IGNORECASE)
GPU_UNIT = re.compile(r"gpu", re.IGNORECASE)
OTHER_PROVIDER = "other provider"
OTHER_ACCOUNT = "other account or tag"
OTHER_SKU = "other SKU or resource"


ROW_NUMBER_MAX = Decimal(10) ** 12  # the month's totals are kept with 14 digits before the point


class BillingRowError(ValueError):
    """A row that stops the import: its number, the column and what is wrong, in words."""

    def __init__(self, row: int, column: str, message: str) -> None:
        self.row, self.column = row, column
        super().__init__(f"Row {row}, column {column}: {message}")


@dataclass(frozen=True, slots=True)
class MatchRule:
    provider_names: frozenset[str]  # lower-case
    account_ids: frozenset[str] = frozenset()
    tags: frozenset[tuple[str, str]] = frozenset()
    sku_ids: frozenset[str] = frozenset()
    resource_ids: frozenset[str] = frozenset()
    gpus_per_instance: int = 1


@dataclass(frozen=True, slots=True)
class UnmatchedRow:
    row: int
    reason: str
    provider: str
    account: str
    sku: str
    resource: str
    cost: Decimal


@dataclass(slots=True)
class ProviderTotals:
    rows: int = 0
    gpu_hours: Decimal = Decimal(0)
    gpu_cost: Decimal = Decimal(0)
    other_cost: Decimal = Decimal(0)


@dataclass(frozen=True, slots=True)
class BillingSummary:
    rows: int
    matched_rows: int
    gpu_hours: Decimal
    gpu_cost: Decimal
    other_cost: Decimal
    unmatched_rows: int
    unmatched_cost: Decimal
    unmatched_by_reason: dict[str, int]
    unmatched_sample: tuple[UnmatchedRow, ...]
    currencies: tuple[str, ...]
    # The matched totals of each provider (its name lower-case): a plan across offers is
    # reconciled per vendor, from one consolidated file or one file per vendor.
    by_provider: dict[str, ProviderTotals] = field(default_factory=dict)

    @property
    def matched_cost(self) -> Decimal:
        return self.gpu_cost + self.other_cost


@dataclass(slots=True)
class _Totals:
    rows: int = 0
    matched: int = 0
    gpu_hours: Decimal = Decimal(0)
    gpu_cost: Decimal = Decimal(0)
    other_cost: Decimal = Decimal(0)
    unmatched: int = 0
    unmatched_cost: Decimal = Decimal(0)
    reasons: Counter[str] = field(default_factory=Counter)
    sample: list[UnmatchedRow] = field(default_factory=list)
    currencies: set[str] = field(default_factory=set)
    by_provider: dict[str, ProviderTotals] = field(default_factory=dict)


def _tags(raw: str | None) -> set[tuple[str, str]]:
    if not raw:
        return set()
    try:
        data = json.loads(raw)
    except ValueError:
        return set()
    if not isinstance(data, dict):
        return set()
    return {(str(k), "" if v is None else str(v)) for k, v in data.items()}


def _provider(row: Row) -> str:
    return (row.get("ServiceProviderName") or row.get("ProviderName") or "").strip().lower()


def unmatched_reason(row: Row, rule: MatchRule) -> str | None:
    """Why a row is not the decision's (None when it is)."""
    provider = _provider(row)
    if provider not in rule.provider_names:
        return OTHER_PROVIDER
    if rule.account_ids or rule.tags:
        accounts = {row.get("BillingAccountId") or "", row.get("SubAccountId") or ""}
        if not (accounts & rule.account_ids or _tags(row.get("Tags")) & rule.tags):
            return OTHER_ACCOUNT
    if (rule.sku_ids or rule.resource_ids) and not (
        (row.get("SkuId") or "") in rule.sku_ids
        or (row.get("ResourceId") or "") in rule.resource_ids
    ):
        return OTHER_SKU
    return None


def _decimal(row: Row, number: int, column: str, *, required: bool) -> Decimal | None:
    raw = (row.get(column) or "").strip()
    if not raw:
        if required:
            raise BillingRowError(number, column, "is empty; FOCUS requires a number here.")
        return None
    try:
        value = Decimal(raw)
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite():
        raise BillingRowError(number, column, f"{raw!r} is not a number.")
    if abs(value) > ROW_NUMBER_MAX:
        # No bill line comes near: 1E+30 is a slip or an attack, and would not fit the totals.
        raise BillingRowError(
            number, column, f"{raw!r} is larger than any bill line ({ROW_NUMBER_MAX:,} at most)."
        )
    return value


def _in_month(row: Row, number: int, start: datetime, end: datetime) -> None:
    raw = row.get("ChargePeriodStart") or ""
    try:
        at = parse_focus_datetime(raw)
    except ValueError:
        raise BillingRowError(number, "ChargePeriodStart", f"{raw!r} is not a date/time.") from None
    if not start <= at < end:
        raise BillingRowError(
            number,
            "ChargePeriodStart",
            f"{raw} is outside the billing month {start:%Y-%m} chosen for this import "
            "(import each month's file under its own month).",
        )


def _gpu_hours(row: Row, number: int, rule: MatchRule) -> Decimal | None:
    for qty_col, unit_col in (
        ("ConsumedQuantity", "ConsumedUnit"),
        ("PricingQuantity", "PricingUnit"),
    ):
        unit = row.get(unit_col) or ""
        if unit and HOUR_UNIT.search(unit):
            quantity = _decimal(row, number, qty_col, required=False)
            if quantity is None:
                continue
            return quantity if GPU_UNIT.search(unit) else quantity * rule.gpus_per_instance
    return None


def _add(totals: _Totals, row: Row, number: int, ctx: _Context) -> None:
    currency = (row.get("BillingCurrency") or "").strip().upper()
    if currency == ctx.base_currency:
        rate = Decimal(1)
    elif currency in ctx.fx:
        rate = ctx.fx[currency]
    else:
        raise BillingRowError(
            number,
            "BillingCurrency",
            f"{currency or 'an empty currency'} has no FX rate to {ctx.base_currency}; "
            "finance enters one on the FX rates page, then import the file again.",
        )
    _in_month(row, number, ctx.start, ctx.end)
    cost = _decimal(row, number, "EffectiveCost", required=True)
    assert cost is not None  # noqa: S101 - required=True never returns None
    cost *= rate
    totals.rows += 1
    totals.currencies.add(currency)
    reason = unmatched_reason(row, ctx.rule)
    if reason is not None:
        totals.unmatched += 1
        totals.unmatched_cost += cost
        totals.reasons[reason] += 1
        if len(totals.sample) < SAMPLE_UNMATCHED:
            totals.sample.append(
                UnmatchedRow(
                    row=number,
                    reason=reason,
                    provider=row.get("ServiceProviderName") or row.get("ProviderName") or "",
                    account=row.get("BillingAccountId") or "",
                    sku=row.get("SkuId") or "",
                    resource=row.get("ResourceId") or "",
                    cost=cost,
                )
            )
        return
    totals.matched += 1
    mine = totals.by_provider.setdefault(_provider(row), ProviderTotals())
    mine.rows += 1
    hours = _gpu_hours(row, number, ctx.rule)
    if hours is None:
        totals.other_cost += cost
        mine.other_cost += cost
    else:
        totals.gpu_hours += hours
        totals.gpu_cost += cost
        mine.gpu_hours += hours
        mine.gpu_cost += cost


@dataclass(frozen=True, slots=True)
class _Context:
    rule: MatchRule
    start: datetime
    end: datetime
    base_currency: str
    fx: Mapping[str, Decimal]


def summarise(
    batches: Iterable[Batch],
    *,
    rule: MatchRule,
    month_start: datetime,
    month_end: datetime,
    base_currency: str,
    fx: Mapping[str, Decimal],
    progress: Callable[[float], None] | None = None,
) -> BillingSummary:
    """Match and add up every row of the file; raises BillingRowError at the first bad row."""
    ctx = _Context(rule, month_start, month_end, base_currency.upper(), fx)
    totals = _Totals()
    for batch in batches:
        for offset, row in enumerate(batch.rows):
            _add(totals, row, batch.first_row + offset, ctx)
        if progress is not None:
            progress(batch.read_share)
    return BillingSummary(
        rows=totals.rows,
        matched_rows=totals.matched,
        gpu_hours=totals.gpu_hours,
        gpu_cost=totals.gpu_cost,
        other_cost=totals.other_cost,
        unmatched_rows=totals.unmatched,
        unmatched_cost=totals.unmatched_cost,
        unmatched_by_reason=dict(totals.reasons),
        unmatched_sample=tuple(totals.sample),
        currencies=tuple(sorted(totals.currencies)),
        by_provider=totals.by_provider,
    )
