"""Estimated throughputs drawn with the errors they share.

Two rows estimated by one model of error are not independent: when the fitted roofline is
optimistic for a model it is optimistic for every accelerator on it, and more alike within an
accelerator family. So an estimated row's throughput uniform is not its own stream alone but

    u = Φ(√shared × z(estimator, regime) + √family × z(family) + √own × Φ⁻¹(u_own))

with z standard normals drawn once per sample from the shared streams
``"throughput-error:" + name`` and the shares from the fit's out-of-sample error
(engine/fitted, docs/engine/accuracy.md). u stays uniform, so each row's band is unchanged;
what changes is how often two rows swap places: they swap only by the parts they do not
share, so P(cheapest) reads neither a coin toss for rows on one model of error nor 100 % while
their bands overlap (finding P6).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from scipy.special import ndtr, ndtri

from engine.fitted import error_shares, version_of_estimator
from engine.montecarlo.constants import CandidateConstants
from engine.montecarlo.sampling import FloatArray, shared_stream_key, uniforms
from engine.types import Range

ErrorGroup = tuple[str, str]  # (estimator and regime, accelerator family)


def _normal(seed: int, name: str, samples: int, cache: dict[str, FloatArray]) -> FloatArray:
    if name not in cache:
        u = uniforms(seed, shared_stream_key(f"throughput-error:{name}"), samples)
        cache[name] = ndtri(np.clip(u, 1e-12, 1 - 1e-12))
    return cache[name]


def share_errors(
    u: FloatArray,
    groups: Sequence[ErrorGroup | None],
    shares: Mapping[str, float],
    seed: int,
) -> None:
    """Rows of ``u`` (rows × samples uniforms, each row its own stream) whose group is set
    become correlated uniforms, in place; rows without a group are left as drawn."""
    if not any(groups):
        return
    samples = u.shape[1]
    shared, family, own = (math.sqrt(max(0.0, shares[k])) for k in ("shared", "family", "own"))
    norm = math.sqrt(shared**2 + family**2 + own**2) or 1.0
    cache: dict[str, FloatArray] = {}
    for i, group in enumerate(groups):
        if not group:
            continue
        z = own * ndtri(np.clip(u[i], 1e-12, 1 - 1e-12))
        z = z + shared * _normal(seed, f"estimator:{group[0]}", samples, cache)
        z = z + family * _normal(seed, f"family:{group[0]}:{group[1]}", samples, cache)
        u[i] = ndtr(z / norm)


def share_throughput_errors(
    u: FloatArray,
    consts: Sequence[CandidateConstants],
    ranges: Sequence[Range | None],
    seed: int,
) -> None:
    """The Monte Carlo's hook: the rows of a block whose throughput is a ranged estimate."""
    by_version: dict[str, list[ErrorGroup | None]] = {}
    for i, (c, r) in enumerate(zip(consts, ranges, strict=True)):
        estimator, _, family = c.throughput_error_group.partition("|")
        if r is None or r.is_fixed or not estimator:
            continue
        # each engine version's estimate draws with the shares its own fit measured
        version = version_of_estimator(estimator.partition(":")[0])
        by_version.setdefault(version, [None] * len(consts))[i] = (estimator, family)
    for version, groups in sorted(by_version.items()):
        share_errors(u, groups, error_shares(version), seed)
