"""The mixed plan held against the row the table recommends, in the table's own terms.

The optimiser (mixed.py) costs what differs between offers: GPU-hours or API bills, retries,
idle and spare capacity, commitments, each vendor's network and serving charges. A row's
monthly total also carries the workload's own costs (storage, observability, platform labour,
moderation, operator review …), which the optimiser leaves out. A finance reviewer reads the
plan beside the rows, so:

- the recommended row alone is one of the plan's choices, costed by the optimiser's own
  model: the plan is never dearer than it, and a split that saves nothing against it (or
  that the row ties) is no split — the plan is then that row;
- a plan of one configuration of one offer is the recommended row (the table decides
  between single rows; the plan only exists to split);
- the plan's unit cost is stated in the rows' unit with the workload's own lines added back:
  storage once per vendor of the plan (each holds the model), the other lines once, the
  largest any of the plan's rows states; a split whose unit cost is not below the
  recommended row's is no split either.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from decimal import Decimal, localcontext

from engine.cost.common import (
    DECIMAL_CONTEXT,
    PER_OUTPUT_QUANTUM,
    UNIT_QUANTUM,
    unit_label_and_scale,
)
from engine.plan.mixed_adapter import fits_long_requests
from engine.plan.mixed_single import SinglePlan, single_plan
from engine.plan.mixed_types import MixedPlan, PlanDemand, PlanOffer
from engine.types import CandidateOutcome, ComparisonInput, ComparisonOutput

# The rows' cost lines the optimiser models itself; every other line is the workload's own.
PLAN_MODELLED_LINES = frozenset(
    {
        "gpu_compute",
        "gpu_cost",
        "api_compute",
        "retry_waste",
        "interruption_rework",
        "idle_capacity",
        "term_beyond_horizon",
        "network",
        "serving_stack",
    }
)
PER_VENDOR_LINES = ("storage",)
PCT = Decimal("0.1")


def workload_lines(rows: Iterable[CandidateOutcome]) -> Decimal:
    """The workload's own monthly lines for a plan made of ``rows`` (module docstring)."""
    per_vendor = Decimal(0)
    once = Decimal(0)
    for row in rows:
        per_vendor += sum(
            (row.cost_lines.get(name, Decimal(0)) for name in PER_VENDOR_LINES), Decimal(0)
        )
        own = sum(
            (
                value
                for name, value in row.cost_lines.items()
                if name not in PLAN_MODELLED_LINES and name not in PER_VENDOR_LINES
            ),
            Decimal(0),
        )
        once = max(once, own)
    return per_vendor + once


def recommended_single(
    demand: PlanDemand, offers: Sequence[PlanOffer], recommended_id: str | None
) -> SinglePlan | None:
    """The recommended row alone carrying the brief, costed by the optimiser's model."""
    offer = next((o for o in offers if o.id == recommended_id), None)
    if offer is None:
        return None
    with localcontext(DECIMAL_CONTEXT):
        return single_plan(demand, offer, offer.configs[0])


def as_single(plan: MixedPlan, single: SinglePlan, why: str) -> MixedPlan:
    """``plan`` replaced by ``single`` (the recommended row alone), saying why."""
    volume = plan.accepted_outputs
    with localcontext(DECIMAL_CONTEXT):
        per_output = (single.cost / volume).quantize(PER_OUTPUT_QUANTUM) if volume else None
    return replace(
        plan,
        status="single",
        outcome=f"{plan.outcome}; {why}" if plan.outcome else why,
        lines=single.lines,
        vendors=single.vendors,
        monthly_cost=single.cost,
        cost_per_accepted_output=per_output,
        total_commitment=sum((p.commitment_total for p in single.vendors), Decimal(0)),
        best_single_id=single.id,
        best_single_cost=single.cost,
        saving_vs_single=Decimal(0),
    )


def against_recommended(plan: MixedPlan, single: SinglePlan | None) -> MixedPlan:
    """``plan`` measured against the recommended row alone (``single``): never dearer, and
    the row itself when the plan does not split or saves nothing."""
    if single is None or not plan.feasible or plan.monthly_cost is None:
        return plan
    offers_used = {line.offer_id for line in plan.lines}
    split = len(plan.lines) > 1 or len(offers_used) > 1
    if not split:
        return as_single(plan, single, "one offer alone: the recommended row is the plan")
    if single.cost <= plan.monthly_cost:
        return as_single(
            plan, single, "no split across offers is cheaper than the recommended row alone"
        )
    return replace(
        plan,
        best_single_id=single.id,
        best_single_cost=single.cost,
        saving_vs_single=single.cost - plan.monthly_cost,
    )


def recommended_gap(
    recommended: CandidateOutcome | None, single: SinglePlan | None, cand_fits_long: bool | None
) -> str:
    """Why the recommended row alone is not one of the plan's choices ("" when it is), as
    the end of "costs … more than the recommended row, X, because …"."""
    if recommended is None or single is not None:
        return ""
    if cand_fits_long is False:
        return (
            "it does not fit the brief's whole context window, so it takes no long request "
            "in the plan"
        )
    return "the plan's model cannot cost it carrying the whole brief alone"


def table_terms(
    plan: MixedPlan,
    *,
    recommended: CandidateOutcome | None,
    single: SinglePlan | None,
    rows: Sequence[CandidateOutcome],
    unit_label: str,
    unit_scale: Decimal,
    unit_quantum: Decimal,
) -> dict[str, str | None]:
    """The plan's monthly total and unit cost in the rows' terms, beside the recommended
    row's (module docstring). Figures are Decimal strings, None where there is none."""

    def text(value: Decimal | None) -> str | None:
        return None if value is None else format(value, "f")

    out: dict[str, str | None] = {
        "unit_label": unit_label,
        "recommended_id": None if recommended is None else recommended.candidate_id,
        "recommended_label": None if recommended is None else recommended.label,
        "recommended_total_usd": text(None if recommended is None else recommended.total),
        "recommended_unit_cost": text(None if recommended is None else recommended.unit_cost),
        "workload_costs_usd": None,
        "monthly_total_usd": None,
        "unit_cost": None,
        "vs_recommended_usd": None,
        "vs_recommended_pct": None,
        "recommended_gpu_usd": None,
    }
    if recommended is not None and recommended.total is not None:
        # the row's GPUs and APIs alone, the figure the plan's own bars stand beside
        alone = recommended.total - workload_lines([recommended])
        out["recommended_gpu_usd"] = text(alone.quantize(Decimal("0.01")))
    if not plan.feasible or plan.monthly_cost is None:
        return out
    is_row = single is not None and plan.status == "single" and recommended is not None
    with localcontext(DECIMAL_CONTEXT):
        if is_row and recommended is not None and recommended.total is not None:
            total, unit = recommended.total, recommended.unit_cost
            own = total - plan.monthly_cost
        else:
            own = workload_lines(rows)
            total = plan.monthly_cost + own
            volume = plan.accepted_outputs
            unit = (total / volume * unit_scale).quantize(unit_quantum) if volume else None
        out["workload_costs_usd"] = text(own.quantize(Decimal("0.01")))
        out["monthly_total_usd"] = text(total.quantize(Decimal("0.01")))
        out["unit_cost"] = text(unit)
        if recommended is not None and recommended.total:
            saved = recommended.total - total
            out["vs_recommended_usd"] = text(saved.quantize(Decimal("0.01")))
            out["vs_recommended_pct"] = text((saved * 100 / recommended.total).quantize(PCT))
    return out


def beside_recommended(
    plan: MixedPlan,
    demand: PlanDemand,
    offers: Sequence[PlanOffer],
    inp: ComparisonInput,
    output: ComparisonOutput,
) -> tuple[MixedPlan, SinglePlan | None, dict[str, str | None]]:
    """The plan held against the recommended row (module docstring): the plan as it
    stands (the row itself where no split is cheaper, in the optimiser's model or once the
    workload's own lines are added back), that row alone as the optimiser costs it (None when
    it cannot carry the brief alone), and the fields the stored plan gains."""
    rows = {row.candidate_id: row for row in output.candidates}
    recommended_id = output.recommended_candidate_id or ""
    recommended = rows.get(recommended_id)
    single = recommended_single(demand, offers, recommended_id)
    label, scale = unit_label_and_scale(inp.workload)

    def terms(of: MixedPlan) -> dict[str, str | None]:
        used = [rows[o] for o in dict.fromkeys(line.offer_id for line in of.lines) if o in rows]
        return table_terms(
            of,
            recommended=recommended,
            single=single,
            rows=used,
            unit_label=label,
            unit_scale=scale,
            unit_quantum=UNIT_QUANTUM,
        )

    plan = against_recommended(plan, single)
    fields = terms(plan)
    gap = fields["vs_recommended_usd"]
    if single is not None and plan.status != "single" and gap is not None and Decimal(gap) <= 0:
        # cheaper in the optimiser's model, not once each vendor stores the model: no split
        plan = as_single(plan, single, "no split is cheaper than the recommended row alone")
        fields = terms(plan)
    cand = next((c for c in inp.candidates if c.id == recommended_id), None)
    fields["recommended_note"] = recommended_gap(
        recommended, single, None if cand is None else fits_long_requests(cand)
    )
    return plan, single, fields
