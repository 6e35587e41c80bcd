"""Sizing each deployment of a comparison from the brief's traffic trace (issue 42;
docs/engine/trace-sizing.md).

The snapshot freezes which trace (its id, file and sha256) and the window it stands for; the
worker reads the file again here, checks it is the same bytes, and replays it on every eligible
GPU row's operating point — the point the row is costed at, with its measured or estimated
throughput and latencies — at the row's throughput band (p10, centre, p90). Each row keeps what
the trace buys on it (``detail["trace_sizing"]``); the comparison keeps the trace's facts and
the replica curves to chart (``result["trace"]``).
"""

from __future__ import annotations

import hashlib
import io
import logging
from decimal import Decimal
from typing import Any

from django.core.files.storage import default_storage

from briefs.trace_files import TraceFileError, read_trace
from engine.trace import (
    CurvePoint,
    OperatingCurve,
    RequestTrace,
    TraceError,
    TraceSizing,
    scale_to_volume,
    size_trace,
    sustainable_point,
    trace_fleet,
)
from engine.types import CandidateInput, ComparisonInput, ComparisonOutput

logger = logging.getLogger(__name__)

PROFILES = (("p10", "low"), ("centre", "likely"), ("p90", "high"))
INTERVAL_S = 60.0
CURVE_ROWS = 8  # the replica curves charted: the cheapest rows by the trace's centre cost


def load_trace(frozen: dict[str, Any]) -> RequestTrace:
    """The frozen trace's requests, read again from storage (the same bytes, or refused)."""
    with default_storage.open(str(frozen["file"]), "rb") as handle:
        data = handle.read()
    if hashlib.sha256(data).hexdigest() != frozen.get("sha256"):
        raise TraceFileError("The trace file changed since the comparison froze it.")
    return read_trace(io.BytesIO(data)).trace


def _point(cand: CandidateInput, performance: dict[str, Any], generated: float) -> CurvePoint:
    """The row's operating point as one point of a curve: its throughput per replica and
    latencies; the requests in flight there by Little's law (each holds its TTFT plus its
    ``generated`` output tokens at the ITL), else the brief's concurrency."""
    assert cand.throughput_per_replica is not None  # noqa: S101 - GPU rows have one
    tokens_per_s = cand.throughput_per_replica.likely
    ttft = performance.get("ttft_p95_ms")
    itl = performance.get("itl_p95_ms")
    out = max(1.0, generated)
    if isinstance(ttft, int | float) and isinstance(itl, int | float) and itl > 0:
        seconds = ttft / 1000 + out * itl / 1000
        concurrency = max(1.0, tokens_per_s / out * seconds)
    else:
        concurrency = float(performance.get("concurrency") or 1.0)
    return CurvePoint(
        concurrency,
        tokens_per_s,
        float(ttft) if isinstance(ttft, int | float) else None,
        float(itl) if isinstance(itl, int | float) else None,
    )


def _prefill_weight(point: CurvePoint, input_tokens: float) -> float:
    """A prompt token's replica time in output tokens' time: TTFT per prompt token over ITL."""
    if not point.ttft_p95_ms or not point.itl_p95_ms or input_tokens <= 0:
        return 0.0
    return (point.ttft_p95_ms / input_tokens) / point.itl_p95_ms


def _sizing_json(sizing: TraceSizing) -> dict[str, Any]:
    return {
        "replicas": sizing.replicas.tolist(),
        "peak_replicas": sizing.peak_replicas,
        "fixed_replicas": sizing.fixed_replicas,
        "mean_replicas": round(sizing.mean_replicas, 3),
        "attainment": round(sizing.attainment, 4),
        "fixed_attainment": round(sizing.fixed_attainment, 4),
        "sustainable_concurrency": round(sizing.sustainable.concurrency, 3),
        "binding": sizing.sustainable.binding,
    }


def size_rows(
    frozen: dict[str, Any],
    inp: ComparisonInput,
    output: ComparisonOutput,
    rows: list[dict[str, Any]],
    *,
    shape: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """Replay the trace on each eligible GPU row (``rows`` gain ``detail["trace_sizing"]``);
    the comparison's ``result["trace"]``. ``shape``: the (prompt, output) tokens the rows'
    figures were estimated at (the brief's p95 request), else the brief's mean request."""
    facts: dict[str, Any] = {
        "id": frozen.get("id"),
        "file": frozen.get("original_name"),
        "window": frozen.get("window"),
        "requests": frozen.get("requests"),
    }
    try:
        trace = load_trace(frozen)
    except (OSError, TraceFileError, TraceError) as exc:
        logger.warning("Trace %s not replayed: %s", frozen.get("id"), exc)
        return {**facts, "status": "not replayed", "reason": str(exc)}
    workload = inp.workload
    outputs = workload.monthly_accepted_outputs
    acceptance = max(1e-9, workload.acceptance_rate.likely)
    monthly_requests = (outputs.likely if outputs else 0.0) / acceptance
    try:
        scaling = scale_to_volume(
            requests=trace.requests,
            window=str(frozen.get("window")),
            monthly_requests=monthly_requests,
            peak_to_average=workload.peak_to_average.likely,
            # the minutes the replay covers: the trace's own span, by whole intervals
            span_s=(trace.span_s // INTERVAL_S + 1) * INTERVAL_S,
        )
    except TraceError as exc:
        return {**facts, "status": "not replayed", "reason": str(exc)}
    ttft_target = workload.ttft_p95_target_ms
    itl_target = workload.itl_p95_target_ms
    input_p95, _ = trace.size_percentile(95)
    by_key = {row["key"]: row for row in rows}
    eligible = {o.candidate_id for o in output.candidates if o.eligible}
    sized: list[tuple[Decimal, str, list[int]]] = []
    loads: dict[str, list[float]] = {}
    for cand in inp.candidates:
        row = by_key.get(cand.id)
        if (
            row is None
            or cand.id not in eligible
            or cand.kind != "gpu"
            or cand.throughput_per_replica is None
            or cand.throughput_unit != "tokens_per_s"
            or cand.price_per_gpu_hour is None
        ):
            continue
        prompt, generated = shape or (
            workload.input_tokens_per_request,
            workload.output_tokens_per_request,
        )
        point = _point(cand, row.get("performance") or {}, generated)
        curve = OperatingCurve.of(
            [point],
            input_tokens=max(1.0, prompt),
            output_tokens=max(1.0, generated),
            prefill_weight=_prefill_weight(point, prompt),
        )
        band = cand.throughput_per_replica
        profiles: dict[str, Any] = {}
        for name, end in PROFILES:
            profile = curve.scaled(getattr(band, end) / band.likely)
            held = sustainable_point(
                profile,
                ttft_p95_ms=ttft_target,
                itl_p95_ms=itl_target,
                input_tokens_p95=input_p95,
            )
            if held is None:
                profiles[name] = {"holds": False}
                continue
            sizing = size_trace(
                trace, profile, held, interval_s=INTERVAL_S, volume_scale=scaling.factor
            )
            if name == "centre":
                loads[cand.id] = [round(float(x), 4) for x in sizing.load]
            fleet = trace_fleet(
                sizing,
                gpus_per_replica=cand.gpus_per_replica,
                price_per_gpu_hour=cand.price_per_gpu_hour,
                fixed_capacity=cand.is_fixed,
                repeats=scaling.repeats_per_month is not None,
            )
            profiles[name] = {
                "holds": True,
                **_sizing_json(sizing),
                "peak_gpus": fleet.peak_gpus,
                "fixed_gpus": fleet.fixed_gpus,
                "mean_gpus": round(fleet.mean_gpus, 3),
                "monthly_gpu_hours": format(fleet.monthly_gpu_hours, "f"),
                "monthly_cost": format(fleet.monthly_cost, "f"),
                "basis": fleet.basis,
            }
        centre = profiles.get("centre") or {}
        pessimistic = profiles.get("p10") or {}
        summary: dict[str, Any] = {"profiles": profiles}
        if centre.get("holds") and pessimistic.get("holds"):
            extra = Decimal(pessimistic["monthly_cost"]) - Decimal(centre["monthly_cost"])
            summary["pessimistic_extra_monthly"] = format(extra, "f")
        fleet_json = (row.get("detail") or {}).get("fleet") or {}
        if fleet_json:
            summary["peak_to_average_gpus"] = fleet_json.get("gpus_peak")
        row["detail"]["trace_sizing"] = summary
        if centre.get("holds"):
            sized.append((Decimal(centre["monthly_cost"]), cand.id, centre["replicas"]))
    sized.sort()
    return {
        **facts,
        "status": "replayed",
        "scaling": scaling.words,
        "factor": scaling.factor,
        "interval_s": INTERVAL_S,
        "rows_sized": len(sized),
        "curves": [{"key": key, "replicas": replicas} for _, key, replicas in sized[:CURVE_ROWS]],
        # The cheapest row's load a minute before rounding up: the plan's load-duration curve
        # (the traffic's shape as a replica of that row feels it).
        "load_shape": loads[sized[0][1]] if sized else [],
    }
