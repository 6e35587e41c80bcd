"""The configurations one GPU offer is costed in (engine/deployments). Pure: no Django.

From the evidence: each GPU count a benchmark result was measured at, on this offer or on its
accelerator, where the model fits in memory and the offer has that many GPUs, with the
result's parallelism, precision and serving engine. Plus the smallest memory fit as an
estimate, and the next power of two above it (within one node and the offer) as an estimate.

An estimated configuration is priced without the results that are configurations of their
own: a measurement counts at the shape it was measured in, and is not scaled to another.
"""

from __future__ import annotations

import math
from typing import cast

from engine.deployments import Configuration, ConfigurationVerdict
from engine.memory.spec import GpuSpec
from procurement.snapshot import evidence
from procurement.snapshot.context import Context
from procurement.snapshot.facts import (
    ConfigurationFacts,
    ConfigurationRow,
    ConfigurationVerdictFacts,
)
from procurement.snapshot.memory import inference_fit
from procurement.snapshot.schema import AcceleratorRow, FrozenResult, QuoteRow


def _int(value: object) -> int | None:
    """A positive count from a frozen result (None: missing, not a number, or not positive)."""
    if not isinstance(value, int | float | str):
        return None  # None, a list, a dict: nothing to count
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def estimated(gpus: int, node: int, precision: str, origin: str) -> Configuration:
    tp = min(gpus, node)
    return Configuration(
        gpus_per_replica=gpus,
        tensor_parallel=tp,
        pipeline_parallel=max(1, math.ceil(gpus / tp)),
        precision=precision,
        origin=origin,
    )


def _relevant(ctx: Context, quote: QuoteRow, acc: AcceleratorRow) -> list[FrozenResult]:
    """This offer's results first, then the accelerator's, each in snapshot order."""
    own = [r for r in ctx.results if r.get("quote_id") == quote["id"]]
    same = [
        r
        for r in ctx.results
        if r.get("accelerator") == acc["slug"] and r.get("quote_id") != quote["id"]
    ]
    return own + same


def quote_configurations(
    ctx: Context,
    quote: QuoteRow,
    acc: AcceleratorRow,
    gpu: GpuSpec,
    node: int,
    cap: int | None,
    smallest: int,
) -> tuple[list[Configuration], set[int | str | None]]:
    """(configurations in order: measured ones, then the estimates; ids of the results that
    are configurations of their own)."""
    precision = str(ctx.brief.get("weight_precision") or "")
    measured: dict[int, Configuration] = {}
    used: set[int | str | None] = set()
    for result in _relevant(ctx, quote, acc):
        count = _int(result.get("gpu_count")) or 1
        if count in measured or (cap is not None and count > cap):
            continue
        chosen, match, _ = evidence.choose(ctx, quote, acc, count)
        if chosen is None or match is None or _int(chosen.get("gpu_count")) != count:
            continue
        if match.kind == "published":  # a public system's size is no configuration of ours
            continue
        if not inference_fit(ctx, gpu, node, cap, count)[1]:
            continue
        tp = _int(chosen.get("tensor_parallel")) or min(count, node)
        measured[count] = Configuration(
            gpus_per_replica=count,
            tensor_parallel=tp,
            pipeline_parallel=_int(chosen.get("pipeline_parallel"))
            or max(1, math.ceil(count / tp)),
            expert_parallel=_int(chosen.get("expert_parallel")),
            precision=str(chosen.get("precision") or precision),
            serving_engine=str(chosen.get("serving_engine") or ""),
            origin="measured_offer"
            if chosen.get("quote_id") == quote["id"]
            else "measured_accelerator",
            result_id=chosen.get("result_id"),
        )
        used.add(chosen.get("result_id"))
    out = list(measured.values())
    if smallest not in measured:
        out.append(estimated(smallest, node, precision, "memory_minimum"))
    larger = 1 << smallest.bit_length()  # the next power of two above the smallest fit
    if larger <= node and (cap is None or larger <= cap) and larger not in measured:
        out.append(estimated(larger, node, precision, "power_of_two"))
    return out, used


def configuration_facts(conf: Configuration) -> ConfigurationFacts:
    """The configuration a row is costed in (`conf.to_dict()`), with its words."""
    return {**cast(ConfigurationRow, conf.to_dict()), "words": conf.words()}


def verdict_facts(verdict: ConfigurationVerdict) -> ConfigurationVerdictFacts:
    """`verdict.to_dict()`, typed: money as exact decimal text, as the engine writes it."""
    return cast(ConfigurationVerdictFacts, verdict.to_dict())
