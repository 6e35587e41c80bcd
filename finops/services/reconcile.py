"""The team's accepted outputs, and each month reconciled against the forecast."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.db import transaction

from catalog.models import CalibrationEntry
from core.audit import audit_record
from core.errors import DomainError
from finops import plan_months, selectors
from finops.focus.actuals import MonthCount
from finops.focus.reconcile import Actual, Forecast, ReconcileError, reconcile
from finops.models import ActualOutputs, Reconciliation
from finops.services.common import _in_contract, actual_outputs_check, drift_tolerance
from procurement.models import CandidateResult, Comparison

if TYPE_CHECKING:
    from accounts.models import User

logger = logging.getLogger(__name__)


def actual_outputs_record(
    *,
    acting_user: User,
    comparison: Comparison,
    counts: Sequence[MonthCount],
    source: str,
    original_name: str = "",
) -> list[ActualOutputs]:
    """Keep the team's counts (every month or none) and reconcile each month."""
    actual_outputs_check(acting_user=acting_user, comparison=comparison)
    if not counts:
        raise DomainError("No month to record.")
    for count in counts:
        _in_contract(comparison, count.month, "month")
    with transaction.atomic():
        saved = [
            ActualOutputs.objects.create(
                comparison=comparison,
                month=count.month.replace(day=1),
                accepted_outputs=count.accepted_outputs,
                acceptance_share=count.acceptance_share,
                completed_outputs=count.completed_outputs,
                generation_tokens=count.generation_tokens,
                source=source,
                original_name=original_name[:255],
                entered_by=acting_user,
            )
            for count in counts
        ]
        audit_record(
            actor=acting_user,
            action="actual_outputs.recorded",
            obj=comparison,
            summary={
                "months": [f"{c.month:%Y-%m}" for c in counts],
                "accepted_outputs": [format(c.accepted_outputs, "f") for c in counts],
                "source": source,
            },
        )
        for row in saved:
            reconciliation_refresh(comparison=comparison, month=row.month)
    return saved


def reconciliation_refresh(*, comparison: Comparison, month: date) -> Reconciliation | None:
    """Recompute a month once it has both a bill and counts (inside the caller's
    transaction); None while one of them is missing or the figures cannot be reconciled."""
    counts = selectors.latest_outputs(comparison, month)
    lines = selectors.decision_lines(comparison)
    if counts is None or not lines:
        return None
    tolerance = drift_tolerance()
    vendors: list[dict[str, Any]] = []
    row: CandidateResult | None = None
    if lines[0].in_plan:
        found = _plan_month(comparison, month, lines, counts, tolerance)
        if found is None:
            return None
        forecast, actual, vendors = found
        bill = selectors.latest_import(comparison, month)
    else:
        row = lines[0].row
        bill = selectors.latest_import(comparison, month)
        if bill is None:
            return None
        forecast = selectors.forecast_of(comparison, row)
        actual = Actual(
            spend=bill.gpu_cost_usd + bill.other_cost_usd,
            accepted_outputs=counts.accepted_outputs,
            acceptance=counts.acceptance_share,
            gpu_cost=bill.gpu_cost_usd,
            gpu_hours=bill.gpu_hours,
        )
    assert bill is not None  # noqa: S101 - a plan's month has every vendor's bill
    try:
        result = reconcile(forecast, actual, tolerance=tolerance)
    except ReconcileError as exc:
        logger.info("Month %s of comparison %s not reconciled: %s", month, comparison.pk, exc)
        return None
    note = result.note
    if vendors:
        note = (
            "A plan across offers: the cost per accepted output is the plan's, from every "
            "vendor's bill; each vendor's spend against its part is listed below."
        )
    values = {
        "billing_import": bill,
        "actual_outputs": counts,
        "forecast_spend_usd": forecast.spend,
        "actual_spend_usd": actual.spend,
        "forecast_accepted_outputs": forecast.accepted_outputs,
        "actual_accepted_outputs": actual.accepted_outputs,
        "forecast_unit_cost_usd": _q(result.forecast_unit_cost),
        "actual_unit_cost_usd": _q(result.actual_unit_cost),
        "cost_ratio": _q(result.cost_ratio),
        "forecast_utilisation": _q(result.forecast_utilisation),
        "actual_utilisation": _q(result.actual_utilisation),
        "forecast_acceptance": forecast.acceptance.quantize(Decimal("1e-6")),
        "actual_acceptance": actual.acceptance,
        "drivers": [
            {"name": d.name, "label": d.label, "per_output": format(_q(d.per_output), "f")}
            for d in result.drivers
        ],
        "note": note,
        "vendors": vendors,
        "tolerance": tolerance,
        "drift": result.drift,
    }
    saved, _ = Reconciliation.objects.update_or_create(
        comparison=comparison, month=month.replace(day=1), defaults=values
    )
    audit_record(
        actor=None,
        action="reconciliation.computed",
        obj=saved,
        summary={
            "comparison": comparison.pk,
            "month": f"{month:%Y-%m}",
            "cost_ratio": format(values["cost_ratio"], "f"),
            "drift": result.drift,
        },
    )
    if row is not None:  # a plan's month is no one quote's calibration
        billed_month_record(comparison=comparison, row=row, reconciliation=saved)
    return saved


def _plan_month(
    comparison: Comparison,
    month: date,
    lines: list[selectors.DecisionLine],
    counts: ActualOutputs,
    tolerance: Decimal,
) -> tuple[Forecast, Actual, list[dict[str, Any]]] | None:
    """An approved plan's month once every vendor's bill is in (U18, P9): the plan's spend
    and outputs, and each vendor's spend against its parts; None while a bill is missing."""
    months = plan_months.vendor_months(comparison, month, lines)
    if any(v.bill is None for v in months):
        return None
    vendors = []
    for v in months:
        assert v.bill is not None  # noqa: S101 - checked above
        ratio = v.actual_spend_usd / v.forecast_spend_usd if v.forecast_spend_usd else None
        vendors.append(
            {
                "provider": v.provider,
                "parts": v.parts,
                "forecast_spend_usd": format(v.forecast_spend_usd, "f"),
                "actual_spend_usd": format(v.actual_spend_usd, "f"),
                "spend_ratio": None if ratio is None else format(_q(ratio), "f"),
                "forecast_gpu_hours": (
                    None if v.forecast_gpu_hours is None else format(v.forecast_gpu_hours, "f")
                ),
                "gpu_hours": format(v.gpu_hours, "f"),
                "billing_import": v.bill.pk,
                "drift": ratio is not None and abs(ratio - 1) > tolerance,
            }
        )
    actual = Actual(
        spend=sum((v.actual_spend_usd for v in months), Decimal(0)),
        accepted_outputs=counts.accepted_outputs,
        acceptance=counts.acceptance_share,
    )
    return plan_months.plan_forecast(comparison, lines), actual, vendors


def billed_month_record(
    *, comparison: Comparison, row: CandidateResult, reconciliation: Reconciliation
) -> CalibrationEntry | None:
    """Keep a reconciled month's actual / forecast cost per accepted output in the
    calibration ledger, on the quote the decision took (inside the caller's transaction): a
    month reconciled again replaces its entry. None for a row on no quote (a model API)."""
    quote = row.quote
    if quote is None or not reconciliation.cost_ratio or reconciliation.cost_ratio <= 0:
        return None
    entry, created = CalibrationEntry.objects.update_or_create(
        kind=CalibrationEntry.Kind.COST,
        comparison_id=comparison.pk,
        month=reconciliation.month,
        defaults={
            "accelerator_id": quote.accelerator_id,
            "quote": quote,
            "model_profile_id": comparison.brief.model_id,
            "model_name": str(comparison.brief.model or "")[:200],
            "shape": f"billed {reconciliation.month:%Y-%m}",
            "gpus": int(row.gpus or 1),
            "forecast_unit_cost_usd": reconciliation.forecast_unit_cost_usd,
            "actual_unit_cost_usd": reconciliation.actual_unit_cost_usd,
            "cost_ratio": reconciliation.cost_ratio,
            "engine_version": comparison.engine_version,
        },
    )
    audit_record(
        actor=None,
        action="calibration_entry.billed_month_recorded",
        obj=entry,
        summary={
            "comparison": comparison.pk,
            "month": f"{reconciliation.month:%Y-%m}",
            "quote": quote.pk,
            "cost_ratio": format(reconciliation.cost_ratio, "f"),
            "replaced": not created,
        },
    )
    return entry


def _q(value: Decimal | None) -> Any:
    return None if value is None else value.quantize(Decimal("1e-12"))
