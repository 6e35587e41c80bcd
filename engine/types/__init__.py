"""Plain dataclasses in and out of the cost engine (docs/domain.md, "Step 2 — the denominator").

Inputs are validated at construction and raise ``EngineInputError(field, message)``:

- ``Range(low, likely, high)`` is a triangular assumption, ``low ≤ likely ≤ high``;
- money is ``decimal.Decimal`` (an ``int`` is accepted and converted, a ``float`` refused);
- units are in the names: ``_per_gpu_hour``, ``_per_month``, ``_gb``, ``_ms``, ``_h``, ``_s``.

A month is ``HOURS_PER_MONTH = 730`` hours (8,760 / 12). Every output dataclass has
``to_dict()`` returning JSON-ready data: Decimals as plain strings, tuples as lists,
non-finite floats as ``None``.

The definitions live by concept: ``types_common`` (literals, sets, units, ``Range``, JSON),
``types_input`` (workload, candidates, comparison input) and ``types_output`` (outcomes,
statistics, tornado, break-even, comparison output); import them from here.
"""

from __future__ import annotations

from engine.types.common import (
    CENT,
    ELASTIC_CAPACITY,
    FIXED_CAPACITY,
    HOURS_PER_MONTH,
    INFERENCE_CLASSES,
    SECONDS_PER_HOUR,
    TRAINING_CLASSES,
    WORKLOAD_CLASSES,
    JsonMixin,
    JSONValue,
    Range,
    Severity,
    to_jsonable,
)
from engine.types.input import (
    ApiPricing,
    CandidateInput,
    ComparisonInput,
    MediaSpec,
    PurchaseSpec,
    TrainingSpec,
    WorkloadInput,
)
from engine.types.output import (
    BreakevenCurve,
    BreakevenResult,
    CandidateOutcome,
    CandidateStats,
    ComparisonOutput,
    Crossing,
    EngineWarning,
    MonteCarloResult,
    PointEstimate,
    Tornado,
    TornadoEntry,
    TrainingDetail,
)

__all__ = [
    "CENT",
    "ELASTIC_CAPACITY",
    "FIXED_CAPACITY",
    "HOURS_PER_MONTH",
    "INFERENCE_CLASSES",
    "SECONDS_PER_HOUR",
    "TRAINING_CLASSES",
    "WORKLOAD_CLASSES",
    "ApiPricing",
    "BreakevenCurve",
    "BreakevenResult",
    "CandidateInput",
    "CandidateOutcome",
    "CandidateStats",
    "ComparisonInput",
    "ComparisonOutput",
    "Crossing",
    "EngineWarning",
    "JSONValue",
    "JsonMixin",
    "MediaSpec",
    "MonteCarloResult",
    "PointEstimate",
    "PurchaseSpec",
    "Range",
    "Severity",
    "Tornado",
    "TornadoEntry",
    "TrainingDetail",
    "TrainingSpec",
    "WorkloadInput",
    "to_jsonable",
]
