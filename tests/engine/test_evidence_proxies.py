"""Proxies that know the model (issue 24, N4 and N5): MoE against dense, family and version,
precision with its stated factor, the tensor/pipeline layout, the serving engine and its
major version, and the KV-cache precision."""

from __future__ import annotations

import dataclasses

import pytest

from engine.evidence import EvidenceTarget, ResultWorkload, family_of, match_result
from engine.serving_engines import major_version

QWEN3_32B = EvidenceTarget(
    accelerator="h100",
    gpus=1,
    model_name="Qwen3 32B",
    model_params_b=32.8,
    model_family="Qwen",
    precision="bf16",
    input_tokens_mean=1000,
    output_tokens_mean=200,
    concurrency=32,
)
LLAMA_70B = EvidenceTarget(
    accelerator="h100",
    gpus=4,
    model_name="Llama 3.1 70B",
    model_params_b=70.6,
    model_family="Llama",
    precision="bf16",
    input_tokens_mean=1000,
    output_tokens_mean=200,
    concurrency=16,
)


def _result(name: str, **kw) -> ResultWorkload:
    base = {
        "result_id": 1,
        "accelerator": "h100",
        "model_name": name,
        "precision": "bf16",
        "gpu_count": 1,
        "input_tokens_mean": 1000,
        "output_tokens_mean": 200,
        "concurrency": 32,
    }
    return ResultWorkload(**{**base, **kw})


def test_n4_a_moe_result_never_prices_a_dense_brief():
    """Qwen3-30B-A3B (3B active) priced a dense Qwen3-32B row at ×0.915 (≈ ×0.1 is right)."""
    verdict = match_result(_result("Qwen/Qwen3-30B-A3B"), QWEN3_32B)
    assert verdict.kind == "ignored"
    assert "mixture-of-experts" in verdict.reason
    assert "dense" in verdict.reason
    moe_brief = EvidenceTarget(
        accelerator="h100",
        gpus=1,
        model_name="Qwen3 30B A3B",
        model_params_b=30.5,
        model_active_params_b=3.3,
        precision="bf16",
        input_tokens_mean=1000,
        output_tokens_mean=200,
        concurrency=32,
    )
    dense_for_moe = match_result(_result("Qwen/Qwen3-32B"), moe_brief)
    assert dense_for_moe.kind == "ignored"


def test_n4_the_family_carries_its_version():
    assert family_of("meta-llama/Llama-3.1-70B-Instruct") == "llama-3"
    assert family_of("Llama-2-70b-hf") == "llama-2"
    assert family_of("Qwen2.5-7B-Instruct") == "qwen2"
    assert family_of("Qwen3-32B") == "qwen3"
    llama2 = match_result(_result("meta-llama/Llama-2-70b-hf", gpu_count=4), LLAMA_70B)
    assert llama2.kind == "ignored"  # was a proxy at ×0.992
    llama33 = match_result(_result("meta-llama/Llama-3.3-70B-Instruct", gpu_count=4), LLAMA_70B)
    assert llama33.kind == "proxy"


def test_n5_an_fp8_result_for_a_bf16_brief_is_a_proxy_at_the_weight_bytes_ratio():
    verdict = match_result(
        _result("meta-llama/Llama-3.1-70B-Instruct", gpu_count=4, precision="fp8"), LLAMA_70B
    )
    assert verdict.kind == "proxy"
    assert verdict.throughput_factor == pytest.approx(0.5)  # 1 byte / 2 bytes per weight
    assert any("fp8 to bf16" in a for a in verdict.adjustments)


def test_n5_another_tensor_pipeline_layout_is_a_proxy_with_its_reason():
    verdict = match_result(
        _result(
            "meta-llama/Llama-3.1-70B-Instruct",
            gpu_count=4,
            tensor_parallel=2,
            pipeline_parallel=2,
        ),
        LLAMA_70B,
    )
    assert verdict.kind == "proxy"  # was "measured"
    assert "TP=2, PP=2" in verdict.reason
    same = match_result(
        _result("meta-llama/Llama-3.1-70B-Instruct", gpu_count=4, tensor_parallel=4),
        LLAMA_70B,
    )
    assert same.kind == "measured"


VLLM_70B = EvidenceTarget(
    accelerator="h100",
    gpus=4,
    model_name="Llama 3.1 70B",
    model_params_b=70.6,
    model_family="Llama",
    precision="bf16",
    kv_precision="bf16",
    input_tokens_mean=1000,
    output_tokens_mean=200,
    concurrency=16,
    serving_engine="vLLM",
    serving_engine_version="0.6.3",
)
_70B = "meta-llama/Llama-3.1-70B-Instruct"


def test_n5_another_serving_engine_is_a_proxy_with_its_reason_never_measured():
    """A TensorRT-LLM (or SGLang) result for a vLLM brief counted as "measured" (×1.000)."""
    for engine, named in (("TensorRT-LLM", "TensorRT-LLM"), ("sglang", "SGLang")):
        verdict = match_result(_result(_70B, gpu_count=4, serving_engine=engine), VLLM_70B)
        assert verdict.kind == "proxy", engine
        assert f"measured with {named}, the brief serves with vLLM" in verdict.reason
        assert verdict.throughput_factor == 1.0  # kept as measured, and said so
        assert any("no public factor" in a for a in verdict.adjustments)
        assert verdict.spread_low_factor < 1.0  # the proxy's spread widens
    # spellings of one engine are one engine; a brief naming none takes any engine's result
    same = match_result(_result(_70B, gpu_count=4, serving_engine="vllm-openai"), VLLM_70B)
    assert same.kind == "measured"
    any_engine = dataclasses.replace(VLLM_70B, serving_engine="", serving_engine_version="")
    trt = _result(_70B, gpu_count=4, serving_engine="trt-llm")
    assert match_result(trt, any_engine).kind == "measured"
    # a result that does not say which engine ran cannot be shown to be the brief's
    unknown = match_result(_result(_70B, gpu_count=4), VLLM_70B)
    assert unknown.kind == "proxy"
    assert "serving engine not recorded; the brief serves with vLLM" in unknown.reason


def test_n5_another_major_version_of_the_engine_is_a_proxy():
    """SemVer: below 1.0 each minor is a major (vLLM 0.5 → 0.6 changed its scheduler)."""
    older = _result(_70B, gpu_count=4, serving_engine="vLLM", engine_version="0.5.4")
    verdict = match_result(older, VLLM_70B)
    assert verdict.kind == "proxy"
    assert "measured with vLLM 0.5.4, the brief serves with vLLM 0.6.3" in verdict.reason
    assert "another major version" in verdict.reason
    patch = _result(_70B, gpu_count=4, serving_engine="vLLM", engine_version="v0.6.1.post1")
    assert match_result(patch, VLLM_70B).kind == "measured"
    assert major_version("0.6.3.post1") == "0.6"
    assert major_version("1.2.0") == major_version("1.9") == "1"
    assert major_version("") == ""


def test_n5_another_kv_cache_precision_is_a_proxy():
    fp8_kv = _result(_70B, gpu_count=4, serving_engine="vLLM", kv_precision="fp8_e4m3")
    verdict = match_result(fp8_kv, VLLM_70B)
    assert verdict.kind == "proxy"
    assert "KV cache at fp8, the brief's is bf16" in verdict.reason
    assert verdict.throughput_factor == 1.0
    # "auto" follows the model's dtype: the file states nothing, so nothing to compare
    auto = _result(_70B, gpu_count=4, serving_engine="vLLM", kv_precision="auto")
    assert match_result(auto, VLLM_70B).kind == "measured"


def test_n5_precision_keeps_its_weight_bytes_factor_beside_an_engine_difference():
    """FP8 weights on SGLang for a BF16 vLLM brief: ×0.5 (1 byte / 2 bytes per weight) and
    both differences stated."""
    verdict = match_result(
        _result(_70B, gpu_count=4, precision="fp8", serving_engine="SGLang"), VLLM_70B
    )
    assert verdict.kind == "proxy"
    assert verdict.throughput_factor == pytest.approx(0.5)
    assert "measured at fp8, the brief is bf16" in verdict.reason
    assert "measured with SGLang" in verdict.reason
