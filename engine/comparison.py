"""The one entry point the Celery side calls: ``run_comparison``.

docs/domain.md, "Step 2": decide by ``effective_unit_cost = all-in workload cost / accepted
outputs``, never by the hourly rate. For each candidate, in input order:

1. warnings from its facts (warnings.py); a ``block`` warning, a free-text ineligibility
   reason, or a cost that cannot be computed makes it ineligible — it stays in the output
   with its reasons and no rank;
2. the point estimate (cost.py, Decimal lines at the likely values);
3. ranks among eligible candidates: by unit cost and by hourly price (ties: input order)
   (GPU offers only); the recommendation is rank 1 by unit cost;
4. Monte Carlo over eligible candidates (montecarlo.py): p10/p50/p90, P(cheapest);
5. the tornado of the recommended candidate and break-even (breakeven.py); the plan across
   offers (a fixed base with elastic or API overflow among its choices) is mixed_comparison.py;
6. CHEAPEST_HOURLY_NOT_CHEAPEST_OUTPUT on the cheapest-hourly row when it is not rank 1.

Same inputs + seed + ENGINE_VERSION ⇒ bit-identical output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import cost, montecarlo, recommendation
from engine.cost.assumptions import assumptions_applied
from engine.cost.commitment import CommitmentDetail, commitment, commitment_warnings
from engine.deployments import Fleet, assess
from engine.errors import EngineInputError
from engine.plan.breakeven import breakeven
from engine.types import (
    HOURS_PER_MONTH,
    CandidateOutcome,
    CandidateStats,
    ComparisonInput,
    ComparisonOutput,
    EngineWarning,
    PointEstimate,
)
from engine.warnings import cheapest_hourly_warning, interconnect_bars

# Moves whenever the same snapshot + seed would give other rows (ADR 0003; the history is in
# docs/engine/cost-model.md, "Engine versions").
ENGINE_VERSION = "1.9.0"

__all__ = ["ENGINE_VERSION", "run_comparison"]


def _report(progress: Callable[[float], None] | None, value: float) -> None:
    if progress is not None:
        progress(min(1.0, max(0.0, value)))


def run_comparison(
    inp: ComparisonInput,
    *,
    seed: int,
    samples: int = montecarlo.DEFAULT_SAMPLES,
    progress: Callable[[float], None] | None = None,
    chunk_candidates: int | None = None,
) -> ComparisonOutput:
    """Cost, rank and stress-test every candidate of ``inp`` (see the module docstring)."""
    if not isinstance(inp, ComparisonInput):
        raise EngineInputError("inp", "must be a ComparisonInput")
    montecarlo.check_seed(seed, samples)
    workload = inp.workload
    label, _ = cost.unit_label_and_scale(workload)
    _report(progress, 0.0)

    reasons: dict[str, list[str]] = {}
    found: dict[str, list[EngineWarning]] = {}
    estimates: dict[str, PointEstimate] = {}
    fleets: dict[str, Fleet] = {}
    for cand in inp.candidates:
        judged = assess(workload, cand)
        reasons[cand.id], found[cand.id] = list(judged.reasons), list(judged.warnings)
        if judged.estimate is not None:
            estimates[cand.id] = judged.estimate
        if judged.fleet is not None:
            fleets[cand.id] = judged.fleet
    eligible = [c for c in inp.candidates if not reasons[c.id]]
    commitments: dict[str, CommitmentDetail] = {}
    for cand in inp.candidates:
        if cand.id in estimates:
            commitments[cand.id] = commitment(workload, cand, estimates[cand.id])
            found[cand.id] += commitment_warnings(workload, cand, commitments[cand.id])
    _report(progress, 0.05)

    # Exact ties go to the earlier candidate, as in the Monte Carlo and the tornado.
    position = {c.id: i for i, c in enumerate(inp.candidates)}
    by_unit = sorted(eligible, key=lambda c: (estimates[c.id].unit_cost_exact, position[c.id]))
    unit_rank = {c.id: i + 1 for i, c in enumerate(by_unit)}
    hourly = {c.id: p for c in eligible if (p := estimates[c.id].price_per_gpu_hour) is not None}
    by_hour = sorted(hourly, key=lambda cid: (hourly[cid], position[cid]))
    hour_rank = {cid: i + 1 for i, cid in enumerate(by_hour)}
    recommended = recommendation.pick(workload, by_unit)  # recommendation.why_not_recommended
    if by_hour and recommended is not None and by_hour[0] != recommended:
        cheap = next(c for c in eligible if c.id == by_hour[0])
        found[cheap.id].append(
            cheapest_hourly_warning(
                cheap,
                hourly[cheap.id],
                unit_rank[cheap.id],
                recommended,
                label,
                [c.id for c in by_unit],
                winner_label=next((c.label for c in eligible if c.id == recommended), ""),
            )
        )

    stats: dict[str, CandidateStats] = {}
    tornado = None
    if eligible:
        constants = [montecarlo.candidate_constants(workload, c) for c in eligible]
        result = montecarlo.simulate(
            workload,
            eligible,
            seed=seed,
            samples=samples,
            chunk_candidates=chunk_candidates,
            progress=None if progress is None else (lambda x: _report(progress, 0.05 + 0.85 * x)),
            constants=constants,
        )
        stats = {s.candidate_id: s for s in result.stats}
        tornado = montecarlo.tornado(
            workload,
            eligible,
            recommended_id=recommended or by_unit[0].id,
            unit_label=label,
            constants=constants,
        )
    _report(progress, 0.92)

    # The recommended GPU's accelerator, or the best GPU's when an API route wins
    accelerator = next((c.accelerator for c in by_unit if not c.is_api), None)
    curves = (
        breakeven(workload, eligible, estimates, accelerator=accelerator)
        if accelerator is not None
        else None
    )

    outcomes = []
    for cand in inp.candidates:
        est = estimates.get(cand.id)
        st = stats.get(cand.id)
        outcomes.append(
            CandidateOutcome(
                candidate_id=cand.id,
                label=cand.label,
                kind=cand.kind,
                capacity_model=cand.capacity_model,
                accelerator=cand.accelerator,
                eligible=not reasons[cand.id],
                reasons=tuple(reasons[cand.id]),
                cost_lines=dict(est.lines) if est else {},
                total=est.total if est else None,
                accepted_outputs=est.accepted_outputs if est else None,
                unit_cost=est.unit_cost if est else None,
                unit_label=label,
                unit_cost_per_accepted_output=est.unit_cost_per_accepted_output if est else None,
                price_per_gpu_hour=est.price_per_gpu_hour if est else cost.price_per_gpu_hour(cand),
                billed_gpu_hours=est.billed_gpu_hours if est else None,
                gpu_spend=est.gpu_spend if est else None,
                gpu_spend_breakdown=dict(est.gpu_spend_breakdown) if est else {},
                p10=st.p10 if st else None,
                p50=st.p50 if st else None,
                p90=st.p90 if st else None,
                prob_cheapest=st.prob_cheapest if st else None,
                rank_by_unit_cost=unit_rank.get(cand.id),
                rank_by_hourly_price=hour_rank.get(cand.id),
                warnings=tuple(found[cand.id]),
                training=est.training if est else None,
                horizon_total=(
                    est.total * workload.horizon_months
                    if est is not None and not workload.is_training
                    else None
                ),
                commitment_usd=(
                    commitments[cand.id].commitment_usd if cand.id in commitments else None
                ),
                commitment=commitments.get(cand.id),
                latency_verdict=recommendation.latency_verdict(workload, cand),
                evidence=recommendation.evidence_words(cand),
                acceptance_source="measured" if cand.acceptance_rate is not None else "brief",
                failure_source="measured" if cand.failure_rate is not None else "brief",
                fleet=fleets.get(cand.id),
            )
        )
    notes = [] if eligible else ["no eligible candidate: see each row's reasons"]
    _report(progress, 1.0)
    return ComparisonOutput(
        engine_version=ENGINE_VERSION,
        seed=seed,
        samples=samples,
        workload_class=workload.workload_class,
        unit_label=label,
        base_currency=inp.base_currency,
        candidates=tuple(outcomes),
        recommended_candidate_id=recommended,
        tornado=tornado,
        breakeven=curves,
        assumptions=_assumptions(inp),
        notes=tuple(notes),
        assumptions_applied=assumptions_applied(inp),
        recommendation_notes=recommendation.notes(
            workload, inp.candidates, by_unit, recommended, stats
        ),
    )


def _assumptions(inp: ComparisonInput) -> dict[str, Any]:
    intra, fabric = interconnect_bars(inp.workload)
    return {
        "workload": inp.workload.to_dict(),
        "hours_per_month": format(HOURS_PER_MONTH, "f"),
        "money_rounding": "Decimal, ROUND_HALF_EVEN to 0.01 per line",
        "unit_cost_quantum": format(cost.UNIT_QUANTUM, "f"),
        "distribution": "triangular(low, likely, high) for every ranged assumption",
        "percentiles": "p10/p50/p90 with linear interpolation",
        "random_streams": "SeedSequence(seed, spawn_key=(0, sha256(name))) shared; "
        "(1, sha256(candidate id), sha256(name)) per candidate; throughput and measured "
        "acceptance/failure keyed by the evidence ('evidence:<key>') when the row names it",
        "fixed_capacity": "replicas for peak = ceil(peak-to-average × attempts × GPU-s / "
        "(GPUs × 730 × 3600 × (1 − peak headroom))); purchase in whole nodes",
        "elastic_capacity": "billed GPU-hours = work × (1 + spot rework) / utilisation (work "
        "when idle is not billed), at least the monthly commitment",
        "commitment": "fixed: max(commitment, GPUs held) × price × whole term (purchase: its "
        "price); elastic and API: vendor spend over the horizon; labour excluded",
        "platform_labor": "self-managed: platform FTE × loaded cost; API or managed endpoint: "
        "vendor-management FTE × loaded cost",
        "interconnect_bars_gbps": {"intra_node": intra, "inter_node": fabric},
        "line_order": list(cost.LINE_ORDER),
    }
