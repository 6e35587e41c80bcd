"""What a trace's replay buys on one offer: the fewest GPUs and the least money a month that
hold the service level, at the operating curve's centre and at its pessimistic and optimistic
ends (docs/engine/trace-sizing.md, "Into the decision").

- Elastic capacity (on demand, spot, marketplace) is paid as used: a month of the replay's
  replica-hours (its mean replicas × 730 h) × GPUs per replica × the price per GPU-hour.
- Fixed capacity (reserved, dedicated, purchased) is bought for the busiest interval: the fixed
  fleet that holds the service level over the whole trace, × 730 h.
- A trace of the busiest hour sizes the peak and says nothing of the rest of the month: its
  month is costed at the fixed fleet whatever the capacity model (said so).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

from engine.trace.replay import TraceSizing
from engine.types import CENT, HOURS_PER_MONTH


@dataclass(frozen=True, slots=True)
class TraceFleet:
    """One offer sized from the trace, at one profile of its operating curve."""

    gpus_per_replica: int
    peak_gpus: int  # the busiest interval's replicas × GPUs per replica
    fixed_gpus: int  # GPUs held all the time that hold the target over the trace
    mean_gpus: float  # the month's average GPUs in use (elastic)
    monthly_gpu_hours: Decimal  # what the month pays for, in GPU-hours
    monthly_cost: Decimal  # the least a month costs on this offer
    basis: str  # "as used" | "fixed fleet"


def trace_fleet(
    sizing: TraceSizing,
    *,
    gpus_per_replica: int,
    price_per_gpu_hour: Decimal,
    fixed_capacity: bool,
    repeats: bool = True,
) -> TraceFleet:
    """The offer's fleet and money from ``sizing`` (``repeats``: the trace is a representative
    window that fills the month, not the busiest hour alone)."""
    hours = HOURS_PER_MONTH
    as_used = not fixed_capacity and repeats
    mean_gpus = sizing.mean_replicas * gpus_per_replica
    if as_used:
        gpu_hours = (Decimal(repr(mean_gpus)) * hours).quantize(Decimal("0.001"))
    else:
        gpu_hours = Decimal(sizing.fixed_replicas * gpus_per_replica) * hours
    cost = (gpu_hours * price_per_gpu_hour).quantize(CENT, rounding=ROUND_HALF_EVEN)
    return TraceFleet(
        gpus_per_replica=gpus_per_replica,
        peak_gpus=sizing.peak_replicas * gpus_per_replica,
        fixed_gpus=sizing.fixed_replicas * gpus_per_replica,
        mean_gpus=mean_gpus,
        monthly_gpu_hours=gpu_hours,
        monthly_cost=cost,
        basis="as used" if as_used else "fixed fleet",
    )
