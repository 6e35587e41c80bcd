"""The deterministic cost model: every cost a named Decimal line (docs/domain.md, "Step 2").

Point estimate at the likely value of every ranged assumption, in ``Decimal`` (40 digits,
``ROUND_HALF_EVEN``); each money line is quantised to cents. A month is 730 hours.

Inference, retrieval, evaluation and media (per month)::

    completed   = accepted / acceptance                       (renders that did not fail)
    attempts    = accepted / (acceptance × (1 − failure))
    gpu_s       = gpus_per_replica × output_tokens / throughput_tokens_per_s
                  (or gpus_per_replica / throughput_outputs_per_s)   GPU-seconds per attempt
    work_h      = attempts × gpu_s / 3600
    rework_h    = work_h × spot_rework_share                   spot only, else 0
    billed_h    = (work_h + rework_h) / utilisation            elastic (on_demand, spot,
                                                               marketplace, managed_endpoint)
                = ceil(peak_to_average × attempts × gpu_s / (gpus × 730 × 3600
                       × (1 − fixed_peak_headroom)))
                  × gpus × 730                                 fixed (reserved, dedicated_cluster,
                                                               private_cloud, purchase)
    billed_h    = max(billed_h, min_commitment_gpu_hours_per_month)
    gpu_spend   = q(billed_h × price)      = gpu_compute + retry_waste + idle_capacity
    overage     = q((billed_h − commitment) × (overage rate − price))   when the offer has
                  a commitment and states an overage rate (hours past it cost that rate)
    retry_waste = q((attempts − accepted) × gpu_s / 3600 × price)
    rework      = q(rework_h × price)                          line interruption_rework
    idle        = q((billed_h − work_h − rework_h) × price)
    gpu_compute = gpu_spend − retry_waste − idle   (takes the rounding remainder; the
                  three are rounded cumulatively, so each is ≥ 0 and they sum exactly)

    API route:  per_attempt = (in × (1 − cached) × p_in + in × cached × p_cached
                               + out × p_out) / 1e6 + price_per_output
                billed_attempts = completed + failed_billed × (attempts − completed)
                api_compute = q(accepted × per_attempt);
                retry_waste = q(billed_attempts × per_attempt) − api_compute; no idle line.
                failed_billed: the route's share of failed attempts billed, else the
                workload's ``api_failed_attempts_billed``.

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
    token classes: scale = 1e6 / billed tokens per request, the brief's token type:
    output (default), input, or input + output (API routes normalised the same way)

Training and fine-tuning (per run)::

    tokens_per_s = measured, or gpus × peak_tflops × 1e12 × MFU / (6 × active params)
    compute_h    = tokens / tokens_per_s / 3600
    stall_h      = compute_h / interval_h × checkpoint_write_s / 3600
    failures     = (compute_h + stall_h) × n / node_mtbf_h     n = nodes (rate per node) or 1
                                                               (rate per cluster)
    lost_h       = failures × (interval_h / 2 + restart_h)
    wall_h       = compute_h + stall_h + lost_h
    held_h       = wall_h / utilisation
    billed       = max(held_h × gpus, commitment × held_h / 730)
    idle         = (billed − wall_h × gpus) × price
    checkpointing   = q(stall_h × gpus × price) + q(size × retained × price_gb_month × months)
    failed_run_waste= q(lost_h × gpus × price)
    Young/Daly interval = sqrt(2 × checkpoint_write_h × node_mtbf_h / n)
    unit = total / success_probability            (× acceptance for full and adapter
                                                   fine-tuning: per accepted model)

Purchase: price per GPU-hour = ((capex − residual) / life_months
+ cost_of_capital × (capex + residual) / 2 / 12 + kW × 730 × PUE × price_kWh
+ colocation + support / 12) per node / (GPUs per node × 730), residual = capex ×
residual_value_share; fixed capacity rounds up to whole nodes.

The code: cost_common.py (rounding, ranges, prices, common lines), cost_serving.py (volume
classes), cost_api.py (API routes), cost_training.py (training); this module is the
entry point and re-exports their names.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import localcontext

from core.cost_lines import LINE_ORDER
from engine.cost.api import (
    api_cost_per_attempt,
    billed_attempts,
    failed_attempts_billed,
)
from engine.cost.common import (
    DECIMAL_CONTEXT,
    PER_OUTPUT_QUANTUM,
    UNIT_QUANTUM,
    candidate_ranges,
    dec,
    egress_monthly,
    fixed_network_monthly,
    gpu_seconds_numerator,
    labor_monthly,
    likely_values,
    money,
    overage_premium,
    peak_capacity_share,
    price_per_gpu_hour,
    purchase_monthly_per_node,
    serving_monthly,
    shared_ranges,
    spot_rework_share,
    storage_monthly,
    term_beyond_horizon_share,
    unit_basis,
    unit_label_and_scale,
)
from engine.cost.serving import peak_replicas, volume_estimate
from engine.cost.training import (
    checkpoint_write_s,
    failure_multiplier,
    training_estimate,
    training_tokens_per_s,
)
from engine.types import CandidateInput, PointEstimate, WorkloadInput

__all__ = [
    "DECIMAL_CONTEXT",
    "LINE_ORDER",
    "PER_OUTPUT_QUANTUM",
    "UNIT_QUANTUM",
    "api_cost_per_attempt",
    "billed_attempts",
    "candidate_ranges",
    "checkpoint_write_s",
    "dec",
    "egress_monthly",
    "failed_attempts_billed",
    "failure_multiplier",
    "fixed_network_monthly",
    "gpu_seconds_numerator",
    "labor_monthly",
    "likely_values",
    "money",
    "overage_premium",
    "peak_capacity_share",
    "peak_replicas",
    "point_estimate",
    "price_per_gpu_hour",
    "purchase_monthly_per_node",
    "serving_monthly",
    "shared_ranges",
    "spot_rework_share",
    "storage_monthly",
    "term_beyond_horizon_share",
    "training_tokens_per_s",
    "unit_basis",
    "unit_label_and_scale",
]


def point_estimate(
    workload: WorkloadInput, cand: CandidateInput, *, values: Mapping[str, float] | None = None
) -> PointEstimate:
    """Cost lines of ``cand`` at the likely values (or ``values`` overriding some of them)."""
    merged = {**likely_values(workload, cand), **(values or {})}
    with localcontext(DECIMAL_CONTEXT):
        if workload.is_training:
            return training_estimate(workload, cand, merged)
        return volume_estimate(workload, cand, merged)
