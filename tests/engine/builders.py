"""Small builders the engine tests share (no DB): a fixed range and a measured GPU offer."""

from __future__ import annotations

from decimal import Decimal

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
