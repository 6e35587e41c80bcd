"""The engine's shared vocabulary: literals, class and capacity sets, units, validation
helpers, ``Range`` and the JSON conversion every dataclass uses (re-exported by types.py).
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal, TypeAlias, get_args

from core import workloads
from core.workloads import WorkloadClassName
from engine.errors import EngineInputError

# The brief's own spelling, from the one taxonomy (core.workloads).
WorkloadClass = WorkloadClassName
CapacityModel = Literal[
    "on_demand",
    "spot",
    "marketplace",
    "reserved",
    "dedicated_cluster",
    "private_cloud",
    "managed_endpoint",
    "purchase",
    "api",
]
CandidateKind = Literal["gpu", "api"]
PerfSource = Literal["measured", "estimated", "proxy", "published"]
ThroughputUnit = Literal["tokens_per_s", "outputs_per_s"]
Severity = Literal["info", "warn", "block"]
JSONValue: TypeAlias = Any

WORKLOAD_CLASSES: frozenset[str] = workloads.ALL
CAPACITY_MODELS: frozenset[str] = frozenset(get_args(CapacityModel))
TRAINING_CLASSES = workloads.TRAINING
INFERENCE_CLASSES = workloads.SERVING
# Billed by use: billed GPU-hours = work / utilisation (docs/domain.md, "Rent, reserve, buy").
ELASTIC_CAPACITY = frozenset({"on_demand", "spot", "marketplace", "managed_endpoint"})
# Billed by the hour whether used or not: replicas sized for the peak, all month.
FIXED_CAPACITY = frozenset({"reserved", "dedicated_cluster", "private_cloud", "purchase"})
# The provider runs drivers, CUDA and the serving stack: only vendor management remains.
MANAGED_CAPACITY = frozenset({"managed_endpoint", "api"})

HOURS_PER_MONTH = Decimal(730)
SECONDS_PER_HOUR = Decimal(3600)
CENT = Decimal("0.01")


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _finite(
    owner: object,
    name: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
) -> None:
    """Check ``owner.name`` is a finite number within [lo, hi] (``lo_open``: lo excluded)."""
    value = getattr(owner, name)
    if not _is_number(value) or not math.isfinite(value):
        raise EngineInputError(name, f"must be a finite number, got {value!r}")
    if lo is not None and (value <= lo if lo_open else value < lo):
        raise EngineInputError(name, f"must be {'>' if lo_open else '≥'} {lo:g}, got {value!r}")
    if hi is not None and value > hi:
        raise EngineInputError(name, f"must be ≤ {hi:g}, got {value!r}")


def _money(owner: object, name: str, *, optional: bool = False) -> None:
    """Normalise ``owner.name`` to a non-negative finite Decimal (ints accepted, floats not)."""
    value = getattr(owner, name)
    if value is None and optional:
        return
    if isinstance(value, int) and not isinstance(value, bool):
        value = Decimal(value)
        object.__setattr__(owner, name, value)
    if not isinstance(value, Decimal):
        raise EngineInputError(name, f"must be a Decimal (money is never a float), got {value!r}")
    if not value.is_finite() or value < 0:
        raise EngineInputError(name, f"must be a finite amount ≥ 0, got {value}")


def _range(
    owner: object,
    name: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    optional: bool = False,
) -> None:
    value = getattr(owner, name)
    if value is None and optional:
        return
    if not isinstance(value, Range):
        raise EngineInputError(name, f"must be a Range(low, likely, high), got {value!r}")
    if lo is not None and (value.low <= lo if lo_open else value.low < lo):
        raise EngineInputError(name, f"low must be {'>' if lo_open else '≥'} {lo:g}, got {value}")
    if hi is not None and value.high > hi:
        raise EngineInputError(name, f"high must be ≤ {hi:g}, got {value}")


def to_jsonable(value: object) -> JSONValue:
    """Convert engine values to JSON-ready data (Decimal → str without exponent)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | frozenset | set):
        return [to_jsonable(v) for v in value]
    raise TypeError(f"cannot convert {type(value).__name__} to JSON")


class JsonMixin:
    """``to_dict()`` for the engine's dataclasses."""

    __slots__ = ()

    def to_dict(self) -> dict[str, JSONValue]:
        data = to_jsonable(self)
        assert isinstance(data, dict)  # noqa: S101 - every user of the mixin is a dataclass
        return data


@dataclass(frozen=True, slots=True)
class Range(JsonMixin):
    """A triangular assumption: low ≤ likely ≤ high (all finite)."""

    low: float
    likely: float
    high: float

    def __post_init__(self) -> None:
        for name in ("low", "likely", "high"):
            _finite(self, name)
            object.__setattr__(self, name, float(getattr(self, name)))
        if not self.low <= self.likely <= self.high:
            bad = "low" if self.low > self.likely else "high"
            raise EngineInputError(
                bad,
                f"range must satisfy low ≤ likely ≤ high, got "
                f"({self.low:g}, {self.likely:g}, {self.high:g})",
            )

    @classmethod
    def fixed(cls, value: float) -> Range:
        return cls(value, value, value)

    @property
    def is_fixed(self) -> bool:
        return self.low == self.high
