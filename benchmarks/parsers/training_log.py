"""Best-effort training console logs: Megatron-LM / Megatron-Bridge, torchtitan, NeMo 2.x.

Only the quantities the workbench compares are extracted (step time, throughput, MFU,
checkpoint save time); the raw log should be kept by the caller.
"""

from __future__ import annotations

import itertools
import re
import statistics
from datetime import UTC, datetime
from typing import Final

from ._util import Builder, ProgressFn, check_number
from .errors import ParseError
from .registry import TEXT, Format
from .types import Metrics, ParsedResult

FORMAT_ID: Final = "training-log"
FORMAT_NAME: Final = "Training log (Megatron-LM / torchtitan / NeMo, best effort)"

_ANSI: Final = re.compile(r"\x1b\[[0-9;]*m")
_NUM: Final = r"(-?[0-9][0-9,]*(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|nan|inf)"

# Megatron-LM training_log line
_MEGATRON_ITER: Final = re.compile(r"\biteration\s+(\d+)\s*/\s*(\d+)\s*\|")
_MEGATRON_STEP_MS: Final = re.compile(r"elapsed time per iteration \(ms\):\s*" + _NUM)
_MEGATRON_TFLOPS: Final = re.compile(r"throughput per GPU \(TFLOP/s/GPU\):\s*" + _NUM)
_MEGATRON_TOKENS: Final = re.compile(
    r"(?:tokens per GPU \(tokens/s/GPU\)|Tokens per second per GPU \(Tok/s/GPU\)):\s*" + _NUM
)
_MEGATRON_SAVE_TIMER: Final = re.compile(
    r"save-checkpoint\s*(?:\.+)?\s*:\s*\(min, max\) time across ranks \(ms\):\s*\(\s*"
    + _NUM
    + r"\s*,\s*"
    + _NUM
    + r"\s*\)"
)
_BRACKET_TIME: Final = re.compile(r"\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)?)\]")
_MEGATRON_SAVING: Final = re.compile(r"\bsaving checkpoint at iteration\s+(\d+)")
_MEGATRON_SAVED: Final = re.compile(r"\bsuccessfully saved checkpoint from iteration\s+(\d+)")
_MEGATRON_LOADING: Final = re.compile(r"\bloading (?:release )?checkpoint from\b")
_MEGATRON_LOADED: Final = re.compile(r"\bsuccessfully loaded checkpoint from\b")

# torchtitan metrics line
_TITAN_STEP: Final = re.compile(r"\bstep:\s*(\d+)\s+loss:")
_TITAN_TPS: Final = re.compile(r"\btps:\s*" + _NUM)
_TITAN_TFLOPS: Final = re.compile(r"\btflops:\s*" + _NUM)
_TITAN_MFU: Final = re.compile(r"\bmfu:\s*" + _NUM + r"\s*%")
_TITAN_TIME: Final = re.compile(r"(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)?)")
_TITAN_SAVE: Final = re.compile(r"Finished saving the checkpoint.*?in\s+" + _NUM + r"\s+seconds")
_TITAN_LOAD: Final = re.compile(r"Finished loading the checkpoint in\s+" + _NUM + r"\s+seconds")

# NeMo / Lightning progress line
_NEMO_STEP: Final = re.compile(r"train_step_timing in s:\s*" + _NUM)


def looks_like(text_head: str) -> bool:
    cleaned = _ANSI.sub("", text_head)
    for line in cleaned.splitlines()[:5000]:
        megatron = bool(_MEGATRON_ITER.search(line) and _MEGATRON_STEP_MS.search(line))
        titan = bool(_TITAN_STEP.search(line) and _TITAN_TPS.search(line))
        if megatron or titan or _NEMO_STEP.search(line):
            return True
    return False


def _float(b: Builder, raw: str, label: str, kind: str) -> float:
    try:
        value = float(raw.replace(",", ""))
    except ValueError:
        raise b.error(f"{FORMAT_NAME}: {label} {raw!r} is not a number") from None
    return b.wrap(lambda: check_number(value, b.where(label), kind))


def _time(raw: str) -> float | None:
    try:
        moment = datetime.fromisoformat(raw.replace(",", "."))
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC).timestamp()


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    # the first logged intervals include warm-up / compilation
    steady = values[1:] if len(values) > 2 else values
    return float(statistics.median(steady))


def parse(text: str, progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(FORMAT_ID, FORMAT_NAME)
    step_ms: list[float] = []
    tflops: list[float] = []
    tokens_gpu: list[float] = []
    tps: list[float] = []
    mfu: list[float] = []
    saves: list[float] = []
    loads: list[float] = []
    titan_steps: list[tuple[int, float]] = []
    save_started: float | None = None
    load_started: float | None = None
    flavours: set[str] = set()
    lines = text.splitlines()
    for number, raw in enumerate(lines, start=1):
        line = _ANSI.sub("", raw)
        if _MEGATRON_ITER.search(line):
            match = _MEGATRON_STEP_MS.search(line)
            if match:
                flavours.add("Megatron-LM")
                step_ms.append(_float(b, match.group(1), f"line {number} step time", "ms"))
                if m := _MEGATRON_TFLOPS.search(line):
                    tflops.append(_float(b, m.group(1), f"line {number} TFLOP/s", "rate"))
                if m := _MEGATRON_TOKENS.search(line):
                    tokens_gpu.append(_float(b, m.group(1), f"line {number} tokens/s", "rate"))
                continue
        if m := _MEGATRON_SAVE_TIMER.search(line):
            saves.append(_float(b, m.group(2), f"line {number} save-checkpoint", "ms") / 1000.0)
            continue
        stamp_match = _BRACKET_TIME.search(line)
        stamp = _time(stamp_match.group(1)) if stamp_match else None
        if _MEGATRON_SAVING.search(line):
            save_started = stamp
            continue
        if _MEGATRON_SAVED.search(line):
            if save_started is not None and stamp is not None and stamp >= save_started:
                saves.append(stamp - save_started)
            save_started = None
            continue
        if _MEGATRON_LOADING.search(line):
            load_started = stamp
            continue
        if _MEGATRON_LOADED.search(line):
            if load_started is not None and stamp is not None and stamp >= load_started:
                loads.append(stamp - load_started)
            load_started = None
            continue
        if (m := _TITAN_STEP.search(line)) and _TITAN_TPS.search(line):
            flavours.add("torchtitan")
            step_no = int(m.group(1))
            if t := _TITAN_TPS.search(line):
                tps.append(_float(b, t.group(1), f"line {number} tps", "rate"))
            if t := _TITAN_TFLOPS.search(line):
                tflops.append(_float(b, t.group(1), f"line {number} tflops", "rate"))
            if t := _TITAN_MFU.search(line):
                mfu.append(_float(b, t.group(1), f"line {number} mfu", "percent") / 100.0)
            if (t := _TITAN_TIME.search(line)) and (when := _time(t.group(1))) is not None:
                titan_steps.append((step_no, when))
            continue
        if m := _TITAN_SAVE.search(line):
            saves.append(_float(b, m.group(1), f"line {number} checkpoint save", "s"))
            continue
        if m := _TITAN_LOAD.search(line):
            loads.append(_float(b, m.group(1), f"line {number} checkpoint load", "s"))
            continue
        if m := _NEMO_STEP.search(line):
            flavours.add("NeMo")
            step_ms.append(_float(b, m.group(1), f"line {number} train_step_timing", "s") * 1000)
        if progress is not None and number % 50000 == 0:
            progress(number / max(1, len(lines)))
    if not (step_ms or tps or titan_steps):
        raise ParseError(
            f"{FORMAT_NAME}: no Megatron 'iteration ... elapsed time per iteration (ms)', "
            "torchtitan 'step: ... tps:' or NeMo 'train_step_timing in s:' lines",
            format_id=FORMAT_ID,
        )
    if not step_ms and len(titan_steps) >= 2:
        intervals = []
        for (s0, t0), (s1, t1) in itertools.pairwise(titan_steps):
            if s1 > s0 and t1 >= t0:
                intervals.append((t1 - t0) / (s1 - s0) * 1000.0)
        step_ms = intervals
        if intervals:
            b.note("torchtitan step time derived from log timestamps between metric lines")
    step = _median(step_ms)
    b.note(f"parsed as {', '.join(sorted(flavours)) or 'training'} log; medians of logged values")
    if tflops:
        b.extra["tflops_per_gpu_median"] = _median(tflops)
        if not mfu:
            b.note(
                "MFU is not printed by this tool: divide TFLOP/s/GPU by the GPU's peak dense TFLOPS"
            )
    if tokens_gpu:
        b.extra["tokens_per_s_per_gpu_median"] = _median(tokens_gpu)
    if tps:
        b.extra["tokens_per_s_per_gpu_median"] = _median(tps)
    if tokens_gpu or tps:
        b.note("logged token throughput is per GPU; the GPU count is not in the log")
    b.extra["logged_steps"] = len(step_ms) or len(titan_steps)
    metrics = Metrics(
        step_time_s=None if step is None else step / 1000.0,
        mfu=_median(mfu),
        checkpoint_write_s=float(statistics.median(saves)) if saves else None,
        checkpoint_restore_s=float(statistics.median(loads)) if loads else None,
    )
    return b.result(metrics)


FORMATS: Final = (
    Format(
        FORMAT_ID,
        FORMAT_NAME,
        "Megatron 'iteration ... elapsed time per iteration (ms)', torchtitan 'step: ... tps:' "
        "or NeMo 'train_step_timing in s:' lines",
        parse,
        looks_like,
        TEXT,
        40,
    ),
)
