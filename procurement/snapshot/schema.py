"""The frozen shape of a comparison snapshot, format 2: what `freeze` writes and `thaw` reads.

A snapshot is JSON in `Comparison.snapshot`; these TypedDicts say what each part holds so
mypy checks every reader against one description. Money is an exact decimal string, times
are ISO 8601 strings (UTC), ids are integers. Rows copied from a model (the brief, each quote
version, each API route) carry every concrete field of the row, so they are `total=False`:
a field added to the model later simply appears in new snapshots, and readers `.get` it with
a default for older ones. Parts that later releases may extend mark their newer keys
`NotRequired`.

An older snapshot is turned into this shape once by `upgrade.upgrade`, at the top of `thaw`.
The facts `thaw` computes from it for each row are typed beside it, in `facts.py`.
"""

from __future__ import annotations

from typing import NotRequired, TypeAlias, TypedDict

from core.workloads import WorkloadClassName
from engine.types.common import CapacityModel

SNAPSHOT_FORMAT = 2

JSONValue: TypeAlias = "str | int | float | bool | list[JSONValue] | dict[str, JSONValue] | None"
# A ranged assumption: {"low", "likely", "high"} (assumptions.py).
RangeValue: TypeAlias = dict[str, float]
# An override: a number, or a range.
AssumptionValue: TypeAlias = "float | RangeValue"


class Selection(TypedDict):
    """How the candidates were chosen; a recompute chooses again the same way."""

    default: bool  # every current candidate (a recompute takes today's defaults)
    quote_ids: list[int]
    api_route_ids: list[int]
    # regions, capacity_models, accelerators, providers, rfqs (procurement/services/comparisons/
    # selection.py)
    filters: NotRequired[dict[str, list[str]]]
    filtered_defaults: NotRequired[bool]  # the defaults narrowed by `filters`


class Assumptions(TypedDict):
    overrides: dict[str, AssumptionValue]  # what the comparison was created with
    effective: dict[str, float]  # every scalar at its default or override (ranges: overrides)


class FxRate(TypedDict):
    rate_to_base: str  # exact decimal
    as_of: str  # ISO date


class GpuSpecRow(TypedDict, total=False):
    """`engine.memory.GpuSpec` as JSON (a tuple becomes a list)."""

    memory_gb: float
    max_gpus_per_node: int
    memory_bandwidth_tbps: float | None
    bf16_dense_tflops: float | None
    fp8_dense_tflops: float | None
    fp4_dense_tflops: float | None
    interconnect_gbps: float | None
    supported_precisions: list[str]
    memory_unit: str


class ModelSpecRow(TypedDict, total=False):
    """`engine.memory.ModelSpec` as JSON."""

    params_b: float
    layers: int
    kv_heads: int
    head_dim: int
    active_params_b: float | None
    hidden_size: int | None
    attention_heads: int | None
    mla_latent_dim: int | None
    sliding_window: int | None
    sliding_window_layers: int
    max_context: int | None
    vocab_size: int | None
    tied_embeddings: bool


class AcceleratorRow(TypedDict):
    id: int
    slug: str
    name: str
    vendor: str
    tdp_w: int | None
    interconnect: str
    spec: GpuSpecRow
    architecture: NotRequired[str]  # "Hopper": the fitted estimate's family (engine 1.8.0)


class ModelRow(TypedDict, total=False):
    id: int
    slug: str
    name: str
    params_active_b: float | None
    family: str
    spec: ModelSpecRow


class ChecklistSummary(TypedDict, total=False):
    """`checklist.selectors.quote_checklist_summaries` for one quote."""

    required_level: str
    complete: bool
    completeness_pct: int
    required_count: int
    counted_count: int
    answered_count: int
    evidenced_count: int
    needs_info_count: int
    missing_items: list[JSONValue]
    awaiting_review: list[JSONValue]
    red_flags: list[JSONValue]
    accepted: list[JSONValue]  # codes of the answers a reviewer accepted


class PublishedSource(TypedDict, total=False):
    """Where a published result comes from (`benchmarks.selectors.published_item`)."""

    round: str
    division: str
    submitter: str
    system: str
    benchmark: str
    software: str
    scenario: str
    ttft_limit_ms: float | None
    tpot_limit_ms: float | None
    spread_low: float
    spread_high: float
    off_median: float
    source_path: str
    licence: str


class FrozenResult(TypedDict, total=False):
    """One parsed benchmark result (`benchmarks.selectors.evidence_results_for`): what it
    measured, its key figures and operating points. Judged per row at compute time."""

    result_id: int | str  # str: a published result's "published:<id>"
    quote_id: int | None
    brief_id: int | None
    accelerator: str  # slug
    model_name: str
    model_profile_id: int | None
    precision: str
    gpu_count: int
    tensor_parallel: int | None
    pipeline_parallel: int | None
    input_tokens_mean: float | None
    input_tokens_p95: float | None
    output_tokens_mean: float | None
    output_tokens_p95: float | None
    concurrency: float | None
    request_rate: float | None
    serving_engine: str
    engine_version: str
    kv_precision: str  # the KV cache's dtype as the file states it ("" : not stated)
    measured_quote_id: int  # the earlier offer version it ran on, when quote_id is its successor
    measured_on_version: int  # that version's number (catalog.selectors.same_setup_versions)
    format_id: str
    parsed_at: str | None
    output_tokens_per_s: float | None
    request_throughput_rps: float | None
    tokens_per_s_per_gpu: float | None
    ttft_p95_ms: float | None
    itl_p95_ms: float | None
    tpot_p95_ms: float | None
    e2e_p99_ms: float | None
    acceptance_rate: float | None
    has_acceptance_data: bool
    requests_completed: int | None
    failure_rate: float | None
    operating_points: list[dict[str, JSONValue]]
    sweep: str
    sweep_result_ids: list[int]  # every member of a sweep uploaded as several files
    scope: str  # media rows: "quote" or "accelerator", whose result it is
    published: PublishedSource  # a published result (its result_id is "published:<id>")
    outputs_per_s_per_gpu: float | None  # a published text-to-image result's images/s


class Measured(TypedDict):
    results: list[FrozenResult]
    published: NotRequired[list[FrozenResult]]  # absent from snapshots frozen before them


class CalibrationRow(TypedDict):
    """`engine.calibration.CalibrationSummary` as JSON, per `engine.calibration.ledger_key`
    (accelerator, model, precision, workload class; engine 1.4.0: accelerator and model)."""

    accelerator: str
    entries: int
    median_ratio: float
    p10_ratio: float
    p90_ratio: float
    min_ratio: float
    max_ratio: float
    results: NotRequired[int | None]
    model: NotRequired[str]
    precision: NotRequired[str]
    workload_class: NotRequired[str]


class CostCalibrationRow(TypedDict):
    """The billed months' actual / forecast cost per accepted output on one offer (Decimal
    text), `catalog.ledger.cost_calibration_for`."""

    entries: int
    min_ratio: str
    max_ratio: str


class BriefRow(TypedDict, total=False):
    """Every concrete field of the brief version (`freeze.row_fields`)."""

    id: int
    title: str
    version: int
    supersedes_id: int | None
    workload_class: WorkloadClassName
    description: str
    model_id: int | None
    weight_precision: str
    kv_precision: str
    serving_engine: str  # "" : not stated (results of any engine count)
    serving_engine_version: str
    context_window_tokens: int | None
    p95_input_tokens: int | None
    p95_output_tokens: int | None
    mean_input_tokens: int | None
    mean_output_tokens: int | None
    streaming: bool
    concurrency: int | None
    batch_size: int | None
    ttft_p95_ms: int | None
    itl_p95_ms: int | None
    e2e_p99_ms: int | None
    max_error_rate: float | None  # 0 ≤ x < 1; None: no maximum
    billed_token_type: str
    peak_to_average: float
    monthly_accepted_outputs_low: float | None
    monthly_accepted_outputs_likely: float | None
    monthly_accepted_outputs_high: float | None
    acceptance_rate_low: float | None
    acceptance_rate_likely: float | None
    acceptance_rate_high: float | None
    failure_rate_low: float | None
    failure_rate_likely: float | None
    failure_rate_high: float | None
    utilisation_low: float | None
    utilisation_likely: float | None
    utilisation_high: float | None
    training_tokens_b: float | None
    sequence_length: int | None
    global_batch_tokens: int | None
    optimizer: str
    sharding: str
    lora_rank: int | None
    checkpoint_size_gb: float | None
    checkpoint_interval_min: float | None
    checkpoint_write_s: float | None
    restart_time_min: float | None
    expected_mfu: float | None
    node_failure_rate_per_day: float | None
    target_gpus: int | None
    run_success_probability: float | None
    media_kind: str
    gpu_seconds_per_asset: float | None
    moderation_cost_per_asset: str | None
    review_minutes_per_asset: float | None
    allowed_regions: list[str]
    private_endpoint_required: bool
    allow_model_substitution: bool
    residency_notes: str
    operating_model: str
    platform_fte: float | None
    loaded_monthly_cost_per_fte: str | None
    storage_gb: float | None
    egress_gb_month: float | None
    horizon_months: int
    expected_model_churn_months: int | None
    created_by_id: int


class QuoteRow(TypedDict, total=False):
    """Every concrete field of the quote version, plus the names the rows show."""

    provider_name: str
    accelerator_slug: str
    label: str
    spot_rework_share: str | float | None  # a quote's own spot rework share, when it states one
    id: int
    provider_id: int
    accelerator_id: int
    rfq_id: int | None
    title: str
    version: int
    supersedes_id: int | None
    status: str
    is_public_list_price: bool
    # Entered by the vendor itself: its private-endpoint claim counts once reviewed.
    entered_by_vendor: bool
    capacity_model: CapacityModel
    currency: str
    price_unit: str  # what the vendor priced: a GPU-hour, a node-hour, …
    price_as_quoted: str | None  # in that unit (price_per_gpu_hour is per GPU-hour)
    gpus_per_priced_unit: int | None
    price_per_gpu_hour: str | None
    price_per_node: str | None
    support_per_year: str | None
    power_kw_per_node: str | None
    amortisation_months: int | None
    gpus_per_node: int
    max_gpus_available: int | None
    unit_of_sale: str  # "gpu" | "node" | "" (not stated; older snapshots lack it)
    capacity_available_from: str | None  # ISO 8601; None: now
    capacity_lead_time_days: int | None
    vcpu_per_node: int | None
    ram_gb_per_node: int | None
    local_nvme_tb_per_node: str | None
    intra_node_interconnect: str
    inter_node_fabric: str
    inter_node_bandwidth_gbps: int | None
    region: str
    zone: str
    zones: list[str]
    placement: str
    private_endpoint: str
    min_commitment_gpus: int
    term_months: int
    cancellation_terms: str
    overage_rate_per_gpu_hour: str | None
    storage_per_gb_month: str | None
    egress_per_gb: str | None
    snapshot_per_gb_month: str | None
    public_ip_per_month: str | None
    load_balancer_per_month: str | None
    private_networking_per_month: str | None
    idle_billed: bool
    shutdown_automation: str
    usage_export_format: str
    invoice_granularity: str
    support_tier: str
    quoted_at: str
    valid_until: str | None
    source_url: str
    source_document: str
    list_key: str
    notes: str
    price_far_from_market: bool
    price_check: dict[str, JSONValue]
    entered_by_id: int | None


class HostedLatency(TypedDict):
    """What the newest benchmark run against the route measured (benchmarks.selectors
    .hosted_latency_for): the row's latency is judged on it, not on the stated figures."""

    result_id: int
    ttft_p95_ms: float | None
    itl_p95_ms: float | None
    e2e_p99_ms: float | None
    concurrency: float | None
    model_name: str
    parsed_at: str | None


class RouteRow(TypedDict, total=False):
    """Every concrete field of the API route, plus the names the rows show."""

    provider_name: str
    label: str
    measured_latency: HostedLatency | None  # absent in snapshots frozen before it
    evaluation_result_id: int | None  # an evaluation that allows the substituted model
    id: int
    provider_id: int
    model_name: str
    model_profile_id: int | None
    publisher: str
    currency: str
    price_input_per_m_tokens: str
    price_output_per_m_tokens: str
    price_cached_input_per_m_tokens: str | None
    price_cache_write_per_m_tokens: str | None
    # by tier name ("batch", "above_200k_tokens", "standard", …): its prices (catalog/tiers.py)
    price_tiers: dict[str, dict[str, JSONValue]]
    max_input_tokens: int | None
    rate_limit_rpm: int | None
    rate_limit_tpm: int | None
    failed_attempts_billed: str | None
    region: str
    processing_regions: list[str]
    private_endpoint: str
    p95_ttft_ms: float | None
    p99_e2e_ms: float | None
    is_public_list_price: bool
    is_active: bool
    quoted_at: str
    valid_until: str | None
    source_url: str
    entered_by_id: int | None


class RequestSizes(TypedDict):
    """`benchmarks.distributions.request_sizes`: the successful requests' prompt and output
    tokens (an evenly spaced subsample), and how many there were."""

    input_tokens: list[float]
    output_tokens: list[float | None]
    requests: int


class MeasuredRequests(TypedDict):
    """One upload made for the brief and the request sizes it measured."""

    result_id: int
    request_sizes: RequestSizes


class TrafficTraceRow(TypedDict):
    """The brief's request trace a comparison sizes from (briefs.TrafficTrace): the stored
    file and its sha256 (the worker reads it again and checks the bytes), the window it stands
    for, and a sample of its request sizes for the plan's buckets."""

    id: int
    file: str  # the storage name
    sha256: str
    original_name: str
    window: str  # "hour" | "day" | "week" | "peak_hour"
    requests: int
    request_sizes: RequestSizes


class Snapshot(TypedDict):
    """The whole input of one comparison (format 2)."""

    format: int
    engine_version: str
    as_of: str  # ISO 8601, UTC: the clock every staleness check reads
    base_currency: str
    stale_quote_days: int
    selection: Selection
    brief: BriefRow
    model: ModelRow | None
    assumptions: Assumptions
    accelerators: dict[str, AcceleratorRow]  # by slug
    quotes: list[QuoteRow]
    api_routes: list[RouteRow]
    fx_rates: dict[str, FxRate]  # by currency; the base currency is 1
    checklist: dict[str, ChecklistSummary] | None  # by quote id (a string: JSON keys)
    measured: Measured
    calibration: dict[str, CalibrationRow]  # by ledger key (see CalibrationRow)
    # Billed months on each quote's offer (by quote id); absent before the ledger kept them.
    cost_calibration: NotRequired[dict[str, CostCalibrationRow]]
    # The requests measured by the uploads made for the brief (the cheapest plan's
    # request-size buckets); absent before the plan read them.
    request_sizes: NotRequired[list[MeasuredRequests]]
    # The brief's traffic trace (issue 42); absent before traces, None when it has none.
    traffic_trace: NotRequired[TrafficTraceRow | None]


# The assumption overrides a comparison was created with, and every scalar in effect.
Overrides: TypeAlias = dict[str, AssumptionValue]
Effective: TypeAlias = dict[str, float]
