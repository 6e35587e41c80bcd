"""The engine's inputs: the workload, its training and media specs, the candidates and
their pricing, and the comparison that bundles them (re-exported by types.py).

Validated at construction; see types.py for the conventions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal, get_args

from core.workloads import REALTIME as REALTIME_CLASSES
from engine.errors import EngineInputError
from engine.limits import MAX_HORIZON_MONTHS, MAX_TERM_MONTHS
from engine.types.common import (
    CAPACITY_MODELS,
    FIXED_CAPACITY,
    MANAGED_CAPACITY,
    TRAINING_CLASSES,
    WORKLOAD_CLASSES,
    CandidateKind,
    CapacityModel,
    JsonMixin,
    PerfSource,
    Range,
    ThroughputUnit,
    WorkloadClass,
    _finite,
    _money,
    _range,
)

BilledTokenType = Literal["output", "input", "total"]
BILLED_TOKEN_TYPES: tuple[str, ...] = ("output", "input", "total")


@dataclass(frozen=True, slots=True)
class TrainingSpec(JsonMixin):
    """Training and fine-tuning specifics (docs/domain.md, "Training" and "Fine-tuning")."""

    active_params_b: float
    tokens: Range  # tokens processed to reach the target eval score
    checkpoint_write_s: float  # stall per checkpoint write
    checkpoint_interval_h: float
    node_mtbf_h: Range  # mean time between failures of one node
    mfu: Range = Range(0.30, 0.40, 0.50)  # used only with peak-FLOPs (estimated) throughput
    success_probability: Range = Range(1.0, 1.0, 1.0)  # the run reaches its target
    flops_per_param_token: float = 6.0  # FLOPs ≈ 6 × active params × tokens
    checkpoint_size_gb: float = 0.0
    checkpoints_retained: int = 3
    restart_h: float = 0.5  # requeue + reload after a node failure
    # node_mtbf_h is per node ("node": failures × nodes) or for the whole cluster
    failure_rate_scope: Literal["node", "cluster"] = "node"

    def __post_init__(self) -> None:
        _finite(self, "active_params_b", lo=0, lo_open=True)
        _range(self, "tokens", lo=0, lo_open=True)
        _finite(self, "checkpoint_write_s", lo=0)
        _finite(self, "checkpoint_interval_h", lo=0, lo_open=True)
        _range(self, "node_mtbf_h", lo=0, lo_open=True)
        _range(self, "mfu", lo=0, hi=1, lo_open=True)
        _range(self, "success_probability", lo=0, hi=1, lo_open=True)
        _finite(self, "flops_per_param_token", lo=0, lo_open=True)
        _finite(self, "checkpoint_size_gb", lo=0)
        _finite(self, "checkpoints_retained", lo=0)
        _finite(self, "restart_h", lo=0)
        if self.failure_rate_scope not in ("node", "cluster"):
            raise EngineInputError("failure_rate_scope", "must be 'node' or 'cluster'")


@dataclass(frozen=True, slots=True)
class MediaSpec(JsonMixin):
    """Media generation specifics (docs/domain.md, "media_accepted_cost")."""

    moderation_cost_per_asset: Decimal = Decimal(0)  # per completed render checked
    review_fraction: float = 0.0  # share of completed renders a person reviews
    review_cost_per_asset: Decimal = Decimal(0)
    asset_size_gb: float = 0.0
    retention_months: float = 1.0

    def __post_init__(self) -> None:
        _money(self, "moderation_cost_per_asset")
        _money(self, "review_cost_per_asset")
        _finite(self, "review_fraction", lo=0, hi=1)
        _finite(self, "asset_size_gb", lo=0)
        _finite(self, "retention_months", lo=0)


@dataclass(frozen=True, slots=True)
class WorkloadInput(JsonMixin):
    """The workload brief as the engine needs it (docs/domain.md, "Step 1")."""

    workload_class: WorkloadClass
    monthly_accepted_outputs: Range | None = None  # inference, retrieval, evaluation, media
    acceptance_rate: Range = Range(1.0, 1.0, 1.0)
    failure_rate: Range = Range(0.0, 0.0, 0.0)
    utilisation: Range = Range(0.5, 0.7, 0.85)  # elastic capacity: busy share of billed
    peak_to_average: Range = Range(1.0, 1.0, 1.0)
    input_tokens_per_request: float = 0.0
    output_tokens_per_request: float = 0.0
    cached_input_fraction: float = 0.0
    ttft_p95_target_ms: float | None = None
    itl_p95_target_ms: float | None = None  # the gap between streamed tokens a user sees
    e2e_p99_target_ms: float | None = None
    platform_labor_fte: float = 0.0
    loaded_monthly_cost_per_fte: Decimal = Decimal(0)
    vendor_management_fte: float = 0.1  # still counted for APIs/managed endpoints
    horizon_months: int = 12
    expected_model_churn_months: int = 12
    storage_gb: float = 0.0
    egress_gb_per_month: float = 0.0  # at the likely volume; scales with volume
    serving_stack_per_month: Decimal = Decimal(0)  # team-run gateway/autoscaler, self-managed
    observability_per_month: Decimal = Decimal(0)
    headroom_margin_pct: float = 10.0
    min_interconnect_gbps: float | None = None  # None: class default (see warnings.py)
    min_fabric_gbps: float | None = None
    stale_quote_days: int = 30
    training: TrainingSpec | None = None
    media: MediaSpec | None = None
    # Fixed capacity runs the peak at (1 − headroom) of its measured throughput
    fixed_peak_headroom: float = 0.0
    # Spot work redone after interruptions, as a share of the work (candidate overrides)
    spot_rework_share: float = 0.0
    # Share of failed API attempts the provider bills (a route may state its own)
    api_failed_attempts_billed: float = 1.0
    # A fleet above this many GPUs on an offer that does not state its capacity is warned
    # about: nobody asked the vendor whether it has them.
    capacity_unstated_warn_gpus: int = 64
    # Share of a term contract beyond the horizon the organisation will still use (resale,
    # other teams): 0 counts the stranded months in full in the unit cost.
    term_residual_use_share: float = 0.0
    # P10: above this peak request rate a model API route that states no rate limit is warned
    # about, as an offer that states no GPU capacity is.
    rate_limit_unstated_warn_rps: float = 1.0
    # P11: the default vendor-management labour is at most this share of a row's vendor bill
    # (None: the FTE was stated, and is counted in full).
    vendor_management_cap_share: float | None = None
    # Where each stated value came from ("brief", "override", "product default")
    assumption_sources: Mapping[str, str] = field(default_factory=dict)
    # Issue 17: the tokens a unit cost counts (token classes); the team's bill decides
    tokens_billed: BilledTokenType = "output"
    # Share of input tokens written to a prompt cache, charged at the cache-write price on
    # routes that publish one (a cached prefix reused under steady traffic is written once:
    # 0 by default). The cached share (read) is ``cached_input_fraction``.
    cache_write_fraction: float = 0.0

    def __post_init__(self) -> None:
        if self.workload_class not in WORKLOAD_CLASSES:
            raise EngineInputError("workload_class", f"unknown class {self.workload_class!r}")
        if self.is_training:
            if not isinstance(self.training, TrainingSpec):
                raise EngineInputError("training", f"{self.workload_class} needs a TrainingSpec")
        else:
            if self.monthly_accepted_outputs is None:
                raise EngineInputError(
                    "monthly_accepted_outputs", "a volume of accepted outputs per month is required"
                )
            _range(self, "monthly_accepted_outputs", lo=0, lo_open=True)
            if self.media is None and self.workload_class == "media":
                object.__setattr__(self, "media", MediaSpec())
        _range(self, "acceptance_rate", lo=0, hi=1, lo_open=True)
        _range(self, "failure_rate", lo=0, hi=1)
        if self.failure_rate.high >= 1:
            raise EngineInputError("failure_rate", "must stay below 1 (nothing would complete)")
        _range(self, "utilisation", lo=0, hi=1, lo_open=True)
        _range(self, "peak_to_average", lo=1)
        for name in (
            "input_tokens_per_request",
            "output_tokens_per_request",
            "storage_gb",
            "egress_gb_per_month",
            "platform_labor_fte",
            "vendor_management_fte",
            "headroom_margin_pct",
        ):
            _finite(self, name, lo=0)
        _finite(self, "cached_input_fraction", lo=0, hi=1)
        _finite(self, "cache_write_fraction", lo=0, hi=1)
        if self.cached_input_fraction + self.cache_write_fraction > 1 + 1e-9:
            raise EngineInputError(
                "cache_write_fraction",
                "the cached and the written shares of input tokens add up to more than 1",
            )
        for name in (
            "ttft_p95_target_ms",
            "itl_p95_target_ms",
            "e2e_p99_target_ms",
            "min_interconnect_gbps",
            "min_fabric_gbps",
        ):
            if getattr(self, name) is not None:
                _finite(self, name, lo=0)
        _finite(self, "horizon_months", lo=1, hi=MAX_HORIZON_MONTHS)
        _finite(self, "fixed_peak_headroom", lo=0, hi=0.9)
        _finite(self, "spot_rework_share", lo=0, hi=5)
        _finite(self, "api_failed_attempts_billed", lo=0, hi=1)
        _finite(self, "capacity_unstated_warn_gpus", lo=1)
        _finite(self, "term_residual_use_share", lo=0, hi=1)
        _finite(self, "rate_limit_unstated_warn_rps", lo=0)
        if self.vendor_management_cap_share is not None:
            _finite(self, "vendor_management_cap_share", lo=0, hi=1)
        _finite(self, "expected_model_churn_months", lo=0, lo_open=True)
        _finite(self, "stale_quote_days", lo=0)
        if self.tokens_billed not in BILLED_TOKEN_TYPES:
            raise EngineInputError(
                "billed_token_type",
                f"must be one of {', '.join(BILLED_TOKEN_TYPES)}, got {self.tokens_billed!r}",
            )
        for name in (
            "loaded_monthly_cost_per_fte",
            "serving_stack_per_month",
            "observability_per_month",
        ):
            _money(self, name)

    @property
    def is_training(self) -> bool:
        return self.workload_class in TRAINING_CLASSES

    @property
    def is_media(self) -> bool:
        return self.workload_class == "media"

    @property
    def has_latency_targets(self) -> bool:
        targets = (self.ttft_p95_target_ms, self.itl_p95_target_ms, self.e2e_p99_target_ms)
        return any(t is not None for t in targets)

    @property
    def is_realtime_with_targets(self) -> bool:
        """A user waits on every answer, and the brief says how long (P4)."""
        return self.workload_class in REALTIME_CLASSES and self.has_latency_targets


@dataclass(frozen=True, slots=True)
class ApiPricing(JsonMixin):
    """A model API route's prices (per million tokens, and per output for media APIs)."""

    price_per_m_input_tokens: Decimal = Decimal(0)
    price_per_m_output_tokens: Decimal = Decimal(0)
    price_per_m_cached_input_tokens: Decimal | None = None  # None: same as input
    price_per_output: Decimal = Decimal(0)  # e.g. per image
    # A prompt-cache write; None: the route does not price writes (ordinary input tokens)
    price_per_m_cache_write_tokens: Decimal | None = None

    def __post_init__(self) -> None:
        for name in ("price_per_m_input_tokens", "price_per_m_output_tokens", "price_per_output"):
            _money(self, name)
        _money(self, "price_per_m_cached_input_tokens", optional=True)
        _money(self, "price_per_m_cache_write_tokens", optional=True)


@dataclass(frozen=True, slots=True)
class PurchaseSpec(JsonMixin):
    """Owned hardware: capex amortised over its life plus power, colocation and support."""

    capex_per_node: Decimal
    life_months: int
    price_per_kwh: Decimal
    power_kw_per_node: Decimal | None = None  # measured/stated node draw, or:
    gpu_tdp_w: Decimal | None = None  # GPU TDP × GPUs per node × overhead factor
    node_power_overhead_factor: Decimal = Decimal(1)
    pue: Decimal = Decimal("1.4")
    colocation_per_node_month: Decimal = Decimal(0)
    support_per_node_year: Decimal = Decimal(0)
    cost_of_capital_annual: Decimal = Decimal(0)  # E.g. 0.08 for 8 % a year
    residual_value_share: Decimal = Decimal(0)  # Resale value at end of life / capex

    def __post_init__(self) -> None:
        for name in (
            "capex_per_node",
            "price_per_kwh",
            "node_power_overhead_factor",
            "pue",
            "colocation_per_node_month",
            "support_per_node_year",
            "cost_of_capital_annual",
            "residual_value_share",
        ):
            _money(self, name)
        if self.cost_of_capital_annual > 1 or self.residual_value_share > 1:
            bad = "cost_of_capital_annual" if self.cost_of_capital_annual > 1 else "residual"
            raise EngineInputError(bad, "must be a share between 0 and 1")
        _money(self, "power_kw_per_node", optional=True)
        _money(self, "gpu_tdp_w", optional=True)
        _finite(self, "life_months", lo=0, lo_open=True)
        if self.power_kw_per_node is None and self.gpu_tdp_w is None:
            raise EngineInputError("power_kw_per_node", "give the node power or the GPU TDP")
        if self.pue < 1:
            raise EngineInputError("pue", f"must be ≥ 1, got {self.pue}")


@dataclass(frozen=True, slots=True)
class CandidateInput(JsonMixin):
    """One row of the comparison: a GPU offer (quote) or a model API route."""

    id: str
    label: str
    kind: CandidateKind
    capacity_model: CapacityModel
    accelerator: str = ""
    price_per_gpu_hour: Decimal | None = None  # base currency; None for purchase and APIs
    purchase: PurchaseSpec | None = None
    api_pricing: ApiPricing | None = None
    gpus_per_replica: int = 1
    gpus_per_node: int = 8
    throughput_per_replica: Range | None = None  # at the latency target
    throughput_unit: ThroughputUnit = "tokens_per_s"
    perf_source: PerfSource = "estimated"
    peak_dense_tflops_per_gpu: float | None = None  # training estimate: peak × MFU
    utilisation: Range | None = None  # overrides the workload's for this offer
    p95_ttft_ms: float | None = None
    p99_e2e_ms: float | None = None
    latency_source: PerfSource | None = None
    min_commitment_gpu_hours_per_month: Decimal = Decimal(0)
    term_months: int = 0
    # The vendor's price per GPU-hour past the monthly commitment (None: the hourly price)
    overage_rate_per_gpu_hour: Decimal | None = None
    storage_price_per_gb_month: Decimal = Decimal(0)
    storage_price_is_default: bool = False  # the offer states none: the product default
    egress_price_per_gb: Decimal = Decimal(0)
    public_ip_per_month: Decimal = Decimal(0)
    load_balancer_per_month: Decimal = Decimal(0)
    private_networking_per_month: Decimal = Decimal(0)
    serving_stack_per_month: Decimal = Decimal(0)
    checkpoint_write_s: float | None = None  # overrides the workload's for this storage
    idle_billed: bool = True
    # eligibility
    fits: bool = True
    data_boundary_ok: bool = True
    checklist_complete: bool = True
    fx_available: bool = True
    latency_met: bool | None = None  # None: derived from figures vs targets
    ineligible_reasons: tuple[str, ...] = ()
    # facts behind warnings
    fits_at_p95_context: bool = True
    headroom_pct: float | None = None
    crosses_nodes: bool = False
    interconnect_gbps: float | None = None  # intra-node, GB/s per GPU
    fabric_gbps: float | None = None  # inter-node, GB/s per GPU
    has_acceptance_data: bool = False
    quote_age_days: float | None = None
    quote_stale: bool | None = None
    spot_rework_share: float | None = None  # None → the workload's
    failed_attempts_billed: float | None = None  # API routes: None → the workload's
    # evidence (engine/evidence.py): what the throughput rests on
    evidence_key: str = ""  # same key ⇒ same measurement ⇒ one shared throughput draw
    # An estimated row: "estimator:regime|family", whose errors it shares with other rows
    # (engine/montecarlo/throughput_error.py); "" for measured rows and old snapshots.
    throughput_error_group: str = ""
    evidence_detail: str = ""  # the matching verdict and any adjustment, in words
    acceptance_rate: Range | None = None  # measured: overrides the workload's for this row
    failure_rate: Range | None = None  # measured: overrides the workload's for this row
    model_substitution: str = ""  # "serves X, the brief is Y": never silently recommended
    substitution_allowed: bool = False  # the brief allows it, or an evaluation is attached
    itl_p95_ms: float | None = None
    fits_at_context_window: bool | None = None  # None: not asked (no window beyond p95)
    headroom_status: str = ""  # "ok" | "amber" | "" (not computed)
    # A price far from the market that its author confirmed (catalog plausibility check):
    # the check's words, and whether only the vendor vouches for it (then it cannot win).
    price_far_from_market: str = ""
    price_far_unverified: bool = False
    # The GPUs the offer has for this buyer (None: not stated): the whole peak fleet must fit.
    max_gpus_available: int | None = None
    # P3: what the vendor sells fixed capacity in: "gpu", "node" (whole nodes), or "" (not
    # stated: billed by the GPU, and warned about). Owned hardware always comes in nodes.
    unit_of_sale: str = ""
    # P10: a model API route's stated rate limits (None: not stated)
    rate_limit_rpm: int | None = None
    rate_limit_tpm: int | None = None
    # P12: "serves it at FP8, the brief is BF16" when a route's deployment states a lower
    # precision than the brief's ("": the same, or not known)
    precision_note: str = ""
    # P5: days from the comparison until the capacity can be used (the later of its stated
    # date and its lead time); 0: now or not stated.
    capacity_starts_in_days: float = 0.0
    # P19: the date the price stopped being valid ("": still valid, or no date stated).
    quote_expired_on: str = ""
    accelerator_name: str = ""  # as the page says it ("H200 SXM 141GB"); "" : the slug

    def __post_init__(self) -> None:
        try:
            self._validate()
        except EngineInputError as exc:
            raise EngineInputError(exc.field, f"candidate {self.id!r}: {exc.message}") from None

    def _validate(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise EngineInputError("id", "must be a non-empty string")
        if self.kind not in ("gpu", "api"):
            raise EngineInputError("kind", f"must be 'gpu' or 'api', got {self.kind!r}")
        if self.capacity_model not in CAPACITY_MODELS:
            raise EngineInputError("capacity_model", f"unknown {self.capacity_model!r}")
        if (self.kind == "api") != (self.capacity_model == "api"):
            raise EngineInputError("capacity_model", "API routes, and only they, use 'api'")
        for name in (
            "min_commitment_gpu_hours_per_month",
            "storage_price_per_gb_month",
            "egress_price_per_gb",
            "public_ip_per_month",
            "load_balancer_per_month",
            "private_networking_per_month",
            "serving_stack_per_month",
        ):
            _money(self, name)
        _money(self, "price_per_gpu_hour", optional=True)
        _money(self, "overage_rate_per_gpu_hour", optional=True)
        if self.kind == "api":
            if not isinstance(self.api_pricing, ApiPricing):
                raise EngineInputError("api_pricing", "an API route needs its token prices")
        elif self.capacity_model == "purchase":
            if not isinstance(self.purchase, PurchaseSpec):
                raise EngineInputError("purchase", "a purchase needs capex, life and power")
        elif self.price_per_gpu_hour is None:
            raise EngineInputError("price_per_gpu_hour", "a rented GPU needs its hourly price")
        _finite(self, "gpus_per_replica", lo=1)
        _finite(self, "gpus_per_node", lo=1)
        if self.max_gpus_available is not None:
            _finite(self, "max_gpus_available", lo=1)
        _finite(self, "term_months", lo=0, hi=MAX_TERM_MONTHS)
        _finite(self, "capacity_starts_in_days", lo=0)
        if self.unit_of_sale not in ("", "gpu", "node"):
            raise EngineInputError("unit_of_sale", "must be 'gpu', 'node' or '' (not stated)")
        if self.spot_rework_share is not None:
            _finite(self, "spot_rework_share", lo=0, hi=5)
        if self.failed_attempts_billed is not None:
            _finite(self, "failed_attempts_billed", lo=0, hi=1)
        _range(self, "throughput_per_replica", lo=0, lo_open=True, optional=True)
        _range(self, "utilisation", lo=0, hi=1, lo_open=True, optional=True)
        for name in (
            "peak_dense_tflops_per_gpu",
            "p95_ttft_ms",
            "p99_e2e_ms",
            "checkpoint_write_s",
            "headroom_pct",
            "interconnect_gbps",
            "fabric_gbps",
            "quote_age_days",
        ):
            if getattr(self, name) is not None:
                _finite(self, name, lo=-100 if name == "headroom_pct" else 0)
        if self.throughput_unit not in ("tokens_per_s", "outputs_per_s"):
            raise EngineInputError("throughput_unit", f"unknown unit {self.throughput_unit!r}")
        if self.perf_source not in get_args(PerfSource):
            raise EngineInputError(
                "perf_source", "must be 'measured', 'proxy', 'published' or 'estimated'"
            )
        _range(self, "acceptance_rate", lo=0, hi=1, lo_open=True, optional=True)
        _range(self, "failure_rate", lo=0, hi=1, optional=True)
        if self.failure_rate is not None and self.failure_rate.high >= 1:
            raise EngineInputError("failure_rate", "must stay below 1 (nothing would complete)")
        object.__setattr__(self, "ineligible_reasons", tuple(self.ineligible_reasons))

    @property
    def is_api(self) -> bool:
        return self.kind == "api"

    @property
    def is_fixed(self) -> bool:
        return self.capacity_model in FIXED_CAPACITY

    @property
    def self_managed(self) -> bool:
        return self.capacity_model not in MANAGED_CAPACITY


@dataclass(frozen=True, slots=True)
class ComparisonInput(JsonMixin):
    """A workload and the candidates to compare for it."""

    workload: WorkloadInput
    candidates: tuple[CandidateInput, ...]
    base_currency: str = "USD"

    def __post_init__(self) -> None:
        object.__setattr__(self, "candidates", tuple(self.candidates))
        if not self.candidates:
            raise EngineInputError("candidates", "at least one candidate is required")
        seen: set[str] = set()
        for cand in self.candidates:
            if cand.id in seen:
                raise EngineInputError("candidates", f"duplicate candidate id {cand.id!r}")
            seen.add(cand.id)


# ---------------------------------------------------------------- outputs
