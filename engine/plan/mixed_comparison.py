"""The comparison's mixed plan as it is stored and served: the optimiser (mixed.py) over the
comparison's rows, with its p10–p90 from the rows' own Monte Carlo draws.

Rows that are ineligible only because their offer lacks the GPUs for the whole fleet take
part up to their capacity; at most ``MAX_PLAN_OFFERS`` rows, the cheapest per accepted
output at their point estimates, take part. Request sizes: when the brief states a p95
prompt above its mean, the long bucket is the top ``LONG_SHARE`` of requests at the p95
prompt and the short one the rest (``mixed_adapter.length_buckets``); otherwise one bucket.
The answer is a JSON-ready dict; ``status`` "none" with a ``reason`` when there is no plan
to make (a training run, no costed row), "infeasible" with the optimiser's reason when no
plan meets the brief.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from engine.deployments.assess import capacity_reason
from engine.errors import EngineInputError
from engine.plan.mixed import TIME_LIMIT_S, optimise
from engine.plan.mixed_adapter import plan_inputs, row_draws
from engine.plan.mixed_types import MixedPlan
from engine.plan.mixed_uncertainty import plan_spread
from engine.types import ComparisonInput, ComparisonOutput

LONG_SHARE = 0.05  # the requests at or above the p95 prompt
# The cheapest rows by point-estimate unit cost that take part: a catalog-sized comparison
# keeps the solver's model near the benchmarked 200 offers × 3 configurations.
MAX_PLAN_OFFERS = 200
PCT = Decimal("0.1")
SPREAD_QUANTUM = Decimal("1E-8")


def capacity_limited(inp: ComparisonInput, output: ComparisonOutput) -> set[str]:
    """Rows whose only blocking reason is the offer's capacity for the whole fleet."""
    by_id = {c.id: c for c in inp.candidates}
    out = set()
    for row in output.candidates:
        cand = by_id.get(row.candidate_id)
        if row.eligible or row.fleet is None or cand is None:
            continue
        why = capacity_reason(cand, row.fleet)
        if why is not None and tuple(row.reasons) == (why,):
            out.add(row.candidate_id)
    return out


def _none(reason: str) -> dict[str, Any]:
    return {"status": "none", "outcome": "not solved", "reason": reason}


def _served(plan: MixedPlan, labels: dict[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = dict(plan.to_dict())
    data.pop("solve_seconds", None)  # wall clock: the stored result is reproducible
    best = (plan.best_single_id or "").split("/")[0]
    data["best_single_label"] = labels.get(best, best)
    if plan.saving_vs_single is not None and plan.best_single_cost:
        pct = plan.saving_vs_single * 100 / plan.best_single_cost
        data["saving_pct"] = format(pct.quantize(PCT), "f")
    else:
        data["saving_pct"] = None
    data["split"] = len(plan.vendors) > 1 or len(plan.lines) > 1
    return data


def comparison_plan(
    inp: ComparisonInput,
    output: ComparisonOutput,
    *,
    seed: int,
    samples: int,
    p95_input_tokens: float | None = None,
    time_limit: float = TIME_LIMIT_S,
) -> dict[str, Any]:
    """The cheapest plan across the comparison's offers (module docstring)."""
    workload = inp.workload
    if workload.is_training or workload.monthly_accepted_outputs is None:
        return _none("a training run holds one fleet for the run: there is no serving plan")
    limited = capacity_limited(inp, output)
    costed = sorted(
        (
            row
            for row in output.candidates
            if (row.eligible or row.candidate_id in limited) and row.unit_cost is not None
        ),
        key=lambda row: row.unit_cost or Decimal(0),
    )
    taking = {row.candidate_id for row in costed[:MAX_PLAN_OFFERS]}
    outcomes = [row for row in output.candidates if row.candidate_id in taking]
    long_share = None
    if p95_input_tokens and p95_input_tokens > workload.input_tokens_per_request:
        long_share = LONG_SHARE
    try:
        built = plan_inputs(
            inp.candidates,
            outcomes,
            workload,
            long_share=long_share,
            p95_input_tokens=p95_input_tokens if long_share else None,
            capacity_limited=limited,
        )
    except EngineInputError:  # the brief's request sizes do not split: one bucket
        built = plan_inputs(inp.candidates, outcomes, workload, capacity_limited=limited)
    if built is None:
        return _none("no eligible row can be costed per replica or per output")
    demand, offers = built
    plan = optimise(demand, offers, time_limit=time_limit)
    data = _served(plan, {c.id: c.label for c in inp.candidates})
    data["buckets"] = [b.to_dict() for b in demand.buckets]
    data["capacity_limited"] = sorted(limited & {o.id for o in offers})
    data["p10"] = data["p50"] = data["p90"] = None
    if plan.feasible:
        used = {line.offer_id for line in plan.lines}
        drawn = [c for c in inp.candidates if c.id in used]
        volume, factors = row_draws(workload, drawn, seed=seed, samples=samples)
        spread = plan_spread(plan, demand, offers, volume, factors)
        for name in ("p10", "p50", "p90"):
            value = Decimal(repr(getattr(spread, name))).quantize(SPREAD_QUANTUM)
            data[name] = format(value, "f")
    return data
