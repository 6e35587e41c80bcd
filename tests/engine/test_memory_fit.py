"""Memory fit: hand-computed values for real models, invariants, and input validation.

Hand values use GB = 1e9 bytes and the stated defaults (2.0 GB overhead per GPU, 10 %
safety margin), so an 80 GB GPU has 80 × 0.9 − 2 = 70 GB usable.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import EngineInputError
from engine.memory.fit import memory_fit
from engine.memory.spec import (
    QLORA_CONSTANT_BYTES,
    FitInput,
    GpuSpec,
    ModelSpec,
    candidate_gpu_counts,
    curve_contexts,
    kv_bytes_per_sequence,
    kv_bytes_per_token,
    lora_adapter_params,
)

LLAMA_31_8B = ModelSpec(
    params_b=8.03, layers=32, kv_heads=8, head_dim=128, hidden_size=4096,
    attention_heads=32, max_context=131072,
)  # fmt: skip
LLAMA_31_70B = ModelSpec(
    params_b=70.6, layers=80, kv_heads=8, head_dim=128, hidden_size=8192,
    attention_heads=64, max_context=131072,
)  # fmt: skip
DEEPSEEK_V3 = ModelSpec(
    params_b=671, active_params_b=37, layers=61, kv_heads=128, head_dim=192,
    hidden_size=7168, attention_heads=128, mla_latent_dim=576, max_context=163840,
)  # fmt: skip
GPT_OSS_120B = ModelSpec(
    params_b=116.8, active_params_b=5.1, layers=36, kv_heads=8, head_dim=64,
    hidden_size=2880, attention_heads=64, sliding_window=128, sliding_window_layers=18,
    max_context=131072,
)  # fmt: skip
MISTRAL_7B_V01 = ModelSpec(
    params_b=7.24, layers=32, kv_heads=8, head_dim=128, hidden_size=4096,
    attention_heads=32, sliding_window=4096, sliding_window_layers=32, max_context=32768,
)  # fmt: skip

H100 = GpuSpec(
    memory_gb=80, memory_bandwidth_tbps=3.35, bf16_dense_tflops=989.5, fp8_dense_tflops=1979,
    interconnect_gbps=900, supported_precisions=("fp32", "bf16", "fp16", "fp8", "int8"),
)  # fmt: skip
H200 = GpuSpec(
    memory_gb=141, memory_bandwidth_tbps=4.8, bf16_dense_tflops=989.5, fp8_dense_tflops=1979,
    supported_precisions=("fp32", "bf16", "fp16", "fp8", "int8"),
)  # fmt: skip
A100_80 = GpuSpec(
    memory_gb=80, memory_bandwidth_tbps=2.039, bf16_dense_tflops=312,
    supported_precisions=("fp32", "tf32", "bf16", "fp16", "int8"),
)  # fmt: skip


def inference(model: ModelSpec, gpu: GpuSpec = H100, **kwargs: object) -> FitInput:
    values: dict[str, object] = {
        "weight_precision": "bf16",
        "kv_precision": "bf16",
        "context_tokens": 8192,
        "concurrent_sequences": 1,
    }
    values.update(kwargs)
    return FitInput(model=model, gpu=gpu, mode="inference", **values)  # type: ignore[arg-type]


# --- KV bytes per token ---------------------------------------------------------------------


def test_llama_31_70b_kv_bytes_per_token_at_bf16() -> None:
    # 2 (K and V) × 80 layers × 8 KV heads × 128 head dim × 2 bytes
    assert kv_bytes_per_token(LLAMA_31_70B, "bf16") == 327_680
    assert kv_bytes_per_token(LLAMA_31_70B, "fp8") == 163_840


def test_llama_31_8b_kv_bytes_per_token() -> None:
    assert kv_bytes_per_token(LLAMA_31_8B, "bf16") == 2 * 32 * 8 * 128 * 2 == 131_072


def test_deepseek_v3_mla_kv_bytes_per_token() -> None:
    # MLA caches one latent of 512 + 64 (decoupled rope) = 576 values per layer, 61 layers
    assert kv_bytes_per_token(DEEPSEEK_V3, "bf16") == 576 * 61 * 2 == 70_272
    assert kv_bytes_per_token(DEEPSEEK_V3, "fp8") == 35_136


def test_gpt_oss_120b_sliding_window_layers_stop_at_128_tokens() -> None:
    per_layer_token = 2 * 8 * 64 * 2  # 2,048 bytes
    assert kv_bytes_per_token(GPT_OSS_120B, "bf16") == 36 * per_layer_token == 73_728
    # 18 full layers grow with the context, 18 window layers keep 128 tokens
    expected = 18 * per_layer_token * 8192 + 18 * per_layer_token * 128
    assert kv_bytes_per_sequence(GPT_OSS_120B, "bf16", 8192) == expected == 306_708_480
    # below the window every layer holds the whole context
    assert kv_bytes_per_sequence(GPT_OSS_120B, "bf16", 100) == 73_728 * 100


def test_mistral_7b_every_layer_caps_at_the_4096_window() -> None:
    assert kv_bytes_per_sequence(MISTRAL_7B_V01, "bf16", 2048) == 131_072 * 2048
    assert kv_bytes_per_sequence(MISTRAL_7B_V01, "bf16", 16384) == 131_072 * 4096
    result = memory_fit(inference(MISTRAL_7B_V01, context_tokens=16384, concurrent_sequences=10))
    assert result.kv_cache_gb == pytest.approx(131_072 * 4096 * 10 / 1e9)  # 5.37 GB, not 21.5
    assert result.kv_bytes_per_token == 131_072  # the uncapped per-token rate


# --- inference fit --------------------------------------------------------------------------


def test_llama_3_70b_bf16_weights_are_about_141_gb() -> None:
    result = memory_fit(inference(LLAMA_31_70B))
    assert result.weights_gb == pytest.approx(141.2)
    assert result.weights_gb == pytest.approx(141, abs=0.5)


def test_llama_70b_at_8k_and_32_sequences_needs_four_h100() -> None:
    result = memory_fit(inference(LLAMA_31_70B, concurrent_sequences=32))
    kv_gb = 327_680 * 8192 * 32 / 1e9  # 85.90 GB
    assert result.kv_cache_gb == pytest.approx(kv_gb)
    assert result.usable_gb_per_gpu == pytest.approx(70.0)
    # 2 GPUs: 70.6 + 42.9 > 70; 4 GPUs: 35.3 + 21.5 = 56.8
    assert result.gpus_required == 4
    assert result.per_gpu_gb == pytest.approx(141.2 / 4 + kv_gb / 4)
    assert result.headroom_pct == pytest.approx((70 - result.per_gpu_gb) / 70 * 100)
    assert result.fits
    assert result.nodes_required == 1
    assert not result.crosses_nodes
    assert result.breakdown["weights"] == pytest.approx(35.3)
    assert result.breakdown["kv"] == pytest.approx(kv_gb / 4)
    assert result.overhead_gb == 2.0
    assert result.margin_gb == pytest.approx(8.0)
    assert result.total_gb == pytest.approx(141.2 + kv_gb + 4 * 2.0)
    # 70 − 35.3 = 34.7 GB of KV room per GPU, 0.671 GB per 8k sequence per GPU → 51
    assert result.max_concurrent_sequences == 51


def test_llama_8b_on_one_h100_and_its_max_concurrency() -> None:
    result = memory_fit(inference(LLAMA_31_8B))
    assert result.weights_gb == pytest.approx(16.06)
    assert result.gpus_required == 1
    assert result.fits
    # (70 − 16.06) / (131,072 × 8192 / 1e9 = 1.0737 GB) = 50.2
    assert result.max_concurrent_sequences == 50


def test_deepseek_v3_fp8_needs_a_full_h200_node_and_two_h100_nodes() -> None:
    on_h200 = memory_fit(
        inference(DEEPSEEK_V3, H200, weight_precision="fp8", concurrent_sequences=16)
    )
    kv_gb = 70_272 * 8192 * 16 / 1e9
    assert on_h200.weights_gb == pytest.approx(671)
    assert on_h200.gpus_required == 8
    # the MLA latent is replicated on every tensor-parallel rank
    assert on_h200.per_gpu_gb == pytest.approx(671 / 8 + kv_gb)
    assert not on_h200.crosses_nodes

    on_h100 = memory_fit(
        inference(DEEPSEEK_V3, H100, weight_precision="fp8", concurrent_sequences=16)
    )
    assert on_h100.gpus_required == 16
    assert on_h100.nodes_required == 2
    assert on_h100.crosses_nodes
    assert on_h100.per_gpu_gb == pytest.approx(671 / 16 + kv_gb / 2)  # two pipeline stages
    assert any("spans 2 nodes" in note for note in on_h100.notes)


def test_moe_memory_holds_every_expert() -> None:
    result = memory_fit(inference(GPT_OSS_120B, H100, weight_precision="fp4"))
    # M-1: 4-bit weights carry an FP16 scale + 4-bit zero per 128 weights (2.5 / 128 bytes);
    # no vocabulary size, so no 16-bit layers are counted (and the answer says so)
    assert result.weights_gb == pytest.approx(116.8 * (0.5 + 2.5 / 128))
    assert "moe" in result.assumptions


def test_kv_heads_are_replicated_past_the_kv_head_count() -> None:
    two_kv_heads = replace(LLAMA_31_70B, kv_heads=2)
    one = memory_fit(inference(two_kv_heads, gpus=2, concurrent_sequences=4))
    eight = memory_fit(inference(two_kv_heads, gpus=8, concurrent_sequences=4))
    assert eight.breakdown["kv"] == pytest.approx(one.breakdown["kv"])
    assert any("replicated" in note for note in eight.notes)


def test_given_gpus_are_evaluated_even_when_they_do_not_fit() -> None:
    result = memory_fit(inference(LLAMA_31_70B, gpus=1))
    assert result.gpus_required == 1
    assert not result.fits
    assert result.per_gpu_gb > result.usable_gb_per_gpu
    assert result.headroom_pct < 0
    assert result.max_concurrent_sequences == 0
    assert any("smallest count that fits is 4" in note for note in result.notes)


def test_given_gpus_larger_than_needed_say_fewer_would_do() -> None:
    result = memory_fit(inference(LLAMA_31_70B, gpus=8))
    assert result.gpus_required == 8
    assert result.fits
    assert any("also fits on 4" in note for note in result.notes)


def test_nothing_fits_reports_the_largest_count_tried() -> None:
    tiny = GpuSpec(memory_gb=8)
    result = memory_fit(inference(LLAMA_31_70B, tiny, context_tokens=131072, max_nodes=2))
    assert not result.fits
    assert result.gpus_required == 16
    assert any("does not fit on up to 16 GPUs" in note for note in result.notes)


def test_smaller_nodes_cross_nodes_sooner() -> None:
    four_per_node = replace(H100, max_gpus_per_node=4)
    result = memory_fit(inference(LLAMA_31_70B, four_per_node, concurrent_sequences=96))
    assert result.gpus_required == 8
    assert result.nodes_required == 2
    assert result.crosses_nodes


def test_candidate_counts_are_tensor_parallel_then_whole_nodes() -> None:
    assert candidate_gpu_counts(8, 3) == (1, 2, 4, 8, 16, 24)
    assert candidate_gpu_counts(4, 2) == (1, 2, 4, 8)
    assert candidate_gpu_counts(1, 3) == (1, 2, 3)


def test_fp8_on_a100_is_computed_with_a_note_not_refused() -> None:
    result = memory_fit(inference(LLAMA_31_70B, A100_80, weight_precision="fp8"))
    assert result.weights_gb == pytest.approx(70.6)
    assert any("fp8" in note and "weight_precision" in note for note in result.notes)
    unknown_support = replace(A100_80, supported_precisions=())
    quiet = memory_fit(inference(LLAMA_31_70B, unknown_support, weight_precision="fp8"))
    assert not any("supported precisions" in note for note in quiet.notes)


def test_context_beyond_the_models_max_context_is_noted() -> None:
    result = memory_fit(inference(MISTRAL_7B_V01, context_tokens=65536))
    assert any("max context" in note for note in result.notes)


def test_defaults_are_stated_in_assumptions() -> None:
    result = memory_fit(inference(LLAMA_31_8B))
    assert result.assumptions["overhead_gb_per_gpu"] == 2.0
    assert result.assumptions["safety_margin"] == 0.10
    assert "CUDA context" in str(result.assumptions["overhead_reason"])
    assert "fragmentation" in str(result.assumptions["safety_margin_reason"])


def test_overhead_and_margin_are_editable() -> None:
    result = memory_fit(inference(LLAMA_31_8B, overhead_gb=4.0, safety_margin=0.2))
    assert result.usable_gb_per_gpu == pytest.approx(80 * 0.8 - 4)
    assert result.assumptions["overhead_gb_per_gpu"] == 4.0


# --- fit curve ------------------------------------------------------------------------------


def test_fit_curve_runs_1k_to_128k_capped_at_max_context() -> None:
    assert curve_contexts(None) == (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)
    assert curve_contexts(32768) == (1024, 2048, 4096, 8192, 16384, 32768)
    assert curve_contexts(40960) == (1024, 2048, 4096, 8192, 16384, 32768, 40960)
    assert curve_contexts(163840)[-1] == 131072
    result = memory_fit(inference(MISTRAL_7B_V01))
    assert [p.context_tokens for p in result.fit_curve][-1] == 32768


def test_fit_curve_shows_long_context_needing_more_gpus() -> None:
    result = memory_fit(inference(LLAMA_31_70B, concurrent_sequences=32))
    by_context = {p.context_tokens: p for p in result.fit_curve}
    assert by_context[8192].gpus_required == 4
    assert by_context[8192].max_concurrent_sequences == result.max_concurrent_sequences
    assert by_context[131072].gpus_required is not None
    assert by_context[131072].gpus_required > 4
    assert not by_context[131072].fits  # on the 4 GPUs evaluated
    needs = [p.gpus_required or math.inf for p in result.fit_curve]
    assert needs == sorted(needs)
    concurrency = [p.max_concurrent_sequences for p in result.fit_curve]
    assert concurrency == sorted(concurrency, reverse=True)


# --- training, LoRA, QLoRA ------------------------------------------------------------------


def training(model: ModelSpec, mode: str = "training", **kwargs: object) -> FitInput:
    values: dict[str, object] = {
        "weight_precision": "bf16",
        "kv_precision": "bf16",
        "context_tokens": 4096,
        "concurrent_sequences": 1,
    }
    values.update(kwargs)
    return FitInput(model=model, gpu=H100, mode=mode, **values)  # type: ignore[arg-type]


def test_full_training_holds_16_bytes_per_param() -> None:
    result = memory_fit(training(LLAMA_31_8B, zero_stage=0, gpus=1))
    states = sum(result.breakdown[k] for k in ("weights", "gradients", "optimizer"))
    assert states == pytest.approx(16 * 8.03)  # 128.48 GB
    assert result.breakdown["weights"] == pytest.approx(2 * 8.03)
    assert result.breakdown["gradients"] == pytest.approx(2 * 8.03)
    assert result.breakdown["optimizer"] == pytest.approx(12 * 8.03)
    assert result.kv_cache_gb == 0
    assert result.kv_bytes_per_token == 0


@pytest.mark.parametrize(
    ("stage", "per_gpu_states"),
    [
        (0, 16 * 8.03),
        (1, 4 * 8.03 + 12 * 8.03 / 8),
        (2, 2 * 8.03 + 14 * 8.03 / 8),
        (3, 16 * 8.03 / 8),
    ],
)
def test_zero_stages_shard_more_state(stage: int, per_gpu_states: float) -> None:
    result = memory_fit(training(LLAMA_31_8B, zero_stage=stage, gpus=8))
    states = sum(result.breakdown[k] for k in ("weights", "gradients", "optimizer"))
    assert states == pytest.approx(per_gpu_states)


def test_activation_estimate_with_and_without_checkpointing() -> None:
    s_h = 4096 * 4096
    on = memory_fit(training(LLAMA_31_8B, gpus=8))
    off = memory_fit(training(LLAMA_31_8B, gpus=8, activation_checkpointing=False))
    assert on.breakdown["activations"] == pytest.approx((32 * 2 + 34) * s_h / 1e9)  # 1.64 GB
    assert off.breakdown["activations"] == pytest.approx(32 * 34 * s_h / 1e9)  # 18.3 GB
    two = memory_fit(training(LLAMA_31_8B, gpus=8, micro_batch=2))
    assert two.breakdown["activations"] == pytest.approx(2 * on.breakdown["activations"])


def test_full_fine_tune_of_8b_needs_two_h100_with_zero_3() -> None:
    result = memory_fit(training(LLAMA_31_8B))
    # 1 GPU: 128.5 GB of state; 2 GPUs: 64.2 + 1.6 activations ≤ 70
    assert result.gpus_required == 2
    assert result.fits
    assert result.max_concurrent_sequences >= 1  # the micro-batch that fits


def test_lora_adapter_params_for_llama_8b_rank_16() -> None:
    # q: 4096+4096, k and v: 4096+1024 each, o: 4096+4096 → 26,624 × 16 per layer
    assert lora_adapter_params(LLAMA_31_8B, 16) == 16 * 26_624 * 32 == 13_631_488
    result = memory_fit(training(LLAMA_31_8B, "lora", gpus=1))
    adapters_b = 13_631_488 / 1e9
    assert result.breakdown["weights"] == pytest.approx(2 * 8.03)  # frozen 16-bit base
    assert result.breakdown["adapters"] == pytest.approx(2 * adapters_b)
    assert result.breakdown["gradients"] == pytest.approx(2 * adapters_b)
    assert result.breakdown["optimizer"] == pytest.approx(12 * adapters_b)
    assert result.fits


def test_qlora_base_is_half_a_byte_per_param_plus_quantisation_constants() -> None:
    assert pytest.approx(0.127 / 8, abs=1e-4) == QLORA_CONSTANT_BYTES
    result = memory_fit(training(LLAMA_31_70B, "qlora", weight_precision="int4"))
    assert result.weights_gb == pytest.approx(70.6 * (0.5 + QLORA_CONSTANT_BYTES))  # 36.4 GB
    assert result.gpus_required == 1  # a 70B QLoRA fits one 80 GB GPU at 4k, micro-batch 1
    assert "NF4" in str(result.assumptions["base"])


def test_activations_larger_than_the_gpu_never_fit() -> None:
    result = memory_fit(
        training(LLAMA_31_70B, context_tokens=131072, activation_checkpointing=False, max_nodes=2)
    )
    assert not result.fits
    assert any("activations alone" in note for note in result.notes)


# --- JSON ---------------------------------------------------------------------------------


def test_to_dict_is_json_ready_with_the_api_fields() -> None:
    data = memory_fit(inference(LLAMA_31_70B, concurrent_sequences=32)).to_dict()
    json.dumps(data)
    for key in (
        "weights_gb", "kv_bytes_per_token", "kv_cache_gb", "overhead_gb", "total_gb",
        "per_gpu_gb", "usable_gb_per_gpu", "gpus_required", "fits", "headroom_pct",
        "max_concurrent_sequences", "assumptions", "fit_curve", "breakdown", "notes",
    ):  # fmt: skip
        assert key in data
    assert isinstance(data["fit_curve"], list)
    assert data["kv_bytes_per_token"] == 327_680


# --- validation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"context_tokens": 0}, "context_tokens"),
        ({"context_tokens": -5}, "context_tokens"),
        ({"concurrent_sequences": 0}, "concurrent_sequences"),
        ({"weight_precision": "fp6"}, "weight_precision"),
        ({"kv_precision": "int3"}, "kv_precision"),
        ({"mode": "pretraining"}, "mode"),
        ({"gpus": 0}, "gpus"),
        ({"overhead_gb": -1.0}, "overhead_gb"),
        ({"overhead_gb": 80.0}, "overhead_gb"),
        ({"safety_margin": 1.0}, "safety_margin"),
        ({"safety_margin": float("nan")}, "safety_margin"),
        ({"zero_stage": 4}, "zero_stage"),
        ({"micro_batch": 0}, "micro_batch"),
        ({"lora_rank": 0}, "lora_rank"),
        ({"context_tokens": 8192.5}, "context_tokens"),
    ],
)
def test_invalid_inputs_name_the_field(changes: dict[str, object], field: str) -> None:
    with pytest.raises(EngineInputError) as caught:
        memory_fit(replace(inference(LLAMA_31_8B), **changes))  # type: ignore[arg-type]
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"params_b": 0}, "params_b"),
        ({"params_b": -70.0}, "params_b"),
        ({"params_b": float("inf")}, "params_b"),
        ({"layers": 0}, "layers"),
        ({"kv_heads": 0}, "kv_heads"),
        ({"head_dim": -128}, "head_dim"),
        ({"active_params_b": 100.0}, "active_params_b"),
        ({"attention_heads": 4}, "kv_heads"),
        ({"sliding_window_layers": 33}, "sliding_window_layers"),
        ({"sliding_window_layers": 4}, "sliding_window"),
        ({"mla_latent_dim": 0}, "mla_latent_dim"),
        ({"max_context": 0}, "max_context"),
    ],
)
def test_nonsense_model_numbers_name_the_field(changes: dict[str, object], field: str) -> None:
    model = replace(LLAMA_31_8B, **changes)  # type: ignore[arg-type]
    with pytest.raises(EngineInputError) as caught:
        memory_fit(inference(model))
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"memory_gb": 0}, "memory_gb"),
        ({"max_gpus_per_node": 0}, "max_gpus_per_node"),
        ({"memory_bandwidth_tbps": -1.0}, "memory_bandwidth_tbps"),
    ],
)
def test_nonsense_gpu_numbers_name_the_field(changes: dict[str, object], field: str) -> None:
    gpu = replace(H100, **changes)  # type: ignore[arg-type]
    with pytest.raises(EngineInputError) as caught:
        memory_fit(inference(LLAMA_31_8B, gpu))
    assert caught.value.field == field


# --- properties -----------------------------------------------------------------------------

models = st.builds(
    ModelSpec,
    params_b=st.floats(0.1, 2000),
    layers=st.integers(1, 160),
    kv_heads=st.sampled_from([1, 2, 4, 8, 16, 32, 64]),
    head_dim=st.sampled_from([64, 80, 96, 128, 256]),
    mla_latent_dim=st.none() | st.just(576),
    max_context=st.none() | st.integers(512, 262144),
)
sliding_models = st.builds(
    lambda m, window, share: replace(
        m, sliding_window=window, sliding_window_layers=int(m.layers * share)
    ),
    models,
    st.integers(64, 8192),
    st.floats(0, 1),
)
any_models = models | sliding_models
modes = st.sampled_from(["inference", "training", "lora", "qlora"])
precisions = st.sampled_from(["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"])
memories = st.floats(16, 300)
contexts = st.integers(1, 262144)
concurrencies = st.integers(1, 1024)


def fit_input(
    model: ModelSpec, mode: str, precision: str, memory: float, context: int, concurrency: int
) -> FitInput:
    return FitInput(
        model=model,
        gpu=GpuSpec(memory_gb=memory),
        mode=mode,
        weight_precision=precision,
        kv_precision=precision,
        context_tokens=context,
        concurrent_sequences=concurrency,
        max_nodes=16,
    )


@settings(max_examples=150, deadline=None)
@given(any_models, modes, precisions, memories, contexts, contexts, concurrencies)
def test_more_context_never_needs_fewer_gpus(
    model: ModelSpec, mode: str, precision: str, memory: float, c1: int, c2: int, seqs: int
) -> None:
    short, long = sorted((c1, c2))
    base = fit_input(model, mode, precision, memory, short, seqs)
    assert (
        memory_fit(base).gpus_required
        <= memory_fit(replace(base, context_tokens=long)).gpus_required
    )


@settings(max_examples=150, deadline=None)
@given(any_models, precisions, memories, contexts, concurrencies, concurrencies)
def test_more_concurrency_never_needs_fewer_gpus_and_never_less_kv(
    model: ModelSpec, precision: str, memory: float, context: int, s1: int, s2: int
) -> None:
    few, many = sorted((s1, s2))
    base = fit_input(model, "inference", precision, memory, context, few)
    low, high = memory_fit(base), memory_fit(replace(base, concurrent_sequences=many))
    assert low.gpus_required <= high.gpus_required
    assert low.kv_cache_gb <= high.kv_cache_gb


@settings(max_examples=150, deadline=None)
@given(any_models, modes, precisions, memories, memories, contexts, concurrencies)
def test_more_gpu_memory_never_needs_more_gpus(
    model: ModelSpec, mode: str, precision: str, m1: float, m2: float, context: int, seqs: int
) -> None:
    small, large = sorted((m1, m2))
    base = fit_input(model, mode, precision, small, context, seqs)
    bigger = replace(base, gpu=GpuSpec(memory_gb=large))
    assert memory_fit(bigger).gpus_required <= memory_fit(base).gpus_required


@settings(max_examples=150, deadline=None)
@given(
    any_models, modes, precisions, memories, contexts, concurrencies, st.none() | st.integers(1, 64)
)
def test_fits_agrees_with_per_gpu_need_and_max_concurrency(
    model: ModelSpec,
    mode: str,
    precision: str,
    memory: float,
    context: int,
    seqs: int,
    gpus: int | None,
) -> None:
    inp = replace(fit_input(model, mode, precision, memory, context, seqs), gpus=gpus)
    result = memory_fit(inp)
    assert result.fits == (result.per_gpu_gb <= result.usable_gb_per_gpu)
    assert result.nodes_required == math.ceil(result.gpus_required / 8)
    assert result.total_gb == pytest.approx((result.per_gpu_gb + 2.0) * result.gpus_required)
    if mode == "inference":
        # max_concurrent_sequences is exactly the most that fit on the evaluated GPUs
        most = result.max_concurrent_sequences
        on_these = replace(inp, gpus=result.gpus_required)
        if 1 <= most < 10_000_000:  # the engine accepts up to 10 million sequences
            assert memory_fit(replace(on_these, concurrent_sequences=most)).fits
        if most < 10_000_000:
            assert not memory_fit(replace(on_these, concurrent_sequences=most + 1)).fits
        assert result.fits == (seqs <= most)
