"""Candidate rows of a comparison as the review screens show them: filters, sorting, why the
recommended row wins, evidence links, reviews and history.

Rows of one comparison are read once (tens of rows) and filtered and sorted here, on the
server, so the query count never grows with the number of rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.db.models import F, Prefetch, Q, QuerySet
from django.urls import NoReverseMatch, reverse

from benchmarks import access as benchmarks_access
from benchmarks.models import BenchmarkPlan, BenchmarkPlanStep
from catalog.selectors import price_author_label
from core.cost_lines import IDLE_LINES, NOT_BILLED_LINES, ordered_names
from core.models import AuditEvent
from core.values import decimal_or_none
from procurement.models import CandidateResult, Comparison, PlanPart, Review
from procurement.selectors.reviews.commitment import RowCommitment, row_commitment
from procurement.selectors.reviews.frozen import frozen_result_ids

if TYPE_CHECKING:
    from accounts.models import User

SORTS: dict[str, tuple[str, str]] = {
    "unit": ("Unit cost", "unit_cost_usd"),
    "hourly": ("Price per GPU-hour", "hourly_price_usd"),
    "p90": ("p90 unit cost", "p90"),
    "prob": ("Probability cheapest", "prob_cheapest"),
}
DESCENDING_SORTS = frozenset({"prob"})
# Ranked (eligible) rows first, then the unranked ones, on every database: SQLite sorts NULL
# first, so a plain order_by("rank") opened `make run`'s decision record on refused rows.
RANKED = (F("rank").asc(nulls_last=True), "key")
MAX_EVIDENCE_PER_ROW = 5
# A row's quote or API route version, with the names the pages show (one query with the rows).
OFFER_RELATED = (
    "quote__provider",
    "quote__accelerator",
    "quote__entered_by",
    "api_route__provider",
    "api_route__entered_by",
)


def safe_reverse(name: str, *args: Any) -> str:
    """The URL of another area's page, or "" while that area has not wired it yet."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return ""


def ordered_lines(cost_lines: dict[str, Any]) -> list[tuple[str, Decimal | None]]:
    """Cost lines in the engine's order (docs/domain.md's formulas), unknown names last."""
    return [(name, decimal_or_none(cost_lines[name])) for name in ordered_names(cost_lines)]


@dataclass
class ReviewRow:
    """A candidate row as the review screens show it."""

    candidate: CandidateResult
    recommended: bool
    lines: list[tuple[str, Decimal | None]]
    quote_url: str = ""
    evidence: list[dict[str, Any]] = field(default_factory=list)

    @property
    def commitment(self) -> RowCommitment | None:
        return row_commitment(self.candidate.detail)

    @property
    def checklist_pct(self) -> Any:
        return (self.candidate.checklist or {}).get("completeness_pct")

    @property
    def price_entered_by(self) -> str:
        """Who entered the price this row uses: vendor, procurement (who) or import."""
        return entered_by_label(self.candidate)

    @property
    def awaiting_review(self) -> list[str]:
        """Required checklist items the vendor answered that no reviewer accepted yet."""
        return list((self.candidate.checklist or {}).get("awaiting_review") or [])

    @property
    def capacity_label(self) -> str:
        return self.candidate.capacity_model.replace("_", " ")

    @property
    def sources(self) -> list[tuple[str, str]]:
        """Which figures are measured and which estimated: (figure, source) pairs."""
        perf = self.candidate.performance or {}
        found = [
            (label, str(perf[key]))
            for label, key in (("throughput", "throughput_source"), ("latency", "latency_source"))
            if perf.get(key)
        ]
        return found or (
            [("performance", self.candidate.perf_source)] if self.candidate.perf_source else []
        )


def entered_by_label(row: CandidateResult) -> str:
    offer = row.quote or row.api_route
    return price_author_label(offer) if offer is not None else ""


def candidates_of(comparison: Comparison) -> list[CandidateResult]:
    """All rows of a comparison with their quote / API route versions, in one query."""
    return list(comparison.candidates.select_related(*OFFER_RELATED).order_by(*RANKED))


def capacity_choices(rows: Iterable[CandidateResult]) -> list[str]:
    return sorted({r.capacity_model for r in rows if r.capacity_model})


def provider_choices(rows: Iterable[CandidateResult]) -> list[str]:
    return sorted({r.provider_name for r in rows if r.provider_name})


def filter_and_sort(
    rows: Sequence[CandidateResult],
    *,
    eligible_only: bool = False,
    capacity_model: str = "",
    provider: str = "",
    sort: str = "unit",
) -> list[CandidateResult]:
    """Filter by eligibility, capacity model and provider; sort eligible rows first, then by
    the chosen figure with empty values last."""
    kept = [
        r
        for r in rows
        if (r.eligible or not eligible_only)
        and (not capacity_model or r.capacity_model == capacity_model)
        and (not provider or r.provider_name == provider)
    ]
    attr = SORTS.get(sort, SORTS["unit"])[1]
    sign = -1 if sort in DESCENDING_SORTS else 1

    def key(row: CandidateResult) -> tuple[int, int, float, str]:
        value = getattr(row, attr)
        missing = value is None
        return (
            0 if row.eligible else 1,
            int(missing),
            0.0 if missing else sign * float(value),
            row.key,
        )

    return sorted(kept, key=key)


def used_result_id(row: CandidateResult) -> int | None:
    """The benchmark result whose figures this row used, if measured."""
    perf = row.performance or {}
    raw = perf.get("result_id") or (perf.get("measured") or {}).get("result_id")
    return int(str(raw)) if str(raw or "").isdigit() else None


def _evidence(
    user: User, comparison: Comparison, rows: Sequence[CandidateResult]
) -> dict[str, list[dict[str, Any]]]:
    """Benchmark results behind each row, as frozen when the comparison was computed:
    its quote's results and the one it used. A result uploaded later is not evidence of this
    record; `frozen.new_since` lists it apart."""
    quote_ids = {r.quote_id for r in rows if r.quote_id}
    used = {r.key: used_result_id(r) for r in rows}
    if not quote_ids and not any(used.values()):
        return {}
    frozen = frozen_result_ids(comparison)
    results = (
        benchmarks_access.results_for(user)
        .filter(Q(quote_id__in=quote_ids) | Q(pk__in=[i for i in used.values() if i]))
        .filter(pk__in=frozen)
        .order_by("-created_at")
    )
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for result in results:
        for row in rows:
            mine = row.quote_id is not None and result.quote_id == row.quote_id
            if (mine or result.pk == used[row.key]) and len(out[row.key]) < MAX_EVIDENCE_PER_ROW:
                out[row.key].append(
                    {
                        "name": result.original_name,
                        "model": result.model_name,
                        "status": result.status,
                        "used": result.pk == used[row.key],
                        "url": safe_reverse("benchmarks:result-detail", result.pk),
                    }
                )
    return out


def review_rows(
    user: User, comparison: Comparison, rows: Sequence[CandidateResult]
) -> list[ReviewRow]:
    evidence = _evidence(user, comparison, rows)
    return [
        ReviewRow(
            candidate=row,
            recommended=row.key == comparison.recommended_key,
            lines=ordered_lines(row.cost_lines or {}),
            quote_url=safe_reverse("catalog:quote-detail", row.quote_id) if row.quote_id else "",
            evidence=evidence.get(row.key, []),
        )
        for row in rows
    ]


def recommendation_summary(
    comparison: Comparison, rows: Sequence[CandidateResult]
) -> dict[str, Any] | None:
    """Why the recommended row wins: its lines with shares, the runner-up, the hourly trap."""
    best = next((r for r in rows if r.key == comparison.recommended_key), None)
    if best is None:
        return None
    eligible = [r for r in rows if r.eligible and r.unit_cost_usd is not None]
    runner = min(
        (r for r in eligible if r.key != best.key),
        key=lambda r: r.unit_cost_usd or Decimal(0),  # None was filtered out
        default=None,
    )
    total = best.total_usd or Decimal(0)
    lines = [
        (name, value, (value / total * 100) if value is not None and total else None)
        for name, value in ordered_lines(best.cost_lines or {})
    ]
    saving_pct = None
    if runner is not None and best.unit_cost_usd and runner.unit_cost_usd:
        saving_pct = (runner.unit_cost_usd - best.unit_cost_usd) / runner.unit_cost_usd * 100
    priced = [r for r in eligible if r.hourly_price_usd is not None]
    cheapest_hourly = min(priced, key=lambda r: r.hourly_price_usd or Decimal(0), default=None)
    if cheapest_hourly is not None and cheapest_hourly.key == best.key:
        cheapest_hourly = None
    figures = dict(ordered_lines(best.cost_lines or {}))
    idle = sum((figures.get(name) or Decimal(0) for name in IDLE_LINES), Decimal(0))
    unbilled = sum((figures.get(name) or Decimal(0) for name in NOT_BILLED_LINES), Decimal(0))
    return {
        "best": best,
        "runner_up": runner,
        "saving_pct": saving_pct,
        "lines": lines,
        "cheapest_hourly": cheapest_hourly,
        "eligible_count": len(eligible),
        "ineligible_count": len(rows) - len(eligible),
        # U4: what the vendor bills a month, and the share of the month's cost paid for idle
        # capacity (a reserved fleet paid 24/7 for its average use)
        "billed_monthly": total - unbilled if total else None,
        "idle_share": idle / total if total and idle else None,
        # what is bought, without the fleet words' explanation after the colon
        "bought": str(((best.detail or {}).get("fleet") or {}).get("bought") or "").split(": ")[0],
    }


def reviews_of(comparison: Comparison) -> list[Review]:
    """The comparison's reviews, oldest first. Their rows are fetched by id only when there
    are reviews (a prefetch, not a join), so a page without reviews never reads candidates."""
    reviews = comparison.reviews.select_related("reviewer").prefetch_related(
        "candidate", Prefetch("plan_parts", queryset=PlanPart.objects.select_related("candidate"))
    )
    return list(reviews.order_by("created_at"))


def history_of(comparison: Comparison, reviews: Iterable[Review]) -> QuerySet[AuditEvent]:
    """Audit events about this comparison and its reviews, newest first."""
    review_ids = [str(r.pk) for r in reviews]
    return AuditEvent.objects.select_related("actor").filter(
        Q(object_type="procurement.comparison", object_id=str(comparison.pk))
        | Q(object_type="procurement.review", object_id__in=review_ids)
    )


def approvals_given(reviews: Iterable[Review]) -> int:
    return sum(1 for r in reviews if r.decision == Review.Decision.APPROVE)


def plans_for_quotes(
    user: User, comparison: Comparison, quote_ids: Iterable[int]
) -> dict[int, BenchmarkPlan]:
    """Benchmark plans (with steps) of these quotes for the comparison's brief, by quote id."""

    plans = benchmarks_access.plans_for(user).filter(
        brief_id=comparison.brief_id, quote_id__in=quote_ids
    )
    plans = plans.prefetch_related(
        Prefetch("steps", queryset=BenchmarkPlanStep.objects.order_by("phase", "id"))
    )
    return {plan.quote_id: plan for plan in plans}
