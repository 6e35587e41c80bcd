"""Our own run-summary JSON (training / media / inference runs); see README.md, "run-json"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._util import Builder, ProgressFn, maybe_percentiles, safe_div, scalars, to_str
from .registry import JSON_OBJECT, Format
from .types import LATENCY_FIELDS, Metrics, ParsedResult, Percentiles

FORMAT_ID: Final = "run-json"
FORMAT_NAME: Final = "Run summary JSON (workbench template)"
KINDS: Final = ("training", "media", "inference")

TRAINING_FIELDS: Final[dict[str, str]] = {
    "step_time_s": "s",
    "tokens_per_s": "rate",
    "time_to_target_s": "s",
    "checkpoint_write_s": "s",
    "checkpoint_restore_s": "s",
    "restart_time_s": "s",
}
INFERENCE_FIELDS: Final[dict[str, str]] = {
    "duration_s": "s",
    "request_throughput_rps": "rate",
    "output_tokens_per_s": "rate",
    "total_tokens_per_s": "rate",
    "concurrency": "count",
    "request_rate": "rate",
}
INT_FIELDS: Final = (
    "requests_completed",
    "requests_failed",
    "input_tokens_total",
    "output_tokens_total",
    "accepted_outputs",
)
KNOWN: Final = frozenset(
    {
        "kind",
        "schema_version",
        "tool",
        "tool_version",
        "model",
        "gpus",
        "gpu_model",
        "notes",
        "mfu",
        "assets_per_hour",
        "assets_generated",
        "assets_accepted",
        "acceptance_rate",
        *TRAINING_FIELDS,
        *INFERENCE_FIELDS,
        *INT_FIELDS,
        *LATENCY_FIELDS,
    }
)


def is_run_json(obj: object) -> bool:
    return isinstance(obj, dict) and obj.get("kind") in KINDS


def parse(obj: Mapping[str, Any], progress: ProgressFn | None = None) -> ParsedResult:
    b = Builder(FORMAT_ID, FORMAT_NAME)
    kind = obj.get("kind")
    if kind not in KINDS:
        raise b.error(f"{FORMAT_NAME}: 'kind' must be one of {', '.join(KINDS)}")
    version = obj.get("schema_version", 1)
    if version not in (1, "1"):
        raise b.error(f"{FORMAT_NAME}: unsupported schema_version {version!r} (expected 1)")
    gpus = b.int_(obj, "gpus")
    if gpus is not None and gpus < 1:
        raise b.error(f"{FORMAT_NAME}: field 'gpus' must be at least 1")
    values: dict[str, Any] = {"gpus": gpus}
    for key, unit in {**TRAINING_FIELDS, **INFERENCE_FIELDS}.items():
        values[key] = b.num(obj, key, unit)
    for key in INT_FIELDS:
        values[key] = b.int_(obj, key)
    for key in LATENCY_FIELDS:
        values[key] = _percentiles(b, obj.get(key), key)
    mfu = b.num(obj, "mfu", "percent")
    if mfu is not None and mfu > 1.0:
        b.note("mfu > 1 was read as a percentage and divided by 100")
        mfu /= 100.0
    values["mfu"] = mfu
    generated = b.int_(obj, "assets_generated")
    accepted = b.int_(obj, "assets_accepted")
    per_hour = b.num(obj, "assets_per_hour", "rate")
    if generated is not None and accepted is not None and accepted > generated:
        raise b.error(
            f"{FORMAT_NAME}: assets_accepted ({accepted}) > assets_generated ({generated})"
        )
    duration = values["duration_s"]
    if per_hour is None and generated is not None and duration:
        per_hour = generated / duration * 3600.0
        b.note("assets_per_hour computed as assets_generated / duration_s * 3600")
    rate = b.num(obj, "acceptance_rate", "ratio")
    if rate is None and kind == "media" and generated:
        rate = safe_div(float(accepted), float(generated)) if accepted is not None else None
    if values["accepted_outputs"] is None and kind == "media":
        values["accepted_outputs"] = accepted
    if kind == "training" and all(values[k] is None for k in TRAINING_FIELDS) and mfu is None:
        b.note("training run without any training metric")
    if kind == "media" and per_hour is None and generated is None:
        b.note("media run without assets_per_hour or assets_generated")
    unknown = sorted(k for k in obj if k not in KNOWN)
    if unknown:
        b.note(f"unknown key(s) kept in extra: {', '.join(unknown[:10])}")
    b.extra.update(scalars(obj))
    notes = obj.get("notes")
    if isinstance(notes, str) and notes:
        b.note(notes[:500])
    # every other figure is read under its Metrics name (the template's keys)
    metrics = Metrics(
        **values,
        acceptance_rate=rate,
        assets_per_hour=per_hour,
        assets_generated=generated,
        assets_accepted=accepted,
    )
    return b.result(
        metrics, tool_version=to_str(obj.get("tool_version")), model=to_str(obj.get("model"))
    )


def _percentiles(b: Builder, value: object, key: str) -> Percentiles | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise b.error(f"{FORMAT_NAME}: field '{key}' must be an object {{p50, p95, p99, mean}}")
    return maybe_percentiles(
        b.value(value.get("p50"), f"{key}.p50", "ms"),
        b.value(value.get("p95"), f"{key}.p95", "ms"),
        b.value(value.get("p99"), f"{key}.p99", "ms"),
        b.value(value.get("mean"), f"{key}.mean", "ms"),
    )


FORMATS: Final = (
    Format(
        FORMAT_ID,
        FORMAT_NAME,
        "'kind': training | media | inference",
        parse,
        is_run_json,
        JSON_OBJECT,
        110,
    ),
)
