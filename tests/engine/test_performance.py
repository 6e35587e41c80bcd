"""Roofline performance estimates: hand-computed figures, shape of the curve, validation."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import EngineInputError
from engine.memory.fit import GpuSpec, ModelSpec
from engine.performance import (
    InferencePerfInput,
    estimate_inference,
    peak_dense_tflops,
)

LLAMA_31_8B = ModelSpec(
    params_b=8.03, layers=32, kv_heads=8, head_dim=128, hidden_size=4096,
    attention_heads=32, max_context=131072,
)  # fmt: skip
DEEPSEEK_V3 = ModelSpec(
    params_b=671, active_params_b=37, layers=61, kv_heads=128, head_dim=192,
    hidden_size=7168, attention_heads=128, mla_latent_dim=576, max_context=163840,
)  # fmt: skip
H100 = GpuSpec(
    memory_gb=80, memory_bandwidth_tbps=3.35, bf16_dense_tflops=989.5, fp8_dense_tflops=1979,
    supported_precisions=("fp32", "bf16", "fp16", "fp8", "int8"),
)  # fmt: skip
H200 = replace(H100, memory_gb=141, memory_bandwidth_tbps=4.8)
A100_80 = GpuSpec(
    memory_gb=80, memory_bandwidth_tbps=2.039, bf16_dense_tflops=312,
    supported_precisions=("fp32", "bf16", "fp16", "int8"),
)  # fmt: skip


def llama_8b(**kwargs: object) -> InferencePerfInput:
    values: dict[str, object] = {
        "weight_precision": "bf16",
        "kv_precision": "bf16",
        "input_tokens": 2000,
        "output_tokens": 500,
    }
    values.update(kwargs)
    return InferencePerfInput(model=LLAMA_31_8B, gpu=H100, **values)  # type: ignore[arg-type]


def test_llama_8b_single_stream_on_h100_by_hand() -> None:
    estimate = estimate_inference(llama_8b())
    bandwidth = 3.35e12 * 0.6  # bytes/s
    # decode reads 16.06 GB of weights + the KV of one sequence at 2000 + 500/2 tokens
    step_s = (16.06e9 + 131_072 * 2250) / bandwidth
    ttft_s = 2 * 8.03e9 * 2000 / (989.5e12 * 0.4)
    assert estimate.source == "estimated"
    assert estimate.bound == "memory_bandwidth"
    assert estimate.itl_ms == pytest.approx(step_s * 1e3)  # ≈ 8.1 ms
    assert estimate.ttft_ms == pytest.approx(ttft_s * 1e3)  # ≈ 81 ms
    assert estimate.e2e_ms == pytest.approx((ttft_s + 500 * step_s) * 1e3)
    assert estimate.decode_tokens_per_s == pytest.approx(1 / step_s)
    assert estimate.output_tokens_per_s == pytest.approx(500 / (ttft_s + 500 * step_s))
    assert estimate.tokens_per_s_per_gpu == pytest.approx(estimate.output_tokens_per_s)
    assert estimate.prefill_tokens_per_s == pytest.approx(2000 / ttft_s)
    assert estimate.assumptions is not None
    assert estimate.assumptions["memory_efficiency"] == 0.6
    assert estimate.assumptions["compute_efficiency"] == 0.4


def test_batching_raises_throughput_until_compute_bound() -> None:
    # a model with almost no KV isolates the weights-vs-FLOPs roofline
    tiny_kv = replace(LLAMA_31_8B, kv_heads=1, head_dim=64, attention_heads=None)
    base = llama_8b(input_tokens=16, output_tokens=16)
    base = replace(base, model=tiny_kv)
    rates = [
        estimate_inference(replace(base, concurrency=b)).decode_tokens_per_s or 0.0
        for b in (1, 8, 64, 256, 1024)
    ]
    assert rates == sorted(rates)
    assert estimate_inference(replace(base, concurrency=1)).bound == "memory_bandwidth"
    big = estimate_inference(replace(base, concurrency=1024))
    assert big.bound == "compute"
    # compute-bound: 1024 tokens × 2 × 8.03e9 FLOPs per step at 40 % of 989.5 TFLOPS
    assert big.itl_ms == pytest.approx(2 * 8.03e9 * 1024 / (989.5e12 * 0.4) * 1e3)


def test_itl_grows_with_concurrency_through_kv_reads() -> None:
    one = estimate_inference(llama_8b(concurrency=1))
    many = estimate_inference(llama_8b(concurrency=64))
    assert many.itl_ms is not None
    assert one.itl_ms is not None
    assert many.itl_ms > one.itl_ms
    assert many.ttft_ms == one.ttft_ms  # no queueing modelled


def test_fp8_uses_fp8_peak_and_a100_falls_back_to_bf16() -> None:
    assert peak_dense_tflops(H100, "fp8") == (1979, "fp8_dense_tflops")
    assert peak_dense_tflops(H100, "int8") == (1979, "fp8_dense_tflops")
    assert peak_dense_tflops(H100, "int4") == (989.5, "bf16_dense_tflops")
    assert peak_dense_tflops(H100, "fp32")[0] == pytest.approx(989.5 / 2)
    assert peak_dense_tflops(H100, "fp4") == (1979, "fp8_dense_tflops")
    assert peak_dense_tflops(A100_80, "fp8") == (312, "bf16_dense_tflops")
    fp8 = estimate_inference(llama_8b(weight_precision="fp8"))
    bf16 = estimate_inference(llama_8b())
    assert fp8.ttft_ms is not None
    assert bf16.ttft_ms is not None
    assert fp8.ttft_ms == pytest.approx(bf16.ttft_ms / 2, rel=0.01)
    on_a100 = estimate_inference(replace(llama_8b(weight_precision="fp8"), gpu=A100_80))
    assert any("no native fp8" in note for note in on_a100.notes)


def test_moe_decode_reads_only_routed_experts_at_batch_one() -> None:
    inp = InferencePerfInput(
        model=DEEPSEEK_V3, gpu=H200, weight_precision="fp8", kv_precision="bf16",
        input_tokens=4000, output_tokens=1000, gpus=8,
    )  # fmt: skip
    one = estimate_inference(inp)
    dense = estimate_inference(replace(inp, model=replace(DEEPSEEK_V3, active_params_b=None)))
    assert one.itl_ms is not None
    assert dense.itl_ms is not None
    assert one.itl_ms < dense.itl_ms / 5  # 37B of 671B read per step
    assert one.assumptions is not None
    assert one.assumptions["weight_bytes_read_share"] == pytest.approx(37 / 671)
    many = estimate_inference(replace(inp, concurrency=128))
    assert many.assumptions is not None
    share = many.assumptions["weight_bytes_read_share"]
    assert isinstance(share, float)
    assert share > 0.99  # large batches touch every expert


def test_estimate_flags_concurrency_that_does_not_fit_in_memory() -> None:
    estimate = estimate_inference(llama_8b(concurrency=1000))
    assert estimate.memory_max_concurrency is not None
    assert estimate.memory_max_concurrency < 1000
    assert any("does not fit in memory" in note for note in estimate.notes)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 400), st.integers(1, 400))
def test_latency_never_falls_and_throughput_never_falls_with_concurrency(b1: int, b2: int) -> None:
    few, many = sorted((b1, b2))
    low = estimate_inference(llama_8b(concurrency=few))
    high = estimate_inference(llama_8b(concurrency=many))
    assert low.itl_ms is not None
    assert high.itl_ms is not None
    assert low.itl_ms <= high.itl_ms
    assert low.decode_tokens_per_s is not None
    assert high.decode_tokens_per_s is not None
    assert low.decode_tokens_per_s <= high.decode_tokens_per_s


# --- validation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"input_tokens": 0}, "input_tokens"),
        ({"output_tokens": 0}, "output_tokens"),
        ({"concurrency": 0}, "concurrency"),
        ({"gpus": 0}, "gpus"),
        ({"memory_efficiency": 0.0}, "memory_efficiency"),
        ({"compute_efficiency": 1.5}, "compute_efficiency"),
        ({"weight_precision": "fp6"}, "weight_precision"),
        ({"kv_precision": "int2"}, "kv_precision"),
        ({"compute_precision": "fp64"}, "compute_precision"),
        ({"gpu": replace(H100, memory_bandwidth_tbps=None)}, "memory_bandwidth_tbps"),
        ({"gpu": replace(H100, bf16_dense_tflops=None)}, "bf16_dense_tflops"),
        ({"model": replace(LLAMA_31_8B, layers=0)}, "layers"),
    ],
)
def test_invalid_inference_inputs_name_the_field(changes: dict[str, object], field: str) -> None:
    with pytest.raises(EngineInputError) as caught:
        estimate_inference(replace(llama_8b(), **changes))  # type: ignore[arg-type]
    assert caught.value.field == field
