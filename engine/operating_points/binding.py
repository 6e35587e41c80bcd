"""Which of the brief's targets binds a sweep (pure).

Latency rises with load, so as a sweep climbs one target is reached first: that target sets
how far the sweep can go and is the one a chart of the sweep should be read against
(GuideLLM draws its curves against the objective that limits them).

For one sweep, its points in load order:

- the first point that misses a target decides: of the targets it misses, the one it misses
  by most (observed / target) binds, and the binding is **decided**;
- when no point misses, the target closest to its limit at the highest load binds, not
  decided (the sweep stopped before any target was reached);
- None when the brief sets no target, or no point has a figure for any target it sets.

Across sweeps (a compare page), the target that binds the most sweeps binds, decided ones
counted before undecided ones, ties in the order TTFT, ITL, E2E, error rate.

Points are mappings with the flat figures the charts carry: ``ttft_p95_ms``,
``itl_p95_ms``, ``e2e_p99_ms`` and ``error_rate`` (a share of requests); absent or None is
"not measured".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.operating_points import ServiceLevel

Figures = Mapping[str, float | None]
KEYS = ("ttft_p95_ms", "itl_p95_ms", "e2e_p99_ms", "error_rate")
NAMES = {
    "ttft_p95_ms": "TTFT p95",
    "itl_p95_ms": "ITL p95",
    "e2e_p99_ms": "E2E p99",
    "error_rate": "error rate",
}


@dataclass(frozen=True, slots=True)
class Binding:
    """The target that binds: its figure's key, its value and whether a point missed it."""

    key: str  # one of KEYS
    target: float  # ms, or a share of requests for the error rate
    decided: bool  # True: a measured point misses it; False: the closest to its limit

    @property
    def name(self) -> str:
        return NAMES[self.key]

    @property
    def words(self) -> str:
        """'TTFT p95 ≤ 800 ms', 'error rate ≤ 1.0 %'."""
        return target_words(self.key, self.target)


def target_words(key: str, target: float) -> str:
    if key == "error_rate":
        return f"{NAMES[key]} ≤ {target * 100:.1f} %"
    return f"{NAMES[key]} ≤ {target:,.0f} ms"


def _targets(slo: ServiceLevel) -> dict[str, float]:
    values = {
        "ttft_p95_ms": slo.ttft_p95_ms,
        "itl_p95_ms": slo.itl_p95_ms,
        "e2e_p99_ms": slo.e2e_p99_ms,
        "error_rate": slo.max_error_rate,
    }
    return {key: float(value) for key, value in values.items() if value is not None}


def _ratio(observed: float, target: float) -> float:
    if target > 0:
        return observed / target
    return float("inf") if observed > 0 else 0.0


def _ratios(point: Figures, targets: Mapping[str, float]) -> dict[str, float]:
    out = {}
    for key, target in targets.items():
        value = point.get(key)
        if value is not None:
            out[key] = _ratio(float(value), target)
    return out


def _tightest(ratios: Mapping[str, float]) -> str:
    """The key with the highest ratio; ties in the order of KEYS."""
    return max(ratios, key=lambda key: (ratios[key], -KEYS.index(key)))


def binding_target(points: Sequence[Figures], slo: ServiceLevel) -> Binding | None:
    """The target binding one sweep (its points in load order); see the module docstring."""
    targets = _targets(slo)
    if not targets:
        return None
    last: dict[str, float] = {}
    for point in points:
        ratios = _ratios(point, targets)
        if not ratios:
            continue
        missed = {key: r for key, r in ratios.items() if r > 1}
        if missed:
            key = _tightest(missed)
            return Binding(key, targets[key], decided=True)
        last = ratios
    if not last:
        return None
    key = _tightest(last)
    return Binding(key, targets[key], decided=False)


def binding_across(sweeps: Sequence[Sequence[Figures]], slo: ServiceLevel) -> Binding | None:
    """The target binding the most sweeps (decided ones first); see the module docstring."""
    votes: dict[str, tuple[int, int]] = {}
    for points in sweeps:
        found = binding_target(points, slo)
        if found is None:
            continue
        decided, undecided = votes.get(found.key, (0, 0))
        votes[found.key] = (decided + found.decided, undecided + (not found.decided))
    if not votes:
        return None
    key = max(votes, key=lambda k: (votes[k][0], votes[k][1], -KEYS.index(k)))
    return Binding(key, _targets(slo)[key], decided=votes[key][0] > 0)
