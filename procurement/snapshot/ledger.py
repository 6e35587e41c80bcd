"""The calibration ledger's pairs of one measured row: one per operating point of its
result, the estimate taken at that point's own shape (engine/calibration.py). Pure: no Django.

A point's shape is its concurrency and its token lengths: input and output tokens per
completed request from the point's own rates (input tokens/s and output tokens/s over
requests/s) when the file gives them, else the result's mean lengths. The estimate is the
roofline on the result's GPUs at the brief's precisions, with no cached prefix (a benchmark's
prompts are read as sharing none), so the ratio says how far the roofline was from that
measurement and nothing of the brief's shape. A point without a concurrency (a request-rate
point) or without throughput gives no pair.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from core.values import finite_or_none
from engine.errors import EngineInputError
from engine.memory.spec import GpuSpec
from engine.performance import InferencePerfInput, estimate_inference
from procurement.snapshot.context import Context, rounded
from procurement.snapshot.facts import LedgerPair
from procurement.snapshot.schema import FrozenResult, JSONValue


def shape_words(tokens_in: float, tokens_out: float, concurrency: float, gpus: int) -> str:
    """'in 1,000 / out 200 / c16 / 1 GPU'."""
    return (
        f"in {tokens_in:,.0f} / out {tokens_out:,.0f} / c{concurrency:g} / "
        f"{gpus} GPU{'s' if gpus != 1 else ''}"
    )


def _per_request(point: Mapping[str, JSONValue], name: str) -> float | None:
    per_s = finite_or_none(point.get(f"{name}_tokens_per_s"))
    requests = finite_or_none(point.get("requests_per_s"))
    if per_s is None or not requests or requests <= 0 or per_s <= 0:
        return None
    return per_s / requests


def _measured_points(result: FrozenResult) -> list[tuple[float, float, float, float]]:
    """(concurrency, measured output tokens/s per replica, tokens in, tokens out) per point."""
    mean_in = finite_or_none(result.get("input_tokens_mean"))
    mean_out = finite_or_none(result.get("output_tokens_mean"))
    out = []
    points: list[dict[str, JSONValue]] = result.get("operating_points") or []
    if not points:  # a single-point file is its own point
        per_gpu = finite_or_none(result.get("tokens_per_s_per_gpu"))
        gpus = max(1, int(result.get("gpu_count") or 1))
        points = [
            {
                "concurrency": result.get("concurrency"),
                "output_tokens_per_s": per_gpu * gpus if per_gpu else None,
            }
        ]
    for point in points:
        concurrency = finite_or_none(point.get("concurrency"))
        measured = finite_or_none(point.get("output_tokens_per_s"))
        tokens_in = _per_request(point, "input") or mean_in
        tokens_out = _per_request(point, "output") or mean_out
        if (
            concurrency
            and concurrency >= 1
            and measured
            and measured > 0
            and tokens_in
            and tokens_out
        ):
            out.append((concurrency, measured, tokens_in, tokens_out))
    return out


def _estimate_at(
    ctx: Context, gpu: GpuSpec, gpus: int, concurrency: int, tokens_in: int, tokens_out: int
) -> float | None:
    brief = ctx.brief
    model = ctx.model
    if model is None:
        return None
    try:
        est = estimate_inference(
            InferencePerfInput(
                model=model,
                gpu=gpu,
                weight_precision=brief["weight_precision"],
                kv_precision=brief["kv_precision"],
                input_tokens=tokens_in,
                output_tokens=tokens_out,
                concurrency=concurrency,
                gpus=gpus,
                memory_efficiency=float(ctx.a["memory_efficiency"]),
                compute_efficiency=float(ctx.a["compute_efficiency"]),
            )
        )
    except EngineInputError:
        return None
    return est.output_tokens_per_s


def ledger_pairs(ctx: Context, result: FrozenResult, gpu: GpuSpec, gpus: int) -> list[LedgerPair]:
    """One (estimate, measurement) pair per costable point of a result measured on the row's
    workload, at the point's own concurrency and lengths (the module docstring)."""
    pairs: list[LedgerPair] = []
    for concurrency, measured, tokens_in, tokens_out in _measured_points(result):
        at = (max(1, round(concurrency)), max(1, round(tokens_in)), max(1, round(tokens_out)))
        estimated = ctx.memo(("ledger", gpu, gpus, *at), partial(_estimate_at, ctx, gpu, gpus, *at))
        if not estimated or estimated <= 0:
            continue
        pairs.append(
            {
                "shape": shape_words(at[1], at[2], concurrency, gpus),
                "concurrency": concurrency,
                "estimated_tokens_per_s": rounded(float(estimated), 3),
                "measured_tokens_per_s": rounded(measured, 3),
                "measured_over_estimate": rounded(measured / float(estimated), 4),
            }
        )
    return pairs
