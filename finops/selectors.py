"""Reads of the FinOps pages: a decision's approved row, its forecast, its FOCUS rows, its
imports, counts and reconciliations, and the drift cards of the dashboards."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models import F, QuerySet

from catalog.models import FxRate, ModelApiRoute, Quote
from core.cost_lines import API_ROUTE_UNBILLED_LINES, IDLE_LINES, NOT_BILLED_LINES
from engine.types import WorkloadInput
from finops import access
from finops.focus.export import CommitmentRow, PriceRow
from finops.focus.reconcile import Forecast
from finops.models import ActualOutputs, BillingImport, Reconciliation
from procurement.models import CandidateResult, Comparison, PlanPart, Review
from procurement.selectors.reviews.commitment import row_commitment
from procurement.selectors.reviews.plan import approved_plan_parts_of, stored_plan

COMMITTED = {"reserved", "dedicated_cluster", "private_cloud", "purchase"}


def add_months(day: date, months: int) -> date:
    month0 = day.month - 1 + months
    year, month = day.year + month0 // 12, month0 % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def month_bounds(month: date) -> tuple[datetime, datetime]:
    """[first instant, first instant of the next month) of a month, in UTC."""
    start = datetime.combine(month.replace(day=1), time(), tzinfo=UTC)
    return start, datetime.combine(add_months(month.replace(day=1), 1), time(), tzinfo=UTC)


def approved_candidate(comparison: Comparison) -> CandidateResult | None:
    """The row the decision approved (the newest approval's row), or None."""
    if comparison.status != Comparison.Status.APPROVED:
        return None
    review = (
        Review.objects.filter(comparison=comparison, decision=Review.Decision.APPROVE)
        .exclude(candidate=None)
        .select_related("candidate__quote__provider", "candidate__quote__accelerator")
        .select_related("candidate__api_route__provider")
        .order_by("-created_at", "-pk")
        .first()
    )
    return review.candidate if review is not None else None


@dataclass(frozen=True, slots=True)
class Contract:
    commitment_id: str
    contract_id: str
    start: datetime
    end: datetime
    months: int
    commitment_usd: Decimal
    committed_gpu_hours: Decimal | None
    provider_name: str


def _contract(
    comparison: Comparison,
    row: CandidateResult,
    *,
    months: int,
    commitment_usd: Decimal,
    per_month: Any,
) -> Contract:
    """From the day of approval (00:00 UTC) for `months`."""
    decided = comparison.decided_at or comparison.finished_at or comparison.created_at
    start_day = decided.astimezone(UTC).date()
    return Contract(
        commitment_id=f"decision-{comparison.pk}-{row.key}",
        contract_id=f"decision-{comparison.pk}-rev{comparison.revision}",
        start=datetime.combine(start_day, time(), tzinfo=UTC),
        end=datetime.combine(add_months(start_day, months), time(), tzinfo=UTC),
        months=months,
        commitment_usd=commitment_usd,
        committed_gpu_hours=None if per_month is None else Decimal(str(per_month)) * months,
        provider_name=row.provider_name,
    )


def contract_of(comparison: Comparison, row: CandidateResult) -> Contract:
    """The contract a decision on one row makes: for the months the engine counted (the
    term, or the horizon where the offer states none)."""
    found = row_commitment(row.detail)
    detail = (row.detail or {}).get("commitment") or {}
    months = int(detail.get("months_counted") or 0) or int(detail.get("horizon_months") or 0) or 1
    return _contract(
        comparison,
        row,
        months=months,
        commitment_usd=found.commitment_usd if found else Decimal(0),
        per_month=detail.get("committed_gpu_hours_per_month"),
    )


@dataclass(frozen=True, slots=True)
class DecisionLine:
    """One line of an approved decision as FinOps carries it: the approved row, or one
    vendor's part of an approved plan across offers, with its own contract and the spend
    its provider bills a month."""

    row: CandidateResult
    label: str
    contract: Contract
    monthly_billed_usd: Decimal
    forecast_gpu_hours: Decimal | None  # billed GPU-hours a month, where known
    in_plan: bool = False

    @property
    def provider_key(self) -> str:
        return self.row.provider_name.strip().lower()


def _part_line(comparison: Comparison, part: PlanPart, plan: dict[str, Any]) -> DecisionLine:
    """A plan part's contract: its term, or the plan's horizon where its commitment is the
    spend over the horizon (ADR 0006: the larger of contract and expected spend)."""
    row = part.candidate
    horizon = int(plan.get("horizon_months") or comparison.brief.horizon_months or 1)
    stored = next(
        (
            v
            for v in plan.get("vendors") or []
            if isinstance(v, dict) and v.get("offer_id") == row.key
        ),
        {},
    )
    by_contract = part.term_months > 0 and part.contract_usd >= part.commitment_usd
    per_month = stored.get("committed_gpu_hours_per_month") if by_contract else None
    hours = [
        Decimal(str(line.get("billed_gpu_hours") or 0))
        for line in plan.get("lines") or []
        if isinstance(line, dict) and line.get("offer_id") == row.key
    ]
    return DecisionLine(
        row=row,
        label=part.label,
        contract=_contract(
            comparison,
            row,
            months=part.term_months if by_contract else horizon,
            commitment_usd=part.commitment_usd,
            per_month=per_month if per_month and Decimal(str(per_month)) > 0 else None,
        ),
        # the vendor's bill: the part's cost and the storage its vendor bills (P15)
        monthly_billed_usd=Decimal(str(stored.get("monthly_billed_usd") or part.monthly_cost_usd)),
        forecast_gpu_hours=sum(hours, Decimal(0)) if part.capacity != "api" and hours else None,
        in_plan=True,
    )


def decision_lines(comparison: Comparison) -> list[DecisionLine]:
    """What an approved decision commits, line by line: each vendor's part of an approved
    plan across offers, or the one approved row; [] before approval (U18, P9)."""
    if comparison.status != Comparison.Status.APPROVED:
        return []
    parts = approved_plan_parts_of(comparison)
    if parts:
        plan = stored_plan(comparison) or {}
        return [_part_line(comparison, part, plan) for part in parts]
    row = approved_candidate(comparison)
    if row is None:
        return []
    forecast = forecast_of(comparison, row)
    return [DecisionLine(row, row.label, contract_of(comparison, row), forecast.spend, None)]


def decision_commitments(comparisons: list[Comparison]) -> dict[int, Decimal | None]:
    """Each decision's commitment, its plan's total where a plan was approved (the first plan
    approval's parts, as `approved_plan_parts`), in one query for a whole list (U18)."""
    out: dict[int, Decimal | None] = {c.pk: c.commitment_usd for c in comparisons}
    approved = [c.pk for c in comparisons if c.status == Comparison.Status.APPROVED]
    first: dict[int, int] = {}
    totals: dict[int, Decimal] = {}
    parts = (
        PlanPart.objects.filter(
            comparison_id__in=approved,
            review__decision=Review.Decision.APPROVE,
            review__approves_plan=True,
        )
        .order_by("review__created_at", "review_id")
        .values_list("comparison_id", "review_id", "commitment_usd")
    )
    for comparison_id, review_id, commitment in parts:
        if first.setdefault(comparison_id, review_id) == review_id:
            totals[comparison_id] = totals.get(comparison_id, Decimal(0)) + commitment
    out.update(totals)
    return out


def _capacity_words(capacity_model: str) -> str:
    return capacity_model.replace("_", " ").capitalize() or "Capacity"


def commitment_rows(comparison: Comparison) -> list[CommitmentRow]:
    """The decision's FOCUS Contract Commitment rows: one per line (each vendor's part of
    an approved plan, or the approved row)."""
    return [_commitment_row(line) for line in decision_lines(comparison)]


def _commitment_row(line: DecisionLine) -> CommitmentRow:
    row, contract = line.row, line.contract
    usage = contract.committed_gpu_hours is not None
    kind = (
        "Model API spend"
        if row.kind == CandidateResult.Kind.API
        else f"{_capacity_words(row.capacity_model)} GPU capacity"
    )
    return CommitmentRow(
        BillingCurrency=settings.BASE_CURRENCY,
        ContractCommitmentCategory="Usage" if usage else "Spend",
        ContractCommitmentCost=contract.commitment_usd,
        ContractCommitmentDescription=f"{line.label}: {contract.months} months",
        ContractCommitmentId=contract.commitment_id,
        ContractCommitmentPeriodEnd=contract.end,
        ContractCommitmentPeriodStart=contract.start,
        ContractCommitmentQuantity=contract.committed_gpu_hours,
        ContractCommitmentType=kind,
        ContractCommitmentUnit="GPU-Hours" if usage else None,
        ContractId=contract.contract_id,
        ContractPeriodEnd=contract.end,
        ContractPeriodStart=contract.start,
        ContractCommitmentPaymentModel=(
            "All Upfront" if row.capacity_model == "purchase" else "No Upfront"
        ),
        ServiceProviderName=contract.provider_name,
    )


def sku_id(quote: Quote) -> str:
    """A quote's SKU: its imported list identity, else provider/accelerator/capacity/region."""
    if quote.list_key:
        return quote.list_key
    parts = (quote.provider.slug, quote.accelerator.slug, quote.capacity_model, quote.region)
    return "/".join(p or "any" for p in parts)


def _pricing_category(capacity_model: str) -> str:
    if capacity_model in COMMITTED:
        return "Committed"
    return "Dynamic" if capacity_model == "spot" else "Standard"


def _fx(comparison: Comparison, currency: str) -> Decimal | None:
    facts = comparison.shown_snapshot_facts().get("fx_rates") or {}
    found = facts.get(currency)
    if currency == settings.BASE_CURRENCY:
        return Decimal(1)
    return Decimal(str(found["rate_to_base"])) if found else None


def _quote_row(row: CandidateResult, quote: Quote, commitment_id: str | None) -> PriceRow:
    return PriceRow(
        BillingCurrency=settings.BASE_CURRENCY,
        ServiceProviderName=quote.provider.name,
        SkuId=sku_id(quote),
        SkuPriceId=f"quote-{quote.pk}-v{quote.version}",
        SkuMeter="GPU Hours",
        RegionId=quote.region or None,
        PricingCategory=_pricing_category(quote.capacity_model),
        PricingUnit="GPU-Hours",
        PricingCurrency=quote.currency,
        ListUnitPrice=row.hourly_price_usd if quote.is_public_list_price else None,
        ContractedUnitPrice=row.hourly_price_usd,
        PricingCurrencyContractedUnitPrice=quote.price_per_gpu_hour,
        ContractCommitmentId=commitment_id,
    )


def _route_rows(
    comparison: Comparison, route: ModelApiRoute, commitment_id: str | None
) -> list[PriceRow]:
    rate = _fx(comparison, route.currency)
    out = []
    for side, price in (
        ("input", route.price_input_per_m_tokens),
        ("output", route.price_output_per_m_tokens),
    ):
        base = None if rate is None else price * rate
        out.append(
            PriceRow(
                BillingCurrency=settings.BASE_CURRENCY,
                ServiceProviderName=route.provider.name,
                SkuId=f"{route.provider.slug}/{route.model_name}/{route.region or 'any'}",
                SkuPriceId=f"route-{route.pk}-{side}",
                SkuMeter=f"{side.capitalize()} Tokens",
                RegionId=route.region or None,
                PricingCategory="Standard",
                PricingUnit="1000000 Tokens",
                PricingCurrency=route.currency,
                ListUnitPrice=base if route.is_public_list_price else None,
                ContractedUnitPrice=base,
                PricingCurrencyContractedUnitPrice=price,
                ContractCommitmentId=commitment_id,
            )
        )
    return out


def price_rows(comparison: Comparison) -> list[PriceRow]:
    """One price row per quoted SKU the decision compared (two per model API route: input
    and output tokens), each approved one (every vendor's part of a plan) tied to its
    commitment."""
    tied_to = {line.row.pk: line.contract.commitment_id for line in decision_lines(comparison)}
    if not tied_to:
        return []
    rows = comparison.candidates.select_related(
        "quote__provider", "quote__accelerator", "api_route__provider"
    ).order_by(F("rank").asc(nulls_last=True), "key")  # ranked rows first on SQLite too
    out: list[PriceRow] = []
    for row in rows:
        tied = tied_to.get(row.pk)
        if row.quote is not None:
            out.append(_quote_row(row, row.quote, tied))
        elif row.api_route is not None:
            out.extend(_route_rows(comparison, row.api_route, tied))
    return out


def as_decimal(value: Any) -> Decimal | None:
    return None if value in (None, "") else Decimal(str(value))


def forecast_of(comparison: Comparison, row: CandidateResult) -> Forecast:
    """The approved row's monthly forecast, limited to what the provider bills."""
    lines = {k: Decimal(str(v)) for k, v in (row.cost_lines or {}).items()}
    total = row.total_usd if row.total_usd is not None else sum(lines.values(), Decimal(0))
    unbilled = NOT_BILLED_LINES + (API_ROUTE_UNBILLED_LINES if row.api_route_id else ())
    billed = total - sum((lines.get(name, Decimal(0)) for name in unbilled), Decimal(0))
    detail = row.detail or {}
    gpu_spend, gpu_hours = (
        as_decimal(detail.get("gpu_spend")),
        as_decimal(detail.get("billed_gpu_hours")),
    )
    utilisation = None
    if gpu_spend and gpu_hours:
        idle = sum((lines.get(name, Decimal(0)) for name in IDLE_LINES), Decimal(0))
        utilisation = (gpu_spend - idle) / gpu_spend
    return Forecast(
        spend=billed,
        accepted_outputs=row.accepted_outputs or Decimal(0),
        acceptance=acceptance_share(comparison),
        gpu_spend=gpu_spend,
        gpu_hours=gpu_hours,
        utilisation=utilisation,
    )


def acceptance_share(comparison: Comparison) -> Decimal:
    """The brief's likely acceptance share, or the engine's default."""
    share = comparison.brief.acceptance_rate_likely
    if share is None:
        share = WorkloadInput.__dataclass_fields__["acceptance_rate"].default.likely  # type: ignore[union-attr]
    return Decimal(str(share))


def fx_rates_for(month: date) -> dict[str, Decimal]:
    """The newest rate of every currency as of the month's last day."""
    last = add_months(month.replace(day=1), 1)
    rates: dict[str, Decimal] = {}
    for currency, rate in (
        FxRate.objects.filter(as_of__lt=last)
        .order_by("currency", "-as_of", "-id")
        .values_list("currency", "rate_to_base")
    ):
        rates.setdefault(currency, rate)
    return rates


def imports_of(comparison: Comparison) -> QuerySet[BillingImport]:
    return BillingImport.objects.filter(comparison=comparison).select_related("created_by")


def latest_import(comparison: Comparison, month: date) -> BillingImport | None:
    return (
        imports_of(comparison)
        .filter(month=month, status=BillingImport.Status.DONE)
        .order_by("-finished_at", "-pk")
        .first()
    )


def latest_outputs(comparison: Comparison, month: date) -> ActualOutputs | None:
    return ActualOutputs.objects.filter(comparison=comparison, month=month).first()


def reconciliations_of(comparison: Comparison) -> QuerySet[Reconciliation]:
    return Reconciliation.objects.filter(comparison=comparison).order_by("month")


def drifting_decisions(user: Any) -> QuerySet[Comparison]:
    """Decisions with a reconciled month flagged for drift."""
    return access.decisions_for(user).filter(reconciliations__drift=True).distinct()


def drift_cards(user: Any, role: str | None) -> list[dict[str, Any]]:
    """The dashboard card of the lead and finance: decisions drifting past the tolerance."""
    if not access.watches_drift(user):
        return []
    count = drifting_decisions(user).count()
    return [
        {
            "label": "Decisions drifting from forecast",
            "value": count,
            "url": "/finops/?drift=1",
            "flag": count > 0,
        }
    ]
