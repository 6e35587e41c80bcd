"""MLPerf: inference summary.csv, training MLLOG result log, system description JSON."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Mapping
from typing import Any, Final

from ._util import Builder, ProgressFn, combine_runs, scalars, to_str
from .identity import run_key
from .registry import CSV_HEADER, JSON_OBJECT, TEXT, Format
from .types import Metrics, ParsedResult

INFERENCE_ID: Final = "mlperf-inference-summary"
INFERENCE_NAME: Final = "MLPerf Inference summary (CSV)"
TRAINING_ID: Final = "mlperf-training-log"
TRAINING_NAME: Final = "MLPerf Training result log (MLLOG)"
SYSTEM_ID: Final = "mlperf-system"
SYSTEM_NAME: Final = "MLPerf system description (JSON)"

INFERENCE_HEADER: Final = ("organization", "availability", "division", "systemtype", "systemname")
MLLOG: Final = ":::MLLOG "


def is_inference_header(header: list[str]) -> bool:
    return tuple(h.strip().lower() for h in header[:5]) == INFERENCE_HEADER


def is_system(obj: object) -> bool:
    return (
        isinstance(obj, dict)
        and {"submitter", "division", "system_name"} <= obj.keys()
        and any(isinstance(k, str) and k.startswith("accelerator") for k in obj)
    )


def _gpus(b: Builder, nodes: object, per_node: object) -> int | None:
    n = b.value(nodes, "number_of_nodes", "count")
    per = b.value(per_node, "accelerators_per_node", "count")
    if per is None:
        return None
    return round((n or 1) * per)


# ----------------------------------------------------------------------------- inference


def parse_inference(text: str, progress: ProgressFn | None = None) -> ParsedResult:
    reader = csv.reader(io.StringIO(text))
    header = [h.strip() for h in next(reader, [])]
    if not is_inference_header(header):
        raise Builder(INFERENCE_ID, INFERENCE_NAME).error(
            f"{INFERENCE_NAME}: header must start with Organization,Availability,Division,..."
        )
    lower = [h.lower() for h in header]
    runs = []
    for line, row in enumerate(reader, start=2):
        if not any(c.strip() for c in row):
            continue
        record = dict(zip(lower, (c.strip() for c in row), strict=False))
        runs.append(_inference_row(record, line))
    if not runs:
        raise Builder(INFERENCE_ID, INFERENCE_NAME).error(f"{INFERENCE_NAME}: no data rows")
    if len({run_key(run).workload for run in runs}) > 1:
        return _several_results(runs)
    return combine_runs(
        runs,
        "result row",
        plural="result rows (system × model × scenario)",
    )


def _row(run: ParsedResult) -> dict[str, str | float | int | None]:
    """One row as the result lists it, with its figure per GPU by its own GPU count."""
    extra = run.extra or {}
    result, gpus = extra.get("result"), run.metrics.gpus
    per_gpu = result / gpus if isinstance(result, int | float) and gpus else None
    return {
        "system": to_str(extra.get("systemname")),
        "model": run.model,
        "scenario": to_str(extra.get("scenario")),
        "result": result if isinstance(result, int | float) else None,
        "units": to_str(extra.get("units")),
        "gpus": gpus,
        "result_per_gpu": per_gpu,
    }


def _row_words(row: Mapping[str, str | float | int | None]) -> str:
    result, per_gpu = row["result"], row["result_per_gpu"]
    amount = f"{result:,.1f}" if isinstance(result, int | float) else "?"
    each = f" = {per_gpu:,.1f} per GPU" if isinstance(per_gpu, int | float) else ""
    return (
        f"{row['system'] or 'system ?'} · {row['model'] or 'model ?'} · "
        f"{row['scenario'] or 'scenario ?'}: {amount} {row['units'] or ''} on "
        f"{row['gpus'] or '?'} GPUs{each}"
    )


def _several_results(runs: list[ParsedResult]) -> ParsedResult:
    """Rows of different systems, models or scenarios are separate results, never the load
    levels of one sweep: the first row is the headline, on its own GPU count, and each row is
    listed with its figure per GPU by its own GPU count (F8)."""
    rows = [_row(run) for run in runs]
    runs = [
        dataclasses.replace(run, extra={**run.extra, "result_per_gpu": row["result_per_gpu"]})
        for run, row in zip(runs, rows, strict=True)
    ]
    head = runs[0]
    note = (
        f"file holds {len(runs)} results of different systems, models or scenarios: not one "
        f"sweep; headline: the first row ({_row_words(rows[0])}); upload one row per file to "
        "use another. Each row, per GPU by its own GPU count: "
        + "; ".join(_row_words(row) for row in rows)
    )
    return dataclasses.replace(
        head,
        notes=(note, *head.notes),
        runs=tuple(runs),
        extra=dict(head.extra),
    )


def _inference_row(rec: Mapping[str, str], line: int) -> ParsedResult:
    b = Builder(INFERENCE_ID, INFERENCE_NAME)
    units = rec.get("units", "")
    result = b.value(rec.get("result"), f"Result (line {line})", "any")
    scenario = rec.get("scenario", "")
    unit_l = units.lower()
    rps = None
    tok_s = None
    if result is not None:
        if result < 0:
            raise b.error(f"{INFERENCE_NAME}: line {line}: negative Result")
        if unit_l in {"queries/s", "samples/s"}:
            rps = result
        elif unit_l in {"tokens/s", "tokens/sec"}:
            tok_s = result
    b.extra.update({k: v for k, v in rec.items() if k})
    b.extra["result"] = result
    if weights := rec.get("weight_data_types", "").strip():
        # F7: the precision the submission states (read as the upload's precision)
        b.extra["weight_precision"] = weights
    b.note(
        "MLPerf Result is in the unit of the Units column (Queries/s for Server, Samples/s for "
        "Offline, latency for SingleStream/MultiStream); Accuracy is model-specific"
    )
    if rec.get("has_power", "").lower() == "true":
        b.note("power submission: Result may be a power/energy figure")
    gpus = _gpus(b, rec.get("number_of_nodes"), rec.get("accelerators_per_node"))
    metrics = Metrics(request_throughput_rps=rps, output_tokens_per_s=tok_s, gpus=gpus)
    version = rec.get("version") or None
    model = rec.get("model") or rec.get("mlperfmodel") or None
    if scenario:
        b.extra["scenario"] = scenario
    return b.result(metrics, model=model, tool_version=version)


# ----------------------------------------------------------------------------- training


def is_mllog(text_head: str) -> bool:
    lines = [ln for ln in text_head.splitlines() if ln.strip()][:5]
    return bool(lines) and all(MLLOG in ln for ln in lines[:1])


def parse_training(text: str, progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(TRAINING_ID, TRAINING_NAME)
    events: dict[str, list[dict[str, Any]]] = {}
    bad_lines = 0
    for raw in text.splitlines():
        pos = raw.find(MLLOG)
        if pos < 0:
            continue
        try:
            event = json.loads(raw[pos + len(MLLOG) :])
        except (ValueError, RecursionError):
            bad_lines += 1
            continue
        if isinstance(event, dict) and isinstance(event.get("key"), str):
            events.setdefault(event["key"], []).append(event)
    if not events:
        raise b.error(f"{TRAINING_NAME}: no ':::MLLOG {{...}}' events found")
    if bad_lines:
        b.note(f"{bad_lines} malformed MLLOG line(s) skipped")

    def first(key: str) -> dict[str, Any] | None:
        items = events.get(key)
        return items[0] if items else None

    def value(key: str) -> Any:
        ev = first(key)
        return None if ev is None else ev.get("value")

    def time_ms(ev: Mapping[str, Any] | None, label: str) -> float | None:
        if ev is None:
            return None
        return b.value(ev.get("time_ms"), f"{label}.time_ms", "epoch")

    start = time_ms(first("run_start"), "run_start")
    stops = events.get("run_stop") or []
    stop_ev = stops[-1] if stops else None
    stop = time_ms(stop_ev, "run_stop")
    status = None
    if stop_ev is not None and isinstance(stop_ev.get("metadata"), dict):
        status = to_str(stop_ev["metadata"].get("status"))
    ttt = None
    if start is not None and stop is not None:
        if stop < start:
            raise b.error(f"{TRAINING_NAME}: run_stop is before run_start")
        if status == "success":
            ttt = (stop - start) / 1000.0
        else:
            b.note(f"run_stop status is {status!r}: the target was not reached, no time-to-train")
        b.extra["run_duration_s"] = (stop - start) / 1000.0
    elif start is None:
        b.note("no run_start event")
    else:
        b.note("no run_stop event: the run did not finish")
    init_start = time_ms(first("init_start"), "init_start")
    init_stop = time_ms(first("init_stop"), "init_stop")
    if init_start is not None and init_stop is not None and init_stop >= init_start:
        b.extra["init_time_s"] = (init_stop - init_start) / 1000.0
    throughputs = [
        ev.get("value", {}).get("throughput")
        for ev in events.get("tracked_stats", [])
        if isinstance(ev.get("value"), dict)
    ]
    numbers = [
        t for t in (b.value(x, "tracked_stats.throughput", "rate") for x in throughputs) if t
    ]
    if numbers:
        b.extra["tracked_throughput_mean"] = sum(numbers) / len(numbers)
        b.note("tracked_stats throughput is in the benchmark's own unit (samples/s or steps/s)")
    evals = events.get("eval_accuracy", [])
    if evals:
        b.extra["eval_accuracy_last"] = _scalar_number(evals[-1].get("value"))
        b.extra["eval_count"] = len(evals)
        b.note("for LLM benchmarks eval_accuracy is a loss: lower is better")
    for key in (
        "submission_benchmark",
        "submission_org",
        "submission_platform",
        "submission_division",
        "submission_status",
        "global_batch_size",
        "seed",
        "train_samples",
        "eval_samples",
    ):
        v = value(key)
        if isinstance(v, str | int | float) and not isinstance(v, bool):
            b.extra[key] = v
    b.extra["run_status"] = status
    b.note(
        "official MLPerf scores combine several result files (olympic mean) and may apply a "
        "scaling factor; this is a single run"
    )
    metrics = Metrics(time_to_target_s=ttt)
    return b.result(metrics, model=to_str(value("submission_benchmark")))


def _scalar_number(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            return None
        return number if math.isfinite(number) else None
    return None


# ----------------------------------------------------------------------------- system JSON


def parse_system(obj: Mapping[str, Any], progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(SYSTEM_ID, SYSTEM_NAME)
    gpus = _gpus(b, obj.get("number_of_nodes"), obj.get("accelerators_per_node"))
    b.extra.update(scalars(obj))
    stack = obj.get("other_software_stack")
    if isinstance(stack, dict):
        b.extra.update({f"software.{k}": v for k, v in scalars(stack).items()})
    b.note("system description only: no performance metrics")
    return b.result(Metrics(gpus=gpus), tool_version=None, model=None)


FORMATS: Final = (
    Format(
        INFERENCE_ID,
        INFERENCE_NAME,
        "CSV header 'Organization,Availability,Division,SystemType,SystemName'",
        parse_inference,
        is_inference_header,
        CSV_HEADER,
        10,
    ),
    Format(
        TRAINING_ID,
        TRAINING_NAME,
        "lines ':::MLLOG {...}'",
        parse_training,
        is_mllog,
        TEXT,
        10,
    ),
    Format(
        SYSTEM_ID,
        SYSTEM_NAME,
        "submitter + division + system_name + accelerator_*",
        parse_system,
        is_system,
        JSON_OBJECT,
        100,
    ),
)
