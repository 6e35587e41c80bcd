"""A run's identity: everything it measured (docs/benchmarks.md, "Which runs are one").

Two runs of a file are repetitions of one measurement only when their whole key is equal:
the workload (dataset or length distribution, input and output lengths), the load (rate or
concurrency), the model, its precision, the GPUs and their topology, and, for an MLPerf row,
its scenario and unit. Anything else is another workload or another load level, never an
average. Every parser's runs are grouped by this one key (``_combine.combine_runs``); what
the file records is read here, so no parser decides identity on its own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from .types import ParsedResult, Scalar

# What each field is called in the files' own keys (kept verbatim in ``ParsedResult.extra``):
# the lengths the run was *asked* for. A measured mean (GenAI-Perf's input_sequence_length)
# varies between repetitions of one workload, so it is never part of the key.
_DATASET = ("dataset_name", "dataset", "dataset_path", "scenario")
_INPUT = (
    "random_input_len",
    "input_len",
    "sonnet_input_len",
    "mean_input_tokens",
)
_OUTPUT = (
    "random_output_len",
    "output_len",
    "sonnet_output_len",
    "sharegpt_output_len",
    "mean_output_tokens",
)
_SPREAD = ("random_range_ratio", "stddev_input_tokens", "stddev_output_tokens", "units")
_PRECISION = (
    "precision",
    "weight_data_types",
    "server_dtype",
    "server_quantization",
    "server_kv_cache_dtype",
)
_TOPOLOGY = (
    "tensor_parallel_size",
    "pipeline_parallel_size",
    "data_parallel_size",
    "systemname",
    "number_of_nodes",
    "accelerators_per_node",
)


def _text(value: Scalar | None) -> str | None:
    if value is None or isinstance(value, bool):
        return None if value is None else str(value).lower()
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return "inf" if math.isinf(value) else f"{value:g}"
    if isinstance(value, int):
        return str(value)
    text = str(value).strip().lower()
    return text or None


def _stated(extra: Mapping[str, Scalar], names: tuple[str, ...]) -> tuple[str | None, ...]:
    return tuple(_text(extra.get(name)) for name in names)


@dataclass(frozen=True, slots=True)
class RunKey:
    """What one run measured. ``workload`` is the key without its load level: runs of one
    workload at several load levels are one sweep; runs of several workloads are not."""

    model: str | None
    precision: tuple[str | None, ...]
    dataset: tuple[str | None, ...]
    input_len: tuple[str | None, ...]
    output_len: tuple[str | None, ...]
    spread: tuple[str | None, ...]
    gpus: str | None
    topology: tuple[str | None, ...]
    concurrency: str | None
    request_rate: str | None

    @property
    def workload(self) -> RunKey:
        return replace(self, concurrency=None, request_rate=None)

    def words(self) -> str:
        """The workload as a reader names it ("random 1024/1024", "sharegpt")."""
        parts = [d for d in self.dataset if d]
        lengths = [x for x in (*self.input_len, *self.output_len) if x]
        if self.input_len[0] and self.output_len[0] and parts and parts[0] == "random":
            parts.append(f"{self.input_len[0]}/{self.output_len[0]}")
        elif not parts and lengths:
            parts.append("/".join(lengths[:2]))
        if self.precision[1]:
            parts.append(self.precision[1])
        if self.gpus:
            parts.append(f"{self.gpus} GPUs")
        if self.model and not parts:
            parts.append(self.model)
        return " ".join(parts) or "one workload"


def stated_workload(extra: Mapping[str, Scalar]) -> str:
    """The workload part of the key a file states (dataset, lengths, spread) as one string,
    "" when it states none: what `benchmarks/sweep_groups.py` compares so that uploads of
    two workloads never join one sweep."""
    fields_ = (_DATASET, _INPUT, _OUTPUT, _SPREAD)
    values = [v for names in fields_ for v in _stated(extra, names)]
    return "" if not any(values) else "|".join(v or "" for v in values)


def run_key(run: ParsedResult) -> RunKey:
    """The one identity of a run (see the module docstring)."""
    extra, m = run.extra, run.metrics
    rate = m.request_rate if m.request_rate is not None else extra.get("request_rate")
    return RunKey(
        model=_text(run.model),
        precision=_stated(extra, _PRECISION),
        dataset=_stated(extra, _DATASET),
        input_len=_stated(extra, _INPUT),
        output_len=_stated(extra, _OUTPUT),
        spread=_stated(extra, _SPREAD),
        gpus=_text(m.gpus),
        topology=_stated(extra, _TOPOLOGY),
        concurrency=_text(m.concurrency),
        request_rate=_text(rate),
    )
