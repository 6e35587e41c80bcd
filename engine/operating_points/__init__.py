"""Operating points: read a benchmark sweep at the brief's service level (docs/engine/evidence.md).

A sweep holds several measured points (concurrency or request rate → throughput and latency
percentiles). Per candidate the engine takes the **cheapest point that meets the brief's p95
TTFT, p95 inter-token and p99 end-to-end targets**. At a fixed price per GPU-hour the
cheapest point is the one with the most accepted tokens per second:
``output tokens/s × (1 − error rate) × goodput`` (real-time classes; goodput = the share of
requests meeting every objective, from the per-request samples when the file has them).

- A point past the service level is never chosen while one meets it, so it can never lower
  the cost.
- A target the file has no figure for cannot be checked. When no point meets every target
  but some fail none that can be checked, the best of those (below the first point that
  fails one) is taken with ``meets=None``, naming the unchecked targets: the row stays
  "not measured" for them, never "meets", and is costed where it can be served.
- When every point fails a checkable target, the point closest to the targets is returned
  with ``meets=False`` (the row is then ineligible and says how close it came).
- Interpolation between the last point that meets a target and the first that does not
  happens only when asked (``interpolate=True``) and is stated; never beyond a measured
  point (no extrapolation).
- Batch classes have no latency objective: the cheapest point the batch window allows (its
  p99 end-to-end within the window, when one is given) is taken, and stated as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

RequestSample = tuple[float | None, float | None, float | None, bool]  # ttft, itl, e2e, ok


@dataclass(frozen=True, slots=True)
class Latency:
    """Latency percentiles in ms (None: not in the file)."""

    p50: float | None = None
    p95: float | None = None
    p99: float | None = None
    mean: float | None = None


@dataclass(frozen=True, slots=True)
class MeasuredPoint:
    """One measured operating point (same meanings as the parsers' OperatingPoint)."""

    label: str
    concurrency: float | None = None
    request_rate_per_s: float | None = None
    requests_per_s: float | None = None
    output_tokens_per_s: float | None = None
    input_tokens_per_s: float | None = None
    ttft_ms: Latency | None = None
    itl_ms: Latency | None = None
    tpot_ms: Latency | None = None
    e2e_ms: Latency | None = None
    error_rate: float | None = None
    request_samples: tuple[RequestSample, ...] = ()


@dataclass(frozen=True, slots=True)
class ServiceLevel:
    """The brief's objectives (None: no target)."""

    ttft_p95_ms: float | None = None
    itl_p95_ms: float | None = None
    e2e_p99_ms: float | None = None

    @property
    def any(self) -> bool:
        return any(v is not None for v in (self.ttft_p95_ms, self.itl_p95_ms, self.e2e_p99_ms))


@dataclass(frozen=True, slots=True)
class PointChoice:
    """The point a candidate is costed at, and why."""

    label: str
    output_tokens_per_s: float
    meets: bool | None  # None: no target, or latency not in the file
    goodput: float | None  # share of requests meeting every objective (per-request data)
    interpolated: bool
    statement: str  # "concurrency 50, TTFT p95 835 ms"
    ttft_p95_ms: float | None = None
    itl_p95_ms: float | None = None
    e2e_p99_ms: float | None = None
    concurrency: float | None = None
    unchecked: tuple[str, ...] = ()  # targets set but not in the file: "E2E p99"


TARGET_NAMES = ("TTFT p95", "ITL p95", "E2E p99")


def _targets(slo: ServiceLevel) -> tuple[float | None, float | None, float | None]:
    return slo.ttft_p95_ms, slo.itl_p95_ms, slo.e2e_p99_ms


def unchecked_targets(point: MeasuredPoint, slo: ServiceLevel) -> tuple[str, ...]:
    """Names of the targets the brief sets that this point has no figure for."""
    return tuple(
        name
        for name, target, value in zip(TARGET_NAMES, _targets(slo), _figures(point), strict=True)
        if target is not None and value is None
    )


def _figures(point: MeasuredPoint) -> tuple[float | None, float | None, float | None]:
    itl = point.itl_ms or point.tpot_ms
    return (
        point.ttft_ms.p95 if point.ttft_ms else None,
        itl.p95 if itl else None,
        point.e2e_ms.p99 if point.e2e_ms else None,
    )


def meets(point: MeasuredPoint, slo: ServiceLevel) -> bool | None:
    """True/False against every target the file can be checked on; None if none can."""
    verdicts = [
        value <= target
        for target, value in zip(
            (slo.ttft_p95_ms, slo.itl_p95_ms, slo.e2e_p99_ms), _figures(point), strict=True
        )
        if target is not None and value is not None
    ]
    missing = any(
        target is not None and value is None
        for target, value in zip(
            (slo.ttft_p95_ms, slo.itl_p95_ms, slo.e2e_p99_ms), _figures(point), strict=True
        )
    )
    if verdicts and not all(verdicts):
        return False
    if missing or not verdicts:
        return None
    return True


def goodput(point: MeasuredPoint, slo: ServiceLevel) -> float | None:
    """Share of requests that succeeded and met every objective (None without samples)."""
    if not point.request_samples:
        return None
    good = 0
    for ttft, itl, e2e, ok in point.request_samples:
        if not ok:
            continue
        checks = ((slo.ttft_p95_ms, ttft), (slo.itl_p95_ms, itl), (slo.e2e_p99_ms, e2e))
        if all(t is None or (v is not None and v <= t) for t, v in checks):
            good += 1
    return good / len(point.request_samples)


def describe(point: MeasuredPoint) -> str:
    """'concurrency 50, TTFT p95 835 ms' (the row shows the point it was costed at)."""
    where = (
        f"concurrency {point.concurrency:g}"
        if point.concurrency is not None
        else f"rate {point.request_rate_per_s:g}/s"
        if point.request_rate_per_s is not None
        else point.label
    )
    ttft, itl, e2e = _figures(point)
    parts = [where]
    if ttft is not None:
        parts.append(f"TTFT p95 {ttft:,.0f} ms")
    if itl is not None:
        parts.append(f"ITL p95 {itl:,.1f} ms")
    if e2e is not None:
        parts.append(f"E2E p99 {e2e:,.0f} ms")
    return ", ".join(parts)


def _effective(point: MeasuredPoint, slo: ServiceLevel, realtime: bool) -> float:
    tps = point.output_tokens_per_s or 0.0
    tps *= 1.0 - (point.error_rate or 0.0)
    share = goodput(point, slo) if realtime else None
    return tps * (share if share is not None else 1.0)


def _order(point: MeasuredPoint) -> float:
    if point.concurrency is not None:
        return point.concurrency
    return point.request_rate_per_s or 0.0


def _choice(point: MeasuredPoint, slo: ServiceLevel, realtime: bool, note: str) -> PointChoice:
    ttft, itl, e2e = _figures(point)
    return PointChoice(
        label=point.label,
        output_tokens_per_s=float(point.output_tokens_per_s or 0.0),
        meets=meets(point, slo) if slo.any else None,
        goodput=goodput(point, slo) if realtime and slo.any else None,
        interpolated=False,
        statement=describe(point) + note,
        ttft_p95_ms=ttft,
        itl_p95_ms=itl,
        e2e_p99_ms=e2e,
        concurrency=point.concurrency,
        unchecked=unchecked_targets(point, slo) if slo.any else (),
    )


def _interpolate(
    ok: MeasuredPoint, bad: MeasuredPoint, slo: ServiceLevel
) -> tuple[float, float] | None:
    """(fraction from ok to bad, tokens/s) where the binding target is reached, if any."""
    fractions = []
    for target, a, b in zip(
        (slo.ttft_p95_ms, slo.itl_p95_ms, slo.e2e_p99_ms), _figures(ok), _figures(bad), strict=True
    ):
        if target is None or a is None or b is None or b <= target or b <= a:
            continue
        fractions.append((target - a) / (b - a))
    if not fractions or ok.output_tokens_per_s is None or bad.output_tokens_per_s is None:
        return None
    t = max(0.0, min(1.0, min(fractions)))
    return t, ok.output_tokens_per_s + t * (bad.output_tokens_per_s - ok.output_tokens_per_s)


def choose_point(
    points: Sequence[MeasuredPoint],
    slo: ServiceLevel,
    *,
    realtime: bool = True,
    interpolate: bool = False,
) -> PointChoice | None:
    """The cheapest point meeting ``slo`` (see the module docstring); None without points."""
    usable = sorted((p for p in points if p.output_tokens_per_s), key=_order)
    if not usable:
        return None
    if not slo.any:
        best = max(usable, key=lambda p: (_effective(p, slo, realtime), -_order(p)))
        note = "" if realtime else " (batch: the cheapest point, no latency objective)"
        return _choice(best, slo, realtime, note or " (no latency target: the cheapest point)")
    verdicts = [meets(p, slo) for p in usable]
    passing = [p for p, v in zip(usable, verdicts, strict=True) if v is True]
    if passing:
        best = max(passing, key=lambda p: (_effective(p, slo, realtime), -_order(p)))
        note = "" if realtime else " (batch: the cheapest point the window allows)"
        choice = _choice(best, slo, realtime, note)
        if interpolate:
            later = [p for p in usable if _order(p) > _order(best)]
            nxt = later[0] if later else None
            if nxt is not None and meets(nxt, slo) is False:
                found = _interpolate(best, nxt, slo)
                if found is not None and found[1] > choice.output_tokens_per_s:
                    t, tps = found
                    return PointChoice(
                        label=f"{best.label}→{nxt.label}",
                        output_tokens_per_s=tps,
                        meets=True,
                        goodput=choice.goodput,
                        interpolated=True,
                        statement=(
                            f"interpolated {t:.0%} of the way from {describe(best)} to "
                            f"{describe(nxt)} (the target is reached there)"
                        ),
                        concurrency=None,
                    )
        return choice
    # No point meets every target. Those failing none that can be checked are still
    # servable as far as the file can tell; latency rises with load, so none past the first
    # point that fails a target is trusted.
    failing = [_order(p) for p, v in zip(usable, verdicts, strict=True) if v is False]
    first_fail = min(failing, default=float("inf"))
    open_points = [
        p for p, v in zip(usable, verdicts, strict=True) if v is None and _order(p) < first_fail
    ]
    if open_points:
        best = max(open_points, key=lambda p: (_effective(p, slo, realtime), -_order(p)))
        unchecked = unchecked_targets(best, slo)
        checked = len(unchecked) < sum(t is not None for t in _targets(slo))
        if not checked:
            return _choice(best, slo, realtime, " (latency not in the file)")
        missing = " and ".join(unchecked)
        return _choice(
            best,
            slo,
            realtime,
            f" ({missing} not in the file, so not checked; the other targets met)",
        )

    # none meets: the closest point (smallest worst overshoot), so the row can say how close
    def overshoot(p: MeasuredPoint) -> float:
        ratios = [
            v / t
            for t, v in zip(
                (slo.ttft_p95_ms, slo.itl_p95_ms, slo.e2e_p99_ms), _figures(p), strict=True
            )
            if t and v is not None
        ]
        return max(ratios) if ratios else float("inf")

    closest = min(usable, key=overshoot)
    return _choice(closest, slo, realtime, " (closest to the targets; none meets them)")


def point_from_dict(data: dict[str, Any]) -> MeasuredPoint:
    """A point from its JSON form (the snapshot stores the parsers' OperatingPoint.to_dict)."""

    def lat(name: str) -> Latency | None:
        block = data.get(name)
        if not isinstance(block, dict):
            return None
        return Latency(*(block.get(k) for k in ("p50", "p95", "p99", "mean")))

    samples = tuple(
        (s[0], s[1], s[2], bool(s[3]))
        for s in data.get("request_samples") or ()
        if isinstance(s, list | tuple) and len(s) >= 4
    )
    return MeasuredPoint(
        label=str(data.get("label") or ""),
        concurrency=data.get("concurrency"),
        request_rate_per_s=data.get("request_rate_per_s"),
        requests_per_s=data.get("requests_per_s"),
        output_tokens_per_s=data.get("output_tokens_per_s"),
        input_tokens_per_s=data.get("input_tokens_per_s"),
        ttft_ms=lat("ttft_ms"),
        itl_ms=lat("itl_ms"),
        tpot_ms=lat("tpot_ms"),
        e2e_ms=lat("e2e_ms"),
        error_rate=data.get("error_rate"),
        request_samples=samples,
    )
