"""P13: adapter fine-tuning needs no weight gradients of the frozen base; its rank sizes the
adapter's own share."""

from __future__ import annotations

import pytest

from procurement.snapshot.workload import workload_input
from tests.engine.snapshot_world import quote, snapshot


def _training(workload_class: str, **brief: object):
    snap = snapshot(
        [quote(1, "2.50")],
        [],
        workload_class=workload_class,
        target_gpus=8,
        training_tokens_b=2.0,
        expected_mfu=0.35,
        monthly_accepted_outputs_low=None,
        monthly_accepted_outputs_likely=None,
        monthly_accepted_outputs_high=None,
        **brief,
    )
    spec = workload_input(snap).training
    assert spec is not None
    return spec


def test_p13_lora_costs_4_flops_per_base_parameter_plus_its_adapter_weights() -> None:
    """Llama 3.1 70B (80 layers, hidden 8,192), rank 32: adapter weights 32 × 2 × 8,192 × 7
    × 80 = 293,601,280, 0.41587 % of 70.6 B; FLOPs per parameter and token 4 + 6 × 0.0041587
    = 4.024952, against 6 for full training (× 0.67 of the compute)."""
    spec = _training("adapter_finetune", lora_rank=32)
    assert spec.flops_per_param_token == pytest.approx(4.024952, abs=1e-6)
    # A higher rank costs more
    assert _training("adapter_finetune", lora_rank=256).flops_per_param_token == pytest.approx(
        4.199616, abs=1e-6
    )


def test_p13_full_training_keeps_6_and_an_adapter_with_no_rank_4() -> None:
    assert _training("full_finetune").flops_per_param_token == 6.0
    assert _training("adapter_finetune", lora_rank=None).flops_per_param_token == 4.0
