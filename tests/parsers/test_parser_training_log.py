"""Best-effort training logs (FORMATS.md §8): Megatron-LM, torchtitan, NeMo lines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.parsers import ParseError, detect, parse

MEGATRON = """\
using world size: 64, data-parallel size: 2
 [2025-11-28 18:40:00] loading checkpoint from /ckpt at iteration 0
 [2025-11-28 18:40:30] successfully loaded checkpoint from /ckpt [ t 1/8, p 1/1 ]
 [2025-11-28 18:45:00] iteration       10/    5000 | consumed samples:        10240 | \
elapsed time per iteration (ms): 70000.0 | throughput per GPU (TFLOP/s/GPU): 60.0 | \
learning rate: 1.500000E-04 | global batch size:  1024 | lm loss: 7.1E+00 | loss scale: 1.0 |
 [2025-11-28 18:48:17] iteration       20/    5000 | consumed samples:        20480 | \
elapsed time per iteration (ms): 61674.3 | throughput per GPU (TFLOP/s/GPU): 68.2 | \
tokens per GPU (tokens/s/GPU): 1100.5 | global batch size:  1024 | lm loss: 6.681113E+00 |
 [2025-11-28 18:50:00] iteration       30/    5000 | consumed samples:        30720 | \
elapsed time per iteration (ms): 61000.0 | throughput per GPU (TFLOP/s/GPU): 69.0 | \
tokens per GPU (tokens/s/GPU): 1110.0 | global batch size:  1024 | lm loss: 6.5E+00 |
 [2025-11-28 18:50:10] iteration       40/    5000 | consumed samples:        40960 | \
elapsed time per iteration (ms): 62000.0 | throughput per GPU (TFLOP/s/GPU): 67.8 | \
tokens per GPU (tokens/s/GPU): 1090.0 | global batch size:  1024 | lm loss: 6.4E+00 |
 [2025-11-28 18:51:00] saving checkpoint at iteration      40 to /ckpt in torch_dist format
 [2025-11-28 18:52:35] successfully saved checkpoint from iteration      40 to /ckpt
"""

TITAN = (
    "[titan] 2026-03-24 12:00:00,000 - root - INFO - Peak FLOPS used for computing MFU: 9.890e+14\n"
    "[titan] 2026-03-24 12:00:10,000 - root - INFO - \x1b[31mstep: 10  \x1b[32mloss:  7.12345  "
    "memory: 40.12GiB(50.00%)  tps: 57,729  tflops: 78.76  mfu: 7.96%\x1b[39m\n"
    "[titan] 2026-03-24 12:00:20,000 - root - INFO - step: 20  loss:  7.0  grad_norm:  1.2  "
    "memory: 40.12GiB(50.00%)  tps: 58,000  tflops: 79.00  mfu: 8.00%\n"
    "[titan] 2026-03-24 12:00:30,000 - root - INFO - step: 30  loss:  6.9  "
    "memory: 40.12GiB(50.00%)  tps: 58,100  tflops: 79.10  mfu: 8.02%\n"
    "[titan] 2026-03-24 12:00:31,000 - root - INFO - Finished saving the checkpoint "
    "(or staging if async is enabled)in 12.34 seconds.\n"
)

NEMO = """\
Training epoch 0, iteration 10/99 | lr: 1.5e-05 | global_batch_size: 128 | global_step: 10 | \
reduced_train_loss: 10.45 | train_step_timing in s: 1.30 | consumed_samples: 1408
Training epoch 0, iteration 11/99 | lr: 1.5e-05 | global_batch_size: 128 | global_step: 11 | \
reduced_train_loss: 10.40 | train_step_timing in s: 1.23 | consumed_samples: 1536
Training epoch 0, iteration 12/99 | lr: 1.5e-05 | global_batch_size: 128 | global_step: 12 | \
reduced_train_loss: 10.30 | train_step_timing in s: 1.25 | consumed_samples: 1664
"""


def test_megatron_log() -> None:
    data = MEGATRON.encode()
    assert detect(data, "train.log") == "training-log"
    result = parse(data)
    m = result.metrics
    # first interval (warm-up) dropped, median of the rest
    assert m.step_time_s == pytest.approx(61.6743)
    assert m.checkpoint_write_s == pytest.approx(95.0)
    assert m.checkpoint_restore_s == pytest.approx(30.0)
    assert m.mfu is None
    assert result.extra["tflops_per_gpu_median"] == pytest.approx(68.2)
    assert result.extra["tokens_per_s_per_gpu_median"] == pytest.approx(1100.0)
    assert any("MFU is not printed" in n for n in result.notes)


def test_torchtitan_log_with_colour_codes() -> None:
    result = parse(TITAN.encode(), "stdout.txt")
    assert result.format_id == "training-log"
    m = result.metrics
    assert m.mfu == pytest.approx(0.0801)  # first logged step (warm-up) left out
    assert m.step_time_s == pytest.approx(1.0)
    assert m.checkpoint_write_s == pytest.approx(12.34)
    assert result.extra["tokens_per_s_per_gpu_median"] == pytest.approx(58_050)


def test_nemo_log() -> None:
    result = parse(NEMO.encode())
    assert result.format_id == "training-log"
    assert result.metrics.step_time_s == pytest.approx(1.24)


def test_training_log_bad_number() -> None:
    bad = MEGATRON.replace("61674.3", "-5.0")
    with pytest.raises(ParseError) as info:
        parse(bad.encode())
    assert "step time" in info.value.message


@settings(max_examples=60, deadline=None)
@given(
    which=st.sampled_from([MEGATRON, TITAN, NEMO]),
    cut=st.floats(min_value=0, max_value=1),
    junk=st.text(max_size=20),
)
def test_training_logs_truncated_or_mangled(which: str, cut: float, junk: str) -> None:
    at = int(len(which) * cut)
    data = (which[:at] + junk + which[at:]).encode("utf-8", "surrogatepass")
    error: ParseError | None = None
    try:
        result = parse(data)
    except ParseError as exc:
        error = exc
    if error is not None:
        assert not error.message.startswith("internal error"), error.message
    else:
        assert result.to_dict()["format_id"]
