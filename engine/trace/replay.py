"""Replay a request trace on one deployment: the fewest replicas per interval that hold the
service level, and the share of requests that met it.

The model (docs/engine/trace-sizing.md; ADR 0021 for why vectorised numpy):

- A replica of continuous batching holds up to ``c*`` requests in flight within the targets
  (``curve.sustainable_point``). Held at that load, a request of the curve's own length stays
  in flight ``d = c* × L_out ÷ X(c*)`` seconds; a request of another length in proportion to
  its work (output tokens plus the curve's prefill weight × prompt tokens).
- The fleet's load when request *j* arrives is the number of requests in flight then,
  ``C_j = #{i : a_i ≤ a_j < a_i + d_i}`` (itself included), × the trace's volume scale.
  Balanced over ``R`` replicas it is within the targets when ``C_j ÷ R ≤ c*``: request *j*
  "needs" ``n_j = C_j ÷ c*`` replicas.
- Per interval, the fewest replicas that give the attainment target (p95 by default) of the
  interval's arrivals what they need is the ``⌈target⌉``-th smallest ``n_j``, rounded up. The
  fixed fleet (replicas held all the time) is the same over the whole trace.

Holding every request at ``c*``'s speed counts in-flight time at its longest (a lighter
replica decodes faster), so the fleet is never short on the model's own terms; routing is
assumed balanced (least-loaded), and one interval's replicas do not carry into the next.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.trace.curve import OperatingCurve, Sustainable
from engine.trace.requests import RequestTrace, TraceError

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

# Replica needs are ratios of counts: a need of 2.0000000001 is 2 (float noise, not load).
_ROUNDING = 1e-9


@dataclass(frozen=True, slots=True, eq=False)
class TraceSizing:
    """One deployment's replay of a trace."""

    interval_s: float
    replicas: IntArray  # the fewest replicas per interval that hold the target
    load: FloatArray  # the same before rounding up: the interval's load in replicas
    attainment: float  # share of all requests within the targets on those replicas
    fixed_replicas: int  # the fewest held all the time that hold the target over the trace
    fixed_attainment: float
    sustainable: Sustainable

    @property
    def peak_replicas(self) -> int:
        return int(self.replicas.max(initial=0))

    @property
    def replica_hours(self) -> float:
        """Replica-hours the per-interval curve holds over the trace."""
        return float(self.replicas.sum()) * self.interval_s / 3600.0

    @property
    def trace_hours(self) -> float:
        return int(self.replicas.shape[0]) * self.interval_s / 3600.0

    @property
    def mean_replicas(self) -> float:
        return float(self.replica_hours / self.trace_hours) if self.trace_hours else 0.0


def in_flight_at_arrival(trace: RequestTrace, seconds_in_flight: FloatArray) -> FloatArray:
    """``C_j``: requests in flight when each request arrives, itself included."""
    arrivals = trace.arrival_s
    ends = np.sort(arrivals + seconds_in_flight)
    started = np.searchsorted(arrivals, arrivals, side="right")
    ended = np.searchsorted(ends, arrivals, side="right")
    return (started - ended).astype(np.float64)


def replica_needs(
    trace: RequestTrace,
    curve: OperatingCurve,
    point: Sustainable,
    *,
    volume_scale: float = 1.0,
) -> FloatArray:
    """``n_j``: the replicas request *j* needs to be served within the targets."""
    if volume_scale <= 0 or not math.isfinite(volume_scale):
        raise TraceError("A trace's volume scale must be a positive number.")
    work = curve.work_of_each(trace.input_tokens, trace.output_tokens)
    seconds = point.seconds_in_flight(curve.output_tokens) * work
    return in_flight_at_arrival(trace, seconds) * volume_scale / point.concurrency


def _replicas_for(needs_sorted: FloatArray, target: float) -> int:
    """The fewest replicas giving ``target`` of these (sorted) needs what they need."""
    if needs_sorted.shape[0] == 0:
        return 0
    k = max(1, math.ceil(target * needs_sorted.shape[0] - _ROUNDING))
    return math.ceil(float(needs_sorted[k - 1]) - _ROUNDING)


def size_trace(
    trace: RequestTrace,
    curve: OperatingCurve,
    point: Sustainable,
    *,
    interval_s: float = 60.0,
    attainment_target: float = 0.95,
    volume_scale: float = 1.0,
) -> TraceSizing:
    """Replay ``trace`` on ``curve`` held at ``point``: replicas per interval and attainment."""
    if interval_s <= 0:
        raise TraceError("An interval must be positive.")
    if not 0 < attainment_target <= 1:
        raise TraceError("The attainment target is a share between 0 and 1.")
    needs = replica_needs(trace, curve, point, volume_scale=volume_scale)
    interval = ((trace.arrival_s - trace.arrival_s[0]) // interval_s).astype(np.int64)
    count = int(interval[-1]) + 1
    # Sorted by interval, then by need: each interval's needs are one sorted slice.
    order = np.lexsort((needs, interval))
    needs_sorted, interval_sorted = needs[order], interval[order]
    sizes = np.bincount(interval_sorted, minlength=count)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    rank = np.maximum(1, np.ceil(attainment_target * sizes - _ROUNDING)).astype(np.int64)
    picked = needs_sorted[np.minimum(starts + rank - 1, needs.shape[0] - 1)]
    load = np.where(sizes > 0, picked, 0.0)
    replicas = np.ceil(load - _ROUNDING).astype(np.int64)
    met = needs <= replicas[interval] + _ROUNDING
    fixed = _replicas_for(np.sort(needs), attainment_target)
    return TraceSizing(
        interval_s=float(interval_s),
        replicas=replicas,
        load=load,
        attainment=float(met.mean()),
        fixed_replicas=fixed,
        fixed_attainment=float((needs <= fixed + _ROUNDING).mean()),
        sustainable=point,
    )
