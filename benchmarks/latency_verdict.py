"""A result against a brief's latency targets, read the way the comparison costs it (pure).

A result holding a sweep (two operating points or more) is judged at the point the engine
would cost it (``engine.operating_points.choose_point``): its saturation headline
misses a TTFT target that a lower load meets, so judging the headline would call a sweep
"missed" that the comparison counts as meeting, and the other way round. A single-point
result is judged on its headline figures. Every target of the brief counts: p95 TTFT, p95
inter-token (ITL, else TPOT) and p99 end-to-end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.operating_points import (
    MeasuredPoint,
    ServiceLevel,
    choose_point,
    lower_bounds,
    point_from_dict,
)


@dataclass(frozen=True, slots=True)
class Targets:
    """The brief's latency targets in ms (None: no target) and whether a person waits."""

    ttft_p95_ms: float | None = None
    itl_p95_ms: float | None = None
    e2e_p99_ms: float | None = None
    realtime: bool = True
    max_error_rate: float | None = None  # share of failed requests a point may have

    @property
    def service_level(self) -> ServiceLevel:
        return ServiceLevel(**{key: getattr(self, key) for key in (*_KEYS, "max_error_rate")})


@dataclass(frozen=True, slots=True)
class LatencyVerdict:
    """meets: True/False/None (None: no target, or nothing the file has settles it)."""

    meets: bool | None
    checks: list[dict[str, Any]] = field(default_factory=list)  # label, target, observed, ok
    point: str = ""  # the operating point judged ("concurrency 50, TTFT p95 835 ms"); "" headline
    # A sweep's figures at the point judged (label, output tokens/s, TTFT p95, E2E p99), so a
    # page shows the numbers its verdict rests on, not the saturation headline's; {} headline
    at_point: dict[str, Any] = field(default_factory=dict)


_KEYS = ("ttft_p95_ms", "itl_p95_ms", "e2e_p99_ms")


def _checks(
    targets: Targets,
    observed: dict[str, float | None],
    point: MeasuredPoint | None = None,
) -> list[dict[str, Any]]:
    """One check per target; a percentile the file lacks is still missed when a lower one it
    has (the median) is over the target, as the comparison reads it (issue 37, F11)."""
    floors = dict(zip(_KEYS, lower_bounds(point), strict=True)) if point is not None else {}
    out = []
    for label, key in (
        ("p99 E2E", "e2e_p99_ms"),
        ("p95 TTFT", "ttft_p95_ms"),
        ("p95 ITL", "itl_p95_ms"),
    ):
        target = getattr(targets, key)
        if target:
            value = observed.get(key)
            ok = None if value is None else value <= target
            floor = floors.get(key)
            if value is None and floor is not None and floor > target:
                label, value, ok = f"{label} (a lower percentile is over)", floor, False
            out.append({"label": label, "target": target, "observed": value, "ok": ok})
    return out


def _headline(item: dict[str, Any]) -> dict[str, float | None]:
    itl = item.get("itl_p95_ms")
    return {
        "ttft_p95_ms": item.get("ttft_p95_ms"),
        "itl_p95_ms": itl if itl is not None else item.get("tpot_p95_ms"),
        "e2e_p99_ms": item.get("e2e_p99_ms"),
    }


def judge(metrics: dict[str, Any], item: dict[str, Any], targets: Targets) -> LatencyVerdict:
    """``metrics``: the stored parser metrics; ``item``: its key figures (figures.key_figures)."""
    raw = metrics.get("operating_points")
    points = (
        [point_from_dict(p) for p in raw if isinstance(p, dict)] if isinstance(raw, list) else []
    )
    slo = targets.service_level
    if len(points) >= 2 and slo.any:
        choice = choose_point(points, slo, realtime=targets.realtime)
        if choice is not None:
            observed = {key: getattr(choice, key) for key in _KEYS}
            at_point = {
                key: getattr(choice, key)
                for key in ("label", "output_tokens_per_s", "ttft_p95_ms", "e2e_p99_ms")
            }
            chosen = next((p for p in points if p.label == choice.label), None)
            return LatencyVerdict(
                choice.meets, _checks(targets, observed, chosen), choice.statement, at_point
            )
    checks = _checks(targets, _headline(item), points[0] if len(points) == 1 else None)
    # The headline's verdict as before: settled by the targets its figures can be checked on.
    settled = [c["ok"] for c in checks if c["ok"] is not None]
    return LatencyVerdict(all(settled) if settled else None, checks)
