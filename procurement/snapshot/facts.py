"""The facts each row shows, as the snapshot adapter builds them from a snapshot.

`thaw` gives every candidate, beside the engine's input, the facts its row shows: the memory
fit (`fit`), the performance and the evidence behind it (`performance`), the checklist
summary (`checklist`) and the offer's terms (`detail`). `compute()` copies them into each
`CandidateResult` (procurement/services/comparisons/compute.py), where they are stored for
ever and read by the results pages, the decision record and the exports. Their keys are
never renamed or dropped: a page reads a stored row written by any earlier release, with
`.get` for a key a later release added. Most keys appear only on some rows (a media row has
no memory fit, an estimate no `measured` result), so most of these TypedDicts are
`total=False`; a key every writer sets is required.

Two parts are not JSON and never reach a row: `EngineExtras` (what the engine is given
beside the candidate) and a row's `Sweep` (`RowFacts["_sweep"]`, costed after the ranking
for the rows the pages chart, snapshot/sweeps.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, NotRequired, TypeAlias, TypedDict

from engine.operating_points import MeasuredPoint, ServiceLevel
from engine.operating_points.costs import PointCostRow
from engine.types import Range
from engine.types.common import CandidateKind, CapacityModel, PerfSource
from procurement.snapshot.schema import ChecklistSummary, FrozenResult


class FitFacts(TypedDict, total=False):
    """The memory fit at the brief's p95 context and concurrency (inference) or at the
    brief's target GPUs (training), `memory._fit_facts`; media and API rows carry `note`."""

    note: str  # why no fit is modelled (media, a model API)
    gpus_required: int  # the smallest replica that holds the model
    fits: bool  # within the offer's GPUs, not only in memory
    headroom_pct: float | None  # free memory per GPU, % of usable
    per_gpu_gb: float | None
    usable_gb_per_gpu: float | None
    weights_gb: float | None
    kv_cache_gb: float | None
    max_concurrent_sequences: int  # at this context on the GPUs required
    nodes_required: int
    crosses_nodes: bool
    context_tokens: int  # the context the fit is taken at
    concurrent_sequences: int
    offered_gpus: int | None  # the offer's `max_gpus_available` (None: unbounded)
    notes: list[str]
    context_source: str  # where `context_tokens` came from, in words
    status: str  # "fits" | "amber" (under the headroom margin) | "does_not_fit"
    headroom_margin_pct: float  # the margin `status` is judged against
    fits_at_context_window: bool  # also at the brief's full context window
    context_window_tokens: int
    headroom_pct_at_context_window: float | None


class EvidenceFacts(TypedDict):
    """Which benchmark result the row's performance rests on, and why (engine/evidence.py);
    an estimate carries `kind` and `reason` only."""

    kind: str  # "measured" | "proxy" | "published" | "estimated"
    reason: str  # one sentence a reviewer reads on the row
    adjustments: NotRequired[list[str]]  # each adjustment applied to the measured figures
    result_id: NotRequired[int | str | None]  # str: a published result's "published:<id>"
    sweep_result_ids: NotRequired[list[int] | None]  # every file of a sweep uploaded apart
    operating_point: NotRequired[str | None]  # the sweep's point the row is costed at
    goodput: NotRequired[float | None]  # share of that point's requests within every target
    slo_attainment: NotRequired[float | None]  # the same figure, under its older name
    error_rate: NotRequired[float | None]  # that point's share of failed requests
    non_monotone: NotRequired[str]  # why a later point meeting the targets was not taken


class LedgerPair(TypedDict):
    """One (estimate, measurement) pair of the calibration ledger (snapshot/ledger.py)."""

    shape: str  # "in 1,000 / out 200 / c16 / 1 GPU"
    concurrency: float
    estimated_tokens_per_s: float | None  # the roofline at the point's own shape
    measured_tokens_per_s: float | None
    measured_over_estimate: float | None


class CalibrationFacts(TypedDict):
    """What a measured row adds to the calibration ledger (engine/calibration.py)."""

    model: str  # the brief's model name
    precision: str  # the brief's weight precision
    workload_class: str
    pairs: list[LedgerPair]


class ConfigurationRow(TypedDict):
    """`engine.deployments.Configuration` as JSON: how one replica is deployed."""

    gpus_per_replica: int
    tensor_parallel: int
    pipeline_parallel: int
    expert_parallel: int | None  # None: not stated
    precision: str
    serving_engine: str  # "": not stated
    origin: str  # a key of engine.deployments ORIGIN_WORDS ("measured_offer", "power_of_two"…)
    result_id: int | str | None  # the benchmark result it was measured in


class ConfigurationFacts(ConfigurationRow):
    """The configuration a GPU row is costed in, with its words."""

    words: str  # "8 GPUs (TP=8, PP=1), bf16, vllm"


class ConfigurationVerdictFacts(TypedDict):
    """`engine.deployments.ConfigurationVerdict` as JSON: one configuration of the offer, as
    costed beside the one the row takes (`RowFacts["configurations"]`)."""

    configuration: ConfigurationRow
    words: str
    origin_words: str
    chosen: bool
    eligible: bool
    reasons: list[str]
    unit_cost: str | None  # exact decimal
    total: str | None  # exact decimal
    perf_source: str
    latency_source: str | None
    latency_verdict: str
    gpus_peak: int | None
    nodes_peak: int | None


class FittedFacts(TypedDict):
    """An estimated row's fitted estimate (engine 1.8.0, engine/fitted): its regime, its
    p10–p90 as factors of the figure, the error group it shares draws with, and the mean
    request (input, output tokens) it was read at."""

    estimator: str
    regime: str  # "throughput-bound" | "latency-bound"
    band: list[float]  # [p10, p90] × the estimate
    error_group: str  # "fitted:<regime>|<family>" (1.8.0), "fitted 1.9.0:<regime>|<family>"
    request: list[float]


class PerfFacts(TypedDict, total=False):
    """A GPU row's performance and where each figure came from (snapshot/sizing.py,
    evidence.py, media.py; training rows carry the peak TFLOPS only). Latencies are ms."""

    throughput_source: PerfSource  # what the throughput rests on
    latency_source: PerfSource | None  # None: not modelled (training, media)
    # Inference: output tokens per second per replica, as costed (calibrated estimates too).
    tokens_per_s: float | None
    ttft_p95_ms: float | None
    itl_p95_ms: float | None
    e2e_p99_ms: float | None
    bound: str | None  # the roofline's bound: "memory_bandwidth" | "compute"
    error: str  # why the roofline could not estimate ("cannot estimate: …")
    measured: FrozenResult  # the benchmark result used, with its `scope`
    evidence: EvidenceFacts
    latency_not_in_benchmark: list[str]  # targets the measured file cannot check ("ITL p95")
    latency_missed: str  # the counting result's own chosen point misses a target, in words
    error_rate_over: str  # a measured error rate over the brief's maximum: a gate, in words
    acceptance_source: str  # "measured (0.920, result 5)" | "the brief's assumption"
    acceptance_used: str  # the acceptance rate the cost used, in words
    failure_source: str
    failure_used: str
    has_acceptance_data: bool  # a measured acceptance rate replaced the brief's
    calibration: CalibrationFacts  # measured rows: the ledger's pairs
    prefix_caching: str  # whether the brief's cached share of input lowered prefill, in words
    ignored_evidence: list[str]  # why each other result did not count
    configuration: ConfigurationFacts  # inference: the configuration the row is costed in
    calibration_applied: str  # an estimate moved by the ledger, in words
    estimated_tokens_per_s: float | None  # the roofline figure before the ledger moved it
    estimate: FittedFacts  # estimated rows of engine 1.8.0 on: the fitted estimate
    roofline_tokens_per_s: float | None  # the unfitted roofline's figure, shown beside it
    peak_dense_tflops_per_gpu: float  # training
    peak_source: str  # training: which datasheet figure gave the peak
    outputs_per_s: float | None  # media: assets per second per GPU
    gpu_seconds_per_asset: float | None  # media, scaled to this GPU


class RoutePerformance(TypedDict):
    """A model API row's performance: the latencies the route states, or those a benchmark
    run against it measured (then with the run's id, ITL and load)."""

    ttft_p95_ms: float | None
    e2e_p99_ms: float | None
    latency_source: Literal["stated", "measured"]
    throughput_source: Literal["provider"]  # the provider runs the model
    itl_p95_ms: NotRequired[float | None]
    result_id: NotRequired[int]
    concurrency: NotRequired[float | None]


class ChecklistFound(ChecklistSummary):
    """The quote's checklist summary (checklist.selectors), as frozen."""

    available: Literal[True]


class ChecklistMissing(TypedDict):
    """A row without a checklist summary, and why."""

    available: Literal[False]
    note: str  # "no checklist data", "model API: no GPU checklist"


ChecklistFacts: TypeAlias = ChecklistFound | ChecklistMissing


class CapacityFacts(TypedDict):
    """What the vendor can deliver, and when: the whole peak fleet must fit."""

    max_gpus_available: int | None  # None: not stated
    available_from: str | None  # ISO 8601; None: now
    lead_time_days: int | None


class OfferDetail(TypedDict, total=False):
    """The offer's terms a row shows (`CandidateResult.detail`, which `compute()` extends
    with the engine's figures)."""

    quote_version: int  # GPU quotes
    quoted_at: str  # ISO 8601
    valid_until: str | None
    region: str
    currency: str
    fx_rate: str | None  # exact decimal to the base currency; None: no rate, no money shown
    term_months: int
    min_commitment_gpus: int  # GPU quotes
    capacity: CapacityFacts  # GPU quotes
    stale: bool  # older than the snapshot's staleness limit, or past `valid_until`
    model_name: str  # model APIs: the model the route serves
    price_tiers_applied: list[str]  # model APIs: e.g. ["batch"]; []: base prices
    model_substitution: str  # model APIs: "serves X, the brief is Y" ("": the brief's model)


# The sweep a row is costed on rides under this key until `compute()` has ranked the rows.
SWEEP_FACT: Final = "_sweep"


class RowFacts(TypedDict):
    """Everything `thaw` found for one candidate (GPU quote or model API route)."""

    kind: CandidateKind
    quote_id: int | None
    api_route_id: int | None
    label: str
    provider_name: str
    accelerator_name: str  # "" for a model API
    capacity_model: CapacityModel
    fx_missing: bool  # the currency has no rate: the row shows no money
    gpus: NotRequired[int | None]  # per replica; None for a model API
    fit: NotRequired[FitFacts]
    performance: NotRequired[PerfFacts | RoutePerformance]
    checklist: NotRequired[ChecklistFacts]
    perf_source: NotRequired[PerfSource]
    detail: NotRequired[OfferDetail]
    # the offer's other configurations, costed beside the one the row takes
    configurations: NotRequired[list[ConfigurationVerdictFacts]]
    # not JSON: compute() never copies it into a row (snapshot/sweeps.py)
    _sweep: NotRequired[Sweep]


# One point of a row's sweep, costed (snapshot/sweeps.py): what the charts draw.
CostedPoint = PointCostRow


class UncostedSweep(TypedDict):
    """A row whose sweep was not costed: how many points it has and why no chart."""

    points: int
    note: str


@dataclass(frozen=True, slots=True)
class Sweep:
    """What costing a sweep's every point needs besides the row's candidate."""

    points: tuple[MeasuredPoint, ...]
    slo: ServiceLevel
    goodput_counts: bool  # real-time class, measured on this workload: attainment shown
    chosen_label: str
    throughput_factor: float
    base_acceptance: Range | None  # None: the row's own acceptance


@dataclass
class EngineExtras:
    """What the evidence gives the engine beside the row's performance facts."""

    widen: tuple[float, float] = (1.0, 1.0)  # factors on the low and high throughput spread
    acceptance_rate: Range | None = None  # measured: replaces the brief's for this row
    failure_rate: Range | None = None  # measured: replaces the brief's for this row
    sweep: Sweep | None = None  # the result's operating points, costed after the ranking
    evidence_key: str = ""  # same key, same measurement: one shared throughput draw
