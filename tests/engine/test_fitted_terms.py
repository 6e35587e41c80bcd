"""The fitted estimate's terms of engine 1.9.0, each by hand, and its versions (ADR 0003)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from benchmarks.parsers.mlperf_results import serving_software
from engine.fitted import CURRENT, VERSIONS, Case, estimate, version_for
from engine.fitted.fit import STATED
from engine.fitted.roofline import Parameters, power_share, predict

# Round parameters so that every figure below is arithmetic on paper.
PLAIN = {
    "eta_memory": 1.0,
    "eta_compute": 1.0,
    "eta_prefill": 1.0,
    "allreduce_latency_us": 10.0,
    "eta_link_nvlink": 0.5,
    "eta_link_pcie": 0.5,
    "server_kappa": 1.0,
    "server_sigma": 1.0,
    "power_exponent": 0.0,
    "full_clock_w_per_tflops": 0.35,
}
ROUND = Parameters(shared=PLAIN, power="tdp-per-flop")

# 1 B parameters in 8 bits, 10 layers of hidden size 1,000, one KV head of 100 in 8 bits:
# 2 × 10 × 1 × 100 × 1 = 2,000 KV bytes a token. 1 TB/s, 1,000 dense TFLOPS, 80 GB a GPU.
TINY = Case(
    params_b=1.0,
    active_params_b=1.0,
    layers=10,
    hidden_size=1000,
    kv_heads=1,
    head_dim=100,
    memory_bytes=80e9,
    bandwidth_tbps=1.0,
    peak_tflops=1000.0,
    tdp_w=700.0,
    weight_bytes_per_param=1.0,
    kv_bytes_per_value=1.0,
    tp=2,
    link_kind="nvlink",
    link_gbps=900.0,
    group="hopper/tensorrt-llm",
    input_tokens=100,
    output_tokens=100,
    max_requests=100,
)


def test_the_all_reduce_over_pcie_costs_more_than_over_nvlink_by_its_bandwidth():
    """TP2, 100 requests of 100 in and 100 out. Per decode step, per GPU:
    weights 1e9 / 2 / 1e12 = 500 µs, KV 100 × 2,000 × (100 + 50) / 1e12 = 30 µs, GEMMs
    2 × 1e9 × 100 / 2 / 1e15 = 100 µs; the all-reduces 2 × 10 layers × (10 µs + 2 × 1/2 ×
    100 × 1,000 × 2 bytes / (link × 0.5)): NVLink 900 GB/s → 20 × (10 + 0.4444) = 208.89 µs,
    PCIe 64 GB/s → 20 × (10 + 6.25) = 325 µs. Prefill (2 × 1e9 × 100 + 2 × 10 × 100² ×
    1,000) / 2 / 1e15 = 100.1 µs a request. Per GPU: 100 × 100 / (100 × 100.1e-6 +
    100 × step) / 2 = 53,249 (NVLink), 47,389 (PCIe) tokens/s."""
    nvlink = predict([TINY], ROUND).tokens_per_gpu_s[0]
    pcie = predict([replace(TINY, link_kind="pcie", link_gbps=64.0)], ROUND).tokens_per_gpu_s[0]

    def by_hand(comm_us: float) -> float:
        step = (500 + 30 + 100 + comm_us) * 1e-6
        return 100 * 100 / (100 * 100.1e-6 + 100 * step) / 2

    assert nvlink == pytest.approx(by_hand(208.8889), rel=1e-6)
    assert pcie == pytest.approx(by_hand(325.0), rel=1e-6)
    assert nvlink == pytest.approx(53249, abs=1)
    assert pcie == pytest.approx(47389, abs=1)


def test_the_serving_softwares_largest_batch_bounds_the_batch():
    """One GPU, no brief's concurrency: memory holds (80 × 0.9 − 2 − 1) GB / (2,000 bytes ×
    200 tokens) = 172,500 sequences, bounded at 4,096 a GPU; vLLM batches at most 256
    sequences (its max_num_seqs), so 256 requests, or 64 of GPT-J's 4-beam requests."""
    one = replace(TINY, tp=1, max_requests=None)
    vllm = replace(one, group="hopper/vllm")
    capped = Parameters(shared=PLAIN, max_batch={"vllm": 256}, power="tdp-per-flop")
    assert predict([one], capped).batch[0] == 4096
    assert predict([vllm], capped).batch[0] == 256
    assert predict([replace(vllm, beams=4)], capped).batch[0] == 64
    assert predict([vllm], ROUND).batch[0] == 4096  # engine 1.8.0's parameters state none
    assert STATED.max_batch == {"vllm": 256}


def test_power_is_read_per_datasheet_dense_flop_of_the_precision_run():
    """Full clocks from 0.35 W per 8-bit TFLOPS (γ 1): H100 PCIe at FP8, 350 W / 1,513 =
    0.23133 → 0.66094; B200 at FP4, 1,000 W / (9,000 × 0.5) = 0.22222 → 0.63492; L40S at
    FP8, 350 / 733 = 0.47749 → 1 (full clocks); H100 SXM at BF16, 700 / (989.5 × 2) =
    0.35372 → 1. Engine 1.8.0 read the TDP alone: 350 / 700 = 0.5."""
    params = Parameters(shared={**PLAIN, "power_exponent": 1.0}, power="tdp-per-flop")
    share = power_share(
        np.array([350.0, 1000.0, 350.0, 700.0]),
        np.array([1513.0, 9000.0, 733.0, 989.5]),
        np.array([1.0, 0.5, 1.0, 2.0]),
        params,
    )
    assert share == pytest.approx([0.66094, 0.63492, 1.0, 1.0], abs=1e-5)
    by_tdp = Parameters(shared={**PLAIN, "power_exponent": 1.0})
    assert power_share(np.array([350.0]), np.array([1513.0]), np.array([1.0]), by_tdp)[
        0
    ] == pytest.approx(0.5)


def test_the_efficiency_is_the_familys_factor_times_the_serving_softwares():
    """A family or software the fit has not seen counts 1: an AMD card on vLLM takes
    0.9 × 0.8 = 0.72, an unseen family on vLLM still vLLM's 0.8."""
    params = Parameters(shared=PLAIN, families={"cdna3": 0.9}, software={"vllm": 0.8})
    assert params.factor("cdna3/vllm") == pytest.approx(0.72)
    assert params.factor("cdna4/vllm") == pytest.approx(0.8)
    assert params.factor("hopper/tensorrt-llm") == 1.0
    engine_1_8 = Parameters(shared=PLAIN, groups={"cdna3/vllm": 0.617})
    assert engine_1_8.factor("cdna3/vllm") == pytest.approx(0.617)


def test_each_engine_version_computes_on_its_own_parameters():
    assert VERSIONS == ("1.8.0", "1.9.0")
    assert CURRENT == "1.9.0"
    assert version_for((1, 7, 0)) is None
    assert version_for((1, 8, 0)) == "1.8.0"
    assert version_for((1, 8, 3)) == "1.8.0"
    assert version_for((1, 9, 0)) == "1.9.0"
    assert version_for((2, 0, 0)) == "1.9.0"
    case = replace(TINY, tp=1, group="cdna3/vllm", max_requests=None)
    assert estimate(case, version="1.8.0").batch == 4096  # 1.8.0 states no vLLM batch
    assert estimate(case, version="1.9.0").batch == 256


def test_the_serving_software_is_read_from_the_software_stack_too():
    """RedHat's L40S system names "CUDA 12.2" as its framework and vLLM in its stack."""
    assert serving_software("CUDA 12.2", {"cuda_version": "12.2", "vllm": "0.5.1"}) == "vllm"
    assert serving_software("TensorRT 10.2.0, CUDA 12.4", "") == "tensorrt-llm"
    assert serving_software("vLLM 0.4.3+rocm614, PyTorch 2.3.0") == "vllm"
    assert serving_software("PyTorch", "") == ""  # the fit's "other" group
