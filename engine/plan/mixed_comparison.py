"""The comparison's mixed plan as it is stored and served: the optimiser (mixed.py) over the
comparison's rows, with its p10–p90 from the rows' own Monte Carlo draws.

Rows that are ineligible only because their offer lacks the GPUs for the whole fleet take
part up to their capacity; at most ``MAX_PLAN_OFFERS`` rows, the cheapest per accepted
output at their point estimates, take part. Request sizes (``mixed_buckets``): when the
brief states a p95 prompt above its mean, the long bucket holds the requests of at least that
prompt — measured, from the per-request samples of the uploads made for the brief when there
are any, else the top ``LONG_SHARE`` of requests at the p95 prompt; otherwise one bucket.
``buckets_source`` says which.

Each vendor's part also carries ``commitment_usd``, the commitment a decision on it creates
as the rows state theirs (ADR 0006): the larger of its contract (committed GPU-hours × price
× term) and its expected spend over the brief's horizon (``monthly_billed_usd``: its monthly
cost and the storage its vendor bills, × horizon months); the plan's ``commitment_usd`` is
their sum, the figure dual approval routes on.

The answer is a JSON-ready dict; ``status`` "none" with a ``reason`` when there is no plan
to make (a training run, no costed row), "infeasible" with the optimiser's reason when no
plan meets the brief.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from core.cost_lines import API_ROUTE_UNBILLED_LINES
from engine import cost
from engine.deployments.assess import capacity_reason
from engine.errors import EngineInputError
from engine.plan.mixed import TIME_LIMIT_S, optimise
from engine.plan.mixed_adapter import plan_inputs, row_draws
from engine.plan.mixed_buckets import SHORT, BucketSize, brief_sizes, sample_sizes
from engine.plan.mixed_recommended import PER_VENDOR_LINES, beside_recommended
from engine.plan.mixed_types import MixedPlan, PlanDemand
from engine.plan.mixed_uncertainty import plan_spread
from engine.types import CandidateOutcome, ComparisonInput, ComparisonOutput, WorkloadInput

LONG_SHARE = 0.05  # the requests at or above the p95 prompt
# The cheapest rows by point-estimate unit cost that take part: a catalog-sized comparison
# keeps the solver's model near the benchmarked 200 offers × 3 configurations.
MAX_PLAN_OFFERS = 200
PCT = Decimal("0.1")
CENT = Decimal("0.01")
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


def vendor_own_lines(inp: ComparisonInput, rows: Sequence[CandidateOutcome]) -> dict[str, Decimal]:
    """Each row's monthly lines that its vendor bills beside what the optimiser models: the
    storage of the model it holds (none on a model API route, whose vendor bills no storage),
    so a part's spend is its row's vendor spend (P15)."""
    api = {c.id for c in inp.candidates if c.is_api}
    return {
        row.candidate_id: sum(
            (
                row.cost_lines.get(name, Decimal(0))
                for name in PER_VENDOR_LINES
                if not (row.candidate_id in api and name in API_ROUTE_UNBILLED_LINES)
            ),
            Decimal(0),
        )
        for row in rows
    }


def _served(
    plan: MixedPlan, labels: dict[str, str], horizon_months: int, own: dict[str, Decimal]
) -> dict[str, Any]:
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
    data["has_base"] = any(line.role == "base" for line in plan.lines)
    data["horizon_months"] = horizon_months
    total = Decimal(0)
    for part, served in zip(plan.vendors, data["vendors"], strict=True):
        billed = part.monthly_cost + own.get(part.offer_id, Decimal(0))
        spend = (billed * horizon_months).quantize(CENT)
        commitment = max(part.commitment_total, spend)
        served["monthly_billed_usd"] = format(billed.quantize(CENT), "f")
        served["expected_spend_usd"] = format(spend, "f")
        served["commitment_usd"] = format(commitment, "f")
        total += commitment
    data["commitment_usd"] = format(total, "f") if plan.vendors else None
    return data


def request_sizes(
    workload: WorkloadInput,
    *,
    p95_input_tokens: float | None,
    samples: Sequence[tuple[object, object]] = (),
    uploads: Sequence[int] = (),
    measured_total: int | None = None,
    trace: str = "",
) -> tuple[tuple[BucketSize, ...] | None, dict[str, Any]]:
    """The request-size buckets and where they came from (module docstring); None: one
    bucket. ``samples``: the measured (prompt, output) token pairs (a sample of each upload),
    ``uploads`` their results' ids, ``measured_total`` how many requests they measured."""
    mean_in = workload.input_tokens_per_request
    if not p95_input_tokens or p95_input_tokens <= mean_in:
        return None, {
            "source": "brief",
            "words": "one request size: the brief states no p95 prompt above its mean",
        }
    threshold = float(p95_input_tokens)
    disagree = ""
    if samples:
        try:
            sizes = sample_sizes(
                samples,
                threshold_input_tokens=threshold,
                default_output_tokens=workload.output_tokens_per_request,
            )
        except EngineInputError:
            sizes = ()
        if sizes and len(sizes) < 2:
            # The brief states long requests (p95 above the mean): a benchmark whose prompts
            # fall in one bucket (a fixed-length run) measured another traffic, and never
            # drops a bucket the brief states (issue 37, P8).
            count = sum(1 for prompt, _ in samples if isinstance(prompt, int | float))
            which = "under" if sizes[0].name == SHORT else "at or over"
            source = (
                f"requests of the traffic trace {trace}"
                if trace
                else "measured requests of the uploads made for this brief"
            )
            disagree = (
                f"; the {count:,} {source} are all {which} it, so they are not the brief's "
                "traffic and are not used"
            )
            sizes = ()
        if sizes:
            count = sum(1 for prompt, _ in samples if isinstance(prompt, int | float))
            total = max(count, measured_total or 0)
            where = (
                f"the traffic trace {trace}"
                if trace
                else f"{len(uploads)} upload{'s' * (len(uploads) != 1)} made for this brief"
            )
            sampled = f" (an evenly spaced sample of {total:,})" if total > count else ""
            return sizes, {
                "source": "trace" if trace else "samples",
                "requests": count,
                "measured_requests": total,
                "uploads": list(uploads),
                "threshold_input_tokens": threshold,
                "words": (
                    f"from {count:,} {'traced' if trace else 'measured'} requests{sampled} "
                    f"in {where}: prompts of {threshold:,.0f} tokens or more "
                    f"({'the trace' if trace else 'the brief'}'s p95) are long"
                ),
            }
    sizes = brief_sizes(workload, long_share=LONG_SHARE, p95_input_tokens=threshold)
    return sizes, {
        "source": "brief",
        "threshold_input_tokens": threshold,
        "words": (
            f"from the brief: the top {LONG_SHARE * 100:g} % of requests are long, at its "
            f"p95 prompt of {threshold:,.0f} tokens{disagree}"
        ),
    }


def comparison_plan(
    inp: ComparisonInput,
    output: ComparisonOutput,
    *,
    seed: int,
    samples: int,
    p95_input_tokens: float | None = None,
    time_limit: float = TIME_LIMIT_S,
    measured_requests: Sequence[tuple[object, object]] = (),
    measured_uploads: Sequence[int] = (),
    measured_total: int | None = None,
    trace: str = "",
    load_shape: Sequence[float] = (),
) -> dict[str, Any]:
    """The cheapest plan across the comparison's offers (module docstring).
    ``measured_requests``: (prompt, output) tokens of the requests measured by the uploads
    made for the brief (``measured_uploads``), when there are any; with a traffic trace
    (``trace``, its name) they are a sample of its requests, and ``load_shape`` its load per
    interval: the plan's load-duration curve."""
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
    try:
        sizes, source = request_sizes(
            workload,
            p95_input_tokens=p95_input_tokens,
            samples=measured_requests,
            uploads=measured_uploads,
            measured_total=measured_total,
            trace=trace,
        )
        brief_mean = None  # the brief's buckets average to its mean exactly: say it so
        if source.get("source") == "brief":
            brief_mean = workload.input_tokens_per_request + workload.output_tokens_per_request
        built = plan_inputs(
            inp.candidates,
            outcomes,
            workload,
            sizes=sizes,
            mean_request_tokens=brief_mean,
            capacity_limited=limited,
            load_shape=load_shape,
        )
    except EngineInputError:  # the request sizes do not split: one bucket
        sizes, source = None, {"source": "brief", "words": "one request size"}
        built = plan_inputs(
            inp.candidates, outcomes, workload, capacity_limited=limited, load_shape=load_shape
        )
    if built is None:
        return _none("no eligible row can be costed per replica or per output")
    demand, offers = built
    plan = optimise(demand, offers, time_limit=time_limit)
    plan, single, in_rows = beside_recommended(plan, demand, offers, inp, output)
    labels = {c.id: c.label for c in inp.candidates}
    data = _served(plan, labels, workload.horizon_months, vendor_own_lines(inp, outcomes))
    data.update(in_rows)
    data["buckets"] = _buckets(demand, sizes, workload)
    data["buckets_source"] = source
    data["capacity_limited"] = sorted(limited & {o.id for o in offers})
    data["p10"] = data["p50"] = data["p90"] = None
    data["unit_p10"] = data["unit_p50"] = data["unit_p90"] = None
    if plan.feasible:
        used = {line.offer_id for line in plan.lines}
        drawn = [c for c in inp.candidates if c.id in used]
        volume, factors = row_draws(workload, drawn, seed=seed, samples=samples)
        spread = plan_spread(plan, demand, offers, volume, factors)
        for name in ("p10", "p50", "p90"):
            value = Decimal(repr(getattr(spread, name))).quantize(SPREAD_QUANTUM)
            data[name] = format(value, "f")
        recommended = next(
            (r for r in output.candidates if r.candidate_id == output.recommended_candidate_id),
            None,
        )
        bands: tuple[float | None, ...]
        if plan.status == "single" and single is not None and recommended is not None:
            bands = (recommended.p10, recommended.p50, recommended.p90)  # the row's own band
        else:
            own = float(data["workload_costs_usd"] or 0)
            full = plan_spread(plan, demand, offers, volume, factors, fixed_monthly=own)
            scale = float(cost.unit_label_and_scale(workload)[1])
            bands = (full.p10 * scale, full.p50 * scale, full.p90 * scale)
        for name, band in zip(("unit_p10", "unit_p50", "unit_p90"), bands, strict=True):
            data[name] = None if band is None else f"{band:.6f}"
    return data


def _buckets(
    demand: PlanDemand, sizes: Sequence[BucketSize] | None, workload: WorkloadInput
) -> list[dict[str, Any]]:
    if sizes:
        return [size.to_dict() for size in sizes]
    one = BucketSize(
        demand.buckets[0].name,
        1.0,
        workload.input_tokens_per_request,
        workload.output_tokens_per_request,
    )
    return [one.to_dict()]
