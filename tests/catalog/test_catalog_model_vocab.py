"""M-1 in practice: the seeded model profiles carry their vocabulary, so the memory fit counts
a quantised checkpoint's 16-bit embeddings and output head instead of saying it cannot."""

from __future__ import annotations

import pytest

from briefs.fit import model_spec_for
from catalog.models import ModelProfile
from engine.memory.fit import memory_fit
from engine.memory.spec import FitInput, GpuSpec

pytestmark = pytest.mark.django_db


def test_m1_seeded_profiles_carry_vocab_size_and_the_fit_counts_the_16_bit_layers(catalog):
    qwen = ModelProfile.objects.get(slug="qwen2-5-7b")
    assert (qwen.vocab_size, qwen.tied_embeddings) == (152_064, False)
    assert ModelProfile.objects.get(slug="gemma-2-27b").tied_embeddings is True
    assert not ModelProfile.objects.filter(vocab_size__isnull=True).exists()

    result = memory_fit(
        FitInput(
            model=model_spec_for(qwen),
            gpu=GpuSpec(memory_gb=24, max_gpus_per_node=1, memory_unit="GiB"),
            mode="inference",
            weight_precision="int4",
            kv_precision="bf16",
            context_tokens=32_768,
            concurrent_sequences=4,
        )
    )
    assert "kept in 16 bits" in result.assumptions["weights_counted"]
    assert result.weights_gb == pytest.approx(5.57, abs=0.01)  # the finding: about 5.5 GB
