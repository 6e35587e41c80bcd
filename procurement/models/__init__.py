"""Models of the decisions app, re-exported so `procurement.models.X` works."""

from procurement.models.comparisons import CandidateResult, Comparison, Review
from procurement.models.plans import PlanPart
from procurement.models.price_changes import PriceChange
from procurement.models.system import Heartbeat, WorkerProbe

__all__ = [
    "CandidateResult",
    "Comparison",
    "Heartbeat",
    "PlanPart",
    "PriceChange",
    "Review",
    "WorkerProbe",
]
