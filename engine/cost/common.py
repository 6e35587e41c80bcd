"""Shared pieces of the cost model: rounding, units, ranges, prices and the common lines.

See cost.py for the formulas. Everything here is pure Decimal arithmetic in
``DECIMAL_CONTEXT`` (40 digits, ``ROUND_HALF_EVEN``); money lines are quantised to cents.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext
from functools import lru_cache

from core import workloads
from core.cost_lines import LINE_ORDER
from engine.cost.contracts import in_sale_blocks
from engine.errors import EngineInputError
from engine.types import (
    CENT,
    HOURS_PER_MONTH,
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


UNIT_PER_1M_TOKENS = "per 1M accepted output tokens"
UNIT_PER_1M_INPUT_TOKENS = "per 1M accepted input tokens"
UNIT_PER_1M_TOTAL_TOKENS = "per 1M accepted tokens (input + output)"
UNIT_PER_1K_OUTPUTS = "per 1,000 accepted outputs"
UNIT_PER_1K_ASSETS = "per 1,000 accepted assets"
UNIT_PER_RUN = "per completed training run"
UNIT_PER_MODEL = "per accepted fine-tuned model"
# Fine-tuning produces a model someone accepts (docs/domain.md): full and adapter tuning alike.
FINE_TUNING_CLASSES = workloads.FINE_TUNING


def dec(value: float | int | Decimal) -> Decimal:
    """A float's shortest decimal spelling (0.92 → Decimal('0.92')), never its binary value."""
    if type(value) is float and value:  # 0.0 and -0.0: equal cache keys, different Decimals
        return _float_dec(value)
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int):
        return Decimal(value)
    return Decimal(repr(value))


@lru_cache(maxsize=4096)
def _float_dec(value: float) -> Decimal:
    # A comparison converts the same few dozen likely values tens of thousands of times.
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
    if workload.workload_class in FINE_TUNING_CLASSES:
        return UNIT_PER_MODEL, Decimal(1)
    if workload.is_training:
        return UNIT_PER_RUN, Decimal(1)
    if workload.is_media:
        return UNIT_PER_1K_ASSETS, THOUSAND
    if workload.output_tokens_per_request > 0:
        label, tokens = billed_tokens_per_output(workload)
        with localcontext(DECIMAL_CONTEXT):
            return label, MILLION / tokens
    return UNIT_PER_1K_OUTPUTS, THOUSAND


def billed_tokens_per_output(workload: WorkloadInput) -> tuple[str, Decimal]:
    """The unit's label and the billed tokens in one accepted output.

    Every candidate is costed per accepted request first: its monthly total over the accepted
    requests. The brief's token type then divides that by the tokens the team pays for in one
    request: output (the default), input, or input + output. An API route priced per input
    and per output token is normalised the same way, its whole bill per request (both kinds
    of tokens) over the billed tokens, so GPU rows and API routes stay comparable.
    """
    tokens_out = dec(workload.output_tokens_per_request)
    tokens_in = dec(workload.input_tokens_per_request)
    if workload.tokens_billed == "output":
        return UNIT_PER_1M_TOKENS, tokens_out
    if tokens_in <= 0:
        raise EngineInputError(
            "billed_token_type",
            f"unit costs per {workload.tokens_billed} token need the input tokens per "
            "request (the brief's mean or p95 input)",
        )
    if workload.tokens_billed == "input":
        return UNIT_PER_1M_INPUT_TOKENS, tokens_in
    return UNIT_PER_1M_TOTAL_TOKENS, tokens_in + tokens_out


def unit_basis(workload: WorkloadInput) -> str:
    """The unit cost's basis in words, for pages and exports ("" outside token classes)."""
    label, _ = unit_label_and_scale(workload)
    if label not in (UNIT_PER_1M_TOKENS, UNIT_PER_1M_INPUT_TOKENS, UNIT_PER_1M_TOTAL_TOKENS):
        return ""
    _, tokens = billed_tokens_per_output(workload)
    kind = {"output": "output", "input": "input", "total": "input + output"}[workload.tokens_billed]
    return (
        f"Unit costs are USD {label}: each row's monthly total over its accepted requests, "
        f"at {float(tokens):,g} {kind} tokens per request (the brief's mean, else p95). API routes "
        "priced per input and per output token are normalised the same way: their whole "
        "bill per request, both kinds of tokens, over those billed tokens."
    )


def training_spec(workload: WorkloadInput) -> TrainingSpec:
    if workload.training is None:
        raise EngineInputError("training", f"{workload.workload_class} needs a TrainingSpec")
    return workload.training


def shared_ranges(workload: WorkloadInput) -> dict[str, Range]:
    """The workload's ranged assumptions (shared by every candidate in a sample)."""
    if workload.is_training:
        spec = training_spec(workload)
        ranges = {
            "tokens": spec.tokens,
            "mfu": spec.mfu,
            "node_mtbf_h": spec.node_mtbf_h,
            "success_probability": spec.success_probability,
            # The busy share of the time the GPUs are held for the run
            "utilisation": workload.utilisation,
        }
        if workload.workload_class in FINE_TUNING_CLASSES:
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
        # measured acceptance and failure replace the brief's for this row
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
    """Owned node's monthly cost.

    (capex − residual) / life + cost of capital × (capex + residual) / 2 / 12 + power
    + colocation + support / 12. The cost of capital is charged on the average capital
    employed over the life (straight-line depreciation from capex to the residual value).
    """
    with localcontext(DECIMAL_CONTEXT):
        if spec.power_kw_per_node is not None:
            kw = spec.power_kw_per_node
        else:
            assert spec.gpu_tdp_w is not None  # noqa: S101 - validated on input
            kw = spec.gpu_tdp_w * gpus_per_node * spec.node_power_overhead_factor / THOUSAND
        residual = spec.capex_per_node * spec.residual_value_share
        parts = {
            "capex_amortisation": (spec.capex_per_node - residual) / spec.life_months,
            "power": kw * HOURS_PER_MONTH * spec.pue * spec.price_per_kwh,
            "colocation": spec.colocation_per_node_month,
            "support": spec.support_per_node_year / 12,
        }
        if spec.cost_of_capital_annual > 0:
            parts["cost_of_capital"] = (
                spec.cost_of_capital_annual * (spec.capex_per_node + residual) / 2 / 12
            )
        return parts


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


def spot_rework_share(workload: WorkloadInput, cand: CandidateInput) -> Decimal:
    """Extra work redone after spot interruptions, as a share of the work (0 elsewhere)."""
    if cand.capacity_model != "spot":
        return Decimal(0)
    share = cand.spot_rework_share
    return dec(workload.spot_rework_share if share is None else share)


def peak_capacity_share(workload: WorkloadInput) -> Decimal:
    """Share of a fixed replica's measured throughput the peak may use (1 − headroom)."""
    return 1 - dec(workload.fixed_peak_headroom)


def fixed_gpus_allocated(cand: CandidateInput, replicas: int) -> int:
    """GPUs held by fixed capacity, in the offer's unit of sale (engine/cost/contracts.py)."""
    return in_sale_blocks(cand, replicas * cand.gpus_per_replica)


def term_beyond_horizon_share(workload: WorkloadInput, cand: CandidateInput) -> Decimal:
    """Fixed capacity whose term outlasts the brief's horizon: the share of the horizon's GPU
    spend the rest of the term adds, less the residual use the brief states.

        share = max(0, term − horizon) ÷ horizon × (1 − residual use)

    So unit cost = max(contract, usage) ÷ accepted outputs over the horizon: the stranded
    months are paid whether or not anyone uses them."""
    if workload.is_training or not cand.is_fixed or cand.term_months <= workload.horizon_months:
        return Decimal(0)
    beyond = Decimal(cand.term_months - workload.horizon_months) / workload.horizon_months
    return beyond * (1 - dec(workload.term_residual_use_share))


def line_names(workload: WorkloadInput) -> tuple[str, str, str]:
    if workload.is_media:
        return "gpu_cost", "failed_renders", "queue_overhead"
    return "gpu_compute", "retry_waste", "idle_capacity"


def managed_fte(workload: WorkloadInput, cand: CandidateInput) -> Decimal:
    """The team's time the row takes: running it (self-managed) or managing the vendor."""
    return dec(workload.platform_labor_fte if cand.self_managed else workload.vendor_management_fte)


# The monthly amounts every path costs the same way: the point estimate (common_lines), the
# Monte Carlo (montecarlo/constants.py) and the plan (plan/mixed_adapter.py) call these and
# never re-sum the fields (docs/engine/cost-model.md, "Adding a cost line").


def fixed_network_monthly(cand: CandidateInput) -> Decimal:
    """The network line's fixed part: public IP, load balancer, private networking."""
    return (
        cand.public_ip_per_month + cand.load_balancer_per_month + cand.private_networking_per_month
    )


def serving_monthly(workload: WorkloadInput, cand: CandidateInput) -> Decimal:
    """The serving_stack line: the offer's stack, plus the team's own when self-managed."""
    own = workload.serving_stack_per_month if cand.self_managed else Decimal(0)
    return cand.serving_stack_per_month + own


def labor_monthly(workload: WorkloadInput, cand: CandidateInput) -> Decimal:
    """The platform_labor line: the team's FTE times the loaded monthly cost."""
    return managed_fte(workload, cand) * workload.loaded_monthly_cost_per_fte


def storage_monthly(workload: WorkloadInput, cand: CandidateInput) -> Decimal:
    """The storage line's monthly part: the brief's storage at the offer's price."""
    return dec(workload.storage_gb) * cand.storage_price_per_gb_month


def egress_monthly(workload: WorkloadInput, cand: CandidateInput) -> Decimal:
    """The network line's egress at the brief's monthly egress (the likely volume)."""
    return dec(workload.egress_gb_per_month) * cand.egress_price_per_gb


def overage_premium(cand: CandidateInput) -> Decimal:
    """What a GPU-hour past the monthly commitment costs beyond the committed price: the
    vendor's overage rate less its hourly price; 0 for offers without a commitment (every
    hour is at the price) or without a stated rate."""
    rate, price = cand.overage_rate_per_gpu_hour, cand.price_per_gpu_hour
    if rate is None or price is None or cand.min_commitment_gpu_hours_per_month <= 0:
        return Decimal(0)
    return rate - price


def overage_amount(cand: CandidateInput, billed_h: Decimal, committed_h: Decimal) -> Decimal:
    """The overage line: the GPU lines price every billed hour at the committed price; the
    hours past the commitment cost the overage rate, so this line adds their difference,
    (billed − committed) × (overage rate − price) (negative if the vendor's overage is below
    its price)."""
    if billed_h <= committed_h:
        return Decimal(0)
    return money((billed_h - committed_h) * overage_premium(cand))


def common_lines(
    workload: WorkloadInput,
    cand: CandidateInput,
    *,
    months: Decimal,
    egress_gb: Decimal,
    extra_storage_gb: Decimal,
) -> dict[str, Decimal]:
    """storage, network, serving_stack, observability, platform_labor over ``months``."""
    lines = {
        "storage": money(
            storage_monthly(workload, cand) * months
            + extra_storage_gb * cand.storage_price_per_gb_month
        ),
        "network": money(
            egress_gb * cand.egress_price_per_gb + fixed_network_monthly(cand) * months
        ),
        "serving_stack": money(serving_monthly(workload, cand) * months),
        "observability": money(workload.observability_per_month * months),
        "platform_labor": money(labor_monthly(workload, cand) * months),
    }
    if workload.is_training:
        del lines["serving_stack"]
    return lines


def purchase_breakdown(cand: CandidateInput, gpu_spend: Decimal) -> dict[str, Decimal]:
    """The GPU spend by what it pays for: rental, or capex/power/colocation/support."""
    if cand.capacity_model != "purchase":
        return {"rental": gpu_spend}
    assert cand.purchase is not None  # noqa: S101 - validated on input
    parts = purchase_monthly_per_node(cand.purchase, cand.gpus_per_node)
    whole = sum(parts.values(), Decimal(0))
    names = [n for n in ("power", "colocation", "support", "cost_of_capital") if n in parts]
    shares = [gpu_spend * parts[n] / whole if whole else Decimal(0) for n in names]
    _, amounts, capex = split_exactly(gpu_spend, shares)
    return {"capex_amortisation": capex, **dict(zip(names, amounts, strict=True))}


def finish(
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
