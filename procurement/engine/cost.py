"""The deterministic cost model: every cost a named Decimal line (DOMAIN.md, "Step 2").

Point estimate at the likely value of every ranged assumption, in ``Decimal`` (40 digits,
``ROUND_HALF_EVEN``); each money line is quantised to cents. A month is 730 hours.

Inference, retrieval, evaluation and media (per month)::

    completed   = accepted / acceptance                       (renders that did not fail)
    attempts    = accepted / (acceptance × (1 − failure))
    gpu_s       = gpus_per_replica × output_tokens / throughput_tokens_per_s
                  (or gpus_per_replica / throughput_outputs_per_s)   GPU-seconds per attempt
    work_h      = attempts × gpu_s / 3600
    billed_h    = work_h / utilisation                         elastic (on_demand, spot,
                                                               marketplace, managed_endpoint)
                = ceil(peak_to_average × attempts × gpu_s / (gpus × 730 × 3600))
                  × gpus × 730                                 fixed (reserved, dedicated_cluster,
                                                               private_cloud, purchase)
    billed_h    = max(billed_h, min_commitment_gpu_hours_per_month)
    gpu_spend   = q(billed_h × price)      = gpu_compute + retry_waste + idle_capacity
    retry_waste = q((attempts − accepted) × gpu_s / 3600 × price)
    idle        = q((billed_h − work_h) × price)
    gpu_compute = gpu_spend − retry_waste − idle   (takes the rounding remainder; the
                  three are rounded cumulatively, so each is ≥ 0 and they sum exactly)

    API route:  per_attempt = (in × (1 − cached) × p_in + in × cached × p_cached
                               + out × p_out) / 1e6 + price_per_output
                api_compute = q(accepted × per_attempt); retry_waste = q(attempts × per_attempt)
                − api_compute; no idle line.

    storage       = storage_gb × price_gb_month (+ media: accepted × asset_gb × retention)
    network       = egress_gb × (accepted / likely accepted) × price_gb + IP + LB + private net
    serving_stack = offer's serving stack (+ the team's own stack when self-managed)
    observability = observability per month
    platform_labor= platform FTE × loaded monthly cost (self-managed GPU);
                    vendor-management FTE × loaded monthly cost (model API, managed endpoint)
    media adds moderation_or_quality_filtering = completed × moderation per asset and
    operator_review = completed × review fraction × review cost; its GPU lines are named
    gpu_cost / failed_renders / queue_overhead.

    unit cost = total / accepted × scale    (per 1M accepted output tokens, or per 1,000
                                             accepted outputs/assets)

Training and fine-tuning (per run)::

    tokens_per_s = measured, or gpus × peak_tflops × 1e12 × MFU / (6 × active params)
    compute_h    = tokens / tokens_per_s / 3600
    stall_h      = compute_h / interval_h × checkpoint_write_s / 3600
    failures     = (compute_h + stall_h) × nodes / node_mtbf_h
    lost_h       = failures × (interval_h / 2 + restart_h)
    wall_h       = compute_h + stall_h + lost_h;  billed = max(wall_h × gpus, commitment × wall/730)
    checkpointing   = q(stall_h × gpus × price) + q(size × retained × price_gb_month × months)
    failed_run_waste= q(lost_h × gpus × price)
    Young/Daly interval = sqrt(2 × checkpoint_write_h × node_mtbf_h / nodes)
    unit = total / success_probability            (× acceptance for adapter fine-tuning)

Purchase: price per GPU-hour = (capex / life_months + kW × 730 × PUE × price_kWh
+ colocation + support / 12) per node / (GPUs per node × 730); fixed capacity rounds up to
whole nodes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext

from procurement.engine.errors import EngineInputError
from procurement.engine.types import (
    CENT,
    HOURS_PER_MONTH,
    SECONDS_PER_HOUR,
    ApiPricing,
    CandidateInput,
    PointEstimate,
    PurchaseSpec,
    Range,
    TrainingDetail,
    TrainingSpec,
    WorkloadInput,
)

DECIMAL_CONTEXT = Context(prec=40, rounding=ROUND_HALF_EVEN)
UNIT_QUANTUM = Decimal("0.000001")
PER_OUTPUT_QUANTUM = Decimal("1E-10")
HOURS_QUANTUM = Decimal("0.0001")
MILLION = Decimal(1_000_000)
THOUSAND = Decimal(1000)

LINE_ORDER: tuple[str, ...] = (
    "gpu_compute",
    "gpu_cost",
    "api_compute",
    "retry_waste",
    "failed_renders",
    "idle_capacity",
    "queue_overhead",
    "checkpointing",
    "failed_run_waste",
    "storage",
    "network",
    "serving_stack",
    "moderation_or_quality_filtering",
    "operator_review",
    "observability",
    "platform_labor",
)

UNIT_PER_1M_TOKENS = "per 1M accepted output tokens"
UNIT_PER_1K_OUTPUTS = "per 1,000 accepted outputs"
UNIT_PER_1K_ASSETS = "per 1,000 accepted assets"
UNIT_PER_RUN = "per completed training run"
UNIT_PER_MODEL = "per accepted fine-tuned model"


def dec(value: float | int | Decimal) -> Decimal:
    """A float's shortest decimal spelling (0.92 → Decimal('0.92')), never its binary value."""
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int):
        return Decimal(value)
    return Decimal(repr(value))


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_EVEN)


def split_exactly(
    total: Decimal, parts: Sequence[Decimal]
) -> tuple[Decimal, list[Decimal], Decimal]:
    """Quantise ``total`` and its ``parts`` so that they add up to the cent, never below 0.

    Cumulative rounding: part i = q(p1 + … + pi) − q(p1 + … + p(i−1)); the remainder
    q(total) − q(sum of parts) is the line that absorbs rounding. With 0 ≤ parts and
    sum(parts) ≤ total, every returned amount is ≥ 0 (rounding is monotone).
    """
    spend = money(total)
    out: list[Decimal] = []
    running = Decimal(0)
    previous = Decimal("0.00")
    for part in parts:
        running += part
        current = money(running)
        out.append(current - previous)
        previous = current
    return spend, out, spend - previous


def unit_label_and_scale(workload: WorkloadInput) -> tuple[str, Decimal]:
    """The class's unit and the factor from 'per accepted output' to it."""
    if workload.workload_class == "adapter_fine_tuning":
        return UNIT_PER_MODEL, Decimal(1)
    if workload.is_training:
        return UNIT_PER_RUN, Decimal(1)
    if workload.is_media:
        return UNIT_PER_1K_ASSETS, THOUSAND
    if workload.output_tokens_per_request > 0:
        with localcontext(DECIMAL_CONTEXT):
            return UNIT_PER_1M_TOKENS, MILLION / dec(workload.output_tokens_per_request)
    return UNIT_PER_1K_OUTPUTS, THOUSAND


def shared_ranges(workload: WorkloadInput) -> dict[str, Range]:
    """The workload's ranged assumptions (shared by every candidate in a sample)."""
    if workload.is_training:
        spec = _training_spec(workload)
        ranges = {
            "tokens": spec.tokens,
            "mfu": spec.mfu,
            "node_mtbf_h": spec.node_mtbf_h,
            "success_probability": spec.success_probability,
        }
        if workload.workload_class == "adapter_fine_tuning":
            ranges["acceptance_rate"] = workload.acceptance_rate
        return ranges
    assert workload.monthly_accepted_outputs is not None  # noqa: S101 - validated on input
    return {
        "monthly_accepted_outputs": workload.monthly_accepted_outputs,
        "acceptance_rate": workload.acceptance_rate,
        "failure_rate": workload.failure_rate,
        "utilisation": workload.utilisation,
        "peak_to_average": workload.peak_to_average,
    }


def candidate_ranges(workload: WorkloadInput, cand: CandidateInput) -> dict[str, Range]:
    """The candidate's own ranged assumptions (drawn from its own random stream)."""
    ranges: dict[str, Range] = {}
    if cand.throughput_per_replica is not None and not cand.is_api:
        ranges["throughput_per_replica"] = cand.throughput_per_replica
    if (
        cand.utilisation is not None
        and not workload.is_training
        and not cand.is_api
        and not cand.is_fixed
    ):
        ranges["utilisation"] = cand.utilisation
    if not workload.is_training:
        # measured acceptance and failure replace the brief's for this row (D3)
        if cand.acceptance_rate is not None:
            ranges["acceptance_rate"] = cand.acceptance_rate
        if cand.failure_rate is not None:
            ranges["failure_rate"] = cand.failure_rate
    return ranges


def likely_values(workload: WorkloadInput, cand: CandidateInput) -> dict[str, float]:
    values = {name: r.likely for name, r in shared_ranges(workload).items()}
    values.update({name: r.likely for name, r in candidate_ranges(workload, cand).items()})
    return values


def purchase_monthly_per_node(spec: PurchaseSpec, gpus_per_node: int) -> dict[str, Decimal]:
    """Owned node's monthly cost: capex / life + power + colocation + support / 12."""
    with localcontext(DECIMAL_CONTEXT):
        if spec.power_kw_per_node is not None:
            kw = spec.power_kw_per_node
        else:
            assert spec.gpu_tdp_w is not None  # noqa: S101 - validated on input
            kw = spec.gpu_tdp_w * gpus_per_node * spec.node_power_overhead_factor / THOUSAND
        return {
            "capex_amortisation": spec.capex_per_node / spec.life_months,
            "power": kw * HOURS_PER_MONTH * spec.pue * spec.price_per_kwh,
            "colocation": spec.colocation_per_node_month,
            "support": spec.support_per_node_year / 12,
        }


def price_per_gpu_hour(cand: CandidateInput) -> Decimal | None:
    """The hourly price (the effective one for owned hardware); None for API routes."""
    if cand.is_api:
        return None
    if cand.capacity_model == "purchase":
        assert cand.purchase is not None  # noqa: S101 - validated on input
        parts = purchase_monthly_per_node(cand.purchase, cand.gpus_per_node)
        with localcontext(DECIMAL_CONTEXT):
            return sum(parts.values(), Decimal(0)) / (cand.gpus_per_node * HOURS_PER_MONTH)
    assert cand.price_per_gpu_hour is not None  # noqa: S101 - validated on input
    return cand.price_per_gpu_hour


def api_cost_per_attempt(workload: WorkloadInput, pricing: ApiPricing) -> Decimal:
    with localcontext(DECIMAL_CONTEXT):
        cached = dec(workload.cached_input_fraction)
        tokens_in = dec(workload.input_tokens_per_request)
        p_cached = pricing.price_per_m_cached_input_tokens
        if p_cached is None:
            p_cached = pricing.price_per_m_input_tokens
        per_m = (
            tokens_in * (1 - cached) * pricing.price_per_m_input_tokens
            + tokens_in * cached * p_cached
            + dec(workload.output_tokens_per_request) * pricing.price_per_m_output_tokens
        )
        return per_m / MILLION + pricing.price_per_output


def gpu_seconds_numerator(workload: WorkloadInput, cand: CandidateInput) -> Decimal:
    """GPU-seconds per attempt × throughput: gpus × output tokens (tokens/s) or gpus."""
    if cand.throughput_unit == "outputs_per_s":
        return Decimal(cand.gpus_per_replica)
    if workload.output_tokens_per_request <= 0:
        raise EngineInputError(
            "output_tokens_per_request",
            f"candidate {cand.id!r} gives throughput in tokens/s: state output tokens per request",
        )
    return cand.gpus_per_replica * dec(workload.output_tokens_per_request)


def fixed_gpus_allocated(cand: CandidateInput, replicas: int) -> int:
    """GPUs held by fixed capacity: owned hardware comes in whole nodes."""
    gpus = replicas * cand.gpus_per_replica
    if cand.capacity_model == "purchase":
        return -(-gpus // cand.gpus_per_node) * cand.gpus_per_node
    return gpus


def line_names(workload: WorkloadInput) -> tuple[str, str, str]:
    if workload.is_media:
        return "gpu_cost", "failed_renders", "queue_overhead"
    return "gpu_compute", "retry_waste", "idle_capacity"


def _common_lines(
    workload: WorkloadInput,
    cand: CandidateInput,
    *,
    months: Decimal,
    egress_gb: Decimal,
    extra_storage_gb: Decimal,
) -> dict[str, Decimal]:
    """storage, network, serving_stack, observability, platform_labor over ``months``."""
    fte = workload.platform_labor_fte if cand.self_managed else workload.vendor_management_fte
    serving = cand.serving_stack_per_month
    if cand.self_managed:
        serving += workload.serving_stack_per_month
    storage_gb = dec(workload.storage_gb) * months + extra_storage_gb
    fixed_network = (
        cand.public_ip_per_month + cand.load_balancer_per_month + cand.private_networking_per_month
    ) * months
    lines = {
        "storage": money(storage_gb * cand.storage_price_per_gb_month),
        "network": money(egress_gb * cand.egress_price_per_gb + fixed_network),
        "serving_stack": money(serving * months),
        "observability": money(workload.observability_per_month * months),
        "platform_labor": money(dec(fte) * workload.loaded_monthly_cost_per_fte * months),
    }
    if workload.is_training:
        del lines["serving_stack"]
    return lines


def _purchase_breakdown(cand: CandidateInput, gpu_spend: Decimal) -> dict[str, Decimal]:
    """The GPU spend by what it pays for: rental, or capex/power/colocation/support."""
    if cand.capacity_model != "purchase":
        return {"rental": gpu_spend}
    assert cand.purchase is not None  # noqa: S101 - validated on input
    parts = purchase_monthly_per_node(cand.purchase, cand.gpus_per_node)
    whole = sum(parts.values(), Decimal(0))
    names = ["power", "colocation", "support"]
    shares = [gpu_spend * parts[n] / whole if whole else Decimal(0) for n in names]
    _, amounts, capex = split_exactly(gpu_spend, shares)
    return {"capex_amortisation": capex, **dict(zip(names, amounts, strict=True))}


def point_estimate(
    workload: WorkloadInput, cand: CandidateInput, *, values: Mapping[str, float] | None = None
) -> PointEstimate:
    """Cost lines of ``cand`` at the likely values (or ``values`` overriding some of them)."""
    merged = likely_values(workload, cand)
    merged.update(values or {})
    with localcontext(DECIMAL_CONTEXT):
        if workload.is_training:
            return _training_estimate(workload, cand, merged)
        return _volume_estimate(workload, cand, merged)


def _finish(
    workload: WorkloadInput,
    lines: dict[str, Decimal],
    accepted: Decimal,
    attempts: Decimal,
    *,
    price_per_gpu_hour: Decimal | None,
    billed_gpu_hours: Decimal | None,
    gpu_spend: Decimal | None,
    gpu_spend_breakdown: dict[str, Decimal],
    training: TrainingDetail | None = None,
) -> PointEstimate:
    label, scale = unit_label_and_scale(workload)
    ordered = {name: lines[name] for name in LINE_ORDER if name in lines}
    total = sum(ordered.values(), Decimal(0))
    per_output = total / accepted
    exact = per_output * scale
    return PointEstimate(
        lines=ordered,
        total=total,
        accepted_outputs=accepted,
        attempts=attempts,
        unit_cost=exact.quantize(UNIT_QUANTUM, rounding=ROUND_HALF_EVEN),
        unit_cost_exact=exact,
        unit_label=label,
        unit_cost_per_accepted_output=per_output.quantize(
            PER_OUTPUT_QUANTUM, rounding=ROUND_HALF_EVEN
        ),
        price_per_gpu_hour=price_per_gpu_hour,
        billed_gpu_hours=billed_gpu_hours,
        gpu_spend=gpu_spend,
        gpu_spend_breakdown=gpu_spend_breakdown,
        training=training,
    )


def _volume_estimate(
    workload: WorkloadInput, cand: CandidateInput, v: Mapping[str, float]
) -> PointEstimate:
    assert workload.monthly_accepted_outputs is not None  # noqa: S101 - validated on input
    accepted = dec(v["monthly_accepted_outputs"])
    if accepted <= 0:
        raise EngineInputError("monthly_accepted_outputs", "must be > 0")
    acceptance = dec(v["acceptance_rate"])
    completed = accepted / acceptance
    attempts = completed / (1 - dec(v["failure_rate"]))
    compute_name, retry_name, idle_name = line_names(workload)
    lines: dict[str, Decimal] = {}
    price: Decimal | None = None
    billed: Decimal | None = None
    gpu_spend: Decimal | None = None
    if cand.is_api:
        assert cand.api_pricing is not None  # noqa: S101 - validated on input
        per_attempt = api_cost_per_attempt(workload, cand.api_pricing)
        spend = money(attempts * per_attempt)
        lines["api_compute"] = money(accepted * per_attempt)
        lines[retry_name] = spend - lines["api_compute"]
    else:
        if cand.throughput_per_replica is None:
            raise EngineInputError(
                "throughput_per_replica", f"candidate {cand.id!r} has no throughput figure"
            )
        price = price_per_gpu_hour(cand)
        assert price is not None  # noqa: S101 - GPU candidates always have one
        gpu_s = gpu_seconds_numerator(workload, cand) / dec(v["throughput_per_replica"])
        work_h = attempts * gpu_s / SECONDS_PER_HOUR
        retry_h = (attempts - accepted) * gpu_s / SECONDS_PER_HOUR
        if cand.is_fixed:
            peak_replicas = (
                dec(v["peak_to_average"])
                * attempts
                * gpu_s
                / (cand.gpus_per_replica * HOURS_PER_MONTH * SECONDS_PER_HOUR)
            )
            billed = fixed_gpus_allocated(cand, math.ceil(peak_replicas)) * HOURS_PER_MONTH
        elif cand.idle_billed:
            billed = work_h / dec(v["utilisation"])
        else:
            billed = work_h
        billed = max(billed, cand.min_commitment_gpu_hours_per_month)
        gpu_spend, (lines[retry_name], lines[idle_name]), lines[compute_name] = split_exactly(
            billed * price, [retry_h * price, (billed - work_h) * price]
        )
    egress_gb = (
        dec(workload.egress_gb_per_month) * accepted / dec(workload.monthly_accepted_outputs.likely)
    )
    media = workload.media
    asset_gb = Decimal(0)
    if media is not None and workload.is_media:
        asset_gb = accepted * dec(media.asset_size_gb) * dec(media.retention_months)
        moderation = completed * media.moderation_cost_per_asset
        lines["moderation_or_quality_filtering"] = money(moderation)
        lines["operator_review"] = money(
            completed * dec(media.review_fraction) * media.review_cost_per_asset
        )
    lines.update(
        _common_lines(
            workload, cand, months=Decimal(1), egress_gb=egress_gb, extra_storage_gb=asset_gb
        )
    )
    return _finish(
        workload,
        lines,
        accepted,
        attempts,
        price_per_gpu_hour=price,
        billed_gpu_hours=None if billed is None else billed.quantize(HOURS_QUANTUM),
        gpu_spend=gpu_spend,
        gpu_spend_breakdown={} if gpu_spend is None else _purchase_breakdown(cand, gpu_spend),
    )


def _training_spec(workload: WorkloadInput) -> TrainingSpec:
    if workload.training is None:
        raise EngineInputError("training", f"{workload.workload_class} needs a TrainingSpec")
    return workload.training


def training_tokens_per_s(
    workload: WorkloadInput, cand: CandidateInput, v: Mapping[str, float]
) -> Decimal:
    spec = _training_spec(workload)
    if cand.throughput_per_replica is not None:
        if cand.throughput_unit != "tokens_per_s":
            raise EngineInputError(
                "throughput_unit", f"candidate {cand.id!r}: training throughput is tokens/s"
            )
        return dec(v["throughput_per_replica"])
    if cand.peak_dense_tflops_per_gpu is None:
        raise EngineInputError(
            "throughput_per_replica",
            f"candidate {cand.id!r} needs measured tokens/s or peak TFLOPS",
        )
    return (
        cand.gpus_per_replica
        * dec(cand.peak_dense_tflops_per_gpu)
        * Decimal(10) ** 12
        * dec(v["mfu"])
        / (dec(spec.flops_per_param_token) * dec(spec.active_params_b) * Decimal(10) ** 9)
    )


def checkpoint_write_s(workload: WorkloadInput, cand: CandidateInput) -> float:
    spec = _training_spec(workload)
    return spec.checkpoint_write_s if cand.checkpoint_write_s is None else cand.checkpoint_write_s


def training_nodes(cand: CandidateInput) -> int:
    return -(-cand.gpus_per_replica // cand.gpus_per_node)


def _training_lines(
    workload: WorkloadInput, cand: CandidateInput, v: Mapping[str, float], interval_h: Decimal
) -> tuple[dict[str, Decimal], dict[str, Decimal]]:
    """(lines, figures) of one training run with checkpoints every ``interval_h``."""
    if cand.is_api:
        raise EngineInputError("kind", f"candidate {cand.id!r}: API routes do not train models")
    spec = _training_spec(workload)
    price = price_per_gpu_hour(cand)
    assert price is not None  # noqa: S101 - GPU candidates always have one
    gpus = Decimal(cand.gpus_per_replica)
    tps = training_tokens_per_s(workload, cand, v)
    compute_h = dec(v["tokens"]) / tps / SECONDS_PER_HOUR
    write_s = dec(checkpoint_write_s(workload, cand))
    # interval 0 only comes from Young/Daly with a (near-)zero write time: no stall then
    no_stall = write_s == 0 or interval_h == 0
    stall_h = Decimal(0) if no_stall else compute_h / interval_h * write_s / SECONDS_PER_HOUR
    nodes = training_nodes(cand)
    failures = (compute_h + stall_h) * nodes / dec(v["node_mtbf_h"])
    lost_h = failures * (interval_h / 2 + dec(spec.restart_h))
    wall_h = compute_h + stall_h + lost_h
    months = wall_h / HOURS_PER_MONTH
    used = wall_h * gpus
    billed = max(used, cand.min_commitment_gpu_hours_per_month * months)
    lines: dict[str, Decimal] = {}
    gpu_spend, parts, lines["gpu_compute"] = split_exactly(
        billed * price,
        [stall_h * gpus * price, lost_h * gpus * price, (billed - used) * price],
    )
    ckpt_gpu, lines["failed_run_waste"], lines["idle_capacity"] = parts
    ckpt_gb_months = dec(spec.checkpoint_size_gb) * spec.checkpoints_retained * months
    lines["checkpointing"] = ckpt_gpu + money(ckpt_gb_months * cand.storage_price_per_gb_month)
    lines.update(
        _common_lines(
            workload,
            cand,
            months=months,
            egress_gb=dec(workload.egress_gb_per_month) * months,
            extra_storage_gb=Decimal(0),
        )
    )
    figures = {
        "tps": tps,
        "compute_h": compute_h,
        "stall_h": stall_h,
        "failures": failures,
        "lost_h": lost_h,
        "wall_h": wall_h,
        "billed": billed,
        "gpu_spend": gpu_spend,
        "price": price,
    }
    return lines, figures


def young_daly_interval_h(write_s: float, node_mtbf_h: float, nodes: int) -> float:
    """sqrt(2 × checkpoint write time × MTBF of the job), hours (job MTBF = node MTBF / nodes)."""
    return math.sqrt(2 * (write_s / 3600) * node_mtbf_h / nodes)


def _training_estimate(
    workload: WorkloadInput, cand: CandidateInput, v: Mapping[str, float]
) -> PointEstimate:
    spec = _training_spec(workload)
    lines, fig = _training_lines(workload, cand, v, dec(spec.checkpoint_interval_h))
    nodes = training_nodes(cand)
    best_h = young_daly_interval_h(checkpoint_write_s(workload, cand), v["node_mtbf_h"], nodes)
    best_lines, _ = _training_lines(workload, cand, v, dec(best_h))
    accepted = dec(v["success_probability"])
    if workload.workload_class == "adapter_fine_tuning":
        accepted *= dec(v["acceptance_rate"])
    detail = TrainingDetail(
        tokens_per_s=float(fig["tps"]),
        compute_h=float(fig["compute_h"]),
        checkpoint_stall_h=float(fig["stall_h"]),
        expected_node_failures=float(fig["failures"]),
        lost_h=float(fig["lost_h"]),
        wall_clock_h=float(fig["wall_h"]),
        nodes=nodes,
        checkpoint_interval_h=spec.checkpoint_interval_h,
        recommended_checkpoint_interval_h=best_h,
        total_at_recommended_interval=sum(best_lines.values(), Decimal(0)),
    )
    return _finish(
        workload,
        lines,
        accepted,
        Decimal(1),
        price_per_gpu_hour=fig["price"],
        billed_gpu_hours=fig["billed"].quantize(HOURS_QUANTUM),
        gpu_spend=fig["gpu_spend"],
        gpu_spend_breakdown=_purchase_breakdown(cand, fig["gpu_spend"]),
        training=detail,
    )
