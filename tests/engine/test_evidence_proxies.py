"""Proxies that know the model (issue 24, N4 and N5): MoE against dense, family and version,
precision with its stated factor, and the tensor/pipeline layout."""

from __future__ import annotations

import pytest

from engine.evidence import EvidenceTarget, ResultWorkload, family_of, match_result

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
