"""One candidate judged once: its blocking reasons, warnings, point estimate and fleet.

The configuration choice and the ranking both call ``assess``, so a configuration is kept
for the same reasons the ranking later accepts it. Capacity: the whole fleet at peak must
fit the GPUs the offer has (``max_gpus_available``), not only one replica; an offer that
does not state its capacity is warned about above ``capacity_unstated_warn_gpus`` GPUs.
A spot or preemptible fleet serving a real-time class is warned about: the provider may
reclaim it under load.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from core import workloads
from engine import cost
from engine.cost import contracts
from engine.deployments.fleet import Fleet, fleet_of, plural
from engine.errors import EngineInputError
from engine.types import (
    HOURS_PER_MONTH,
    CandidateInput,
    EngineWarning,
    PointEstimate,
    WorkloadInput,
)
from engine.warnings import candidate_warnings

CAPACITY_NOT_STATED = "CAPACITY_NOT_STATED"
# R6: the capacity a fleet relies on is whatever the offer states; until evidence backs it the
# row says so, so an inflated claim is not read as a fact.
CAPACITY_VENDOR_STATED = "CAPACITY_VENDOR_STATED"
SPOT_FOR_REALTIME = "SPOT_FOR_REALTIME"
SPOT_WORDS = (
    "spot capacity can be reclaimed at any time: a real-time service on it loses replicas "
    "under load unless it can fall back to other capacity"
)
REALTIME = frozenset(workloads.REALTIME)


@dataclass(frozen=True, slots=True)
class Assessment:
    reasons: tuple[str, ...]
    warnings: tuple[EngineWarning, ...]
    estimate: PointEstimate | None
    fleet: Fleet | None = None

    @property
    def eligible(self) -> bool:
        return not self.reasons and self.estimate is not None


def capacity_reason(cand: CandidateInput, fleet: Fleet) -> str | None:
    """Why the peak fleet does not fit the offer's stated capacity (None: it fits)."""
    cap = cand.max_gpus_available
    if cap is None or fleet.gpus_peak <= cap:
        return None
    node = fleet.gpus_per_node
    if node > 1:
        return (
            f"needs {plural(fleet.nodes_peak, 'node')} ({plural(fleet.gpus_peak, 'GPU')}) at "
            f"peak; {cand.label} offers {plural(cap // node, 'node')} ({plural(cap, 'GPU')})"
        )
    return f"needs {plural(fleet.gpus_peak, 'GPU')} at peak; {cand.label} offers {cap:,}"


def _fleet_warnings(
    workload: WorkloadInput, cand: CandidateInput, fleet: Fleet
) -> list[tuple[str, str | None]]:
    """(code, detail or None) of the warnings the fleet and the offer's terms raise."""
    need = f"the fleet needs {plural(fleet.gpus_peak, 'GPU')} at peak"
    capacity = (
        (
            CAPACITY_NOT_STATED,
            f"{need} and the offer does not state how many it has: ask the vendor before approving",
        )
        if cand.max_gpus_available is None
        else (
            CAPACITY_VENDOR_STATED,
            f"{need} and relies on the offer's stated {cand.max_gpus_available:,} GPUs available: "
            "vendor-stated, not verified; confirm the capacity before approving",
        )
    )
    price = Decimal(cand.price_per_gpu_hour or 0)
    billed = max(fleet.gpus_peak, -int(-cand.min_commitment_gpu_hours_per_month // HOURS_PER_MONTH))
    spot = cand.capacity_model == "spot" and workload.workload_class in REALTIME
    return [
        capacity if fleet.gpus_peak > workload.capacity_unstated_warn_gpus else ("", None),
        (contracts.UNIT_OF_SALE_NOT_STATED, contracts.unit_of_sale_warning(cand, billed, price)),
        (contracts.CAPACITY_STARTS_LATE, contracts.capacity_start_warning(workload, cand)),
        (SPOT_FOR_REALTIME, SPOT_WORDS if spot else None),
    ]


def contract_reasons(workload: WorkloadInput, cand: CandidateInput) -> list[str]:
    """What the offer cannot deliver as bought: an expired price (P19), capacity that starts
    after the horizon (P5), a peak above an API route's rate limits (P10)."""
    found = [contracts.expired_reason(cand), contracts.capacity_start_reason(workload, cand)]
    return [r for r in found if r] + contracts.rate_limit_reasons(workload, cand)


def assess(workload: WorkloadInput, cand: CandidateInput) -> Assessment:
    """Reasons that block the row, its warnings, its point estimate and its fleet."""
    found = list(candidate_warnings(workload, cand))
    reasons = [w.detail for w in found if w.severity == "block"]
    reasons += [r for r in cand.ineligible_reasons if r]
    reasons += contract_reasons(workload, cand)
    estimate: PointEstimate | None = None
    fleet: Fleet | None = None
    if workload.is_training and cand.is_api:
        reasons.append("model API routes are compared for inference and media, not training")
    else:
        try:
            estimate = cost.point_estimate(workload, cand)
            fleet = fleet_of(workload, cand, estimate)
        except EngineInputError as exc:
            reasons.append(f"cannot be costed: {exc.message}")
    said = [] if fleet is None else _fleet_warnings(workload, cand, fleet)
    if fleet is not None and (why := capacity_reason(cand, fleet)) is not None:
        reasons.append(why)
    said += [
        (contracts.RATE_LIMIT_NOT_STATED, contracts.rate_limit_warning(workload, cand)),
        (contracts.ROUTE_PRECISION_DIFFERS, contracts.route_precision_warning(cand)),
    ]
    found += [EngineWarning(code, cand.id, detail) for code, detail in said if detail]
    return Assessment(tuple(reasons), tuple(found), estimate, fleet)
