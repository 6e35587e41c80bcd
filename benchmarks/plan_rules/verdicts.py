"""Verdicts of automatic steps from uploaded results, best evidence first (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from benchmarks import figures
from benchmarks.plan_rules.types import (
    FAILED,
    PASSED,
    PENDING,
    ResultFacts,
    StepSpec,
    Verdict,
)
from core.values import float_or_none
from engine.operating_points import (
    MeasuredPoint,
    ServiceLevel,
    choose_point,
    describe,
    point_from_dict,
)


def _ms(value: float) -> str:
    return f"{value:,.0f} ms"


_TARGET_OF = {"ttft_p95": "ttft_p95_ms", "itl_p95": "itl_p95_ms", "e2e_p99": "e2e_p99_ms"}


def _at(point: MeasuredPoint) -> str:
    """'concurrency 16: TTFT p95 520 ms, …' (the engine's description, the point first)."""
    where, _, measured = describe(point).partition(", ")
    return f"{where}: {measured}" if measured else where


def _judge_sweep(points: list[MeasuredPoint], slo: ServiceLevel, realtime: bool) -> Verdict | None:
    choice = choose_point(points, slo, realtime=realtime)
    if choice is None or choice.meets is None:
        return None
    point = next(p for p in points if p.label == choice.label)
    if choice.meets:
        return Verdict(PASSED, f"met at {_at(point)}")
    return Verdict(FAILED, f"no operating point meets every target; closest at {_at(point)}")


def _sweep_verdict(result: ResultFacts, spec: StepSpec) -> Verdict | None:
    """A sweep read as the engine costs it: passed when one operating point meets every target
    of the brief (naming the point the comparison is costed at), failed naming the closest.

    None when the result holds fewer than two points or cannot be judged on the targets; the
    step then reads the result's headline figures.
    """
    raw = result.metrics.get("operating_points")
    found = raw if isinstance(raw, list) else []
    points = [point_from_dict(p) for p in found if isinstance(p, dict)]
    targets = spec.targets
    if len(points) < 2 or targets is None:
        return None
    verdict = _judge_sweep(points, targets.service_level, targets.realtime)
    if verdict is None and spec.threshold is not None:
        # Some target's figure is not in the file: judge this step's own target alone.
        alone = ServiceLevel(**{_TARGET_OF[spec.check or ""]: spec.threshold})
        verdict = _judge_sweep(points, alone, targets.realtime)
    if verdict is None:
        return None
    return Verdict(verdict.status, f"{verdict.observed} ({result.label})", result.result_id)


def _latency_verdict(
    results: Sequence[ResultFacts], spec: StepSpec, family: str, which: str, label: str
) -> Verdict:
    limit = spec.threshold or 0.0
    for result in results:
        swept = _sweep_verdict(result, spec)
        if swept is not None:
            return swept
        value = figures.percentile(result.metrics, family, which)
        if value is not None:
            status = PASSED if value <= limit else FAILED
            return Verdict(status, f"{label} {_ms(value)} ({result.label})", result.result_id)
    return Verdict(PENDING, f"No result records {label} yet.")


def _itl_verdict(results: Sequence[ResultFacts], spec: StepSpec) -> Verdict:
    limit = spec.threshold or 0.0
    for result in results:
        swept = _sweep_verdict(result, spec)
        if swept is not None:
            return swept
        for family, label in (("tpot_ms", "p95 TPOT"), ("itl_ms", "p95 ITL")):
            value = figures.percentile(result.metrics, family, "p95")
            if value is not None:
                status = PASSED if value <= limit else FAILED
                return Verdict(status, f"{label} {_ms(value)} ({result.label})", result.result_id)
    return Verdict(PENDING, "No result records inter-token latency yet.")


def _fits_verdict(results: Sequence[ResultFacts], target: float) -> Verdict:
    highest = None
    for result in results:
        concurrency = float_or_none(result.metrics.get("concurrency"), strings=False)
        if concurrency is None:
            continue
        highest = max(highest or 0.0, concurrency)
        if concurrency < target:
            continue
        failed = int(float_or_none(result.metrics.get("requests_failed"), strings=False) or 0)
        done = int(float_or_none(result.metrics.get("requests_completed"), strings=False) or 0)
        observed = f"concurrency {concurrency:g}: {failed:,} of {failed + done:,} failed"
        return Verdict(
            PASSED if failed == 0 else FAILED, f"{observed} ({result.label})", result.result_id
        )
    if highest is not None:
        return Verdict(PENDING, f"Highest concurrency measured {highest:g} (< {target:g}).")
    return Verdict(PENDING, "No result records its concurrency yet.")


def _memory_verdict(results: Sequence[ResultFacts], limit: float) -> Verdict:
    for result in results:
        peak = figures.peak_memory_mib(result.metrics)
        if peak is not None:
            used, total = peak
            share = used / total
            observed = f"peak {used:,.0f} of {total:,.0f} MiB ({share:.1%}) ({result.label})"
            return Verdict(PASSED if share <= limit else FAILED, observed, result.result_id)
    return Verdict(PENDING, "No GPU telemetry (nvidia-smi or DCGM) uploaded yet.")


def _presence_verdict(
    results: Sequence[ResultFacts], keys: Sequence[str], describe: str
) -> Verdict:
    for result in results:
        for key in keys:
            value = float_or_none(result.metrics.get(key), strings=False)
            if value is not None:
                return Verdict(PASSED, f"{key} = {value:,.4g} ({result.label})", result.result_id)
    return Verdict(PENDING, f"No result records {describe} yet.")


def _throughput_verdict(results: Sequence[ResultFacts]) -> Verdict:
    for result in results:
        per_gpu = figures.tokens_per_s_per_gpu(result.metrics, result.gpu_count)
        if per_gpu is not None:
            observed = f"{per_gpu:,.1f} output tok/s per GPU ({result.label})"
            return Verdict(PASSED, observed, result.result_id)
        assets = float_or_none(result.metrics.get("assets_per_hour"), strings=False)
        if assets is not None:
            return Verdict(PASSED, f"{assets:,.1f} assets/hour ({result.label})", result.result_id)
    return Verdict(PENDING, "No result records throughput yet.")


def _accepted_verdict(results: Sequence[ResultFacts]) -> Verdict:
    for result in results:
        if figures.has_acceptance_data(result.metrics):
            rate = figures.acceptance_rate(result.metrics)
            shown = f"acceptance {rate:.1%}" if rate is not None else "accepted outputs recorded"
            return Verdict(PASSED, f"{shown} ({result.label})", result.result_id)
    if results:
        return Verdict(
            FAILED, f"{len(results)} result(s) record generated outputs only, none accepted."
        )
    return Verdict(PENDING, "No result uploaded yet.")


def evaluate(
    spec: StepSpec, results: Sequence[ResultFacts], *, has_comparison_row: bool = False
) -> Verdict:
    """The verdict of an automatic step from the results that count (best evidence first)."""
    check, limit = spec.check, spec.threshold
    if check == "comparison_row":
        if has_comparison_row:
            return Verdict(PASSED, "In a finished comparison of this brief.")
        return Verdict(PENDING, "No finished comparison of this brief includes this candidate.")
    if check == "e2e_p99" and limit is not None:
        return _latency_verdict(results, spec, "e2e_ms", "p99", "p99 E2E")
    if check == "ttft_p95" and limit is not None:
        return _latency_verdict(results, spec, "ttft_ms", "p95", "p95 TTFT")
    if check == "itl_p95" and limit is not None:
        return _itl_verdict(results, spec)
    if check == "peak_memory" and limit is not None:
        return _memory_verdict(results, limit)
    if check == "fits_at_concurrency" and limit is not None:
        return _fits_verdict(results, limit)
    if check == "throughput":
        return _throughput_verdict(results)
    if check == "training_throughput":
        return _presence_verdict(results, ("tokens_per_s", "step_time_s"), "training throughput")
    if check == "time_to_target":
        return _presence_verdict(results, ("time_to_target_s",), "a time to target")
    if check == "checkpoint_write" and limit is not None:
        for result in results:
            value = float_or_none(result.metrics.get("checkpoint_write_s"), strings=False)
            if value is not None:
                status = PASSED if value <= limit else FAILED
                return Verdict(status, f"{value:,.1f} s ({result.label})", result.result_id)
        return Verdict(PENDING, "No result records a checkpoint write time yet.")
    if check == "accepted_outputs":
        return _accepted_verdict(results)
    return Verdict(PENDING)
