"""Snapshot + seed → candidate rows and the comparison-level result. Pure: no database.

`compute()` is what the worker runs and what the reproducibility test re-runs: the same
snapshot, seed and ENGINE_VERSION give the same rows, to the last digit.

Money shown on a row is in the base currency. A row whose currency has no FX rate keeps its
reasons and warnings but no money at all (never a silently unconverted figure).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

import numpy as np

from engine import cost
from engine.calibration import widened_cost_band
from engine.comparison import ENGINE_VERSION, run_comparison
from engine.errors import EngineInputError
from engine.plan.mixed import TIME_LIMIT_S
from engine.plan.mixed_comparison import comparison_plan
from engine.types import (
    CandidateInput,
    CandidateOutcome,
    ComparisonInput,
    ComparisonOutput,
    Range,
    to_jsonable,
)
from procurement.services.comparisons.trace import size_rows
from procurement.snapshot import Thawed, thaw
from procurement.snapshot.facts import RowFacts
from procurement.snapshot.sweeps import charted_point_costs, uncosted_sweep

THAW_SHARE = 0.15  # share of the progress bar spent building inputs (memory fits, estimates)
CENT = Decimal("0.01")
HOURLY_QUANTUM = Decimal("0.0001")
OUTPUT_QUANTUM = Decimal("0.0001")


@dataclass
class Computed:
    rows: list[dict[str, Any]]
    result: dict[str, Any]
    recommended_key: str
    engine_version: str = ENGINE_VERSION
    workload_class: str = ""
    warnings_total: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def _q(value: Decimal | None, quantum: Decimal) -> Decimal | None:
    return None if value is None else value.quantize(quantum, rounding=ROUND_HALF_EVEN)


def _base_row(key: str, facts: RowFacts) -> dict[str, Any]:
    row: dict[str, Any] = {
        "key": key,
        "kind": facts["kind"],
        "quote_id": facts.get("quote_id"),
        "api_route_id": facts.get("api_route_id"),
        "label": str(facts.get("label", key))[:300],
        "provider_name": str(facts.get("provider_name", ""))[:200],
        "accelerator_name": str(facts.get("accelerator_name", ""))[:120],
        "capacity_model": facts.get("capacity_model", ""),
        "gpus": facts.get("gpus"),
        "fit": facts.get("fit", {}),
        "performance": facts.get("performance", {}),
        "perf_source": facts.get("perf_source", "") or "",
        "checklist": facts.get("checklist", {}),
        "detail": {
            **facts.get("detail", {}),
            # the offer's other configurations, costed beside the one the row takes
            **({"configurations": facts["configurations"]} if facts.get("configurations") else {}),
        },
    }
    configuration = (facts.get("performance") or {}).get("configuration")
    if configuration:
        row["detail"]["configuration"] = configuration
    return row


def _rejected_row(key: str, facts: RowFacts, reasons: list[str]) -> dict[str, Any]:
    row = _base_row(key, facts)
    row.update(eligible=False, reasons=reasons, cost_lines={}, warnings=[], unit_label="")
    return row


def outcome_row(outcome: CandidateOutcome, facts: RowFacts) -> dict[str, Any]:
    """One CandidateResult's field values from the engine's outcome and the snapshot facts."""
    row = _base_row(outcome.candidate_id, facts)
    money = not facts.get("fx_missing", False)
    row.update(
        eligible=outcome.eligible,
        reasons=list(outcome.reasons),
        warnings=[w.to_dict() for w in outcome.warnings],
        unit_label=outcome.unit_label,
        rank=outcome.rank_by_unit_cost,
        rank_hourly=outcome.rank_by_hourly_price,
        p10=outcome.p10,
        p50=outcome.p50,
        p90=outcome.p90,
        prob_cheapest=outcome.prob_cheapest,
    )
    row["detail"].update(
        latency_verdict=outcome.latency_verdict,
        evidence=outcome.evidence,
        acceptance_source=outcome.acceptance_source,
        failure_source=outcome.failure_source,
    )
    if outcome.fleet is not None:
        row["detail"]["fleet"] = outcome.fleet.to_dict()
    if money:
        row.update(
            hourly_price_usd=_q(outcome.price_per_gpu_hour, HOURLY_QUANTUM),
            cost_lines={k: format(v, "f") for k, v in outcome.cost_lines.items()},
            total_usd=_q(outcome.total, CENT),
            accepted_outputs=_q(outcome.accepted_outputs, OUTPUT_QUANTUM),
            unit_cost_usd=outcome.unit_cost,
        )
        row["detail"].update(
            billed_gpu_hours=to_jsonable(outcome.billed_gpu_hours),
            gpu_spend=to_jsonable(outcome.gpu_spend),
            gpu_spend_breakdown=to_jsonable(outcome.gpu_spend_breakdown),
            unit_cost_per_accepted_output=to_jsonable(outcome.unit_cost_per_accepted_output),
            training=to_jsonable(outcome.training),
            commitment_usd=to_jsonable(outcome.commitment_usd),
            commitment=to_jsonable(outcome.commitment),
        )
    else:
        row["cost_lines"] = {}
    return row


def result_json(output: ComparisonOutput, thawed: Thawed) -> dict[str, Any]:
    data = output.to_dict()
    data.pop("candidates", None)
    eligible = sum(1 for row in output.candidates if row.eligible)
    data["counts"] = {
        "candidates": len(thawed.order),
        "costed": len(output.candidates),
        "eligible": eligible,
        "not_costed": len(thawed.rejected),
    }
    if thawed.input is not None:
        data["billed_token_type"] = thawed.input.workload.tokens_billed
        data["unit_basis"] = cost.unit_basis(thawed.input.workload)
    return data


def measured_requests(
    snapshot: dict[str, Any],
) -> tuple[list[tuple[Any, Any]], list[int], int]:
    """The (prompt, output) tokens of the requests the uploads made for the brief measured,
    as frozen (``snapshot["request_sizes"]``: an evenly spaced sample of each upload), those
    uploads' result ids, and how many requests they measured in all."""
    requests: list[tuple[Any, Any]] = []
    uploads: list[int] = []
    total = 0
    for upload in snapshot.get("request_sizes") or []:
        sizes = upload.get("request_sizes") if isinstance(upload, dict) else None
        if not isinstance(sizes, dict):
            continue
        prompts = sizes.get("input_tokens") or []
        outputs = sizes.get("output_tokens") or []
        if len(outputs) != len(prompts):
            outputs = [None] * len(prompts)
        if prompts:
            requests += list(zip(prompts, outputs, strict=True))
            uploads.append(int(upload.get("result_id") or 0))
            stated = sizes.get("requests")
            total += stated if isinstance(stated, int) else len(prompts)
    return requests, uploads, total


def _plan(
    snapshot: dict[str, Any],
    thawed: Thawed,
    output: ComparisonOutput,
    seed: int,
    samples: int,
    time_limit: float,
    output_trace: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    if thawed.input is None:
        return None
    brief = snapshot.get("brief") or {}
    p95 = brief.get("p95_input_tokens") if isinstance(brief, dict) else None
    requests, uploads, measured = measured_requests(snapshot)
    trace_name, load_shape = "", []
    traced = snapshot.get("traffic_trace") or {}
    sizes = traced.get("request_sizes") or {}
    if sizes.get("input_tokens"):
        # The trace's own sizes and arrivals replace the brief's p95 guess and peak-to-average.
        prompts, outputs = sizes["input_tokens"], sizes.get("output_tokens") or []
        requests = list(zip(prompts, outputs or [None] * len(prompts), strict=True))
        uploads, measured = [], int(sizes.get("requests") or len(prompts))
        p95 = float(np.percentile(prompts, 95))
        trace_name = str(traced.get("original_name") or "")
        replayed = output_trace or {}
        if replayed.get("status") == "replayed":
            load_shape = list(replayed.get("load_shape") or [])

    def solve(inp: ComparisonInput) -> dict[str, Any]:
        return comparison_plan(
            inp,
            output,
            seed=seed,
            samples=samples,
            p95_input_tokens=float(p95) if p95 else None,
            time_limit=time_limit,
            measured_requests=requests,
            measured_uploads=uploads,
            measured_total=measured,
            trace=trace_name,
            load_shape=load_shape,
        )

    try:
        plan = solve(thawed.input)
        if trace_name and plan.get("monthly_cost"):
            # Robust to the profile (issue 42): the plan that holds the service level when every
            # offer does only its p10 throughput, and what it costs over the centre's plan.
            plan["pessimistic"] = pessimistic_plan(plan, solve(at_p10(thawed.input)))
        return plan
    except EngineInputError as exc:  # the comparison stays ready without a plan
        return {"status": "none", "outcome": "not solved", "reason": exc.message}
    except (ValueError, ArithmeticError) as exc:  # a solver or numeric failure: the same
        return {"status": "none", "outcome": "not solved", "reason": f"no plan: {exc}"[:300]}


def _p95_shape(snapshot: dict[str, Any]) -> tuple[float, float] | None:
    """The request the rows' figures are estimated at: the brief's p95 prompt and output."""
    brief = snapshot.get("brief") or {}
    prompt, generated = brief.get("p95_input_tokens"), brief.get("p95_output_tokens")
    if isinstance(prompt, int | float) and isinstance(generated, int | float):
        return float(prompt), float(generated)
    return None


def at_p10(inp: ComparisonInput) -> ComparisonInput:
    """The comparison's input with every offer at its p10 throughput (the pessimistic profile)."""

    def slower(cand: CandidateInput) -> CandidateInput:
        band = cand.throughput_per_replica
        if band is None:
            return cand
        return replace(cand, throughput_per_replica=Range(band.low, band.low, band.low))

    return replace(inp, candidates=tuple(slower(c) for c in inp.candidates))


def pessimistic_plan(centre: dict[str, Any], pessimistic: dict[str, Any]) -> dict[str, Any]:
    """The pessimistic profile's plan beside the centre's: its monthly cost and the extra."""
    if not pessimistic.get("monthly_cost"):
        return {"status": "none", "reason": pessimistic.get("reason", "no plan at p10")}
    cost, base = Decimal(pessimistic["monthly_cost"]), Decimal(centre["monthly_cost"])
    return {
        "status": "solved",
        "monthly_cost": format(cost, "f"),
        "extra_monthly": format(cost - base, "f"),
        "vendors": [part.get("label") for part in pessimistic.get("vendors") or []],
        "words": (
            f"Holding the service level when every offer does only its p10 throughput (the "
            f"pessimistic profile), the plan costs USD {cost:,.2f} a month, USD "
            f"{cost - base:,.2f} more than at the centre."
        ),
    }


def widen_cost_band(row: dict[str, Any], billed: dict[str, Any] | None) -> None:
    """Widen a row's cost band to the billed months on its offer, saying so on the row."""
    if not billed or None in (row.get("p10"), row.get("p50"), row.get("p90")):
        return
    widened = widened_cost_band(
        row["p10"],
        row["p50"],
        row["p90"],
        entries=int(billed["entries"]),
        min_ratio=float(billed["min_ratio"]),
        max_ratio=float(billed["max_ratio"]),
    )
    if widened is None:
        return
    p10, p90, note = widened
    row["detail"]["cost_band"] = {
        "note": note,
        "default_p10": row["p10"],
        "default_p90": row["p90"],
        "billed_months": int(billed["entries"]),
    }
    row.update(p10=p10, p90=p90)


def compute(
    snapshot: dict[str, Any],
    *,
    seed: int,
    samples: int,
    progress: Callable[[float], None] | None = None,
    plan_time_limit: float = TIME_LIMIT_S,
) -> Computed:
    """Run the engine on a snapshot. Raises EngineInputError when the workload is invalid.

    The cheapest plan across offers (``result["plan"]``) is solved within
    ``plan_time_limit`` seconds; a comparison without one is still ready."""

    def thaw_progress(x: float) -> None:
        if progress is not None:
            progress(THAW_SHARE * x)

    def engine_progress(x: float) -> None:
        if progress is not None:
            progress(THAW_SHARE + (1 - THAW_SHARE) * x)

    thawed = thaw(snapshot, progress=thaw_progress)
    outcomes: dict[str, CandidateOutcome] = {}
    output: ComparisonOutput | None = None
    if thawed.input is not None:
        output = run_comparison(thawed.input, seed=seed, samples=samples, progress=engine_progress)
        outcomes = {row.candidate_id: row for row in output.candidates}
    swept = charted_point_costs(thawed, output) if output is not None else {}
    rows = []
    for key in thawed.order:
        facts = thawed.facts[key]
        if key in outcomes:
            rows.append(outcome_row(outcomes[key], facts))
            if key in swept:
                rows[-1]["detail"]["operating_points"] = swept[key]
            elif (uncosted := uncosted_sweep(facts)) is not None:
                rows[-1]["detail"]["operating_points_uncosted"] = uncosted
        else:
            rows.append(_rejected_row(key, facts, thawed.rejected.get(key, [])))
    billed = snapshot.get("cost_calibration") or {}
    for row in rows:
        widen_cost_band(row, billed.get(str(row.get("quote_id"))))
    if output is None:
        result: dict[str, Any] = {
            "engine_version": ENGINE_VERSION,
            "seed": seed,
            "samples": samples,
            "notes": ["no candidate could be costed: see each row's reasons"],
            "counts": {
                "candidates": len(rows),
                "costed": 0,
                "eligible": 0,
                "not_costed": len(rows),
            },
        }
        recommended = ""
    else:
        result = result_json(output, thawed)
        if thawed.input is not None and (trace := snapshot.get("traffic_trace")):
            result["trace"] = size_rows(
                trace, thawed.input, output, rows, shape=_p95_shape(snapshot)
            )
        result["plan"] = _plan(
            snapshot, thawed, output, seed, samples, plan_time_limit, result.get("trace")
        )
        recommended = output.recommended_candidate_id or ""
    return Computed(
        rows=rows,
        result=result,
        recommended_key=recommended,
        warnings_total=sum(len(r.get("warnings", [])) for r in rows),
    )
