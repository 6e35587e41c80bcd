"""The roofline with fitted parameters: output tokens/s per GPU for a batch of cases.

Per replica of ``tp`` GPUs (per-GPU quantities; docs/engine/accuracy.md has the derivation)::

    BW   = bandwidth × η_mem × g            F  = peak × power × η_compute × g
    Fp   = peak × power × η_prefill × g      g  = f(family) × s(software): the efficiency
                                                  of the case's accelerator family and
                                                  serving software (1 where not fitted)
    power = min(1, (TDP / (peak × bytes per weight)) / w₀)^γ: a board with fewer watts per
            8-bit-equivalent datasheet dense TFLOPS than w₀ sustains lower clocks than its peak
    B_mem  = KV memory left after weights / KV bytes of one sequence (input + output),
             at most the serving software's largest batch (vLLM's max_num_seqs)
    m(B)   = (weights × touched(B) / tp + B × beams × KV(in + out/2) / tp) / BW
             (every beam of a beam search attends the whole prompt)
             touched(B) = 1 − (1 − active/total)^B: an MoE step reads the experts its B
             tokens route to (all of a dense model)
    c(B)   = 2 × active × B / tp / F
    comm   = (tp > 1) × 2 × layers × (α + 2(tp−1)/tp × B × hidden × 2 bytes / (link × η_link))
    step   = m + c + comm
    prefill per request = (2 × active × in + 2 × layers × in² × heads × head_dim) / tp / Fp
    X(B)   = B × out / (B × prefill + out × step(B))          tokens/s per replica
    Offline (throughput-bound): B = B_mem; per GPU X(B)/tp
    Server: the largest B ≤ B_mem whose time per output token (step + B × prefill / out)
            stays within κ × the TPOT limit; per GPU σ × X(B)/tp;
            "latency-bound" when that B is below B_mem.

Every fitted parameter is bounded to what the hardware can do: η ≤ 0.9 of a datasheet peak,
α 2–30 µs an all-reduce, η_link at most half the catalog's (two-way) link figure.
η_link is fitted per interconnect kind (NVLink / xGMI vs PCIe). The parameters live in
``data/<engine version>/parameters.json``; `engine.fitted.fit` refits the current ones from
the fit data. Engine 1.8.0's parameters read the older terms (a factor per family/software
group, power by TDP alone); 1.9.0's the newer ones (below), each absent term neutral.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.fitted.cases import OVERHEAD_BYTES, USABLE_MEMORY_SHARE, Case

DATA = Path(__file__).resolve().parent / "data"
# The engine versions whose fitted parameters changed, oldest first: each keeps its own
# data/<version>/parameters.json and bands.json, so a snapshot frozen under one computes on
# its parameters (ADR 0003); the code is one.
VERSIONS = ("1.8.0", "1.9.0")
CURRENT = VERSIONS[-1]
PARAMETERS = DATA / CURRENT / "parameters.json"
# The shared parameters, in the order the fit's vector holds them, with bounds.
SHARED: dict[str, tuple[float, float, float]] = {  # name: (start, low, high)
    "eta_memory": (0.6, 0.3, 0.9),
    "eta_compute": (0.5, 0.2, 0.9),
    "eta_prefill": (0.4, 0.2, 0.9),
    "allreduce_latency_us": (10.0, 2.0, 30.0),
    "eta_link_nvlink": (0.3, 0.1, 0.5),
    "eta_link_pcie": (0.3, 0.1, 0.5),
    "server_kappa": (1.0, 0.1, 3.0),
    "server_sigma": (0.9, 0.3, 1.0),
    "power_exponent": (0.25, 0.0, 1.0),
    "full_clock_w_per_tflops": (0.45, 0.3, 0.8),
}
REFERENCE_POWER_W = 700.0  # H100 / H200 SXM: the power the efficiencies are stated at
MAX_BATCH_PER_GPU = 4096  # MLPerf v4.1 configurations run up to 3,072 per GPU (SOURCES.md)
_BISECTION_STEPS = 40


@dataclass(frozen=True)
class Parameters:
    shared: Mapping[str, float]
    # efficiency factors, each 1 where not fitted: per "family/software" group (engine 1.8.0),
    # or per family times per serving software (1.9.0 on), so a family the fit has not seen
    # still takes its software's factor
    groups: Mapping[str, float] = field(default_factory=dict)
    families: Mapping[str, float] = field(default_factory=dict)
    software: Mapping[str, float] = field(default_factory=dict)
    # the most sequences a replica of each serving software batches (stated, not fitted)
    max_batch: Mapping[str, float] = field(default_factory=dict)
    # "tdp": a board below 700 W clocks lower (1.8.0); "tdp-per-flop": a board with fewer
    # watts per datasheet dense FLOP of the precision it computes in than H100 SXM does
    power: str = "tdp"

    def factor(self, group: str) -> float:
        family, _, software = group.partition("/")
        return (
            float(self.groups.get(group, 1.0))
            * float(self.families.get(family, 1.0))
            * float(self.software.get(software, 1.0))
        )

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"shared": {k: round(float(v), 6) for k, v in self.shared.items()}}
        for name in ("groups", "families", "software", "max_batch"):
            values: Mapping[str, float] = getattr(self, name)
            if values or name == "groups":
                out[name] = {k: round(float(v), 6) for k, v in sorted(values.items())}
        if self.power != "tdp":
            out["power"] = self.power
        return out


def parameters_from(data: Mapping[str, Any]) -> Parameters:
    return Parameters(
        shared=dict(data["shared"]),
        groups=dict(data.get("groups") or {}),
        families=dict(data.get("families") or {}),
        software=dict(data.get("software") or {}),
        max_batch=dict(data.get("max_batch") or {}),
        power=str(data.get("power") or "tdp"),
    )


def load_parameters(path: Path = PARAMETERS) -> Parameters:
    return parameters_from(json.loads(path.read_text()))


@dataclass(frozen=True)
class Predicted:
    tokens_per_gpu_s: np.ndarray
    batch: np.ndarray  # sequences a replica holds
    latency_bound: np.ndarray  # bool: the TPOT limit, not memory, set the batch


def _arrays(cases: Sequence[Case]) -> dict[str, np.ndarray]:
    def col(name: str) -> np.ndarray:
        return np.array([float(getattr(c, name)) for c in cases], dtype=float)

    out = {
        name: col(name)
        for name in (
            "params_b",
            "active_params_b",
            "layers",
            "hidden_size",
            "kv_heads",
            "head_dim",
            "memory_bytes",
            "bandwidth_tbps",
            "peak_tflops",
            "tdp_w",
            "weight_bytes_per_param",
            "kv_bytes_per_value",
            "tp",
            "link_gbps",
            "input_tokens",
            "output_tokens",
            "beams",
        )
    }
    out["tpot_s"] = np.array(
        [c.tpot_limit_ms / 1e3 if c.tpot_limit_ms else np.inf for c in cases], dtype=float
    )
    out["max_requests"] = np.array(
        [c.max_requests if c.max_requests else np.inf for c in cases], dtype=float
    )
    out["pcie"] = np.array([c.link_kind == "pcie" for c in cases])
    out["moe"] = np.array([c.moe for c in cases])
    return out


def power_share(
    tdp_w: np.ndarray, peak_tflops: np.ndarray, weight_bytes: np.ndarray, params: Parameters
) -> np.ndarray:
    """The share of its datasheet peak a board's power lets it sustain."""
    p = params.shared
    if params.power == "tdp-per-flop":
        # per 8-bit-equivalent TFLOPS: FP4 at twice FP8's rate draws FP8's watts
        watts_per_tflops = tdp_w / (peak_tflops * weight_bytes)
        share = watts_per_tflops / p["full_clock_w_per_tflops"]
    else:
        share = tdp_w / REFERENCE_POWER_W
    return np.asarray(np.minimum(1.0, share) ** p["power_exponent"], dtype=float)


def predict(cases: Sequence[Case], params: Parameters) -> Predicted:
    """Per-GPU output tokens/s of each case under ``params``."""
    a = _arrays(cases)
    p = params.shared
    g = np.array([params.factor(c.group) for c in cases], dtype=float)
    tp = a["tp"]
    power = power_share(a["tdp_w"], a["peak_tflops"], a["weight_bytes_per_param"], params)
    bw = a["bandwidth_tbps"] * 1e12 * p["eta_memory"] * g
    flops = a["peak_tflops"] * 1e12 * power * p["eta_compute"] * g
    prefill_flops = a["peak_tflops"] * 1e12 * power * p["eta_prefill"] * g
    weights = a["params_b"] * 1e9 * a["weight_bytes_per_param"]
    active = a["active_params_b"] * 1e9
    kv_token = 2 * a["layers"] * a["kv_heads"] * a["head_dim"] * a["kv_bytes_per_value"]
    kv_shards = np.minimum(tp, a["kv_heads"])
    inp, out, beams = a["input_tokens"], a["output_tokens"], a["beams"]

    free = a["memory_bytes"] * USABLE_MEMORY_SHARE - OVERHEAD_BYTES - weights / tp
    seq_tokens = inp + beams * out  # the beams share the prompt's KV
    b_mem = np.clip(free * kv_shards / (kv_token * seq_tokens), 1.0, MAX_BATCH_PER_GPU * tp)
    b_mem = np.maximum(1.0, np.minimum(b_mem, a["max_requests"]))  # no more than there are
    # the serving software batches no more sequences a replica than its maximum
    most = np.array(
        [params.max_batch.get(c.group.partition("/")[2], np.inf) for c in cases], dtype=float
    )
    b_mem = np.maximum(1.0, np.minimum(b_mem, most / beams))
    routed = a["active_params_b"] / a["params_b"]
    link = a["link_gbps"] * 1e9 * np.where(a["pcie"], p["eta_link_pcie"], p["eta_link_nvlink"])
    latency_s = p["allreduce_latency_us"] * 1e-6
    # causal attention over the prompt: QKᵀ and AV, each in²/2 × hidden multiply-adds per layer
    attention = 2 * a["layers"] * inp**2 * a["hidden_size"]
    prefill_s = (2 * active * inp + attention) / tp / prefill_flops

    def step(requests: np.ndarray) -> np.ndarray:
        batch = requests * beams  # every beam is a sequence the decode step advances
        touched = np.where(routed >= 1, 1.0, 1 - (1 - routed) ** batch)
        kv_read = requests * beams * kv_token * (inp + out / 2) / kv_shards  # each beam attends
        memory = (weights * touched / tp + kv_read) / bw
        compute = 2 * active * batch / tp / flops
        comm = np.where(
            tp > 1,
            2 * a["layers"] * (latency_s + 2 * (tp - 1) / tp * batch * a["hidden_size"] * 2 / link),
            0.0,
        )
        # the step's kernels run one after another: weight and KV reads do not hide the GEMMs
        return np.asarray(memory + compute + comm, dtype=float)

    def per_token(batch: np.ndarray) -> np.ndarray:
        return np.asarray(step(batch) + batch * prefill_s / out, dtype=float)

    limit = p["server_kappa"] * a["tpot_s"]
    served = np.isfinite(a["tpot_s"])
    fits_at_mem = per_token(b_mem) <= limit
    low, high = np.ones_like(b_mem), b_mem.copy()
    for _ in range(_BISECTION_STEPS):  # per_token rises with the batch: bisection is exact
        middle = (low + high) / 2
        ok = per_token(middle) <= limit
        low = np.where(ok, middle, low)
        high = np.where(ok, high, middle)
    batch = np.where(served & ~fits_at_mem, low, b_mem)
    throughput = batch * out / (batch * prefill_s + out * step(batch)) / tp
    throughput = np.where(served, throughput * p["server_sigma"], throughput)
    return Predicted(throughput, batch, served & ~fits_at_mem)
