"""Memory fit without silent defaults: M-1, M-2, U1, U2 and D11's window check."""

from __future__ import annotations

import pytest

from engine.comparison import run_comparison
from engine.memory.context import fit_contexts
from engine.memory.fit import memory_fit
from engine.memory.spec import FitInput, GpuSpec, ModelSpec
from procurement.snapshot import thaw
from tests.engine.snapshot_world import quote, snapshot

QWEN_7B = ModelSpec(
    params_b=7.62, layers=28, kv_heads=4, head_dim=128, hidden_size=3584, vocab_size=152_064
)
RTX_4090 = GpuSpec(memory_gb=24, max_gpus_per_node=1, memory_unit="GiB")


def _fit(model=QWEN_7B, gpu=RTX_4090, **kw):
    values = {
        "model": model,
        "gpu": gpu,
        "mode": "inference",
        "weight_precision": "int4",
        "kv_precision": "bf16",
        "context_tokens": 32_768,
        "concurrent_sequences": 4,
    }
    return memory_fit(FitInput(**{**values, **kw}))


def test_m1_int4_counts_the_16_bit_embeddings_head_norms_and_the_scales():
    """M-1: kept = 2 × 152,064 × 3,584 + 57 × 3,584 = 1.090215 B params in BF16;
    (7.62 − 1.090215) × (0.5 + 2.5 / 128) + 1.090215 × 2 = 5.5729 GB (today: 3.81 GB)."""
    kept = (2 * 152_064 * 3584 + 57 * 3584) / 1e9
    expected = (7.62 - kept) * (0.5 + 2.5 / 128) + kept * 2
    result = _fit()
    assert result.weights_gb == pytest.approx(expected)
    assert result.weights_gb == pytest.approx(5.573, abs=0.001)
    assert "kept in 16 bits" in result.assumptions["weights_counted"]


def test_m1_unknown_vocabulary_is_said_not_hidden():
    result = _fit(model=ModelSpec(params_b=7.62, layers=28, kv_heads=4, head_dim=128))
    assert "NOT counted" in result.assumptions["weights_counted"]


def test_m2_datasheet_capacity_is_read_as_gib_and_the_unit_is_stated():
    """M-2: 80 GiB = 85.899 GB; usable = 85.899 × 0.9 − 2 = 75.309 GB (today: 70.0)."""
    h100 = GpuSpec(memory_gb=80, memory_unit="GiB")
    result = _fit(gpu=h100, weight_precision="bf16", context_tokens=4096)
    assert result.usable_gb_per_gpu == pytest.approx(80 * 2**30 / 1e9 * 0.9 - 2)
    assert result.assumptions["capacity_unit"] == "80 GiB (datasheet) = 85.90 GB"


def test_u2_headroom_under_the_margin_is_amber_not_a_plain_fit():
    """U2: 0.6 % headroom and 49.5 % headroom must not read the same."""
    roomy = _fit(concurrent_sequences=1, context_tokens=1024)
    assert roomy.status == "fits"
    sequences = roomy.max_concurrent_sequences
    edge = _fit(concurrent_sequences=sequences, context_tokens=1024, gpus=1)
    assert edge.fits
    assert edge.headroom_pct < 10
    assert edge.status == "amber"
    over = _fit(concurrent_sequences=sequences + 1, context_tokens=1024, gpus=1)
    assert over.status == "does_not_fit"


def test_u1_blank_p95_input_falls_back_to_the_window_and_says_so():
    """U1: p95 input blank, output 200: fit at the 8,192-token window, not at 200 tokens."""
    found = fit_contexts(None, 200, 8192)
    assert found.context_tokens == 8192
    assert "no p95 input" in found.source
    assert fit_contexts(None, None, None).context_tokens is None
    both = fit_contexts(3000, 500, 131_072)
    assert (both.context_tokens, both.window_tokens) == (3500, 131_072)


def test_d11_fit_only_at_average_context_fires_when_the_window_does_not_fit():
    """D11: a 128k window on a GPU count that fits only p95 input + output warns."""
    thawed = thaw(snapshot([quote(1, "2.50")], context_window_tokens=131_072))
    facts = thawed.facts["quote:1"]["fit"]
    assert facts["fits"] is True
    assert facts["fits_at_context_window"] is False
    out = run_comparison(thawed.input, seed=1, samples=100)
    assert "FIT_ONLY_AT_AVERAGE_CONTEXT" in {w.code for w in out.candidates[0].warnings}
    quiet = thaw(snapshot([quote(1, "2.50")], context_window_tokens=3000))
    assert "fits_at_context_window" not in quiet.facts["quote:1"]["fit"]
