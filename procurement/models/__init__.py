"""Models of the decision app, re-exported so `procurement.models.X` works."""

from procurement.models.briefs import (
    INFERENCE_CLASSES,
    TRAINING_CLASSES,
    OperatingModel,
    Precision,
    WorkloadBrief,
    WorkloadClass,
)
from procurement.models.comparisons import CandidateResult, Comparison, Review
from procurement.models.system import WorkerProbe

__all__ = [
    "INFERENCE_CLASSES",
    "TRAINING_CLASSES",
    "CandidateResult",
    "Comparison",
    "OperatingModel",
    "Precision",
    "Review",
    "WorkerProbe",
    "WorkloadBrief",
    "WorkloadClass",
]
