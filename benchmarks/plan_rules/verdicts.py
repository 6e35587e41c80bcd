"""Verdicts of automatic steps from uploaded results, best evidence first (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmarks import figures
from benchmarks.plan_rules.types import FAILED, PASSED, PENDING, ResultFacts, StepSpec, Verdict


def _ms(value: float) -> str:
    return f"{value:,.0f} ms"


def _number(metrics: dict[str, Any], key: str) -> float | None:
    value = metrics.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _latency_verdict(
    results: Sequence[ResultFacts], family: str, which: str, limit: float, label: str
) -> Verdict:
    for result in results:
        value = figures.percentile(result.metrics, family, which)
        if value is not None:
            status = PASSED if value <= limit else FAILED
            return Verdict(status, f"{label} {_ms(value)} ({result.label})", result.result_id)
    return Verdict(PENDING, f"No result records {label} yet.")


def _itl_verdict(results: Sequence[ResultFacts], limit: float) -> Verdict:
    for result in results:
        for family, label in (("tpot_ms", "p95 TPOT"), ("itl_ms", "p95 ITL")):
            value = figures.percentile(result.metrics, family, "p95")
            if value is not None:
                status = PASSED if value <= limit else FAILED
                return Verdict(status, f"{label} {_ms(value)} ({result.label})", result.result_id)
    return Verdict(PENDING, "No result records inter-token latency yet.")


def _fits_verdict(results: Sequence[ResultFacts], target: float) -> Verdict:
    highest = None
    for result in results:
        concurrency = _number(result.metrics, "concurrency")
        if concurrency is None:
            continue
        highest = max(highest or 0.0, concurrency)
        if concurrency < target:
            continue
        failed = int(_number(result.metrics, "requests_failed") or 0)
        done = int(_number(result.metrics, "requests_completed") or 0)
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
            value = _number(result.metrics, key)
            if value is not None:
                return Verdict(PASSED, f"{key} = {value:,.4g} ({result.label})", result.result_id)
    return Verdict(PENDING, f"No result records {describe} yet.")


def _throughput_verdict(results: Sequence[ResultFacts]) -> Verdict:
    for result in results:
        per_gpu = figures.tokens_per_s_per_gpu(result.metrics, result.gpu_count)
        if per_gpu is not None:
            observed = f"{per_gpu:,.1f} output tok/s per GPU ({result.label})"
            return Verdict(PASSED, observed, result.result_id)
        assets = _number(result.metrics, "assets_per_hour")
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
        return _latency_verdict(results, "e2e_ms", "p99", limit, "p99 E2E")
    if check == "ttft_p95" and limit is not None:
        return _latency_verdict(results, "ttft_ms", "p95", limit, "p95 TTFT")
    if check == "itl_p95" and limit is not None:
        return _itl_verdict(results, limit)
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
            value = _number(result.metrics, "checkpoint_write_s")
            if value is not None:
                status = PASSED if value <= limit else FAILED
                return Verdict(status, f"{value:,.1f} s ({result.label})", result.result_id)
        return Verdict(PENDING, "No result records a checkpoint write time yet.")
    if check == "accepted_outputs":
        return _accepted_verdict(results)
    return Verdict(PENDING)
