"""One serving case as the fitted estimator reads it, and the fit data's CSV.

A case is everything the throughput depends on, as plain numbers: the model's architecture,
the accelerator's datasheet figures, the replica (GPUs per replica, how they talk), the
precision, the request shape and the latency limit. The fit data
(``data/mlperf-inference-v4.1.csv``) holds one published result per row with those figures and
its source path; `Case.from_row` reads a row and `case_for` builds a case for a comparison row.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from engine.memory.spec import GB, MEMORY_UNITS, GpuSpec, ModelSpec
from engine.precision import bytes_per_value

DATA = Path(__file__).resolve().parent / "data"
FIT_DATA = DATA / "mlperf-inference-v4.1.csv"

CSV_COLUMNS = (
    "round",
    "submitter",
    "system",
    "benchmark",
    "model",
    "scenario",
    "accelerator",
    "accelerator_name",
    "architecture",
    "software",
    "framework",
    "gpus",
    "link_kind",
    "link_gbps",
    "memory_gib",
    "bandwidth_tbps",
    "bf16_tflops",
    "fp8_tflops",
    "fp4_tflops",
    "tdp_w",
    "params_b",
    "active_params_b",
    "layers",
    "hidden_size",
    "kv_heads",
    "head_dim",
    "input_tokens",
    "output_tokens",
    "beams",
    "tpot_limit_ms",
    "latency_limit_ms",
    "tokens_per_s",
    "tokens_per_gpu_s",
    "source_path",
)

# Which efficiency group a case falls in: accelerator family and serving software. A group
# the fit has not seen falls back to the reference group's efficiencies (factor 1).
FAMILIES = {"Hopper": "hopper", "Ada Lovelace": "ada", "Blackwell": "blackwell", "CDNA 3": "cdna3"}
REFERENCE_GROUP = "hopper/tensorrt-llm"
# A replica takes the fewest GPUs (a power of two) whose weights fill at most this share of
# memory: what MLPerf submitters chose in v4.1 (SOURCES.md: Llama 2 70B fp8 TP2 on H100 80 GB,
# TP1 on H200 141 GB and MI300X; Mixtral fp8 TP1 on H100).
WEIGHT_SHARE_FOR_TP = 0.6
USABLE_MEMORY_SHARE = 0.9  # engine/memory default safety margin 10 %
OVERHEAD_BYTES = 2.0 * GB  # engine/memory default per-GPU overhead


@dataclass(frozen=True, slots=True)
class Case:
    """One replica serving one request shape; every figure the fitted roofline reads."""

    params_b: float
    active_params_b: float
    layers: int
    hidden_size: int
    kv_heads: int
    head_dim: int
    memory_bytes: float  # per GPU, 1e9-byte GB × 1e9
    bandwidth_tbps: float
    peak_tflops: float  # dense, at the compute precision
    tdp_w: float  # board power: a card held below 700 W runs its tensor cores at lower clocks
    weight_bytes_per_param: float
    kv_bytes_per_value: float
    tp: int  # GPUs per replica (tensor parallel)
    link_kind: str  # "nvlink" (NVLink, xGMI / Infinity Fabric) | "pcie"
    link_gbps: float  # GB/s per GPU between the replica's GPUs
    group: str  # "family/software", e.g. "hopper/tensorrt-llm"
    input_tokens: float
    output_tokens: float
    tpot_limit_ms: float | None = None  # the per-token latency limit (None: throughput only)
    beams: int = 1  # sequences decoded per request (MLPerf's GPT-J: beam search, 4 beams)
    # the most requests there are to batch (a brief's concurrency); None: as many as memory
    # holds, as in MLPerf's Offline and Server runs
    max_requests: float | None = None

    @property
    def moe(self) -> bool:
        return self.active_params_b < self.params_b


@dataclass(frozen=True, slots=True)
class Measured:
    """A fit-data row: the case, what was measured and where it was read."""

    case: Case
    tokens_per_gpu_s: float
    accelerator: str
    model: str
    scenario: str
    key: tuple[str, str, str, str]  # (submitter, system, model, scenario): one run
    source_path: str


def precision_for(architecture: str, fp4_tflops: float | None, fp8_tflops: float | None) -> str:
    """The weight precision MLPerf v4.1 submitters ran: FP4 on Blackwell, FP8 where native."""
    if fp4_tflops and architecture == "Blackwell":
        return "fp4"
    return "fp8" if fp8_tflops else "fp16"


def tensor_parallel_for(weight_bytes: float, memory_bytes: float, gpus: int) -> int:
    tp = 1
    while tp < gpus and weight_bytes / tp > WEIGHT_SHARE_FOR_TP * memory_bytes:
        tp *= 2
    return min(tp, gpus)


def group_of(family_or_architecture: str, software: str) -> str:
    """ "hopper/tensorrt-llm": a catalog architecture ("Hopper") or a family name ("hopper")."""
    family = FAMILIES.get(family_or_architecture, family_or_architecture.lower())
    return f"{family}/{software}"


def _float(value: str) -> float | None:
    return float(value) if value.strip() else None


def from_row(row: Mapping[str, str]) -> Measured:
    """A fit-data CSV row as a case (precision and replica size by the rules above)."""
    arch = row["architecture"]
    fp4, fp8, bf16 = _float(row["fp4_tflops"]), _float(row["fp8_tflops"]), float(row["bf16_tflops"])
    precision = precision_for(arch, fp4, fp8)
    peak = {"fp4": fp4, "fp8": fp8}.get(precision) or bf16
    weight_bytes = bytes_per_value(precision)
    memory_bytes = float(row["memory_gib"]) * MEMORY_UNITS["GiB"] * GB
    params = float(row["params_b"])
    output = float(row["output_tokens"])
    tpot = _float(row["tpot_limit_ms"])
    latency = _float(row["latency_limit_ms"])
    if tpot is None and latency is not None:
        tpot = latency / output  # a whole-query limit spread over the answer's tokens
    case = Case(
        params_b=params,
        active_params_b=float(row["active_params_b"]),
        layers=int(row["layers"]),
        hidden_size=int(row["hidden_size"]),
        kv_heads=int(row["kv_heads"]),
        head_dim=int(row["head_dim"]),
        memory_bytes=memory_bytes,
        bandwidth_tbps=float(row["bandwidth_tbps"]),
        peak_tflops=peak,
        tdp_w=float(row["tdp_w"]),
        weight_bytes_per_param=weight_bytes,
        kv_bytes_per_value=bytes_per_value("fp8" if fp8 else "fp16"),
        tp=tensor_parallel_for(params * GB * weight_bytes, memory_bytes, int(row["gpus"])),
        link_kind=row["link_kind"],
        link_gbps=float(row["link_gbps"]),
        group=group_of(arch, row["software"]),
        input_tokens=float(row["input_tokens"]),
        output_tokens=output,
        tpot_limit_ms=tpot if row["scenario"] == "Server" else None,
        beams=int(row["beams"]),
    )
    return Measured(
        case=case,
        tokens_per_gpu_s=float(row["tokens_per_gpu_s"]),
        accelerator=row["accelerator"],
        model=row["model"],
        scenario=row["scenario"],
        key=(row["submitter"], row["system"], row["model"], row["scenario"]),
        source_path=row["source_path"],
    )


def load_fit_data(path: Path = FIT_DATA) -> list[Measured]:
    """The fit data, one run each: a run submitted as both the 99 % and the 99.9 % benchmark
    (the same figures) counts once."""
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    seen: set[tuple[str, str, str, str]] = set()
    out: list[Measured] = []
    for row in rows:
        measured = from_row(row)
        if measured.key in seen:
            continue
        seen.add(measured.key)
        out.append(measured)
    return out


def case_for(
    model: ModelSpec,
    gpu: GpuSpec,
    *,
    weight_precision: str,
    kv_precision: str,
    peak_tflops: float,
    gpus: int,
    input_tokens: float,
    output_tokens: float,
    tpot_limit_ms: float | None = None,
    group: str = REFERENCE_GROUP,
    tdp_w: float = 700.0,
    max_requests: float | None = None,
) -> Case:
    """A comparison row's case from the engine's own specs."""
    link = float(gpu.interconnect_gbps or 64.0)
    return Case(
        params_b=model.params_b,
        active_params_b=model.active_params_b or model.params_b,
        layers=model.layers,
        hidden_size=model.hidden_size or model.kv_heads * model.head_dim,
        kv_heads=model.kv_heads,
        head_dim=model.head_dim,
        memory_bytes=gpu.capacity_gb * GB,
        bandwidth_tbps=float(gpu.memory_bandwidth_tbps or 0.0),
        peak_tflops=peak_tflops,
        tdp_w=tdp_w,
        weight_bytes_per_param=bytes_per_value(weight_precision),
        kv_bytes_per_value=bytes_per_value(kv_precision),
        tp=gpus,
        link_kind="pcie" if link <= 128 else "nvlink",
        link_gbps=link,
        group=group,
        input_tokens=max(1.0, float(input_tokens)),
        output_tokens=max(1.0, float(output_tokens)),
        tpot_limit_ms=tpot_limit_ms if tpot_limit_ms and math.isfinite(tpot_limit_ms) else None,
        max_requests=max(1.0, float(max_requests)) if max_requests else None,
    )
