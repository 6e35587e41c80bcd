"""The engine's outputs: per-candidate outcomes and estimates, Monte Carlo statistics,
the tornado, break-even and the comparison output (re-exported by types.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from engine.types.common import (
    CandidateKind,
    CapacityModel,
    JsonMixin,
    JSONValue,
    Severity,
    WorkloadClass,
)

if TYPE_CHECKING:
    from engine.cost.assumptions import AppliedAssumption
    from engine.cost.commitment import CommitmentDetail
    from engine.deployments.fleet import Fleet


@dataclass(frozen=True, slots=True)
class EngineWarning(JsonMixin):
    """A value, not a log line: one stable code per problem, on the row it applies to."""

    code: str
    candidate_id: str
    detail: str
    severity: Severity = "warn"


@dataclass(frozen=True, slots=True)
class TrainingDetail(JsonMixin):
    """How a training run's time was spent, and the checkpoint interval to prefer."""

    tokens_per_s: float
    compute_h: float
    checkpoint_stall_h: float
    expected_node_failures: float
    lost_h: float
    wall_clock_h: float
    nodes: int
    checkpoint_interval_h: float
    recommended_checkpoint_interval_h: float  # Young/Daly: sqrt(2 × write × job MTBF)
    total_at_recommended_interval: Decimal
    held_h: float | None = None  # Wall-clock / utilisation, the hours the GPUs are held
    failure_rate_scope: str = "node"


@dataclass(frozen=True, slots=True)
class PointEstimate(JsonMixin):
    """The deterministic cost of one candidate at the likely values, in Decimal."""

    lines: dict[str, Decimal]
    total: Decimal
    accepted_outputs: Decimal
    attempts: Decimal
    unit_cost: Decimal  # per unit_label, quantised to 1e-6
    unit_cost_exact: Decimal  # unquantised, for ranking
    unit_label: str
    unit_cost_per_accepted_output: Decimal
    price_per_gpu_hour: Decimal | None
    billed_gpu_hours: Decimal | None
    gpu_spend: Decimal | None  # == sum of the GPU lines, exactly
    gpu_spend_breakdown: dict[str, Decimal] = field(default_factory=dict)
    training: TrainingDetail | None = None


@dataclass(frozen=True, slots=True)
class CandidateOutcome(JsonMixin):
    """One candidate's row in the decision record."""

    candidate_id: str
    label: str
    kind: CandidateKind
    capacity_model: CapacityModel
    accelerator: str
    eligible: bool
    reasons: tuple[str, ...]
    cost_lines: dict[str, Decimal]
    total: Decimal | None
    accepted_outputs: Decimal | None
    unit_cost: Decimal | None
    unit_label: str
    unit_cost_per_accepted_output: Decimal | None
    price_per_gpu_hour: Decimal | None
    billed_gpu_hours: Decimal | None
    gpu_spend: Decimal | None
    gpu_spend_breakdown: dict[str, Decimal]
    p10: float | None
    p50: float | None
    p90: float | None
    prob_cheapest: float | None
    rank_by_unit_cost: int | None
    rank_by_hourly_price: int | None
    warnings: tuple[EngineWarning, ...]
    training: TrainingDetail | None = None
    horizon_total: Decimal | None = None  # monthly total × horizon months (volume classes)
    commitment_usd: Decimal | None = None  # The obligation this row creates (commitment.py)
    commitment: CommitmentDetail | None = None
    latency_verdict: str = ""  # "meets (measured)", "within target (estimated)", ...
    evidence: str = ""  # what the throughput rests on (measured / proxy / estimated + why)
    acceptance_source: str = ""  # "measured" or "brief": which rate the cost used
    failure_source: str = ""  # "measured" or "brief": which failure rate the cost used
    fleet: Fleet | None = None  # replicas, GPUs and nodes at average and peak; what is bought


@dataclass(frozen=True, slots=True)
class CandidateStats(JsonMixin):
    """Monte Carlo summary of one candidate's unit cost."""

    candidate_id: str
    p10: float
    p50: float
    p90: float
    mean: float
    prob_cheapest: float


@dataclass(frozen=True, slots=True)
class MonteCarloResult(JsonMixin):
    seed: int
    samples: int
    assumptions: tuple[str, ...]  # the ranged assumptions that were sampled
    stats: tuple[CandidateStats, ...]


@dataclass(frozen=True, slots=True)
class TornadoEntry(JsonMixin):
    assumption: str
    low_value: float
    high_value: float
    unit_cost_at_low: float
    unit_cost_at_high: float
    swing: float
    recommended_at_low: str
    recommended_at_high: str
    flips: bool


@dataclass(frozen=True, slots=True)
class Tornado(JsonMixin):
    candidate_id: str
    baseline_unit_cost: float
    unit_label: str
    entries: tuple[TornadoEntry, ...]  # sorted by swing, largest first


@dataclass(frozen=True, slots=True)
class BreakevenCurve(JsonMixin):
    option: str  # on_demand | reserved | purchase | api
    candidate_id: str
    unit_costs: tuple[Decimal, ...]  # per unit_label, one per volume
    monthly_totals: tuple[Decimal, ...]


@dataclass(frozen=True, slots=True)
class Crossing(JsonMixin):
    option_a: str
    option_b: str
    monthly_accepted_outputs: float  # volume where the two monthly totals cross
    cheaper_above: str
    at_step: bool = False  # The crossing is a fixed-capacity step (a replica added)


@dataclass(frozen=True, slots=True)
class BreakevenResult(JsonMixin):
    accelerator: str
    unit_label: str
    volumes: tuple[float, ...]
    curves: tuple[BreakevenCurve, ...]
    crossings: tuple[Crossing, ...]
    cheapest_by_volume: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ComparisonOutput(JsonMixin):
    engine_version: str
    seed: int
    samples: int
    workload_class: WorkloadClass
    unit_label: str
    base_currency: str
    candidates: tuple[CandidateOutcome, ...]
    recommended_candidate_id: str | None
    tornado: Tornado | None
    breakeven: BreakevenResult | None
    assumptions: dict[str, JSONValue]
    notes: tuple[str, ...] = ()
    # Every default the engine used, with its value and source (assumptions.py)
    assumptions_applied: tuple[AppliedAssumption, ...] = ()
    recommendation_notes: tuple[str, ...] = ()  # ties, evidence gaps, substitution, targets
