"""What a result measured, what a row needs, and the verdict between them: the evidence
rules' types and the kinds of evidence, strongest first (the package docstring has the rules)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

EvidenceKind = Literal["measured", "proxy", "published", "ignored"]

#: The one judge's words for what a row's figures rest on, strongest first; every page and
#: every ordering reads them from here (issue 37, U9): measured on the hardware, a proxy of
#: it, a published result (MLPerf), or the roofline's estimate.
EVIDENCE_KINDS = ("measured", "proxy", "published", "estimated")


def evidence_strength(kind: str) -> int:
    """0 for the strongest kind (measured); anything not evidence ("ignored") sorts last."""
    return EVIDENCE_KINDS.index(kind) if kind in EVIDENCE_KINDS else len(EVIDENCE_KINDS)


LENGTH_TOLERANCE = 0.25  # ± share of the brief's token lengths
SIZE_CLASS_RATIO = 1.3  # same size class: larger / smaller parameter count ≤ this
PROXY_WIDENING = 0.15  # proxy: low spread factor × (1 − this), high × (1 + this / 3)
SCALING_WIDENING = 0.10  # per doubling of the GPU count between measured and costed
# A serving file does not say how many nodes its GPUs were on: up to a standard 8-GPU node
# it is read as one node, beyond it as full nodes of 8 (a 16-GPU run is two nodes).
NODE_GPUS_ASSUMED = 8


@dataclass(frozen=True, slots=True)
class Published:
    """Where a published result comes from and the regime it held (MLPerf Inference)."""

    round: str  # "MLPerf Inference v4.1"
    submitter: str
    software: str
    scenario: str  # Offline, Server or Interactive
    ttft_limit_ms: float | None = None  # the scenario's limits (p99), None: no limit
    tpot_limit_ms: float | None = None
    # The spread of this accelerator's per-GPU figure across the round's submitters, as
    # factors of this result's (low ≤ 1 ≤ high): the row's band.
    spread_low: float = 1.0
    spread_high: float = 1.0
    off_median: float = 0.0  # |log(this result / the submitters' median)|
    division: str = "closed"
    precision: str = ""


@dataclass(frozen=True, slots=True)
class ResultWorkload:
    """What a benchmark result says it measured (None / "" when the file does not say)."""

    result_id: int | str
    accelerator: str
    model_name: str = ""
    model_profile_id: int | None = None
    precision: str = ""
    gpu_count: int = 1
    tensor_parallel: int | None = None
    pipeline_parallel: int | None = None
    input_tokens_mean: float | None = None
    input_tokens_p95: float | None = None
    output_tokens_mean: float | None = None
    output_tokens_p95: float | None = None
    concurrency: float | None = None  # the highest concurrency of its sweep
    request_rate_per_s: float | None = None
    serving_engine: str = ""
    engine_version: str = ""
    quote_id: int | None = None
    brief_id: int | None = None
    kv_precision: str = ""  # the KV cache's dtype when the file states it ("auto": not stated)
    published: Published | None = None  # a public result, not the team's measurement
    nodes: int = 1  # the nodes its GPUs were on (a serving file measures one server)
    measured_on_version: int | None = None  # an earlier version of the offer it ran on


@dataclass(frozen=True, slots=True)
class EvidenceTarget:
    """The candidate's side: the brief's model, precision and shape, and the row's hardware."""

    accelerator: str
    gpus: int
    model_name: str
    model_profile_id: int | None = None
    model_params_b: float | None = None
    model_family: str = ""
    precision: str = ""
    input_tokens_mean: float | None = None
    input_tokens_p95: float | None = None
    output_tokens_mean: float | None = None
    output_tokens_p95: float | None = None
    concurrency: float | None = None
    quote_id: int | None = None
    brief_id: int | None = None
    model_active_params_b: float | None = None  # MoE: the active parameters per token
    kv_precision: str = ""
    serving_engine: str = ""  # the brief's ("" : not stated, any engine's result counts)
    serving_engine_version: str = ""
    batch: bool = False  # a batch brief (no latency target binds): MLPerf's Offline regime
    ttft_target_ms: float | None = None  # the brief's p95 targets
    itl_target_ms: float | None = None
    nodes: int = 1  # the nodes (instances) the row's GPUs span: an offer's GPUs per node


@dataclass(frozen=True, slots=True)
class EvidenceMatch:
    """One result judged against one candidate."""

    result_id: int | str
    kind: EvidenceKind
    reason: str  # one sentence a reviewer reads on the row
    adjustments: tuple[str, ...] = ()  # each adjustment applied to the measured figures
    throughput_factor: float = 1.0  # multiply the measured tokens/s per replica by this
    spread_low_factor: float = 1.0  # multiply the low spread factor by this (≤ 1)
    spread_high_factor: float = 1.0  # multiply the high spread factor by this (≥ 1)
    scope: str = ""  # "quote" or "accelerator"
    differences: tuple[str, ...] = field(default=())

    @property
    def counts(self) -> bool:
        return self.kind != "ignored"


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def published_of(item: Mapping[str, Any]) -> Published | None:
    """A frozen published result's source and regime (None: the team's own result)."""
    source = item.get("published")
    if not isinstance(source, Mapping) or not source:
        return None

    def factor(name: str, default: float) -> float:
        value = _number(source.get(name))
        return default if value is None or (value == 0 and default) else value

    return Published(
        round=source.get("round") or "",
        submitter=source.get("submitter") or "",
        software=source.get("software") or "",
        scenario=source.get("scenario") or "",
        ttft_limit_ms=_number(source.get("ttft_limit_ms")),
        tpot_limit_ms=_number(source.get("tpot_limit_ms")),
        spread_low=factor("spread_low", 1.0),
        spread_high=factor("spread_high", 1.0),
        off_median=factor("off_median", 0.0),
        division=source.get("division") or "closed",
        precision=item.get("precision") or "",
    )


def workload_of(item: Mapping[str, Any]) -> ResultWorkload:
    """What a result (or a sweep of results joined into one, `benchmarks/sweep_groups.py`)
    measured, from its evidence item: the comparison's frozen result and every page read it
    through this one function, so a file is judged as the sweep it belongs to everywhere
    (issue 37, U9). A sweep's concurrency is its highest point's."""
    swept = [
        c
        for p in item.get("operating_points") or []
        if isinstance(p, Mapping) and (c := _number(p.get("concurrency"))) is not None
    ]
    tp, pp = item.get("tensor_parallel"), item.get("pipeline_parallel")
    version = item.get("measured_on_version")
    gpus = int(item.get("gpu_count") or 1)
    return ResultWorkload(
        result_id=item.get("result_id") or 0,
        accelerator=item.get("accelerator") or "",
        model_name=item.get("model_name") or "",
        model_profile_id=item.get("model_profile_id"),
        precision=item.get("precision") or "",
        gpu_count=gpus,
        tensor_parallel=int(tp) if isinstance(tp, int) else None,
        pipeline_parallel=int(pp) if isinstance(pp, int) else None,
        input_tokens_mean=_number(item.get("input_tokens_mean")),
        input_tokens_p95=_number(item.get("input_tokens_p95")),
        output_tokens_mean=_number(item.get("output_tokens_mean")),
        output_tokens_p95=_number(item.get("output_tokens_p95")),
        concurrency=max(swept) if swept else _number(item.get("concurrency")),
        request_rate_per_s=_number(item.get("request_rate")),
        serving_engine=item.get("serving_engine") or "",
        engine_version=item.get("engine_version") or "",
        quote_id=item.get("quote_id"),
        brief_id=item.get("brief_id"),
        kv_precision=item.get("kv_precision") or "",
        measured_on_version=int(version) if isinstance(version, int) else None,
        nodes=max(1, -(-gpus // NODE_GPUS_ASSUMED)),
        published=published_of(item),
    )
