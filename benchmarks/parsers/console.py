"""Pasted console output of ``vllm bench serve`` / ``benchmark_serving.py`` / SGLang bench_serving.

The result block looks like::

    ============ Serving Benchmark Result ============
    Successful requests:                     1000
    Benchmark duration (s):                  30.85
    ...
    Mean TTFT (ms):                          12.3
    ==================================================
"""

from __future__ import annotations

import re
from typing import Final

from ._util import Builder, ProgressFn, combine_runs, maybe_percentiles
from .registry import TEXT, Format
from .types import Metrics, ParsedResult, Percentiles

FORMAT_ID: Final = "serving-console"
FORMAT_NAME: Final = "vLLM / SGLang serving benchmark console output (text)"

_TITLE: Final = "Serving Benchmark Result"
_END: Final = re.compile(r"^\s*={10,}\s*$")
_LINE: Final = re.compile(r"^\s*(.+?):\s+(\S+)")

_COUNTS: Final = {
    "successful requests": "requests_completed",
    "failed requests": "requests_failed",
    "total input tokens": "input_tokens_total",
    "total generated tokens": "output_tokens_total",
}
_VALUES: Final = {
    "maximum request concurrency": ("concurrency", "count"),
    "max request concurrency": ("concurrency", "count"),  # SGLang
    "benchmark duration (s)": ("duration_s", "s"),
    "request throughput (req/s)": ("request_throughput_rps", "rate"),
    "output token throughput (tok/s)": ("output_tokens_per_s", "rate"),
    "total token throughput (tok/s)": ("total_tokens_per_s", "rate"),
    "traffic request rate": ("request_rate", "rate"),
}
_FAMILIES: Final = {
    "ttft": "ttft_ms",
    "tpot": "tpot_ms",
    "itl": "itl_ms",
    "e2el": "e2e_ms",
    "e2e latency": "e2e_ms",
}
#: SGLang prints its arguments first: ``Namespace(backend='sglang', ..., model='org/m', ...)``
_NAMESPACE_MODEL: Final = re.compile(r"Namespace\(.*?\bmodel='([^']+)'")
_STAT: Final = re.compile(r"^(mean|median|p\d+(?:\.\d+)?)\s+(.+?)\s+\(ms\)$")


def _is_start(line: str) -> bool:
    return _TITLE in line and line.strip().startswith("=")


def looks_like(text_head: str) -> bool:
    return any(_is_start(line) for line in text_head.splitlines()[:20000] if _TITLE in line)


def parse(text: str, progress: ProgressFn | None = None) -> ParsedResult:
    blocks: list[list[str]] = []
    models: list[str | None] = []
    model: str | None = None
    current: list[str] | None = None
    for line in text.splitlines():
        if found := _NAMESPACE_MODEL.search(line):
            model = found.group(1)
        if _is_start(line):
            current = []
            blocks.append(current)
            models.append(model)
            continue
        if current is not None:
            if _END.match(line):
                current = None
            else:
                current.append(line)
    if not blocks:
        raise Builder(FORMAT_ID, FORMAT_NAME).error(
            f"{FORMAT_NAME}: no '==== Serving Benchmark Result ====' block"
        )
    runs = [_block(lines, i, models[i]) for i, lines in enumerate(blocks)]
    return combine_runs(runs, "result block")


def _block(lines: list[str], index: int, model: str | None) -> ParsedResult:
    b = Builder(FORMAT_ID, FORMAT_NAME)
    values: dict[str, float | None] = {}
    stats: dict[str, dict[str, float | None]] = {}
    for line in lines:
        match = _LINE.match(line)
        if match is None:
            continue
        label = re.sub(r"\s+", " ", match.group(1).strip().lower())
        raw = match.group(2)
        if label == "traffic request rate" and raw.lower() in {"inf", "infinity"}:
            b.note("request rate inf: all prompts were sent at t=0")
            continue
        if label in ("backend", "model", "model id"):
            b.extra[label] = raw
            continue
        if label in _COUNTS:
            values[_COUNTS[label]] = b.value(raw, f"block {index + 1}: {label}", "count")
        elif label in _VALUES:
            name, kind = _VALUES[label]
            values[name] = b.value(raw, f"block {index + 1}: {label}", kind)
        elif stat := _STAT.match(label):
            family = _FAMILIES.get(stat.group(2))
            if family is not None:
                value = b.value(raw, f"block {index + 1}: {label}", "ms")
                stats.setdefault(family, {})[stat.group(1)] = value
        elif label.endswith("(ms)") or label.endswith("(tok/s)") or label.endswith("(req/s)"):
            number = b.value(raw, f"block {index + 1}: {label}", "any")
            b.extra[label] = number
    if not values and not stats:
        raise b.error(f"{FORMAT_NAME}: result block {index + 1} has no recognised lines")
    pct: dict[str, Percentiles | None] = {}
    for family, s in stats.items():
        p50 = s.get("median", s.get("p50"))
        pct[family] = maybe_percentiles(p50, s.get("p95"), s.get("p99"), s.get("mean"))
    if "itl_ms" in pct:
        b.note("ITL is the gap between streamed chunks pooled over all requests (not per token)")
    b.note("console output: values are rounded to 2 decimals; little configuration")

    def count(name: str) -> int | None:
        value = values.get(name)
        return None if value is None else round(value)

    metrics = Metrics(
        requests_completed=count("requests_completed"),
        requests_failed=count("requests_failed"),
        duration_s=values.get("duration_s"),
        request_throughput_rps=values.get("request_throughput_rps"),
        output_tokens_per_s=values.get("output_tokens_per_s"),
        total_tokens_per_s=values.get("total_tokens_per_s"),
        input_tokens_total=count("input_tokens_total"),
        output_tokens_total=count("output_tokens_total"),
        concurrency=values.get("concurrency"),
        request_rate=values.get("request_rate"),
        ttft_ms=pct.get("ttft_ms"),
        itl_ms=pct.get("itl_ms"),
        tpot_ms=pct.get("tpot_ms"),
        e2e_ms=pct.get("e2e_ms"),
    )
    named = b.extra.get("model id") or b.extra.get("model") or model
    return b.result(metrics, model=named if isinstance(named, str) else None)


FORMATS: Final = (
    Format(
        FORMAT_ID,
        FORMAT_NAME,
        "a '==== Serving Benchmark Result ====' block",
        parse,
        looks_like,
        TEXT,
        30,
    ),
)
