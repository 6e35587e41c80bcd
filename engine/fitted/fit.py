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
from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from engine.fitted.cases import REFERENCE_GROUP, Measured
from engine.fitted.roofline import SHARED, Parameters, predict

GROUP_BOUNDS = (0.2, 3.0)
GROUP_PULL = 0.3  # weight of log(factor) as a residual: a prior that a group is the reference


def _groups(data: Sequence[Measured]) -> list[str]:
    return sorted({m.case.group for m in data} - {REFERENCE_GROUP})


def _unpack(x: np.ndarray, groups: Sequence[str]) -> Parameters:
    shared = {name: float(value) for name, value in zip(SHARED, x[: len(SHARED)], strict=True)}
    factors = {g: float(v) for g, v in zip(groups, x[len(SHARED) :], strict=True)}
    return Parameters(shared=shared, groups=factors)


def fit(data: Sequence[Measured]) -> Parameters:
    """The parameters that best explain ``data`` (per-GPU tokens/s)."""
    groups = _groups(data)
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
    return Parameters(
        shared={k: round(v, 6) for k, v in params.shared.items()},
        groups={k: round(v, 6) for k, v in params.groups.items()},
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
