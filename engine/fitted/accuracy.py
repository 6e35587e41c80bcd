"""How far the fitted estimate is from published measurements, out of sample.

Every figure here comes from `fit.out_of_sample`: a run is predicted by a fit that never saw
its accelerator (leave-one-accelerator-out) or its model (leave-one-model-out). The estimate's
band is the p10–p90 of measured / estimate over those predictions, per regime.
"""

from __future__ import annotations

import datetime
import itertools
import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.fitted.fit import OutOfSample
from engine.fitted.roofline import CURRENT

THROUGHPUT_BOUND = "throughput-bound"
LATENCY_BOUND = "latency-bound"


def regime(item: OutOfSample) -> str:
    return LATENCY_BOUND if item.latency_bound else THROUGHPUT_BOUND


def bands(items: Sequence[OutOfSample]) -> dict[str, dict[str, float]]:
    """p10 / p50 / p90 of measured ÷ estimate per regime (and "all"), with the count."""
    out: dict[str, dict[str, float]] = {}
    groups: dict[str, list[float]] = defaultdict(list)
    for item in items:
        inverse = 1 / item.ratio
        groups[regime(item)].append(inverse)
        groups["all"].append(inverse)
    for name, values in sorted(groups.items()):
        p10, p50, p90 = np.percentile(values, [10, 50, 90])
        out[name] = {
            "p10": round(float(p10), 4),
            "p50": round(float(p50), 4),
            "p90": round(float(p90), 4),
            "n": len(values),
        }
    if LATENCY_BOUND not in out:  # too few to say: the throughput-bound band, widened
        base = out.get(THROUGHPUT_BOUND, out["all"])
        out[LATENCY_BOUND] = {**base, "p10": round(base["p10"] * 0.8, 4), "n": 0}
    out["correlation"] = error_shares(items)
    return out


def error_shares(items: Sequence[OutOfSample]) -> dict[str, float]:
    """How the variance of log(measured / estimate) splits: "shared" by every estimate of one
    model (the spread of the per-model means), "family" by one accelerator family on that
    model (the spread of the per-(model, family) means around them) and each row's "own"
    rest. Two estimated rows on one model draw the shared part together (P(cheapest))."""
    logs = np.array([-math.log(i.ratio) for i in items])
    models = [i.measured.model for i in items]
    families = [(i.measured.model, i.measured.case.group.split("/")[0]) for i in items]
    total = float(np.var(logs))
    if total <= 0:
        return {"shared": 0.0, "family": 0.0, "own": 1.0}

    def means(keys: Sequence[object]) -> np.ndarray:
        groups: dict[object, list[float]] = defaultdict(list)
        for key, value in zip(keys, logs, strict=True):
            groups[key].append(value)
        return np.array([statistics.fmean(groups[k]) for k in keys])

    model_means, family_means = means(models), means(families)
    shared = float(np.var(model_means)) / total
    family = float(np.mean((family_means - model_means) ** 2)) / total
    own = max(0.0, 1.0 - shared - family)
    return {"shared": round(shared, 4), "family": round(family, 4), "own": round(own, 4)}


@dataclass(frozen=True)
class Row:
    label: str
    n: int
    median_error: float
    p90_error: float
    coverage: float


def _row(label: str, items: Sequence[OutOfSample], band: dict[str, dict[str, float]]) -> Row:
    errors = [abs(i.ratio - 1) for i in items]
    covered = [band[regime(i)]["p10"] <= 1 / i.ratio <= band[regime(i)]["p90"] for i in items]
    return Row(
        label,
        len(items),
        statistics.median(errors),
        float(np.percentile(errors, 90)),
        sum(covered) / len(covered),
    )


def pairs_ordered(items: Sequence[OutOfSample], margin: float = 0.0) -> tuple[int, int]:
    """(pairs ordered as measured, pairs) of accelerators on each model and scenario, by the
    median per-GPU figure of each; with ``margin``, only pairs whose measured figures differ by
    more than that share (closer ones are ties no estimate can be asked to order)."""
    by_key: dict[tuple[str, str], dict[str, tuple[list[float], list[float]]]] = defaultdict(dict)
    for i in items:
        slot = by_key[(i.measured.model, i.measured.scenario)].setdefault(
            i.measured.accelerator, ([], [])
        )
        slot[0].append(i.measured.tokens_per_gpu_s)
        slot[1].append(i.predicted)
    right = total = 0
    for accelerators in by_key.values():
        medians = {
            acc: (statistics.median(m), statistics.median(p))
            for acc, (m, p) in accelerators.items()
        }
        for (_, (m1, p1)), (_, (m2, p2)) in itertools.combinations(sorted(medians.items()), 2):
            if m1 == m2 or abs(m1 / m2 - 1) <= margin:
                continue
            total += 1
            right += (m1 > m2) == (p1 > p2)
    return right, total


def report(items: Sequence[OutOfSample], band: dict[str, dict[str, float]], today: str) -> str:
    """docs/engine/accuracy.md."""
    lines = [
        "# The fitted estimate's accuracy (out of sample)",
        "",
        f"Written by `make accuracy` on {today} for engine {CURRENT}'s estimate",
        f"(`engine/fitted/data/{CURRENT}/`) from",
        "`engine/fitted/data/mlperf-inference-v4.1.csv` (MLPerf Inference v4.1, closed division,",
        "VALID LLM results; a run submitted as both the 99 % and the 99.9 % benchmark counts",
        "once). Each run is predicted by a fit that never saw its accelerator",
        "(leave-one-accelerator-out) and, separately, by one that never saw its model",
        "(leave-one-model-out). Error = |estimate / measured − 1| of per-GPU output tokens/s.",
        "Band = the p10–p90 of measured / estimate over these predictions, per regime (what a",
        "comparison row's estimate carries); coverage = share of runs inside their regime's band.",
        "The model, its assumptions (prompt lengths, KV precision, replica size) and the fit:",
        "docs/engine/fitted-estimate.md.",
        "",
        "## Summary",
        "",
        "| held out | regime | runs | median error | p90 error | inside p10–p90 |",
        "|---|---|---|---|---|---|",
    ]
    for held in ("accelerator", "model"):
        subset = [i for i in items if i.held_out == held]
        for name in ("all", THROUGHPUT_BOUND, LATENCY_BOUND):
            chosen = [i for i in subset if name == "all" or regime(i) == name]
            if not chosen:
                continue
            r = _row(name, chosen, band)
            lines.append(
                f"| {held} | {name} | {r.n} | {r.median_error:.1%} | {r.p90_error:.1%} | "
                f"{r.coverage:.0%} |"
            )
    held_acc = [i for i in items if i.held_out == "accelerator"]
    right, total = pairs_ordered(held_acc)
    share = right / total if total else 0.0
    right10, total10 = pairs_ordered(held_acc, margin=0.10)
    share10 = right10 / total10 if total10 else 0.0
    lines += [
        "",
        f"Pairs of accelerators ordered as measured (same model and scenario, each accelerator "
        f"held out): {right} of {total} ({share:.0%}); of the pairs whose measured per-GPU "
        f"figures differ by more than 10 %: {right10} of {total10} ({share10:.0%}).",
        "",
        "Bands (measured ÷ estimate): "
        + "; ".join(
            f"{name} p10 {b['p10']:.2f}, p90 {b['p90']:.2f} (n {int(b['n'])})"
            for name, b in band.items()
            if name != "correlation"
        )
        + ".",
        "",
        "How the error is shared between rows (variance of log measured ÷ estimate): "
        + ", ".join(f"{k} {v:.0%}" for k, v in band["correlation"].items())
        + " — the Monte Carlo draws the shared part once per sample for every estimated row,"
        " the family part once per accelerator family (engine/montecarlo/throughput_error.py).",
        "",
        "## By accelerator (leave-one-accelerator-out)",
        "",
        "| accelerator | runs | estimate ÷ measured (median) | median error | p90 error | "
        "inside p10–p90 |",
        "|---|---|---|---|---|---|",
    ]
    by_acc: dict[str, list[OutOfSample]] = defaultdict(list)
    for i in items:
        if i.held_out == "accelerator":
            by_acc[i.measured.accelerator].append(i)
    for acc, chosen in sorted(by_acc.items()):
        r = _row(acc, chosen, band)
        ratio = statistics.median(i.ratio for i in chosen)
        lines.append(
            f"| {acc} | {r.n} | {ratio:.2f} | {r.median_error:.1%} | {r.p90_error:.1%} | "
            f"{r.coverage:.0%} |"
        )
    lines += [
        "",
        "## By model (leave-one-model-out)",
        "",
        "| model | runs | estimate ÷ measured (median) | median error | p90 error |",
        "|---|---|---|---|---|",
    ]
    by_model: dict[str, list[OutOfSample]] = defaultdict(list)
    for i in items:
        if i.held_out == "model":
            by_model[i.measured.model].append(i)
    for model, chosen in sorted(by_model.items()):
        r = _row(model, chosen, band)
        ratio = statistics.median(i.ratio for i in chosen)
        lines.append(
            f"| {model} | {r.n} | {ratio:.2f} | {r.median_error:.1%} | {r.p90_error:.1%} |"
        )
    lines.append("")
    return "\n".join(lines)


def today() -> str:
    return datetime.datetime.now(tz=datetime.UTC).date().isoformat()
