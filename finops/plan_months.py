"""Reads of an approved plan across offers in FinOps (U18, P9): its month's forecast, and each
vendor's month (its parts' forecast against the newest bill that holds its rows)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal

from finops import selectors
from finops.focus.reconcile import Forecast
from finops.models import BillingImport
from procurement.models import Comparison
from procurement.selectors.reviews.plan import stored_plan


def plan_forecast(comparison: Comparison, lines: list[selectors.DecisionLine]) -> Forecast:
    """An approved plan's month: every vendor's billed spend, for the plan's accepted
    outputs (each part serves a share of them, so the cost per output is the plan's)."""
    plan = stored_plan(comparison) or {}
    accepted = selectors.as_decimal(plan.get("accepted_outputs")) or lines[0].row.accepted_outputs
    return Forecast(
        spend=sum((line.monthly_billed_usd for line in lines), Decimal(0)),
        accepted_outputs=accepted or Decimal(0),
        acceptance=selectors.acceptance_share(comparison),
    )


@dataclass(frozen=True, slots=True)
class VendorMonth:
    """One vendor's month of an approved plan: its parts' forecast against its bill."""

    provider: str
    parts: list[str]
    forecast_spend_usd: Decimal
    forecast_gpu_hours: Decimal | None
    bill: BillingImport | None
    actual_spend_usd: Decimal = Decimal(0)
    gpu_hours: Decimal = Decimal(0)


def _vendor_totals(bill: BillingImport, key: str) -> tuple[Decimal, Decimal] | None:
    """(spend, GPU-hours) of one provider in an import; None when it has none of its rows."""
    found = (bill.by_provider or {}).get(key)
    if found is None:
        if bill.by_provider or list(bill.provider_names) != [key]:
            return None
        return bill.matched_cost_usd, Decimal(bill.gpu_hours)  # read before per-vendor totals
    spend = Decimal(found["gpu_cost_usd"]) + Decimal(found["other_cost_usd"])
    return spend, Decimal(found["gpu_hours"])


def vendor_months(
    comparison: Comparison, month: date, lines: list[selectors.DecisionLine]
) -> list[VendorMonth]:
    """Each vendor of a plan (its parts grouped by provider) with the newest imported bill of
    the month that holds its rows: one consolidated file or one file per vendor."""
    bills = list(
        selectors.imports_of(comparison)
        .filter(month=month.replace(day=1), status=BillingImport.Status.DONE)
        .order_by("-finished_at", "-pk")
    )
    grouped: dict[str, list[selectors.DecisionLine]] = {}
    for line in lines:
        grouped.setdefault(line.provider_key, []).append(line)
    out = []
    for key, mine in grouped.items():
        hours = [line.forecast_gpu_hours for line in mine if line.forecast_gpu_hours is not None]
        vendor = VendorMonth(
            provider=mine[0].row.provider_name,
            parts=[line.label for line in mine],
            forecast_spend_usd=sum((line.monthly_billed_usd for line in mine), Decimal(0)),
            forecast_gpu_hours=sum(hours, Decimal(0)) if hours else None,
            bill=None,
        )
        for bill in bills:
            if (totals := _vendor_totals(bill, key)) is not None:
                spend, gpu_hours = totals
                vendor = replace(vendor, bill=bill, actual_spend_usd=spend, gpu_hours=gpu_hours)
                break
        out.append(vendor)
    return out
