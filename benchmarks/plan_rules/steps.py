"""Step specs of a candidate's plan, derived from the brief (pure)."""

from __future__ import annotations

from benchmarks.latency_verdict import Targets
from benchmarks.plan_rules.types import (
    AUTO,
    MANUAL,
    SAFE_MEMORY_MARGIN,
    SERVING_CLASSES,
    BriefFacts,
    StepSpec,
)
from core import workloads


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
            f"Load {where} and upload GPU telemetry (nvidia-smi CSV or DCGM) from the run: "
            f"peak memory stays at most {1 - SAFE_MEMORY_MARGIN:.0%} of GPU memory "
            f"({SAFE_MEMORY_MARGIN:.0%} safety margin for spikes and fragmentation).",
            AUTO,
            "peak_memory",
            1 - SAFE_MEMORY_MARGIN,
        )
    ]
    if brief.concurrency and brief.workload_class not in workloads.TRAINING:
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
    elif brief.workload_class in workloads.TRAINING:
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


_SWEEP = " A sweep passes at an operating point that meets every latency target of the brief."


def _targets(brief: BriefFacts) -> Targets:
    # The engine's service level: every target the brief states, streaming or not.
    return Targets(
        ttft_p95_ms=brief.ttft_p95_ms,
        itl_p95_ms=brief.itl_p95_ms,
        e2e_p99_ms=brief.e2e_p99_ms,
        realtime=brief.workload_class in workloads.REALTIME,
    )


def _serving_steps(brief: BriefFacts) -> list[StepSpec]:
    steps = []
    targets = _targets(brief)
    if brief.e2e_p99_ms:
        steps.append(
            StepSpec(
                2,
                "p2-e2e-p99",
                f"p99 end-to-end ≤ {_ms(brief.e2e_p99_ms)}",
                f"Measured p99 end-to-end latency is at most the brief's {_ms(brief.e2e_p99_ms)}."
                + _SWEEP,
                AUTO,
                "e2e_p99",
                float(brief.e2e_p99_ms),
                targets,
            )
        )
    if brief.ttft_p95_ms and brief.streaming:
        steps.append(
            StepSpec(
                2,
                "p2-ttft-p95",
                f"p95 TTFT ≤ {_ms(brief.ttft_p95_ms)}",
                f"Measured p95 time to first token is at most {_ms(brief.ttft_p95_ms)}." + _SWEEP,
                AUTO,
                "ttft_p95",
                float(brief.ttft_p95_ms),
                targets,
            )
        )
    if brief.itl_p95_ms and brief.streaming:
        steps.append(
            StepSpec(
                2,
                "p2-itl-p95",
                f"p95 inter-token latency ≤ {_ms(brief.itl_p95_ms)}",
                "Measured p95 time per output token (TPOT; per-chunk ITL when TPOT is absent) "
                f"is at most {_ms(brief.itl_p95_ms)}." + _SWEEP,
                AUTO,
                "itl_p95",
                float(brief.itl_p95_ms),
                targets,
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
    training = brief.workload_class in workloads.TRAINING
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
        workloads.TRAINING,
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
