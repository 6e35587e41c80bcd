"""The benchmark plan of one candidate: the four phases of docs/domain.md as steps, from the brief.

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

from benchmarks.plan_rules.steps import plan_steps_for
from benchmarks.plan_rules.types import (
    AUTO,
    MANUAL,
    BriefFacts,
    ResultFacts,
)
from benchmarks.plan_rules.verdicts import evaluate

__all__ = [
    "AUTO",
    "MANUAL",
    "BriefFacts",
    "ResultFacts",
    "evaluate",
    "plan_steps_for",
]
