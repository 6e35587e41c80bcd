"""The cost-line taxonomy: the one list of a row's cost lines, in their order, with their labels.

Pure Python (no Django), like the workload taxonomy: the engine writes these names, and the
tables, the charts, the exports, the number filters and the FinOps forecast read them from
here. The formulas are the engine's (engine/cost/lines.py); docs/engine/cost-model.md says
how to add a line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CostLine:
    name: str
    label: str
    # On a provider's bill: the team's own labour and tools are not (FinOps reconciliation).
    billed: bool = True
    # Capacity paid for and not used (FinOps utilisation).
    idle: bool = False
    # On a model API route's bill too: a route's storage is the team's own object storage at
    # the storage default, which the API vendor neither sells nor bills.
    api_route_bills: bool = True


COST_LINES: tuple[CostLine, ...] = (
    CostLine("gpu_compute", "GPU compute"),
    CostLine("gpu_cost", "GPU cost"),
    CostLine("api_compute", "API usage"),
    CostLine("retry_waste", "Retry waste"),
    CostLine("failed_renders", "Failed renders"),
    CostLine("interruption_rework", "Interruption rework"),
    CostLine("idle_capacity", "Idle capacity", idle=True),
    CostLine("term_beyond_horizon", "Term not used (beyond the horizon, or the run)"),
    CostLine("overage", "Overage past the commitment"),
    CostLine("queue_overhead", "Queue overhead", idle=True),
    CostLine("checkpointing", "Checkpointing"),
    CostLine("failed_run_waste", "Failed-run waste"),
    CostLine("storage", "Storage", api_route_bills=False),
    CostLine("network", "Network"),
    CostLine("serving_stack", "Serving stack", billed=False),
    CostLine("moderation_or_quality_filtering", "Moderation / quality filtering"),
    CostLine("operator_review", "Operator review"),
    CostLine("observability", "Observability", billed=False),
    CostLine("platform_labor", "Platform labour", billed=False),
)

LINE_ORDER: tuple[str, ...] = tuple(line.name for line in COST_LINES)
LINE_LABELS: dict[str, str] = {line.name: line.label for line in COST_LINES}
NOT_BILLED_LINES: tuple[str, ...] = tuple(line.name for line in COST_LINES if not line.billed)
IDLE_LINES: tuple[str, ...] = tuple(line.name for line in COST_LINES if line.idle)
API_ROUTE_UNBILLED_LINES: tuple[str, ...] = tuple(
    line.name for line in COST_LINES if line.billed and not line.api_route_bills
)


def ordered_names(names: Iterable[str]) -> list[str]:
    """``names`` in the registry's order, then any the registry does not know (a line of an
    older engine version still shows, and still adds up), sorted."""
    present = set(names)
    return [n for n in LINE_ORDER if n in present] + sorted(present - set(LINE_ORDER))
