"""charts_briefs: figure dicts built from engine results (pure; no browser, no database)."""

from __future__ import annotations

import json

import pytest

from briefs.charts import concurrency_curve_figure, memory_breakdown_figure, per_gpu_parts
from briefs.fit import AcceleratorFit
from engine.memory.fit import memory_fit
from engine.memory.spec import FitInput, GpuSpec, ModelSpec

LLAMA_70B = ModelSpec(params_b=70.6, layers=80, kv_heads=8, head_dim=128, max_context=131072)


def _row(name: str, memory_gb: float, mode: str = "inference") -> AcceleratorFit:
    result = memory_fit(
        FitInput(
            model=LLAMA_70B,
            gpu=GpuSpec(memory_gb=memory_gb),
            mode=mode,
            weight_precision="bf16",
            kv_precision="bf16",
            context_tokens=8192,
            concurrent_sequences=32,
        )
    )
    return AcceleratorFit(name.lower(), name, "NVIDIA", memory_gb, result)


@pytest.mark.parametrize("mode", ["inference", "training", "lora"])
def test_parts_add_up_to_the_gpu_memory(mode):
    row = _row("H100", 80.0, mode)
    assert sum(per_gpu_parts(row).values()) == pytest.approx(80.0)


def test_breakdown_is_stacked_bars_with_a_usable_marker():
    rows = [_row("H100", 80.0), _row("H200", 141.0)]
    fig = memory_breakdown_figure(rows)
    assert fig["layout"]["barmode"] == "stack"
    bars = [t for t in fig["data"] if t["type"] == "bar"]
    assert [t["name"] for t in bars] == [
        "Weights",
        "KV cache",
        "Runtime overhead",
        "Headroom (usable, free)",
        "Safety margin",
    ]
    assert bars[0]["x"] == ["H100<br>×4 GPUs", "H200<br>×2 GPUs"]
    assert bars[0]["y"] == [35.3, 70.6]  # 141.2 GB of weights split over 4 and 2 GPUs
    marker = fig["data"][-1]
    assert marker["name"] == "Usable per GPU"
    assert marker["y"] == [70.0, 124.9]  # 80 × 0.9 − 2, 141 × 0.9 − 2
    json.dumps(fig)  # JSON-ready for json_script


def test_training_breakdown_shows_optimizer_and_gradients():
    fig = memory_breakdown_figure([_row("B200", 180.0, "training")])
    names = {t["name"] for t in fig["data"]}
    assert {"Gradients", "Optimizer states", "Activations"} <= names
    assert "KV cache" not in names


def test_curve_has_one_line_per_accelerator_on_a_log_axis():
    rows = [_row("H100", 80.0), _row("H200", 141.0)]
    fig = concurrency_curve_figure(rows)
    assert [t["name"] for t in fig["data"]] == ["H100 ×4", "H200 ×2"]
    line = fig["data"][0]
    assert line["x"][0] == 1024
    assert line["x"][-1] == 131072
    assert line["y"] == sorted(line["y"], reverse=True)  # longer context, fewer sequences
    assert fig["layout"]["xaxis"]["type"] == "log"
    assert "concurrent sequences" in fig["layout"]["yaxis"]["title"]["text"]


def test_curve_for_training_talks_about_micro_batch():
    fig = concurrency_curve_figure([_row("B200", 180.0, "training")], training=True)
    assert fig["layout"]["yaxis"]["title"]["text"] == "Max micro-batch"


def test_rows_without_results_are_skipped():
    empty = AcceleratorFit("x", "X", "NVIDIA", 24.0, None, "no model")
    assert memory_breakdown_figure([empty])["data"][-1]["x"] == []
    assert concurrency_curve_figure([empty])["data"] == []
