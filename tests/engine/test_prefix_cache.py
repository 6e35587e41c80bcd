"""Prefix caching in the roofline and the engines that cache prefixes (issue 24, N10)."""

from __future__ import annotations

import pytest

from engine.errors import EngineInputError
from engine.memory.spec import GpuSpec, ModelSpec
from engine.performance import InferencePerfInput, estimate_inference
from engine.serving_engines import canonical, prefix_caching

H100 = GpuSpec(
    memory_gb=80,
    memory_bandwidth_tbps=3.35,
    bf16_dense_tflops=989.0,
    supported_precisions=("bf16",),
)
LLAMA_8B = ModelSpec(params_b=8.0, layers=32, kv_heads=8, head_dim=128)


def _estimate(cached: float) -> object:
    return estimate_inference(
        InferencePerfInput(
            model=LLAMA_8B,
            gpu=H100,
            weight_precision="bf16",
            kv_precision="bf16",
            input_tokens=1000,
            output_tokens=200,
            concurrency=16,
            cached_input_share=cached,
        )
    )


def test_n10_a_cached_prefix_skips_its_prefill_and_keeps_its_kv_cache():
    """TTFT = 2 × 8e9 × 1,000 / (989e12 × 0.4) = 40.445 ms in full, 20.222 ms with half the
    prompt cached; the decode step (which reads the whole context's KV cache) is unchanged."""
    full, half = _estimate(0.0), _estimate(0.5)
    assert full.ttft_ms == pytest.approx(40.445, abs=1e-3)
    assert half.ttft_ms == pytest.approx(20.222, abs=1e-3)
    assert half.itl_ms == full.itl_ms
    assert half.output_tokens_per_s > full.output_tokens_per_s
    assert half.assumptions["cached_input_share"] == 0.5
    # a fully cached prompt still prefills its last token: the weights are read once
    everything = _estimate(1.0)
    assert everything.ttft_ms == pytest.approx(8.0e9 * 2 / (3.35e12 * 0.6) * 1e3, rel=1e-6)
    with pytest.raises(EngineInputError, match="cached_input_share"):
        _estimate(1.5)


def test_n10_which_engines_cache_prefixes():
    assert canonical("TRT-LLM") == canonical("tensorrt_llm") == "tensorrt-llm"
    assert canonical("text-generation-inference") == "tgi"
    assert prefix_caching("vLLM").applies
    assert prefix_caching("sglang").words == "SGLang caches prefixes (RadixAttention)"
    assert prefix_caching("TensorRT-LLM").applies
    assert prefix_caching("TGI", "3.0.1").applies
    older = prefix_caching("TGI", "2.4.0")
    assert not older.applies
    assert "predates its prefix caching" in older.words
    assert not prefix_caching("llama.cpp").applies
    assert prefix_caching("").words == "no serving engine is stated (brief or benchmark)"
