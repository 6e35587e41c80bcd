"""A candidate's sample-independent numbers for the Monte Carlo (from cost.py's Decimals)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, localcontext
from typing import Literal

from engine import cost
from engine.cost import contracts
from engine.errors import EngineInputError
from engine.types import HOURS_PER_MONTH, CandidateInput, Range, WorkloadInput

Path = Literal["elastic", "fixed", "api", "train_measured", "train_peak"]


@dataclass(frozen=True, slots=True)
class CandidateConstants:
    """A candidate's sample-independent numbers, as floats (from cost.py's Decimals)."""

    candidate_id: str
    path: Path
    price: float  # per GPU-hour (effective for purchase); 0 for APIs
    gpus: float
    gpu_s_numerator: float  # GPU-seconds per attempt × throughput
    node_gpus: float  # allocation granularity of fixed capacity
    min_commitment_h: float
    idle_billed: bool
    fixed_monthly: float  # storage, fixed network, serving, observability, labour
    per_accepted: float  # egress and asset storage per accepted output
    per_completed: float  # moderation and review per completed render
    api_per_attempt: float
    throughput: Range | None
    utilisation: Range | None
    tps_per_mfu: float  # training estimate: gpus × peak × 1e12 / (6 × params)
    checkpoint_factor: float  # 1 + write_s / (3600 × interval)
    failure_factor: float  # nodes (or 1 per cluster) × (interval / 2 + restart_h)
    per_wall_hour: float  # training: money per wall-clock hour of the run
    gpu_per_wall_hour: float = 0.0  # training: the GPU part of it
    contract_usd: float = 0.0  # training on a term contract: the whole contract
    contract_kept: float = 0.0  # its unused part counted: 1 − residual use
    api_failed_billed: float = 1.0  # Share of failed API attempts billed
    overage_premium: float = 0.0  # per GPU-hour billed past the commitment (cost.overage_premium)
    evidence_key: str = ""  # shared measurement: throughput/acceptance draws keyed by this
    throughput_error_group: str = ""  # estimated rows: whose errors the throughput shares
    acceptance: Range | None = None  # measured acceptance of this row (else the workload's)
    failure: Range | None = None  # measured failure rate of this row (else the workload's)

    def stream_id(self, name: str) -> str:
        """Whose stream a draw comes from: the evidence for what was measured, else the row."""
        if self.evidence_key and name in EVIDENCE_DRAWS:
            return f"evidence:{self.evidence_key}"
        return self.candidate_id


# Draws that belong to the measurement rather than the offer (identical hardware on the
# same evidence moves together, so a dearer offer on it is never the cheapest).
EVIDENCE_DRAWS = frozenset({"throughput_per_replica", "acceptance_rate", "failure_rate"})


def candidate_constants(workload: WorkloadInput, cand: CandidateInput) -> CandidateConstants:
    """Everything about ``cand`` that does not change between samples."""
    with localcontext(cost.DECIMAL_CONTEXT):
        price = cost.price_per_gpu_hour(cand) or Decimal(0)
        monthly = (
            cost.storage_monthly(workload, cand)
            + cost.fixed_network_monthly(cand)
            + workload.observability_per_month
            + cost.labor_monthly(workload, cand)
        )
        capped = workload.vendor_management_cap_share is not None
        if capped and not cand.self_managed and not workload.is_training:
            # P11: the default labour is sized on the row's bill at the likely values
            labour = cost.point_estimate(workload, cand).lines["platform_labor"]
            monthly += labour - cost.labor_monthly(workload, cand)
        path: Path
        tps_per_mfu = checkpoint_factor = failure_factor = per_wall_hour = Decimal(0)
        gpu_per_wall_hour = contract = contract_kept = Decimal(0)
        per_accepted = per_completed = api_per_attempt = gpu_s_num = Decimal(0)
        if workload.is_training:
            spec = workload.training
            assert spec is not None  # noqa: S101 - validated on input
            if cand.is_api:
                raise EngineInputError("kind", f"candidate {cand.id!r}: API routes do not train")
            if cand.throughput_per_replica is not None:
                path = "train_measured"
                cost.training_tokens_per_s(workload, cand, {"throughput_per_replica": 1.0})
            else:
                path = "train_peak"
                tps_per_mfu = cost.training_tokens_per_s(workload, cand, {"mfu": 1.0})
            interval = cost.dec(spec.checkpoint_interval_h)
            write_s = cost.dec(cost.checkpoint_write_s(workload, cand))
            checkpoint_factor = 1 + write_s / (3600 * interval)
            failure_factor = cost.failure_multiplier(workload, cand) * (
                interval / 2 + cost.dec(spec.restart_h)
            )
            billed_gpus = max(
                Decimal(cand.gpus_per_replica),
                cand.min_commitment_gpu_hours_per_month / HOURS_PER_MONTH,
            )
            monthly += cost.egress_monthly(workload, cand)
            monthly += (
                cost.dec(spec.checkpoint_size_gb)
                * spec.checkpoints_retained
                * cand.storage_price_per_gb_month
            )
            # the GPUs held past the commitment at the overage rate (cost.overage_amount)
            past = cand.gpus_per_replica - cand.min_commitment_gpu_hours_per_month / HOURS_PER_MONTH
            per_wall_hour = billed_gpus * price + monthly / HOURS_PER_MONTH
            per_wall_hour += max(Decimal(0), past) * cost.overage_premium(cand)
            gpu_per_wall_hour = billed_gpus * price
            contract = contracts.training_contract_usd(cand, price) or Decimal(0)
            contract_kept = 1 - cost.dec(workload.term_residual_use_share)
        else:
            assert workload.monthly_accepted_outputs is not None  # noqa: S101
            monthly += cost.serving_monthly(workload, cand)
            per_accepted = cost.egress_monthly(workload, cand) / cost.dec(
                workload.monthly_accepted_outputs.likely
            )
            if workload.is_media and workload.media is not None:
                media = workload.media
                per_accepted += (
                    cost.dec(media.asset_size_gb)
                    * cost.dec(media.retention_months)
                    * cand.storage_price_per_gb_month
                )
                per_completed = (
                    media.moderation_cost_per_asset
                    + cost.dec(media.review_fraction) * media.review_cost_per_asset
                )
            if cand.is_api:
                assert cand.api_pricing is not None  # noqa: S101 - validated on input
                path = "api"
                api_per_attempt = cost.api_cost_per_attempt(workload, cand.api_pricing)
            else:
                if cand.throughput_per_replica is None:
                    raise EngineInputError(
                        "throughput_per_replica", f"candidate {cand.id!r} has no throughput figure"
                    )
                path = "fixed" if cand.is_fixed else "elastic"
                gpu_s_num = cost.gpu_seconds_numerator(workload, cand)
                # Fixed sized at (1 − headroom) of throughput; spot redoes some work
                if cand.is_fixed:
                    gpu_s_num /= cost.peak_capacity_share(workload)
                else:
                    gpu_s_num *= 1 + cost.spot_rework_share(workload, cand)
    return CandidateConstants(
        candidate_id=cand.id,
        path=path,
        # A term beyond the horizon is paid in full: the same share on every draw's GPU spend.
        price=float(price * (1 + cost.term_beyond_horizon_share(workload, cand)))
        if path == "fixed"
        else float(price),
        gpus=float(cand.gpus_per_replica),
        gpu_s_numerator=float(gpu_s_num),
        node_gpus=float(contracts.sale_block_gpus(cand)),
        min_commitment_h=float(cand.min_commitment_gpu_hours_per_month),
        overage_premium=float(cost.overage_premium(cand)),
        idle_billed=cand.idle_billed,
        fixed_monthly=float(monthly),
        per_accepted=float(per_accepted),
        per_completed=float(per_completed),
        api_per_attempt=float(api_per_attempt),
        throughput=cand.throughput_per_replica if path != "api" else None,
        utilisation=cand.utilisation if path in ("elastic", "fixed") else None,
        tps_per_mfu=float(tps_per_mfu),
        checkpoint_factor=float(checkpoint_factor),
        failure_factor=float(failure_factor),
        per_wall_hour=float(per_wall_hour),
        gpu_per_wall_hour=float(gpu_per_wall_hour),
        contract_usd=float(contract),
        contract_kept=float(contract_kept),
        api_failed_billed=cost.failed_attempts_billed(workload, cand) if cand.is_api else 1.0,
        evidence_key=cand.evidence_key,
        throughput_error_group=cand.throughput_error_group,
        acceptance=cand.acceptance_rate if not workload.is_training else None,
        failure=cand.failure_rate if not workload.is_training else None,
    )
