"""Fit the roofline's parameters to published results, and judge it out of sample.

The fit minimises the squared log error, each (accelerator, model, scenario) weighted as one
(so the 30 H100 runs of one benchmark do not outvote the one MI300X configuration), with a
small pull of every group factor towards 1 (a group with little data stays near the
reference). Deterministic: a fixed start, scipy's trust-region least squares, no randomness.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import least_squares

from engine.fitted.cases import REFERENCE_GROUP, Measured
from engine.fitted.roofline import SHARED, Parameters, predict

GROUP_BOUNDS = (0.2, 3.0)
GROUP_PULL = 0.3  # weight of log(factor) as a residual: a prior that a group is the reference


REFERENCE_FAMILY, _, REFERENCE_SOFTWARE = REFERENCE_GROUP.partition("/")
# What the fit holds fixed: the serving software's largest batch (sequences a replica),
# vLLM's default `max_num_seqs` (docs.vllm.ai, engine arguments; v0.4–0.5 as in the v4.1
# runs), and compute power by watts per datasheet dense FLOP.
STATED = Parameters(shared={}, max_batch={"vllm": 256}, power="tdp-per-flop")


def _factors(data: Sequence[Measured]) -> list[tuple[str, str]]:
    """("families" | "software", name) of every factor the data can fit."""
    families = {m.case.group.partition("/")[0] for m in data} - {REFERENCE_FAMILY}
    software = {m.case.group.partition("/")[2] for m in data} - {REFERENCE_SOFTWARE}
    return [("families", f) for f in sorted(families)] + [("software", s) for s in sorted(software)]


def _unpack(x: np.ndarray, factors: Sequence[tuple[str, str]]) -> Parameters:
    shared = {name: float(value) for name, value in zip(SHARED, x[: len(SHARED)], strict=True)}
    chosen: dict[str, dict[str, float]] = {"families": {}, "software": {}}
    for (kind, name), value in zip(factors, x[len(SHARED) :], strict=True):
        chosen[kind][name] = float(value)
    return replace(STATED, shared=shared, families=chosen["families"], software=chosen["software"])


def fit(data: Sequence[Measured]) -> Parameters:
    """The parameters that best explain ``data`` (per-GPU tokens/s)."""
    groups = _factors(data)
    cases = [m.case for m in data]
    measured = np.array([m.tokens_per_gpu_s for m in data], dtype=float)
    sizes = Counter((m.accelerator, m.model, m.scenario) for m in data)
    weights = np.array(
        [1 / math.sqrt(sizes[(m.accelerator, m.model, m.scenario)]) for m in data], dtype=float
    )
    start = [v[0] for v in SHARED.values()] + [1.0] * len(groups)
    low = [v[1] for v in SHARED.values()] + [GROUP_BOUNDS[0]] * len(groups)
    high = [v[2] for v in SHARED.values()] + [GROUP_BOUNDS[1]] * len(groups)

    def residuals(x: np.ndarray) -> np.ndarray:
        params = _unpack(x, groups)
        predicted = predict(cases, params).tokens_per_gpu_s
        errors = weights * np.log(predicted / measured)
        pull = GROUP_PULL * np.log(x[len(SHARED) :])
        return np.concatenate([errors, pull])

    solution = least_squares(
        residuals,
        np.array(start),
        bounds=(np.array(low), np.array(high)),
        method="trf",
        x_scale="jac",
        max_nfev=300,
        ftol=1e-6,
        xtol=1e-6,
    )
    params = _unpack(solution.x, groups)
    return replace(
        params,
        shared={k: round(v, 6) for k, v in params.shared.items()},
        families={k: round(v, 6) for k, v in params.families.items()},
        software={k: round(v, 6) for k, v in params.software.items()},
    )


@dataclass(frozen=True)
class OutOfSample:
    """One measured run predicted by a fit that never saw its accelerator (or model)."""

    measured: Measured
    predicted: float
    latency_bound: bool
    held_out: str  # "accelerator" | "model"

    @property
    def ratio(self) -> float:
        return self.predicted / self.measured.tokens_per_gpu_s


def held_out(
    data: Sequence[Measured], by: Callable[[Measured], str], label: str
) -> list[OutOfSample]:
    """Fit without each value of ``by`` in turn and predict the runs that have it."""
    out: list[OutOfSample] = []
    for value in sorted({by(m) for m in data}):
        train = [m for m in data if by(m) != value]
        test = [m for m in data if by(m) == value]
        if not train:
            continue
        params = fit(train)
        predicted = predict([m.case for m in test], params)
        for m, tokens, bound in zip(
            test, predicted.tokens_per_gpu_s, predicted.latency_bound, strict=True
        ):
            out.append(OutOfSample(m, float(tokens), bool(bound), label))
    return out


def out_of_sample(data: Sequence[Measured]) -> list[OutOfSample]:
    """Leave-one-accelerator-out and leave-one-model-out, together."""
    return held_out(data, lambda m: m.accelerator, "accelerator") + held_out(
        data, lambda m: m.model, "model"
    )
