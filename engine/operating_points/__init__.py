"""Operating points: read a benchmark sweep at the brief's service level.

(docs/engine/operating-points.md has the rules with their public sources.)

A sweep holds several measured points (concurrency or request rate → throughput and latency
percentiles). Per candidate the engine takes the **cheapest point that meets the brief's
service level**:

- **The service level is a gate** (MLPerf Inference's server rule): a point meets it when its
  p95 TTFT, p95 inter-token latency and p99 end-to-end latency are within the targets and,
  when the brief sets a maximum error rate, its share of failed requests is within it.
- **SLO attainment** (the share of requests within every target, as GuideLLM and DistServe
  report it) is computed per point from the per-request samples and shown; it never
  multiplies the acceptance: the slow requests a p95 target allows were served.
- **Failures are counted once**: a measured throughput is successful output tokens per
  wall-clock second, so the time lost to failed requests is already in it. Every point is
  costed at its own throughput, so the cheapest point is the one with the most tokens/s,
  and the chosen point is the cheapest point on the row's own chart.
- **Latency rises with load**: no point past the first one that misses a target is chosen.
  When a later point meets the targets again the sweep is non-monotone (noise, or points
  out of order); the choice says so and names the points.
- A target the file has no figure for cannot be checked. When no point meets every target
  but some fail none that can be checked, the best of those (below the first point that
  fails one) is taken with ``meets=None``, naming the unchecked targets.
- When every point fails a checkable target, the point closest to the targets is returned
  with ``meets=False`` (the row is then ineligible and says how close it came).
- The row is costed at a measured point: no interpolation between points, and no
  extrapolation beyond them.
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
    max_error_rate: float | None = None  # share of failed requests a point may have

    @property
    def any(self) -> bool:
        return any(
            v is not None
            for v in (self.ttft_p95_ms, self.itl_p95_ms, self.e2e_p99_ms, self.max_error_rate)
        )


@dataclass(frozen=True, slots=True)
class PointChoice:
    """The point a candidate is costed at, and why."""

    label: str
    output_tokens_per_s: float
    meets: bool | None  # None: no target, or latency not in the file
    goodput: float | None  # SLO attainment: share of requests within every target (shown only)
    statement: str  # "concurrency 50, TTFT p95 835 ms"
    ttft_p95_ms: float | None = None
    itl_p95_ms: float | None = None
    e2e_p99_ms: float | None = None
    concurrency: float | None = None
    unchecked: tuple[str, ...] = ()  # targets set but not in the file: "E2E p99"
    error_rate: float | None = None  # the point's share of failed requests
    non_monotone: str = ""  # why a point meeting the targets after a miss was not chosen


TARGET_NAMES = ("TTFT p95", "ITL p95", "E2E p99", "error rate")


def _targets(
    slo: ServiceLevel,
) -> tuple[float | None, float | None, float | None, float | None]:
    return slo.ttft_p95_ms, slo.itl_p95_ms, slo.e2e_p99_ms, slo.max_error_rate


def error_rate_of(point: MeasuredPoint) -> float | None:
    """The point's share of failed requests: the file's figure, else from its samples."""
    if point.error_rate is not None:
        return float(point.error_rate)
    if point.request_samples:
        failed = sum(1 for *_, ok in point.request_samples if not ok)
        return failed / len(point.request_samples)
    return None


def unchecked_targets(point: MeasuredPoint, slo: ServiceLevel) -> tuple[str, ...]:
    """Names of the targets the brief sets that this point has no figure for."""
    return tuple(
        name
        for name, target, value in zip(TARGET_NAMES, _targets(slo), _gated(point), strict=True)
        if target is not None and value is None
    )


def _figures(point: MeasuredPoint) -> tuple[float | None, float | None, float | None]:
    itl = point.itl_ms or point.tpot_ms
    return (
        point.ttft_ms.p95 if point.ttft_ms else None,
        itl.p95 if itl else None,
        point.e2e_ms.p99 if point.e2e_ms else None,
    )


def _gated(point: MeasuredPoint) -> tuple[float | None, float | None, float | None, float | None]:
    return (*_figures(point), error_rate_of(point))


def lower_bounds(point: MeasuredPoint) -> tuple[float | None, float | None, float | None]:
    """A lower bound of each gated figure from the lower percentiles the file does have: a
    p95 is at least the median, a p99 at least the p95 and the median."""

    def floor(lat: Latency | None, *names: str) -> float | None:
        values = [v for name in names if lat is not None and (v := getattr(lat, name)) is not None]
        return max(values) if values else None

    return (
        floor(point.ttft_ms, "p50"),
        floor(point.itl_ms or point.tpot_ms, "p50"),
        floor(point.e2e_ms, "p50", "p95"),
    )


def meets(point: MeasuredPoint, slo: ServiceLevel) -> bool | None:
    """True/False against every target the file can be checked on; None if none can.

    A target whose percentile the file lacks is still missed when a lower percentile it has
    is already over the target (a median ITL of 179 ms misses an ITL p95 target of 100)."""
    pairs = list(zip(_targets(slo), _gated(point), strict=True))
    verdicts = [
        value <= target for target, value in pairs if target is not None and value is not None
    ]
    floors = lower_bounds(point)
    verdicts += [
        False
        for target, value, floor in zip(_targets(slo), _gated(point), floors, strict=False)
        if target is not None and value is None and floor is not None and floor > target
    ]
    missing = any(target is not None and value is None for target, value in pairs)
    if verdicts and not all(verdicts):
        return False
    if missing or not verdicts:
        return None
    return True


def slo_attainment(point: MeasuredPoint, slo: ServiceLevel) -> float | None:
    """Share of the point's requests that succeeded with every per-request figure within its
    target (None without per-request samples, or without a latency target). Shown per
    point; never a multiplier of the cost."""
    if not point.request_samples or not any(_targets(slo)[:3]):
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
    low_ttft, low_itl, low_e2e = lower_bounds(point)
    parts = [where]
    if ttft is not None:
        parts.append(f"TTFT p95 {ttft:,.0f} ms")
    elif low_ttft is not None:
        parts.append(f"TTFT p50 {low_ttft:,.0f} ms")
    if itl is not None:
        parts.append(f"ITL p95 {itl:,.1f} ms")
    elif low_itl is not None:
        parts.append(f"ITL p50 {low_itl:,.1f} ms")
    if e2e is not None:
        parts.append(f"E2E p99 {e2e:,.0f} ms")
    elif low_e2e is not None and point.e2e_ms is not None:
        which = "p95" if point.e2e_ms.p95 is not None else "p50"
        parts.append(f"E2E {which} {low_e2e:,.0f} ms")
    errors = error_rate_of(point)
    if errors:
        parts.append(f"errors {errors * 100:.1f} %")
    return ", ".join(parts)


def _cheapest(points: Sequence[MeasuredPoint]) -> MeasuredPoint:
    """What makes a point cheaper: its throughput alone (the lighter load on a tie). Failed
    requests are already out of a measured throughput, and the attainment is shown, not
    charged (module docstring)."""
    return max(points, key=lambda p: (float(p.output_tokens_per_s or 0.0), -_order(p)))


def _order(point: MeasuredPoint) -> float:
    if point.concurrency is not None:
        return point.concurrency
    return point.request_rate_per_s or 0.0


def _choice(
    point: MeasuredPoint, slo: ServiceLevel, realtime: bool, note: str, non_monotone: str = ""
) -> PointChoice:
    ttft, itl, e2e = _figures(point)
    return PointChoice(
        label=point.label,
        output_tokens_per_s=float(point.output_tokens_per_s or 0.0),
        meets=meets(point, slo) if slo.any else None,
        goodput=slo_attainment(point, slo) if realtime and slo.any else None,
        statement=describe(point) + note,
        ttft_p95_ms=ttft,
        itl_p95_ms=itl,
        e2e_p99_ms=e2e,
        concurrency=point.concurrency,
        unchecked=unchecked_targets(point, slo) if slo.any else (),
        error_rate=error_rate_of(point),
        non_monotone=non_monotone,
    )


def choose_point(
    points: Sequence[MeasuredPoint],
    slo: ServiceLevel,
    *,
    realtime: bool = True,
) -> PointChoice | None:
    """The cheapest point meeting ``slo`` (see the module docstring); None without points."""
    usable = sorted((p for p in points if p.output_tokens_per_s), key=_order)
    if not usable:
        return None
    if not slo.any:
        best = _cheapest(usable)
        note = "" if realtime else " (batch: the cheapest point, no latency objective)"
        return _choice(best, slo, realtime, note or " (no latency target: the cheapest point)")
    verdicts = [meets(p, slo) for p in usable]
    failing = [p for p, v in zip(usable, verdicts, strict=True) if v is False]
    first_fail = min((_order(p) for p in failing), default=float("inf"))
    passing = [
        p for p, v in zip(usable, verdicts, strict=True) if v is True and _order(p) < first_fail
    ]
    late = [
        p for p, v in zip(usable, verdicts, strict=True) if v is True and _order(p) >= first_fail
    ]
    warning = ""
    if late:
        first = next(p for p in failing if _order(p) == first_fail)
        names = ", ".join(describe(p).split(",")[0] for p in late)
        warning = (
            f"the sweep is non-monotone: {names} meet{'s' if len(late) == 1 else ''} the "
            f"service level after {describe(first).split(',')[0]} misses it; latency rises "
            "with load, so no point past the first miss is chosen"
        )
    if passing:
        best = _cheapest(passing)
        note = "" if realtime else " (batch: the cheapest point the window allows)"
        return _choice(best, slo, realtime, note, warning)
    # No point meets every target. Those failing none that can be checked are still
    # servable as far as the file can tell; latency rises with load, so none past the first
    # point that fails a target is trusted.
    open_points = [
        p for p, v in zip(usable, verdicts, strict=True) if v is None and _order(p) < first_fail
    ]
    if open_points:
        best = _cheapest(open_points)
        unchecked = unchecked_targets(best, slo)
        note = " (latency not in the file)"
        if len(unchecked) < sum(t is not None for t in _targets(slo)):
            missing = " and ".join(unchecked)
            note = f" ({missing} not in the file, so not checked; the other targets met)"
        return _choice(best, slo, realtime, note, warning)

    # none meets: the closest point (smallest worst overshoot), so the row can say how close
    def overshoot(p: MeasuredPoint) -> float:
        known = zip(_figures(p), lower_bounds(p), strict=True)
        figures = [v if v is not None else f for v, f in known]
        targets = _targets(slo)[:3]
        ratios = [v / t for t, v in zip(targets, figures, strict=True) if t and v is not None]
        cap, errors = slo.max_error_rate, error_rate_of(p)
        if cap is not None and errors is not None:
            ratios.append(errors / cap if cap > 0 else (1.0 if errors == 0 else float("inf")))
        return max(ratios) if ratios else float("inf")

    closest = min(usable, key=lambda p: (overshoot(p), _order(p)))
    note = " (closest to the targets; none meets them)"
    return _choice(closest, slo, realtime, note, warning)


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
