"""Small builders the engine tests share (no DB): a fixed range, a measured GPU offer and the
evidence target of a Llama 3.1 70B brief on four H100s."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from engine.evidence import EvidenceTarget
from engine.plan.mixed_recost import layer_energies
from engine.types import CandidateInput, CandidateOutcome, ComparisonOutput, Range


def fixed(x: float) -> Range:
    """A range with no spread: low = likely = high."""
    return Range(x, x, x)


def gpu(cid: str = "g", **kw: object) -> CandidateInput:
    """An on-demand GPU offer at 2.50 per GPU-hour, 100 outputs/s measured; `kw` overrides."""
    base: dict[str, object] = {
        "id": cid,
        "label": cid,
        "kind": "gpu",
        "capacity_model": "on_demand",
        "price_per_gpu_hour": Decimal("2.50"),
        "throughput_per_replica": fixed(100),
        "perf_source": "measured",
    }
    base.update(kw)
    return CandidateInput(**base)  # type: ignore[arg-type]


LLAMA_70B = "meta-llama/Llama-3.1-70B-Instruct"
LLAMA_70B_ON_4_H100 = EvidenceTarget(
    accelerator="h100",
    gpus=4,
    model_name="Llama 3.1 70B",
    model_params_b=70.6,
    model_family="Llama",
    precision="bf16",
    input_tokens_mean=1500,
    output_tokens_mean=300,
    concurrency=32,
)


def fixed_energy(
    covered: float, peak_to_average: float, layers: int, shape: Sequence[float] = ()
) -> float:
    """The plan's layer model by hand: the share of the month's outputs fixed capacity able to
    carry ``covered`` of the peak serves (the bottom layers first, linear within a layer)."""
    energies = layer_energies(peak_to_average, layers, shape)
    served, left = 0.0, max(0.0, min(1.0, covered)) * len(energies)
    for energy in energies:
        part = min(1.0, left)
        served += part * energy
        left -= part
        if left <= 0:
            break
    return served


def served_exact(covered: Decimal, energies: Sequence[Decimal]) -> Decimal:
    """The same in Decimal, on energies already sliced (``layer_energies_exact``)."""
    k_count = len(energies)
    cover = [min(Decimal(1), max(Decimal(0), covered * k_count - k)) for k in range(k_count)]
    return sum((c * e for c, e in zip(cover, energies, strict=True)), Decimal(0))


def outcome(out: ComparisonOutput, candidate_id: str) -> CandidateOutcome:
    """The row of ``candidate_id`` in a comparison's output."""
    return next(row for row in out.candidates if row.candidate_id == candidate_id)
