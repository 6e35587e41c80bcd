"""Training and fine-tuning lines, per run (cost.py has the formulas).

The GPUs are held for wall-clock / utilisation (setup, evaluation and debugging between
the productive hours); the unused held hours are ``idle_capacity``. Full and adapter
fine-tuning both divide by accepted fine-tuned models (success × acceptance).
``TrainingSpec.failure_rate_scope`` says how ``node_mtbf_h`` was stated: "node"
(the brief's "node failures per day, per node": the job fails nodes × as often) or
"cluster" (a rate for the whole run's cluster: not multiplied).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal

from engine.cost.common import (
    FINE_TUNING_CLASSES,
    HOURS_QUANTUM,
    common_lines,
    dec,
    finish,
    money,
    overage_amount,
    price_per_gpu_hour,
    purchase_breakdown,
    split_exactly,
    training_spec,
)
from engine.cost.contracts import training_contract_unused
from engine.errors import EngineInputError
from engine.types import (
    HOURS_PER_MONTH,
    SECONDS_PER_HOUR,
    CandidateInput,
    PointEstimate,
    TrainingDetail,
    WorkloadInput,
)


def training_tokens_per_s(
    workload: WorkloadInput, cand: CandidateInput, v: Mapping[str, float]
) -> Decimal:
    spec = training_spec(workload)
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
    spec = training_spec(workload)
    return spec.checkpoint_write_s if cand.checkpoint_write_s is None else cand.checkpoint_write_s


def training_nodes(cand: CandidateInput) -> int:
    return -(-cand.gpus_per_replica // cand.gpus_per_node)


def failure_multiplier(workload: WorkloadInput, cand: CandidateInput) -> int:
    """Nodes for a per-node failure rate, 1 for a rate stated for the whole cluster."""
    if training_spec(workload).failure_rate_scope == "cluster":
        return 1
    return training_nodes(cand)


def _training_lines(
    workload: WorkloadInput, cand: CandidateInput, v: Mapping[str, float], interval_h: Decimal
) -> tuple[dict[str, Decimal], dict[str, Decimal]]:
    """(lines, figures) of one training run with checkpoints every ``interval_h``."""
    if cand.is_api:
        raise EngineInputError("kind", f"candidate {cand.id!r}: API routes do not train models")
    spec = training_spec(workload)
    price = price_per_gpu_hour(cand)
    assert price is not None  # noqa: S101 - GPU candidates always have one
    gpus = Decimal(cand.gpus_per_replica)
    tps = training_tokens_per_s(workload, cand, v)
    compute_h = dec(v["tokens"]) / tps / SECONDS_PER_HOUR
    write_s = dec(checkpoint_write_s(workload, cand))
    # interval 0 only comes from Young/Daly with a (near-)zero write time: no stall then
    no_stall = write_s == 0 or interval_h == 0
    stall_h = Decimal(0) if no_stall else compute_h / interval_h * write_s / SECONDS_PER_HOUR
    failures = (compute_h + stall_h) * failure_multiplier(workload, cand) / dec(v["node_mtbf_h"])
    lost_h = failures * (interval_h / 2 + dec(spec.restart_h))
    wall_h = compute_h + stall_h + lost_h
    held_h = wall_h / dec(v["utilisation"])
    months = held_h / HOURS_PER_MONTH
    used = wall_h * gpus
    billed = max(held_h * gpus, cand.min_commitment_gpu_hours_per_month * months)
    lines: dict[str, Decimal] = {}
    gpu_spend, parts, lines["gpu_compute"] = split_exactly(
        billed * price,
        [stall_h * gpus * price, lost_h * gpus * price, (billed - used) * price],
    )
    ckpt_gpu, lines["failed_run_waste"], lines["idle_capacity"] = parts
    committed = cand.min_commitment_gpu_hours_per_month * months
    if over := overage_amount(cand, billed, committed):
        lines["overage"] = over
    if (unused := training_contract_unused(workload, cand, gpu_spend, price)) > 0:
        lines["term_beyond_horizon"] = money(unused)  # the contract the run leaves unused
    ckpt_gb_months = dec(spec.checkpoint_size_gb) * spec.checkpoints_retained * months
    lines["checkpointing"] = ckpt_gpu + money(ckpt_gb_months * cand.storage_price_per_gb_month)
    lines.update(
        common_lines(
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
        "held_h": held_h,
        "billed": billed,
        "gpu_spend": gpu_spend,
        "price": price,
    }
    return lines, figures


def young_daly_interval_h(write_s: float, node_mtbf_h: float, nodes: int) -> float:
    """sqrt(2 × checkpoint write time × MTBF of the job), hours (job MTBF = node MTBF / nodes)."""
    return math.sqrt(2 * (write_s / 3600) * node_mtbf_h / nodes)


def training_estimate(
    workload: WorkloadInput, cand: CandidateInput, v: Mapping[str, float]
) -> PointEstimate:
    spec = training_spec(workload)
    lines, fig = _training_lines(workload, cand, v, dec(spec.checkpoint_interval_h))
    nodes = training_nodes(cand)
    best_h = young_daly_interval_h(
        checkpoint_write_s(workload, cand), v["node_mtbf_h"], failure_multiplier(workload, cand)
    )
    best_lines, _ = _training_lines(workload, cand, v, dec(best_h))
    accepted = dec(v["success_probability"])
    if workload.workload_class in FINE_TUNING_CLASSES:
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
        held_h=float(fig["held_h"]),
        failure_rate_scope=spec.failure_rate_scope,
    )
    return finish(
        workload,
        lines,
        accepted,
        Decimal(1),
        price_per_gpu_hour=fig["price"],
        billed_gpu_hours=fig["billed"].quantize(HOURS_QUANTUM),
        gpu_spend=fig["gpu_spend"],
        gpu_spend_breakdown=purchase_breakdown(cand, fig["gpu_spend"]),
        training=detail,
    )
