"""The roofline with fitted parameters: output tokens/s per GPU for a batch of cases.

Per replica of ``tp`` GPUs (per-GPU quantities; docs/engine/accuracy.md has the derivation)::

    BW   = bandwidth × η_mem × g            F  = peak × power × η_compute × g
    Fp   = peak × power × η_prefill × g      g  = the efficiency of the case's group
                                                  (accelerator family / serving software)
    power = min(1, TDP / 700 W)^γ            a card held below 700 W clocks lower
    B_mem  = KV memory left after weights / KV bytes of one sequence (input + output)
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

η_link is fitted per interconnect kind (NVLink / xGMI vs PCIe). The parameters live in
``data/parameters.json``; `engine.fitted.fit` refits them from the fit data.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.fitted.cases import OVERHEAD_BYTES, USABLE_MEMORY_SHARE, Case

PARAMETERS = Path(__file__).resolve().parent / "data" / "parameters.json"
# The shared parameters, in the order the fit's vector holds them, with bounds.
SHARED: dict[str, tuple[float, float, float]] = {  # name: (start, low, high)
    "eta_memory": (0.6, 0.05, 1.0),
    "eta_compute": (0.5, 0.05, 1.0),
    "eta_prefill": (0.4, 0.05, 1.0),
    "allreduce_latency_us": (10.0, 0.5, 200.0),
    "eta_link_nvlink": (0.5, 0.01, 1.0),
    "eta_link_pcie": (0.5, 0.01, 1.0),
    "server_kappa": (1.0, 0.1, 3.0),
    "server_sigma": (0.9, 0.3, 1.0),
    "power_exponent": (0.25, 0.0, 1.0),
}
REFERENCE_POWER_W = 700.0  # H100 / H200 SXM: the power the efficiencies are stated at
MAX_BATCH_PER_GPU = 4096  # MLPerf v4.1 configurations run up to 3,072 per GPU (SOURCES.md)
_BISECTION_STEPS = 40


@dataclass(frozen=True)
class Parameters:
    shared: Mapping[str, float]
    groups: Mapping[str, float]  # family/software → efficiency factor (reference group: 1)

    def group(self, name: str) -> float:
        return float(self.groups.get(name, 1.0))

    def to_json(self) -> dict[str, object]:
        return {
            "shared": {k: round(float(v), 6) for k, v in self.shared.items()},
            "groups": {k: round(float(v), 6) for k, v in sorted(self.groups.items())},
        }


def load_parameters(path: Path = PARAMETERS) -> Parameters:
    data = json.loads(path.read_text())
    return Parameters(shared=dict(data["shared"]), groups=dict(data["groups"]))


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


def predict(cases: Sequence[Case], params: Parameters) -> Predicted:
    """Per-GPU output tokens/s of each case under ``params``."""
    a = _arrays(cases)
    p = params.shared
    g = np.array([params.group(c.group) for c in cases], dtype=float)
    tp = a["tp"]
    # a board held below the reference power sustains lower clocks than its datasheet peak
    power = np.minimum(1.0, a["tdp_w"] / REFERENCE_POWER_W) ** p["power_exponent"]
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
    routed = a["active_params_b"] / a["params_b"]
    link = a["link_gbps"] * 1e9 * np.where(a["pcie"], p["eta_link_pcie"], p["eta_link_nvlink"])
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
            2
            * a["layers"]
            * (
                p["allreduce_latency_us"] * 1e-6
                + 2 * (tp - 1) / tp * batch * a["hidden_size"] * 2 / link
            ),
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
