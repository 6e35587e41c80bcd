"""Inference, retrieval, evaluation and media lines, per month (cost.py has the formulas)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal

from engine.cost.api import api_lines
from engine.cost.common import (
    HOURS_QUANTUM,
    common_lines,
    dec,
    finish,
    fixed_gpus_allocated,
    gpu_seconds_numerator,
    line_names,
    money,
    overage_amount,
    peak_capacity_share,
    price_per_gpu_hour,
    purchase_breakdown,
    split_exactly,
    spot_rework_share,
    term_beyond_horizon_share,
)
from engine.cost.contracts import vendor_management_labour
from engine.errors import EngineInputError
from engine.types import (
    HOURS_PER_MONTH,
    SECONDS_PER_HOUR,
    CandidateInput,
    PointEstimate,
    WorkloadInput,
)


def peak_replicas(
    workload: WorkloadInput, cand: CandidateInput, attempts: Decimal, gpu_s: Decimal, peak: Decimal
) -> Decimal:
    """Replicas the peak needs at (1 − headroom) of each replica's throughput."""
    share = peak_capacity_share(workload)
    per_replica = cand.gpus_per_replica * HOURS_PER_MONTH * SECONDS_PER_HOUR * share
    return peak * attempts * gpu_s / per_replica


def volume_estimate(
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
        lines.update(
            api_lines(
                workload,
                cand,
                accepted=accepted,
                completed=completed,
                attempts=attempts,
                retry_name=retry_name,
            )
        )
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
        rework_h = work_h * spot_rework_share(workload, cand)
        if cand.is_fixed:
            replicas = peak_replicas(workload, cand, attempts, gpu_s, dec(v["peak_to_average"]))
            billed = fixed_gpus_allocated(cand, math.ceil(replicas)) * HOURS_PER_MONTH
        elif cand.idle_billed:
            billed = (work_h + rework_h) / dec(v["utilisation"])
        else:
            billed = work_h + rework_h
        billed = max(billed, cand.min_commitment_gpu_hours_per_month)
        parts = [retry_h * price, (billed - work_h - rework_h) * price]
        if rework_h > 0:
            parts.insert(1, rework_h * price)
        gpu_spend, amounts, lines[compute_name] = split_exactly(billed * price, parts)
        lines[retry_name] = amounts[0]
        lines[idle_name] = amounts[-1]
        if rework_h > 0:
            lines["interruption_rework"] = amounts[1]
        if (beyond := term_beyond_horizon_share(workload, cand)) > 0:
            lines["term_beyond_horizon"] = money(gpu_spend * beyond)
        if over := overage_amount(cand, billed, cand.min_commitment_gpu_hours_per_month):
            lines["overage"] = over
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
        common_lines(
            workload, cand, months=Decimal(1), egress_gb=egress_gb, extra_storage_gb=asset_gb
        )
    )
    if not cand.self_managed:  # P11: a default FTE never dominates a small vendor bill
        bill = sum((v for k, v in lines.items() if k != "platform_labor"), Decimal(0))
        lines["platform_labor"] = money(
            vendor_management_labour(workload, lines["platform_labor"], bill)
        )
    return finish(
        workload,
        lines,
        accepted,
        attempts,
        price_per_gpu_hour=price,
        billed_gpu_hours=None if billed is None else billed.quantize(HOURS_QUANTUM),
        gpu_spend=gpu_spend,
        gpu_spend_breakdown={} if gpu_spend is None else purchase_breakdown(cand, gpu_spend),
    )
