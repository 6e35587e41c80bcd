"""Plain types and constants of the benchmark plan rules (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmarks.latency_verdict import Targets
from core import workloads

AUTO = "auto"
MANUAL = "manual"
PENDING, PASSED, FAILED = "pending", "passed", "failed"

# Peak GPU memory must stay this far below capacity (spikes, fragmentation): docs/domain.md's
# "safe margin". A stated default, shown in the step's criterion.
SAFE_MEMORY_MARGIN = 0.10

# Everything that is not training produces outputs a plan measures by serving them.
SERVING_CLASSES = workloads.SERVING | workloads.MEDIA


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
    """One step: `check` names the automatic rule (None for manual steps).

    `targets` is set on latency steps: every objective of the brief, to read a sweep against
    all of them at once, as the comparison engine costs it (one operating point has to meet
    every target, not each target at some point of its own).
    """

    phase: int
    code: str
    title: str
    criterion: str
    kind: str
    check: str | None = None
    threshold: float | None = None
    targets: Targets | None = None


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
