"""Small builders the engine tests share (no DB): a fixed range, a measured GPU offer and the
evidence target of a Llama 3.1 70B brief on four H100s."""

from __future__ import annotations

from decimal import Decimal

from engine.evidence import EvidenceTarget
from engine.types import CandidateInput, Range


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
