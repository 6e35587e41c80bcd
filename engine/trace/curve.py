"""A deployment's operating curve and the most load per replica that holds the targets.

A curve is what one replica does at rising concurrency: output tokens per second and the p95
time to first token and inter-token latency, at the request lengths it was measured (or
estimated) at. It comes from a measured sweep, a published result or the estimate; the
replay does not care which, the row states it.

The sustainable point ``c*`` is the highest concurrency whose latencies are within the brief's
targets. A longer prompt than the curve's takes longer to prefill, so the curve's TTFT is
stretched by the trace's p95 prompt over the curve's own (never shrunk: a shorter prompt
does not make the scheduler's own delay shorter). Between the last point that meets the
targets and the first that misses, ``c*`` is interpolated linearly on the binding figure; past
the curve's last point nothing is extrapolated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.trace.requests import FloatArray, TraceError


@dataclass(frozen=True, slots=True)
class CurvePoint:
    concurrency: float  # requests in flight on one replica
    output_tokens_per_s: float  # one replica's output throughput at that load
    ttft_p95_ms: float | None = None
    itl_p95_ms: float | None = None


@dataclass(frozen=True, slots=True)
class OperatingCurve:
    points: tuple[CurvePoint, ...]  # ascending concurrency
    input_tokens: float  # the mean request lengths the curve was measured at
    output_tokens: float
    # The replica time one prompt token takes, in output tokens' time (prefill is cheaper per
    # token than decode; 0 counts output tokens alone).
    prefill_weight: float = 0.0

    def __post_init__(self) -> None:
        if not self.points:
            raise TraceError("An operating curve needs at least one point.")
        if self.output_tokens <= 0 or self.input_tokens < 0 or self.prefill_weight < 0:
            raise TraceError("An operating curve's request lengths must be positive.")
        previous = 0.0
        for point in self.points:
            if point.concurrency <= previous or point.output_tokens_per_s <= 0:
                raise TraceError(
                    "An operating curve's points need rising concurrency and positive throughput."
                )
            previous = point.concurrency

    @classmethod
    def of(
        cls,
        points: Sequence[CurvePoint],
        *,
        input_tokens: float,
        output_tokens: float,
        prefill_weight: float = 0.0,
    ) -> OperatingCurve:
        ordered = tuple(sorted(points, key=lambda p: p.concurrency))
        return cls(ordered, float(input_tokens), float(output_tokens), float(prefill_weight))

    def scaled(self, factor: float) -> OperatingCurve:
        """The curve of a replica ``factor`` times as fast: throughput × factor, latency ÷ it
        (the p10 / p90 profiles the robust sizing replays)."""
        if factor <= 0:
            raise TraceError("A profile factor must be positive.")

        def slower(ms: float | None) -> float | None:
            return None if ms is None else ms / factor

        return replace(
            self,
            points=tuple(
                CurvePoint(
                    p.concurrency,
                    p.output_tokens_per_s * factor,
                    slower(p.ttft_p95_ms),
                    slower(p.itl_p95_ms),
                )
                for p in self.points
            ),
        )

    def work_of_each(self, input_tokens: FloatArray, output_tokens: FloatArray) -> FloatArray:
        """Each request's replica work relative to one of the curve's own length (1.0)."""
        reference = self.output_tokens + self.prefill_weight * self.input_tokens
        work: FloatArray = (output_tokens + self.prefill_weight * input_tokens) / reference
        return work


@dataclass(frozen=True, slots=True)
class Sustainable:
    """The most requests in flight per replica that hold the targets, and what binds there."""

    concurrency: float
    output_tokens_per_s: float
    binding: str  # "TTFT p95", "ITL p95" or "the curve's last point"
    interpolated: bool
    unchecked: tuple[str, ...] = ()  # targets the curve has no figure for

    def seconds_in_flight(self, output_tokens: float) -> float:
        """How long a request of the curve's own length stays in flight on a replica held at
        this load: ``c* × output tokens ÷ throughput`` (the replica's throughput is shared by
        the ``c*`` requests it holds)."""
        return self.concurrency * output_tokens / self.output_tokens_per_s


def _lerp(x0: float, x1: float, y0: float, y1: float, y: float) -> float:
    if y1 == y0:
        return x0
    return x0 + (x1 - x0) * (y - y0) / (y1 - y0)


def sustainable_point(
    curve: OperatingCurve,
    *,
    ttft_p95_ms: float | None,
    itl_p95_ms: float | None,
    input_tokens_p95: float | None = None,
) -> Sustainable | None:
    """``c*`` on ``curve`` under the targets; None when even the lightest point misses one."""
    stretch = 1.0
    if input_tokens_p95 is not None and curve.input_tokens > 0:
        stretch = max(1.0, input_tokens_p95 / curve.input_tokens)
    unchecked: list[str] = []

    def figures(point: CurvePoint) -> list[tuple[str, float, float]]:
        checks = []
        for name, target, value, factor in (
            ("TTFT p95", ttft_p95_ms, point.ttft_p95_ms, stretch),
            ("ITL p95", itl_p95_ms, point.itl_p95_ms, 1.0),
        ):
            if target is None:
                continue
            if value is None:
                if name not in unchecked:
                    unchecked.append(name)
                continue
            checks.append((name, value * factor, target))
        return checks

    last_ok: CurvePoint | None = None
    for point in curve.points:
        missed = [(name, value, target) for name, value, target in figures(point) if value > target]
        if not missed:
            last_ok = point
            continue
        if last_ok is None:
            return None
        # The crossing on each missed figure; the earliest one binds.
        best_c, best_name = point.concurrency, missed[0][0]
        for name, value, target in missed:
            before = next(v for n, v, _ in figures(last_ok) if n == name)
            crossing = _lerp(last_ok.concurrency, point.concurrency, before, value, target)
            if crossing < best_c:
                best_c, best_name = crossing, name
        throughput = last_ok.output_tokens_per_s + (
            point.output_tokens_per_s - last_ok.output_tokens_per_s
        ) * (best_c - last_ok.concurrency) / (point.concurrency - last_ok.concurrency)
        return Sustainable(best_c, throughput, best_name, True, tuple(unchecked))
    if last_ok is None:  # unreachable: a curve has points, and a first miss returned above
        return None
    return Sustainable(
        last_ok.concurrency,
        last_ok.output_tokens_per_s,
        "the curve's last point",
        False,
        tuple(unchecked),
    )
