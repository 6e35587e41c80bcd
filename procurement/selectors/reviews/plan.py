"""The cheapest plan across offers as a candidate finance can approve: what each vendor's part
commits, the checklist level the plan needs, how many approvals it takes, and why it cannot
be approved when it cannot.

The compute stores the plan in `comparison.result["plan"]` (engine/plan/mixed_comparison.py),
each vendor's part with its `commitment_usd` (ADR 0006: the larger of its contract and its
expected spend over the brief's horizon) and the plan's total. The rules read here, and
enforced by `services.reviews` under the comparison's lock:

- the plan's total commitment drives the approval threshold: above
  `DUAL_APPROVAL_THRESHOLD_USD` it needs two approvals, though each part be below it;
- the checklist level the plan needs is that of its largest commitment (the level the
  largest part's quote terms call for, checklist/levels.py); each vendor's quote must be
  complete at that level, or at its own when that asks more;
- an infeasible or absent plan cannot be approved, nor one that does not split the fleet
  (one offer alone: its row is the candidate to approve).

A plan approved is kept as `PlanPart` rows on its review: the record, the exports, the API
and the price-change flags read the approved parts from there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models import Prefetch

from checklist import levels
from checklist.selectors import quote_checklist_summaries
from core.values import decimal_or_none
from procurement.charts_plan import plan_noun, role_words
from procurement.exports import fleet_columns
from procurement.models import CandidateResult, Comparison, PlanPart, Review

PLAN_KEY = "plan"  # what the decision form and the API send to approve the plan
CENT = Decimal("0.01")
# The approved parts as pages and exports read them: with the row each one names.
PLAN_PARTS = PlanPart.objects.select_related("candidate").order_by("position")


def _money(value: Any) -> Decimal:
    number = decimal_or_none(value)
    return Decimal(0) if number is None else number.quantize(CENT)


def stored_plan(comparison: Comparison) -> dict[str, Any] | None:
    plan = (comparison.result or {}).get("plan")
    return plan if isinstance(plan, dict) else None


def plan_refusal(plan: dict[str, Any] | None) -> str | None:
    """Why this stored plan cannot be approved, in words; None when it can be."""
    if plan is None or not plan.get("status"):
        return (
            "This comparison has no plan across offers to approve (it was computed before "
            "plans were made): recompute it, or approve a row."
        )
    reason = str(plan.get("reason") or plan.get("outcome") or "no reason recorded")
    if plan["status"] == "infeasible":
        return (
            f"The cheapest plan across offers is infeasible ({reason}), so it cannot be approved."
        )
    if plan["status"] == "none" or not plan.get("vendors"):
        return f"There is no plan across offers to approve: {reason}."
    if plan.get("split") is False:
        # one configuration of one offer carries everything: that is a row, approve the row
        alone = plan.get("best_single_label") or "one offer"
        return (
            f"The cheapest plan across offers does not split the fleet: it is {alone} alone, "
            "so approve that row."
        )
    return None


@dataclass(slots=True)
class Part:
    """One vendor's part of the plan as a reviewer reads it before approving."""

    position: int
    offer_id: str
    label: str
    candidate: CandidateResult | None
    capacity: str
    role: str
    replicas: int
    gpus: int
    configuration: str
    monthly_cost_usd: Decimal
    commitment_usd: Decimal
    contract_usd: Decimal
    term_months: int
    term: str
    own_level: str  # the level its own quote terms need ("" for an API route)
    checklist_level: str = ""  # the level it is held to in the plan
    checklist: dict[str, Any] | None = None  # its summary at that level

    @property
    def short_of_level(self) -> list[str]:
        """The checklist items its quote lacks at the level it is held to."""
        if not self.checklist or self.checklist.get("complete", True):
            return []
        return [
            f"{m.get('title')} ({m.get('why')})"
            for m in self.checklist.get("missing_items") or []
            if isinstance(m, dict)
        ]


@dataclass(slots=True)
class PlanDecision:
    """The plan as a decision: its parts, total commitment, approvals and checklist level."""

    plan: dict[str, Any]
    parts: list[Part]
    commitment_usd: Decimal
    monthly_cost_usd: Decimal
    horizon_months: int
    level: str
    largest: Part
    threshold_usd: Decimal
    approvals_needed: int

    @property
    def above_threshold(self) -> bool:
        return self.commitment_usd > self.threshold_usd

    @property
    def parts_below_threshold(self) -> bool:
        return all(part.commitment_usd <= self.threshold_usd for part in self.parts)

    @property
    def checklist_short(self) -> list[Part]:
        return [part for part in self.parts if part.short_of_level]

    @property
    def checklist_refusal(self) -> str | None:
        """Why the checklist keeps the plan from approval, in words; None when it does not."""
        short = self.checklist_short
        if not short:
            return None
        each = "; ".join(
            f"{part.label} lacks {len(part.short_of_level)} item"
            f"{'s' * (len(part.short_of_level) != 1)} at the {part.checklist_level} level "
            f"({', '.join(part.short_of_level[:3])}"
            f"{', …' if len(part.short_of_level) > 3 else ''})"
            for part in short
        )
        return (
            f"The plan needs the {self.level} checklist level, that of its largest commitment "
            f"({self.largest.label}, {self.largest.commitment_usd:,.2f} USD): {each}. "
            "The vendors answer and a reviewer accepts their evidence, then the comparison is "
            "recomputed."
        )

    @property
    def label(self) -> str:
        vendors = len(self.parts)
        return (
            f"{plan_noun(self.plan).capitalize()} ({vendors} vendor offer{'s' * (vendors != 1)}, "
            f"commitment {self.commitment_usd:,.2f} USD)"
        )


def _term(capacity: str, term_months: int, horizon_months: int) -> str:
    if term_months > 0:
        return f"{term_months}-month term"
    if capacity == "fixed":
        return f"no stated term: the {horizon_months}-month horizon counts"
    return "no term" + (" (per output)" if capacity == "api" else " (on demand)")


def _own_level(row: CandidateResult | None) -> str:
    quote = row.quote if row is not None else None
    if quote is None:
        return ""  # an API route: no GPU checklist applies
    return levels.required_level(
        quote.capacity_model,
        min_commitment_gpus=quote.min_commitment_gpus or 0,
        term_months=quote.term_months or 0,
    )


def _role_words(lines: list[dict[str, Any]], has_base: bool) -> str:
    """Each line's role in words (charts_plan.role_words), once each."""
    return ", ".join(sorted({role_words(line, has_base) for line in lines}))


def _parts(
    comparison: Comparison, plan: dict[str, Any], rows: dict[str, CandidateResult]
) -> list[Part]:
    lines = [ln for ln in plan.get("lines") or [] if isinstance(ln, dict)]
    horizon = int(plan.get("horizon_months") or comparison.brief.horizon_months or 1)
    parts = []
    has_base = any(ln.get("role") == "base" for ln in lines)
    for position, vendor in enumerate(v for v in plan.get("vendors") or [] if isinstance(v, dict)):
        offer = str(vendor.get("offer_id") or "")
        mine = [ln for ln in lines if ln.get("offer_id") == offer]
        row = rows.get(offer)
        capacity = str(vendor.get("capacity") or "")
        monthly = _money(vendor.get("monthly_cost"))
        contract = _money(vendor.get("commitment_total"))
        # plans stored before the commitment per part: the same rule, read back here
        commitment = (
            _money(vendor["commitment_usd"])
            if vendor.get("commitment_usd") is not None
            else max(contract, monthly * horizon)
        )
        term_months = int(vendor.get("term_months") or 0)
        parts.append(
            Part(
                position=position,
                offer_id=offer,
                label=str(vendor.get("label") or offer),
                candidate=row,
                capacity=capacity,
                role=_role_words(mine, has_base),
                replicas=sum(int(ln.get("replicas") or 0) for ln in mine),
                gpus=sum(int(ln.get("gpus") or 0) for ln in mine),
                configuration=fleet_columns(row.detail)["configuration"] if row else "",
                monthly_cost_usd=monthly,
                commitment_usd=commitment,
                contract_usd=contract,
                term_months=term_months,
                term=_term(capacity, term_months, horizon),
                own_level=_own_level(row),
            )
        )
    return parts


def _hold_to_level(parts: list[Part], level: str) -> None:
    """Score each GPU part's quote at the plan's level, or its own when that asks more: at
    the full level every quote is held to it; at the basic level each to its own terms."""
    quotes = [p.candidate.quote for p in parts if p.candidate and p.candidate.quote]
    if not quotes:
        return
    found = quote_checklist_summaries(quotes, level=levels.FULL if level == levels.FULL else None)
    for part in parts:
        quote = part.candidate.quote if part.candidate else None
        if quote is None:
            continue
        part.checklist = found.get(quote.pk)
        part.checklist_level = str((part.checklist or {}).get("required_level") or level)


def plan_decision(comparison: Comparison, *, checklist: bool = True) -> PlanDecision | None:
    """The stored plan as a decision (module docstring); None when it cannot be approved
    (`plan_refusal` says why). `checklist=False` leaves the quotes' checklists unread."""
    plan = stored_plan(comparison)
    if plan_refusal(plan) is not None:
        return None
    assert plan is not None  # noqa: S101 - plan_refusal says None for a missing plan
    offers = [str(v.get("offer_id")) for v in plan["vendors"] if isinstance(v, dict)]
    rows = {
        row.key: row
        for row in comparison.candidates.filter(key__in=offers).select_related(
            "quote__provider", "quote__accelerator", "api_route__provider"
        )
    }
    parts = _parts(comparison, plan, rows)
    if not parts:
        return None
    largest = max(parts, key=lambda p: (p.commitment_usd, -p.position))
    level = largest.own_level or levels.BASIC
    if checklist:
        _hold_to_level(parts, level)
    total = sum((p.commitment_usd for p in parts), Decimal(0))
    threshold = Decimal(settings.DUAL_APPROVAL_THRESHOLD_USD)
    # never fewer than the comparison already needs (the count is never lowered)
    needed = 2 if total > threshold else comparison.required_approvals
    return PlanDecision(
        plan=plan,
        parts=parts,
        commitment_usd=total,
        monthly_cost_usd=_money(plan.get("monthly_cost")),
        horizon_months=int(plan.get("horizon_months") or comparison.brief.horizon_months or 1),
        level=level,
        largest=largest,
        threshold_usd=threshold,
        approvals_needed=needed,
    )


def approved_plan_parts(reviews: Iterable[Review]) -> list[PlanPart]:
    """The vendor parts of the plan the first plan approval among `reviews` (oldest first,
    with `plan_parts` prefetched or not) approved, in the plan's order; [] when none. Every
    approval of a plan is for the same plan."""
    first = next(
        (r for r in reviews if r.decision == Review.Decision.APPROVE and r.approves_plan), None
    )
    if first is None:
        return []
    return sorted(first.plan_parts.all(), key=lambda part: part.position)


def approved_plan_parts_of(comparison: Comparison) -> list[PlanPart]:
    """`approved_plan_parts` of a comparison's reviews, read here (two queries)."""
    reviews = comparison.reviews.filter(approves_plan=True).order_by("created_at", "pk")
    return approved_plan_parts(
        reviews.prefetch_related(Prefetch("plan_parts", queryset=PLAN_PARTS))
    )


def part_rows(parts: list[PlanPart]) -> list[dict[str, Any]]:
    """The approved parts as plain values (the API and the exports)."""
    return [
        {
            "key": part.candidate.key,
            "label": part.label,
            "quote_id": part.candidate.quote_id,
            "api_route_id": part.candidate.api_route_id,
            "configuration": part.configuration,
            "capacity": part.capacity,
            "role": part.role,
            "replicas": part.replicas,
            "gpus": part.gpus,
            "monthly_cost_usd": part.monthly_cost_usd,
            "commitment_usd": part.commitment_usd,
            "contract_usd": part.contract_usd,
            "term_months": part.term_months,
            "term": part.term,
            "checklist_level": part.checklist_level,
        }
        for part in parts
    ]


def plain_parts(parts: list[PlanPart]) -> list[dict[str, Any]]:
    """`part_rows` for JSON: money as exact decimal strings."""
    return [
        {k: format(v, "f") if isinstance(v, Decimal) else v for k, v in row.items()}
        for row in part_rows(parts)
    ]


APPROVED_PLAN_HELP = (
    "When the cheapest plan across offers was approved: its commitment_usd, monthly_cost_usd, "
    "approved_by and each vendor's part (key, label, quote_id, api_route_id, configuration, "
    "capacity, role, replicas, gpus, monthly_cost_usd, commitment_usd, contract_usd, "
    "term_months, term, checklist_level); null otherwise."
)


def approved_plan_body(comparison: Comparison) -> dict[str, Any] | None:
    """The approved plan of an APPROVED comparison, as the API serves it; None otherwise."""
    if comparison.status != Comparison.Status.APPROVED:
        return None
    parts = approved_plan_parts_of(comparison)
    if not parts:
        return None
    approvers = Review.objects.filter(
        comparison=comparison, decision=Review.Decision.APPROVE, approves_plan=True
    ).order_by("created_at", "pk")
    return {
        "commitment_usd": format(sum((p.commitment_usd for p in parts), Decimal(0)), "f"),
        "monthly_cost_usd": format(sum((p.monthly_cost_usd for p in parts), Decimal(0)), "f"),
        "approved_by": list(approvers.values_list("reviewer__username", flat=True)),
        "parts": plain_parts(parts),
    }
