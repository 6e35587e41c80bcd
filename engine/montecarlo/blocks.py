"""The Monte Carlo's per-block arithmetic: unit costs of rows that share a cost path.

A block is a run of candidates on one path (elastic, fixed, API, training on a measured or
a peak throughput); its constants are (C, 1) columns and every sample a column, so one
block's unit costs are a handful of (C, S) array operations. montecarlo.py draws the
samples and reduces them; tornado.py evaluates the same arithmetic at chosen values.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from engine import cost
from engine.montecarlo.constants import CandidateConstants, Path
from engine.montecarlo.sampling import (
    FloatArray,
    candidate_stream_key,
    fill_uniforms,
    stream_states,
    triangular,
)
from engine.montecarlo.throughput_error import share_throughput_errors
from engine.types import WorkloadInput

# ceil() of a float that should be an exact integer (3.0000000000000004) must not add a replica.
CEIL_RELATIVE_TOLERANCE = 1e-12
SECONDS_PER_MONTH = 730.0 * 3600.0


def unit_scale(workload: WorkloadInput) -> float:
    return float(cost.unit_label_and_scale(workload)[1])


@dataclass(frozen=True, slots=True)
class Block:
    """Rows of one path: constants as (C, 1) columns."""

    path: Path
    consts: tuple[CandidateConstants, ...]
    _columns: dict[str, FloatArray] = field(default_factory=dict, compare=False, repr=False)

    def col(self, name: str) -> FloatArray:
        column = self._columns.get(name)
        if column is None:
            column = np.array([float(getattr(c, name)) for c in self.consts])[:, None]
            self._columns[name] = column
        return column


class Workspace:
    """Named (rows × samples) buffers reused from chunk to chunk.

    A fresh multi-megabyte array per step is returned to the OS when freed and faulted in
    again on the next chunk: page faults were a third of the Monte Carlo's time."""

    def __init__(self, rows: int, samples: int) -> None:
        self._shape = (rows, samples)
        self._buffers: dict[str, FloatArray] = {}
        # seed states of the candidates' streams, mixed in one batch (stream_states)
        self.states: dict[tuple[int, ...], NDArray[np.uint64]] = {}

    def take(self, name: str, rows: int) -> FloatArray:
        buffer = self._buffers.get(name)
        if buffer is None:
            buffer = self._buffers[name] = np.empty(self._shape)
        return buffer[:rows]


def candidate_matrix(
    block: Block,
    name: str,
    attr: str,
    seed: int,
    samples: int,
    default: FloatArray | None,
    *,
    workspace: Workspace | None = None,
) -> FloatArray | None:
    """(C, S) draws of a candidate-level range; (C, 1) if none is ranged; None if absent."""
    ranges = [getattr(c, attr) for c in block.consts]
    if all(r is None for r in ranges) and default is None:
        return None
    if all(r is None or r.is_fixed for r in ranges) and default is None:
        return np.array([r.likely for r in ranges])[:, None]
    rows = len(ranges)
    space = workspace or Workspace(rows, samples)
    u = space.take(name, rows)
    low, likely, high = (np.empty((rows, 1)) for _ in range(3))
    drawn: list[int] = []
    keys: list[tuple[int, ...]] = []
    for i, (c, r) in enumerate(zip(block.consts, ranges, strict=True)):
        if r is None:
            low[i] = likely[i] = high[i] = np.nan
        else:
            low[i], likely[i], high[i] = r.low, r.likely, r.high
        if r is None or r.is_fixed:
            u[i] = 0.5
        else:
            drawn.append(i)
            keys.append(candidate_stream_key(c.stream_id(name), name))
    states = space.states if all(k in space.states for k in keys) else None
    if drawn == list(range(rows)):
        fill_uniforms(seed, keys, u, states)
    elif drawn:
        some = np.empty((len(drawn), samples))
        fill_uniforms(seed, keys, some, states)
        u[drawn] = some
    if name == "throughput_per_replica":  # estimated rows share the estimator's errors
        share_throughput_errors(u, block.consts, ranges, seed)
    scratch = (space.take("scratch_a", rows), space.take("scratch_b", rows))
    values = triangular(u, low, likely, high, out=u, scratch=scratch)
    if default is not None:  # rows without their own range take the shared draw
        missing = np.isnan(low[:, 0])
        values[missing] = default
    return values


# The candidate-level ranges the Monte Carlo draws: (stream name, CandidateConstants field).
DRAWN_RANGES = (
    ("throughput_per_replica", "throughput"),
    ("utilisation", "utilisation"),
    ("acceptance_rate", "acceptance"),
    ("failure_rate", "failure"),
)


def prepare_streams(workspace: Workspace, consts: Sequence[CandidateConstants], seed: int) -> None:
    """Mix the seed states of every candidate stream the simulation may open, in one batch."""
    keys = [
        candidate_stream_key(c.stream_id(name), name)
        for name, attr in DRAWN_RANGES
        for c in consts
        if (r := getattr(c, attr)) is not None and not r.is_fixed
    ]
    workspace.states.update(stream_states(seed, keys))


def utilisation_divisor(
    block: Block, shared: Mapping[str, FloatArray], util: FloatArray | None
) -> FloatArray:
    """Divisor of work: the draw where idle is billed, 1 where it is not."""
    base = shared["utilisation"][None, :] if util is None else util
    flags = np.array([c.idle_billed for c in block.consts])
    if flags.all():
        return base
    return np.where(flags[:, None], base, 1.0)


def block_unit_costs(
    block: Block,
    shared: Mapping[str, FloatArray],
    scale: float,
    throughput: FloatArray | None,
    util: FloatArray | None,
    acceptance: FloatArray | None = None,
    failure: FloatArray | None = None,
    *,
    workspace: Workspace | None = None,
) -> FloatArray:
    """Unit costs (C, S) of one block given shared (S,) values and candidate draws.

    ``acceptance`` / ``failure``: (C, S) per-row rates where rows carry measured ones.
    ``workspace``: where the result and its temporaries live (the result is a view of it)."""
    if block.path in ("train_measured", "train_peak"):
        return training_unit_costs(block, shared, throughput)
    rows = len(block.consts)
    samples = len(shared["monthly_accepted_outputs"])
    space = workspace or Workspace(rows, samples)
    gpu = space.take("unit_costs", rows)
    scratch = space.take("scratch_a", rows)
    accepted = shared["monthly_accepted_outputs"]
    acc = shared["acceptance_rate"][None, :] if acceptance is None else acceptance
    fail = shared["failure_rate"][None, :] if failure is None else failure
    completed = accepted[None, :] / acc
    attempts = completed / (1.0 - fail)
    if block.path == "api":
        np.multiply(block.col("api_failed_billed"), attempts - completed, out=gpu)
        gpu += completed
        gpu *= block.col("api_per_attempt")
    else:
        assert throughput is not None  # noqa: S101 - GPU paths always carry throughput
        if block.path == "elastic":
            billed = np.multiply(attempts / 3600.0, block.col("gpu_s_numerator"), out=gpu)
            billed /= throughput
            billed /= utilisation_divisor(block, shared, util)
        else:
            peak_rate = shared["peak_to_average"][None, :] * attempts / SECONDS_PER_MONTH
            per_replica = block.col("gpu_s_numerator") / block.col("gpus")
            replicas = np.multiply(peak_rate, per_replica, out=gpu)
            replicas /= throughput
            replicas *= 1.0 - CEIL_RELATIVE_TOLERANCE
            np.ceil(replicas, out=replicas)
            replicas *= block.col("gpus")
            node = block.col("node_gpus")
            if (node > 1).any():
                replicas /= node
                replicas *= 1.0 - CEIL_RELATIVE_TOLERANCE
                np.ceil(replicas, out=replicas)
                replicas *= node
            billed = replicas
            billed *= 730.0
        commitment = block.col("min_commitment_h")
        premium = block.col("overage_premium")
        overage = (premium != 0).any()
        if (commitment > 0).any():
            np.maximum(billed, commitment, out=billed)
        if overage:  # the hours past the commitment at the overage rate (cost.overage_amount)
            np.subtract(billed, commitment, out=scratch)
            scratch *= premium
        billed *= block.col("price")
        if overage:
            billed += scratch
    gpu += block.col("fixed_monthly")
    gpu += np.multiply(block.col("per_accepted"), accepted[None, :], out=scratch)
    per_completed = block.col("per_completed")
    if (per_completed != 0).any():
        gpu += np.multiply(per_completed, completed, out=scratch)
    gpu *= (scale / accepted)[None, :]
    return gpu


def training_unit_costs(
    block: Block, shared: Mapping[str, FloatArray], throughput: FloatArray | None
) -> FloatArray:
    if block.path == "train_measured":
        assert throughput is not None  # noqa: S101 - measured path carries throughput
        tps = throughput
    else:
        tps = block.col("tps_per_mfu") * shared["mfu"][None, :]
    wall = (shared["tokens"] / 3600.0)[None, :] / tps
    wall *= block.col("checkpoint_factor")
    wall *= 1.0 + block.col("failure_factor") / shared["node_mtbf_h"][None, :]
    wall /= shared["utilisation"][None, :]  # GPUs held for wall-clock / utilisation
    gpu = wall * block.col("gpu_per_wall_hour")
    wall *= block.col("per_wall_hour")
    # A term contract is paid in full: the part the run leaves unused (contracts.py)
    wall += np.maximum(block.col("contract_usd") - gpu, 0.0) * block.col("contract_kept")
    accepted = shared["success_probability"]
    if "acceptance_rate" in shared:
        accepted = accepted * shared["acceptance_rate"]
    wall /= accepted[None, :]
    return wall


def blocks(
    consts: Sequence[CandidateConstants], chunk: int
) -> Iterator[tuple[NDArray[np.intp], Block]]:
    """Rows grouped by path (stable order inside a path), cut into chunks of ``chunk`` rows."""
    paths: list[Path] = ["elastic", "fixed", "api", "train_measured", "train_peak"]
    for path in paths:
        rows = [i for i, c in enumerate(consts) if c.path == path]
        for start in range(0, len(rows), chunk):
            part = rows[start : start + chunk]
            yield np.array(part, dtype=np.intp), Block(path, tuple(consts[i] for i in part))
