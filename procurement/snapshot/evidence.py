"""Snapshot benchmark results → the evidence one GPU row rests on. Pure: no Django.

Every frozen result is judged by the matching rules (engine/evidence.py) against the brief
and the row (accelerator, GPUs per replica, quote). The chosen one gives the throughput —
at the operating point that meets the brief's service level when the result holds a sweep
(engine/operating_points.py) — and, when it was measured on this workload, the latency and
the measured acceptance / failure rates. Each ignored result says why on the row.
"""

from __future__ import annotations

import math

from core import workloads
from core.values import finite_or_none
from engine.evidence import (
    EvidenceMatch,
    EvidenceTarget,
    choose_evidence,
    workload_of,
)
from engine.operating_points import (
    ServiceLevel,
    choose_point,
    point_from_dict,
)
from engine.types import Range
from procurement.snapshot.context import Context, rounded
from procurement.snapshot.facts import EngineExtras, PerfFacts, Sweep
from procurement.snapshot.schema import AcceleratorRow, FrozenResult, Measured, ModelRow, QuoteRow

NAMES = {"ttft_p95_ms": "TTFT p95", "itl_p95_ms": "ITL p95", "e2e_p99_ms": "E2E p99"}
Z80 = 1.2816  # two-sided 80 % interval of a measured rate (p10–p90, like every range)


def result_ids_in(measured: Measured) -> list[int]:
    """Ids of every benchmark result a snapshot's "measured" part holds (each member of a
    sweep uploaded as several files included)."""
    found: set[int] = set()
    for item in measured["results"]:
        for raw in (item.get("result_id"), *(item.get("sweep_result_ids") or [])):
            if str(raw or "").isdigit():
                found.add(int(str(raw)))
    return sorted(found)


def target_for(ctx: Context, quote: QuoteRow, acc: AcceleratorRow, gpus: int) -> EvidenceTarget:
    brief = ctx.brief
    model: ModelRow = ctx.snap.get("model") or {}
    spec = model.get("spec") or {}
    return EvidenceTarget(
        accelerator=acc["slug"],
        gpus=gpus,
        model_name=model.get("name") or "",
        model_profile_id=model.get("id"),
        model_params_b=finite_or_none(spec.get("params_b")),
        model_active_params_b=finite_or_none(
            spec.get("active_params_b") or model.get("params_active_b")
        ),
        model_family=model.get("family") or "",
        precision=brief.get("weight_precision") or "",
        input_tokens_mean=finite_or_none(brief.get("mean_input_tokens")),
        input_tokens_p95=finite_or_none(brief.get("p95_input_tokens")),
        output_tokens_mean=finite_or_none(brief.get("mean_output_tokens")),
        output_tokens_p95=finite_or_none(brief.get("p95_output_tokens")),
        concurrency=finite_or_none(brief.get("concurrency")),
        quote_id=quote["id"],
        brief_id=brief.get("id"),
        kv_precision=brief.get("kv_precision") or "",
        serving_engine=brief.get("serving_engine") or "",
        serving_engine_version=brief.get("serving_engine_version") or "",
        batch=ctx.cls not in workloads.REALTIME,  # no latency target binds its throughput
        ttft_target_ms=finite_or_none(brief.get("ttft_p95_ms")),
        itl_target_ms=finite_or_none(brief.get("itl_p95_ms")),
        nodes=-(-gpus // max(1, int(quote.get("gpus_per_node") or 1))),
    )


def _relevant(ctx: Context, quote: QuoteRow, acc: AcceleratorRow) -> list[FrozenResult]:
    """This quote's results and the accelerator's (results bound to another quote count at
    accelerator level: the same hardware, another provider), then the accelerator's published
    results (below any of the team's: engine/evidence.py)."""
    return [
        r
        for r in ctx.results
        if r.get("accelerator") == acc["slug"] or r.get("quote_id") == quote["id"]
    ] + [r for r in ctx.published if r.get("accelerator") == acc["slug"]]


def choose(
    ctx: Context, quote: QuoteRow, acc: AcceleratorRow, gpus: int
) -> tuple[FrozenResult | None, EvidenceMatch | None, list[str]]:
    """(the result used or None, its verdict, the reasons the others were ignored)."""
    results = _relevant(ctx, quote, acc)
    for r in results:
        r.setdefault("accelerator", acc["slug"])
    best, verdicts = choose_evidence(
        [workload_of(r) for r in results], target_for(ctx, quote, acc, gpus)
    )
    ignored = sorted({v.reason for v in verdicts if not v.counts})
    if best is None:
        return None, None, ignored
    chosen = next(r for r in results if (r.get("result_id") or 0) == best.result_id)
    return chosen, best, ignored


def rate_range(rate: float, n: float | None) -> Range:
    if not n or n <= 0:
        return Range.fixed(rate)
    half = Z80 * math.sqrt(max(rate * (1 - rate), 0.0) / n)
    return Range(max(1e-6, rate - half), rate, min(1.0, rate + half) if rate < 1 else 1.0)


def service_level(ctx: Context) -> ServiceLevel:
    brief = ctx.brief
    return ServiceLevel(
        ttft_p95_ms=finite_or_none(brief.get("ttft_p95_ms")),
        itl_p95_ms=finite_or_none(brief.get("itl_p95_ms")),
        e2e_p99_ms=finite_or_none(brief.get("e2e_p99_ms")),
        max_error_rate=finite_or_none(brief.get("max_error_rate")),
    )


def apply(
    ctx: Context,
    perf: PerfFacts,
    result: FrozenResult,
    match: EvidenceMatch,
    gpus: int,
    *,
    cache_factor: float = 1.0,
) -> EngineExtras:
    """Update ``perf`` from the chosen result; returns the engine-facing extras.

    ``cache_factor`` multiplies the measured throughput (and every point of its sweep) for
    the prefill a prefix cache saves (snapshot/sizing.py)."""
    source = match.kind
    if source == "ignored":  # `choose` hands over a result that counts, never another
        raise ValueError(f"result {result.get('result_id')} does not count for this row")
    measured_gpus = max(1, int(result.get("gpu_count") or 1))
    per_gpu = finite_or_none(result.get("tokens_per_s_per_gpu"))
    total = per_gpu * measured_gpus if per_gpu else None
    figures: PerfFacts = {
        "ttft_p95_ms": result.get("ttft_p95_ms"),
        "itl_p95_ms": result.get("itl_p95_ms"),
        "e2e_p99_ms": result.get("e2e_p99_ms"),
    }
    point_note = None
    attainment = None
    points = [point_from_dict(p) for p in result.get("operating_points") or []]
    slo = service_level(ctx)
    realtime = ctx.cls in workloads.REALTIME
    choice = choose_point(points, slo, realtime=realtime) if points else None
    if choice is not None:
        total = choice.output_tokens_per_s
        figures = {
            "ttft_p95_ms": choice.ttft_p95_ms,
            "itl_p95_ms": choice.itl_p95_ms,
            "e2e_p99_ms": choice.e2e_p99_ms,
        }
        point_note = choice.statement
        if choice.non_monotone:
            point_note += f" ({choice.non_monotone})"  # the row says why a later pass lost
        attainment = choice.goodput
    perf["measured"] = {**result, "scope": match.scope}
    perf["evidence"] = {
        "kind": match.kind,
        "reason": match.reason,
        "adjustments": list(match.adjustments),
        "result_id": result.get("result_id"),
        "sweep_result_ids": result.get("sweep_result_ids"),
        "operating_point": point_note,
        "goodput": rounded(attainment, 4),
        "slo_attainment": rounded(attainment, 4),
        "error_rate": rounded(choice.error_rate, 4) if choice is not None else None,
        "non_monotone": choice.non_monotone if choice is not None else "",
    }
    extras = EngineExtras(widen=(match.spread_low_factor, match.spread_high_factor))
    factor = match.throughput_factor * cache_factor
    from_result = total is not None and math.isfinite(total) and total > 0
    if total is not None and from_result:
        perf["tokens_per_s"] = total * factor
        perf["throughput_source"] = source
    if match.kind == "measured" and any(v is not None for v in figures.values()):
        # A figure the file lacks must not keep the roofline estimate under a "measured"
        # label: that estimate would pass the target the file cannot check.
        perf.update(figures)
        perf["latency_source"] = "measured"
        if unchecked := [NAMES[k] for k, v in figures.items() if v is None]:
            perf["latency_not_in_benchmark"] = unchecked
    if choice is not None and choice.meets is False:
        _keep_measured_miss(perf, match, figures, choice.statement)
    cap = slo.max_error_rate
    errors = choice.error_rate if choice is not None else None
    if errors is None:
        errors = finite_or_none(result.get("failure_rate"))
    if match.kind == "measured" and cap is not None and errors is not None and errors > cap:
        perf["error_rate_over"] = (
            f"error rate {errors * 100:.1f} % at the measured point exceeds the brief's "
            f"maximum {cap * 100:.1f} %"
        )
    acceptance = finite_or_none(result.get("acceptance_rate")) if match.kind == "measured" else None
    n = finite_or_none(result.get("requests_completed"))
    measured_acceptance = acceptance is not None and 0 < acceptance <= 1
    if measured_acceptance and acceptance is not None:
        extras.acceptance_rate = rate_range(acceptance, n)
        perf["acceptance_source"] = f"measured ({acceptance:.3f}, result {result.get('result_id')})"
        perf["acceptance_used"] = (
            f"measured {acceptance * 100:.1f} % (result {result.get('result_id')})"
        )
    if choice is not None and len(points) > 1:
        # The sweep's other points, costed beside the chosen one (operating_points/costs.py).
        extras.sweep = Sweep(
            points=tuple(points),
            slo=slo,
            goodput_counts=match.kind == "measured" and realtime,
            chosen_label=choice.label,
            throughput_factor=factor,
            base_acceptance=None,
        )
    failure = errors if match.kind == "measured" else None
    if failure is not None and 0 <= failure <= 1 and from_result:
        # Failures counted once: the measured throughput is successful tokens per wall-clock
        # second, so the GPU time failed requests took is already in it; charging the
        # failure share again would buy that time twice.
        extras.failure_rate = Range.fixed(0.0)
        perf["failure_source"] = f"measured ({failure:.3f}, result {result.get('result_id')})"
        perf["failure_used"] = (
            f"measured {failure * 100:.1f} % (result {result.get('result_id')}): already in the "
            "measured throughput (successful tokens per wall-clock second), not charged again"
        )
    perf["has_acceptance_data"] = perf.get("acceptance_source", "").startswith("measured")
    perf.setdefault("acceptance_source", "the brief's assumption")
    state_brief_rates(ctx, perf)
    return extras


def _keep_measured_miss(
    perf: PerfFacts, match: EvidenceMatch, figures: PerfFacts, statement: str
) -> None:
    """A latency measured over the targets, on this model and accelerator, is never replaced
    by an estimate that meets them (issue 37, F10): a proxy's figures are kept as what they
    are, and a median over a percentile target is a miss (F11)."""
    if match.kind != "measured":
        if (ttft := figures.get("ttft_p95_ms")) is not None:
            perf["ttft_p95_ms"] = ttft
        if (itl := figures.get("itl_p95_ms")) is not None:
            perf["itl_p95_ms"] = itl
        if (e2e := figures.get("e2e_p99_ms")) is not None:
            perf["e2e_p99_ms"] = e2e
        perf["latency_source"] = "published" if match.kind == "published" else "proxy"
    perf["latency_missed"] = f"measured over the targets: {statement}"


def range_words(rate: Range) -> str:
    """A rate as a reader says it: '92 %', or '92 % (85–97 %)' when it is a range."""

    def pct(x: float) -> str:
        return f"{round(x * 100, 1):g} %"

    if rate.low == rate.high:
        return pct(rate.likely)
    return f"{pct(rate.likely)} ({pct(rate.low)[:-2]}–{pct(rate.high)})"


def state_brief_rates(ctx: Context, perf: PerfFacts) -> None:
    """Which acceptance and failure rates the cost used, in words (D3): the measured ones set
    by `apply`, else the brief's assumption with its figure, so the row never leaves the
    reader guessing which one priced it."""
    workload = ctx.workload
    perf.setdefault(
        "acceptance_used", f"the brief's assumption {range_words(workload.acceptance_rate)}"
    )
    perf.setdefault("failure_source", "the brief's assumption")
    perf.setdefault("failure_used", f"the brief's assumption {range_words(workload.failure_rate)}")
