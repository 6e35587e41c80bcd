"""Inputs and outputs of the mixed-fleet optimiser (mixed.py): small, self-contained
dataclasses, fed by mixed_adapter.py from the comparison's candidates.

Conventions: money is Decimal; throughput is accepted outputs per replica-hour at the
service level of the request-size bucket (a configuration lists only the buckets whose
service level it meets); GPUs are whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from engine.errors import EngineInputError
from engine.trace.loadcurve import LoadCurve
from engine.types.common import JsonMixin

PlanCapacity = Literal["fixed", "elastic", "api"]
PlanStatus = Literal["optimal", "time_limit", "single", "infeasible"]
PLAN_CAPACITIES = ("fixed", "elastic", "api")


@dataclass(frozen=True, slots=True)
class PlanBucket(JsonMixin):
    """A request-size bucket: its name ("short", "long") and share of the accepted outputs."""

    name: str
    share: float

    def __post_init__(self) -> None:
        if not self.name:
            raise EngineInputError("bucket", "a bucket needs a name")
        if not 0 < self.share <= 1:
            raise EngineInputError("bucket", f"share of {self.name!r} must be in (0, 1]")


@dataclass(frozen=True, slots=True)
class PlanConfig(JsonMixin):
    """One configuration of an offer: GPUs per replica and, per bucket whose service level
    it meets, the accepted outputs one replica delivers per hour (API: price per output)."""

    id: str
    gpus_per_replica: int = 1
    outputs_per_hour: Mapping[str, float] = field(default_factory=dict)
    api_price_per_output: Mapping[str, Decimal] = field(default_factory=dict)
    label: str = ""

    def __post_init__(self) -> None:
        if self.gpus_per_replica < 0:
            raise EngineInputError("gpus_per_replica", f"config {self.id!r}: must be ≥ 0")
        for bucket, rate in self.outputs_per_hour.items():
            if not rate > 0:
                raise EngineInputError("outputs_per_hour", f"{self.id!r}/{bucket}: must be > 0")
        for bucket, price in self.api_price_per_output.items():
            if not isinstance(price, Decimal) or price < 0:
                raise EngineInputError("api_price_per_output", f"{self.id!r}/{bucket}")

    def buckets(self) -> frozenset[str]:
        return frozenset(self.outputs_per_hour) | frozenset(self.api_price_per_output)


@dataclass(frozen=True, slots=True)
class PlanOffer(JsonMixin):
    """An offer (a quote or an API route) the plan may use, with its configurations.

    ``fixed``: whole replicas billed every hour of the month for the term; ``elastic``:
    billed GPU-hours = work / utilisation; ``api``: billed per accepted output. A monthly
    commitment (GPU-hours) is a fixed charge paid as soon as the offer is used, and so is
    ``fixed_monthly`` (network, serving stack of that vendor)."""

    id: str
    capacity: PlanCapacity
    configs: tuple[PlanConfig, ...]
    label: str = ""
    price_per_gpu_hour: Decimal = Decimal(0)
    max_gpus: int | None = None  # the vendor's stated capacity; None: not limited
    gpus_per_node: int = 8
    whole_nodes: bool = False  # owned hardware: held in whole nodes
    min_commitment_gpu_hours: Decimal = Decimal(0)  # per month
    term_months: int = 0
    fixed_monthly: Decimal = Decimal(0)
    utilisation: float = 1.0  # elastic: busy share of the billed hours
    eligible: bool = True
    # Fixed terms past the brief's horizon (cost.term_beyond_horizon_share): the price above
    # already carries them, × (1 + share), as the rows' term_beyond_horizon line; the
    # contract a vendor's part commits is at the quoted price.
    stranded_share: Decimal = Decimal(0)
    # Per GPU-hour billed past the commitment (cost.overage_premium), added when the plan is
    # costed in Decimal as on the row's overage line; the solver prices hours at the price.
    overage_premium: Decimal = Decimal(0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "configs", tuple(self.configs))
        if self.capacity not in PLAN_CAPACITIES:
            raise EngineInputError("capacity", f"offer {self.id!r}: unknown {self.capacity!r}")
        if not self.configs:
            raise EngineInputError("configs", f"offer {self.id!r}: needs a configuration")
        if self.max_gpus is not None and self.max_gpus < 0:
            raise EngineInputError("max_gpus", f"offer {self.id!r}: must be ≥ 0")
        if not 0 < self.utilisation <= 1:
            raise EngineInputError("utilisation", f"offer {self.id!r}: must be in (0, 1]")
        if self.gpus_per_node < 1:
            raise EngineInputError("gpus_per_node", f"offer {self.id!r}: must be ≥ 1")
        for name in (
            "price_per_gpu_hour",
            "min_commitment_gpu_hours",
            "fixed_monthly",
            "stranded_share",
        ):
            value = getattr(self, name)
            if not isinstance(value, Decimal) or value < 0:
                raise EngineInputError(name, f"offer {self.id!r}: a Decimal ≥ 0")


@dataclass(frozen=True, slots=True)
class PlanDemand(JsonMixin):
    """The brief: accepted outputs a month, its peak-to-average and its request sizes."""

    monthly_outputs: float
    peak_to_average: float = 1.0
    buckets: tuple[PlanBucket, ...] = (PlanBucket("all", 1.0),)
    layers: int = 10  # slices of the load-duration curve (1 when flat)
    # A traffic trace's load per interval (its shape only): the load-duration curve in place
    # of the analytic one, whose peak-to-average it then sets (engine/trace/loadcurve.py).
    load_shape: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "buckets", tuple(self.buckets))
        if self.load_shape:
            try:
                curve = LoadCurve.of(self.load_shape)
            except ValueError as exc:
                raise EngineInputError("load_shape", str(exc)) from exc
            object.__setattr__(self, "load_shape", curve.loads)
            object.__setattr__(self, "peak_to_average", max(1.0, curve.peak_to_average))
        if not self.monthly_outputs > 0:
            raise EngineInputError("monthly_outputs", "must be > 0")
        if not self.peak_to_average >= 1:
            raise EngineInputError("peak_to_average", "must be ≥ 1")
        if abs(sum(b.share for b in self.buckets) - 1) > 1e-9:
            raise EngineInputError("buckets", "the shares must add up to 1")
        if len({b.name for b in self.buckets}) != len(self.buckets):
            raise EngineInputError("buckets", "bucket names must differ")
        if self.layers < 1:
            raise EngineInputError("layers", "must be ≥ 1")


@dataclass(frozen=True, slots=True)
class PlanLine(JsonMixin):
    """One (offer, configuration) in the plan."""

    offer_id: str
    config_id: str
    label: str
    capacity: PlanCapacity
    role: Literal["base", "overflow"]
    replicas: int  # fixed: whole replicas held; elastic and API: 0
    gpus: int  # fixed: GPUs held; elastic: GPUs at the peak
    billed_gpu_hours: Decimal
    monthly_cost: Decimal  # this configuration's compute (the vendor's fixed charges aside)
    traffic_share: float  # of all accepted outputs
    bucket_shares: dict[str, float]  # of each bucket's accepted outputs


@dataclass(frozen=True, slots=True)
class PlanVendorPart(JsonMixin):
    """One offer's part of the plan: what it costs a month and what it commits."""

    offer_id: str
    label: str
    capacity: PlanCapacity
    monthly_cost: Decimal  # its lines + commitment shortfall + fixed monthly charges
    committed_gpu_hours_per_month: Decimal  # fixed: hours held; others: the commitment
    term_months: int
    commitment_total: Decimal  # committed hours × price × term (0 without a term)


@dataclass(frozen=True, slots=True)
class MixedPlan(JsonMixin):
    """The cheapest plan across offers, or why there is none."""

    status: PlanStatus
    outcome: str  # the solver's outcome in words
    reason: str = ""  # when infeasible
    lines: tuple[PlanLine, ...] = ()
    vendors: tuple[PlanVendorPart, ...] = ()
    monthly_cost: Decimal | None = None
    accepted_outputs: Decimal = Decimal(0)
    cost_per_accepted_output: Decimal | None = None
    total_commitment: Decimal = Decimal(0)
    best_single_id: str | None = None  # "offer/config"
    best_single_cost: Decimal | None = None
    saving_vs_single: Decimal | None = None  # monthly, ≥ 0
    mip_gap: float | None = None
    solve_seconds: float = 0.0
    shortfall_gpus: int = 0
    shortfall_nodes: int = 0

    @property
    def feasible(self) -> bool:
        return self.status != "infeasible"
