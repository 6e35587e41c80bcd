"""fit_adapter: catalog rows → engine dataclasses (no database needed: unsaved instances)."""

from __future__ import annotations

import pytest

from briefs.fit import (
    _zero_stage,
    context_tokens_for,
    fit_input_for_brief,
    gpu_spec_for,
    mode_for,
    model_spec_for,
)
from briefs.models import WorkloadBrief
from catalog.models import Accelerator, ModelProfile
from engine.memory.fit import memory_fit


def _llama70b() -> ModelProfile:
    return ModelProfile(
        slug="llama-3-1-70b",
        name="Llama 3.1 70B",
        params_total_b=70.6,
        params_active_b=70.6,
        layers=80,
        hidden_size=8192,
        attention_heads=64,
        kv_heads=8,
        head_dim=128,
        max_context=131072,
    )


def _h100() -> Accelerator:
    return Accelerator(
        slug="h100-sxm-80gb",
        name="H100 SXM 80GB",
        memory_gb=80,
        memory_bandwidth_tbps=3.35,
        bf16_dense_tflops=989.5,
        fp8_dense_tflops=1979,
        supported_precisions=["fp32", "bf16", "fp16", "fp8", "int8"],
        interconnect_gbps=900,
        max_gpus_per_node=8,
    )


def test_model_spec_for_dense_model_has_no_active_params():
    spec = model_spec_for(_llama70b())
    assert spec.params_b == 70.6
    assert spec.active_params_b is None
    assert (spec.layers, spec.kv_heads, spec.head_dim) == (80, 8, 128)
    assert spec.max_context == 131072


def test_model_spec_for_moe_keeps_active_params():
    profile = _llama70b()
    profile.params_total_b, profile.params_active_b = 46.7, 12.9
    assert model_spec_for(profile).active_params_b == 12.9


def test_gpu_spec_for_copies_datasheet_figures():
    spec = gpu_spec_for(_h100())
    assert spec.memory_gb == 80.0
    assert spec.max_gpus_per_node == 8
    assert spec.supported_precisions == ("fp32", "bf16", "fp16", "fp8", "int8")
    assert spec.fp4_dense_tflops is None


def test_brief_fit_matches_the_documented_worked_example():
    brief = WorkloadBrief(
        workload_class="realtime_inference",
        model=_llama70b(),
        p95_input_tokens=7692,
        p95_output_tokens=500,
        concurrency=32,
    )
    result = memory_fit(fit_input_for_brief(brief, _h100()))
    assert result.kv_bytes_per_token == 327_680
    assert result.gpus_required == 4
    assert round(result.weights_gb, 1) == 141.2


@pytest.mark.parametrize(
    ("workload_class", "precision", "mode"),
    [
        ("realtime_inference", "bf16", "inference"),
        ("media", "bf16", "inference"),
        ("training", "bf16", "training"),
        ("full_finetune", "bf16", "training"),
        ("adapter_finetune", "bf16", "lora"),
        ("adapter_finetune", "int4", "qlora"),
    ],
)
def test_mode_follows_workload_class(workload_class, precision, mode):
    brief = WorkloadBrief(workload_class=workload_class, weight_precision=precision)
    assert mode_for(brief) == mode


def test_training_context_is_the_sequence_length():
    brief = WorkloadBrief(workload_class="training", sequence_length=4096, p95_input_tokens=10)
    assert context_tokens_for(brief) == 4096


@pytest.mark.parametrize(
    ("text", "stage"),
    [("zero3", 3), ("ZeRO-1", 1), ("zero_2", 2), ("ddp", 0), ("fsdp", 3), ("", 3)],
)
def test_sharding_text_maps_to_zero_stage(text, stage):
    assert _zero_stage(text) == stage


def test_brief_without_model_cannot_be_fitted():
    with pytest.raises(ValueError, match="no model"):
        fit_input_for_brief(WorkloadBrief(workload_class="media"), _h100())
