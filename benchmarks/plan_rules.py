"""The benchmark plan of one candidate: DOMAIN.md's four phases as steps, derived from the brief.

Pure: plain dataclasses in, step specs and verdicts out (no Django). Automatic steps are
judged from uploaded results (`evaluate`); manual ones are checked off by an engineer.

1. Memory fit: load the exact model at the intended precision, target context and batch;
   record peak memory and OOMs against the safe margin.
2. Throughput and latency: steady and bursty traffic; p50/p95/p99; TTFT for streaming;
   record accepted outputs, not just generated ones.
3. Failures and operations: kill a worker, drain a node, restart the serving stack, bad
   deploy, checkpoint recovery (training / fine-tuning), cold start, telemetry reaching
   platform / security / finance, cost attribution surviving retries.
4. Financial normalisation: one row per candidate in a comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks import figures

AUTO = "auto"
MANUAL = "manual"
PENDING, PASSED, FAILED = "pending", "passed", "failed"

TRAINING_CLASSES = frozenset({"training", "full_finetune", "adapter_finetune"})
SERVING_CLASSES = frozenset(
    {"batch_inference", "realtime_inference", "retrieval", "evaluation", "media"}
)


@dataclass(frozen=True, slots=True)
class BriefFacts:
    """What the plan needs from a workload brief."""

    workload_class: str
    model_name: str = ""
    weight_precision: str = ""
    p95_context_tokens: int | None = None
    concurrency: int | None = None
    batch_size: int | None = None
    streaming: bool = True
    ttft_p95_ms: float | None = None
    itl_p95_ms: float | None = None
    e2e_p99_ms: float | None = None
    peak_to_average: float | None = None
    checkpoint_write_s: float | None = None


@dataclass(frozen=True, slots=True)
class StepSpec:
    """One step: `check` names the automatic rule (None for manual steps)."""

    phase: int
    code: str
    title: str
    criterion: str
    kind: str
    check: str | None = None
    threshold: float | None = None


@dataclass(frozen=True, slots=True)
class ResultFacts:
    """One parsed result that counts for the plan (best evidence first)."""

    result_id: int
    label: str
    metrics: dict[str, Any]
    gpu_count: int


@dataclass(frozen=True, slots=True)
class Verdict:
    status: str
    observed: str = ""
    result_id: int | None = None


def _ms(value: float) -> str:
    return f"{value:,.0f} ms"


def _memory_fit_steps(brief: BriefFacts) -> list[StepSpec]:
    where = (
        f"{brief.model_name or 'the model'} at {brief.weight_precision.upper() or 'its precision'}"
    )
    steps = [
        StepSpec(
            1,
            "p1-peak-memory",
            "Peak memory under the safe margin",
            f"Load {where}; record peak GPU memory (nvidia-smi or DCGM), fragmentation and "
            "OOM count: peak stays below usable memory minus the safety margin.",
            MANUAL,
        )
    ]
    if brief.concurrency and brief.workload_class not in TRAINING_CLASSES:
        context = f"{brief.p95_context_tokens:,} tokens" if brief.p95_context_tokens else "p95"
        steps.append(
            StepSpec(
                1,
                "p1-fits-at-concurrency",
                "Fits at p95 context and target concurrency",
                f"A run at concurrency ≥ {brief.concurrency} with p95 context ({context}) "
                "completes with no failed requests (OOMs show up as failures).",
                AUTO,
                "fits_at_concurrency",
                float(brief.concurrency),
            )
        )
    elif brief.workload_class in TRAINING_CLASSES:
        steps.append(
            StepSpec(
                1,
                "p1-fits-training-state",
                "Training state fits at the target sequence length and batch",
                "Weights, gradients, optimizer states and activations fit with the chosen "
                "sharding at the target sequence length and global batch, without offload.",
                MANUAL,
            )
        )
    return steps


def _serving_steps(brief: BriefFacts) -> list[StepSpec]:
    steps = []
    if brief.e2e_p99_ms:
        steps.append(
            StepSpec(
                2,
                "p2-e2e-p99",
                f"p99 end-to-end ≤ {_ms(brief.e2e_p99_ms)}",
                f"Measured p99 end-to-end latency is at most the brief's {_ms(brief.e2e_p99_ms)}.",
                AUTO,
                "e2e_p99",
                float(brief.e2e_p99_ms),
            )
        )
    if brief.ttft_p95_ms and brief.streaming:
        steps.append(
            StepSpec(
                2,
                "p2-ttft-p95",
                f"p95 TTFT ≤ {_ms(brief.ttft_p95_ms)}",
                f"Measured p95 time to first token is at most {_ms(brief.ttft_p95_ms)}.",
                AUTO,
                "ttft_p95",
                float(brief.ttft_p95_ms),
            )
        )
    if brief.itl_p95_ms and brief.streaming:
        steps.append(
            StepSpec(
                2,
                "p2-itl-p95",
                f"p95 inter-token latency ≤ {_ms(brief.itl_p95_ms)}",
                "Measured p95 time per output token (TPOT; per-chunk ITL when TPOT is absent) "
                f"is at most {_ms(brief.itl_p95_ms)}.",
                AUTO,
                "itl_p95",
                float(brief.itl_p95_ms),
            )
        )
    steps.append(
        StepSpec(
            2,
            "p2-throughput",
            "Throughput per GPU measured",
            "A result records output tokens/s (or assets/hour) so the cost per accepted "
            "output uses a measured figure, not an estimate.",
            AUTO,
            "throughput",
        )
    )
    return steps


def _training_steps(brief: BriefFacts) -> list[StepSpec]:
    steps = [
        StepSpec(
            2,
            "p2-training-throughput",
            "Step time and tokens/s measured",
            "A training result records step time or tokens/s on the candidate's topology.",
            AUTO,
            "training_throughput",
        ),
        StepSpec(
            2,
            "p2-time-to-target",
            "Time to the target eval score recorded",
            "A result records the time to reach the target eval score (e.g. an MLPerf log).",
            AUTO,
            "time_to_target",
        ),
    ]
    if brief.checkpoint_write_s:
        steps.append(
            StepSpec(
                2,
                "p2-checkpoint-write",
                f"Checkpoint write ≤ {brief.checkpoint_write_s:,.0f} s",
                "Measured checkpoint write time is at most the brief's "
                f"{brief.checkpoint_write_s:,.0f} s.",
                AUTO,
                "checkpoint_write",
                float(brief.checkpoint_write_s),
            )
        )
    return steps


def _throughput_latency_steps(brief: BriefFacts) -> list[StepSpec]:
    training = brief.workload_class in TRAINING_CLASSES
    steps = _training_steps(brief) if training else _serving_steps(brief)
    if not training:
        peak = f"{brief.peak_to_average:g}× " if brief.peak_to_average else ""
        steps.append(
            StepSpec(
                2,
                "p2-bursty-traffic",
                "Steady and bursty traffic",
                f"Runs at steady load and at the brief's {peak}peak-to-average burst; note the "
                "error rate and retry amplification under bursts.",
                MANUAL,
            )
        )
    steps.append(
        StepSpec(
            2,
            "p2-accepted-outputs",
            "Accepted outputs recorded",
            "A result records accepted outputs (after quality and safety filters, retries and "
            "failures), not just generated ones.",
            AUTO,
            "accepted_outputs",
        )
    )
    return steps


_OPERATIONS: tuple[tuple[str, str, str, frozenset[str] | None], ...] = (
    (
        "p3-kill-worker",
        "Kill a worker",
        "Kill a worker mid-load; record errors and recovery time.",
        None,
    ),
    (
        "p3-drain-node",
        "Drain a node",
        "Drain a node; work moves without loss; record impact.",
        None,
    ),
    (
        "p3-restart-serving",
        "Restart the serving stack",
        "Restart the serving stack under load; record downtime and failed requests.",
        SERVING_CLASSES,
    ),
    (
        "p3-bad-deploy",
        "Simulate a bad deploy",
        "Roll out a broken version and roll it back; record detection and rollback time.",
        SERVING_CLASSES,
    ),
    (
        "p3-checkpoint-recovery",
        "Checkpoint recovery",
        "Kill the job and resume from the last checkpoint; record restore time and lost work.",
        TRAINING_CLASSES,
    ),
    (
        "p3-cold-start",
        "Cold start and model-load time",
        "Measure time from an empty node to serving (or training) the first request/step.",
        None,
    ),
    (
        "p3-telemetry",
        "Logs and metrics reach platform, security and finance",
        "GPU utilisation, memory, queue wait, latency, errors and spend reach each team.",
        None,
    ),
    (
        "p3-cost-attribution",
        "Cost attribution survives retries and failures",
        "Retried and failed work is still attributed to the right team and budget.",
        None,
    ),
)


def _operations_steps(brief: BriefFacts) -> list[StepSpec]:
    return [
        StepSpec(3, code, title, criterion, MANUAL)
        for code, title, criterion, classes in _OPERATIONS
        if classes is None or brief.workload_class in classes
    ]


def plan_steps_for(brief: BriefFacts) -> list[StepSpec]:
    """Every step of a candidate's plan, in phase order, with criteria from the brief."""
    return [
        *_memory_fit_steps(brief),
        *_throughput_latency_steps(brief),
        *_operations_steps(brief),
        StepSpec(
            4,
            "p4-normalised-row",
            "One normalised row per candidate in a comparison",
            "A finished comparison of this brief holds this candidate's row (cost lines, "
            "unit cost, warnings), so finance, platform and product can inspect it.",
            AUTO,
            "comparison_row",
        ),
    ]


# --- Automatic verdicts ----------------------------------------------------------------------


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
