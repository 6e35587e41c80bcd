"""Monte Carlo over the ranged assumptions, vectorised over samples and candidates.

Every ranged assumption is triangular(low, likely, high), drawn by inverse CDF from a
uniform ``u`` (docs/domain.md: decide on accepted output *with* its uncertainty)::

    F(likely) = (likely − low) / (high − low)
    x = low  + sqrt(u × (high − low) × (likely − low))          if u < F(likely)
    x = high − sqrt((1 − u) × (high − low) × (high − likely))    otherwise

Random numbers (reproducible from the stored integer seed, never the global np.random):

- every stream is ``Generator(PCG64DXSM(SeedSequence(seed, spawn_key=key)))``;
- a workload assumption ``name`` (volume, acceptance, failure, utilisation, peak-to-average;
  tokens, MFU, node MTBF, success probability for training) is drawn once per sample from
  ``SeedSequence(seed, spawn_key=(0, *sha256(name)))`` and shared by every candidate in that
  sample (common random numbers);
- a candidate's own assumption (throughput ±, its utilisation override) comes from
  ``SeedSequence(seed, spawn_key=(1, *sha256(candidate id), *sha256(name)))``;
- except that throughput and measured acceptance / failure belong to the measurement: a row
  with an ``evidence_key`` draws them from ``(1, *sha256("evidence:" + key), *sha256(name))``,
  so rows on the same benchmark (or the same accelerator + model estimate) move together and
  a dearer offer on identical evidence is never the cheapest;
- a row's measured acceptance / failure replace the shared draws for that row.

So a number depends only on (seed, key, sample index): chunking over candidates, their
order, or adding a candidate never changes another's draws, and the results are
bit-identical whatever the chunk size (every later step is element-wise or per row).

Per sample the unit cost follows cost.py's formulas in float64 without the cent rounding
(volume path, per month)::

    attempts  = accepted / (acceptance × (1 − failure));  completed = accepted / acceptance
    elastic:  gpu = max(attempts × gpu_s / 3600 / utilisation, commitment) × price
    fixed:    gpu = max(ceil(peak × attempts × gpu_s / (gpus × 730 × 3600)) × gpus (→ whole
              nodes for purchase) × 730, commitment) × price
    API:      gpu = attempts × cost per attempt
    unit      = (gpu + fixed monthly + per_accepted × accepted + per_completed × completed)
                × scale / accepted

Training path: ``unit = tokens / tokens_per_s / 3600 × (1 + write_s / (3600 × interval))
× (1 + n × (interval / 2 + restart_h) / node_mtbf_h) × cost_per_wall_hour / utilisation
/ (success_probability × acceptance)`` (n = nodes, or 1 for a per-cluster failure rate).
API rows bill completed + failed_billed × (attempts − completed) attempts; fixed rows fold
the peak headroom, spot rows the interruption rework, into their GPU-seconds.

Outputs per candidate: p10 / p50 / p90 (linear interpolation), mean, and the probability
of being the cheapest eligible candidate in a sample (ties go to the earlier candidate).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from engine import cost
from engine.errors import EngineInputError
from engine.montecarlo.blocks import (
    CEIL_RELATIVE_TOLERANCE,
    SECONDS_PER_MONTH,
    Block,
    Workspace,
    block_unit_costs,
    blocks,
    candidate_matrix,
    prepare_streams,
    unit_scale,
)
from engine.montecarlo.constants import (
    CandidateConstants,
    candidate_constants,
)
from engine.montecarlo.sampling import (
    FloatArray,
    candidate_stream_key,
    check_seed,
    draw,
    shared_stream_key,
    triangular,
    uniforms,
)
from engine.montecarlo.tornado import tornado
from engine.quantiles import row_quantiles as quantiles
from engine.types import (
    CandidateInput,
    CandidateStats,
    MonteCarloResult,
    WorkloadInput,
)

__all__ = [
    "CEIL_RELATIVE_TOLERANCE",
    "SECONDS_PER_MONTH",
    "CandidateConstants",
    "candidate_constants",
    "candidate_stream_key",
    "check_seed",
    "draw",
    "quantiles",
    "shared_stream_key",
    "simulate",
    "tornado",
    "triangular",
    "uniforms",
    "unit_scale",
]

DEFAULT_SAMPLES = 10_000
# Elements per (candidates × samples) block: 2 MB float64 arrays stay in cache and keep the
# peak memory of 1,000 × 10,000 far under 512 MB.
CHUNK_ELEMENTS = 1 << 18


def draw_shared(workload: WorkloadInput, seed: int, samples: int) -> dict[str, FloatArray]:
    return {
        name: draw(r, seed, shared_stream_key(name), samples)
        for name, r in cost.shared_ranges(workload).items()
    }


def _chunk_rows(samples: int, chunk_candidates: int | None) -> int:
    if chunk_candidates is not None:
        if chunk_candidates < 1:
            raise EngineInputError("chunk_candidates", "must be ≥ 1")
        return chunk_candidates
    return max(1, CHUNK_ELEMENTS // samples)


def _iter_unit_costs(
    workload: WorkloadInput,
    candidates: Sequence[CandidateInput],
    *,
    seed: int,
    samples: int,
    chunk_candidates: int | None,
    constants: Sequence[CandidateConstants] | None = None,
) -> Iterator[tuple[NDArray[np.intp], FloatArray, int]]:
    check_seed(seed, samples)
    consts = constants or [candidate_constants(workload, c) for c in candidates]
    shared = draw_shared(workload, seed, samples)
    scale = unit_scale(workload)
    chunk = _chunk_rows(samples, chunk_candidates)
    space = Workspace(min(chunk, len(consts)), samples)
    prepare_streams(space, consts, seed)
    for rows, block in blocks(consts, chunk):
        thr = candidate_matrix(
            block, "throughput_per_replica", "throughput", seed, samples, None, workspace=space
        )
        util = None
        if block.path in ("elastic",) and any(c.utilisation is not None for c in block.consts):
            util = candidate_matrix(
                block,
                "utilisation",
                "utilisation",
                seed,
                samples,
                shared["utilisation"],
                workspace=space,
            )
        acc, fail = rates_of(block, shared, seed, samples, workspace=space)
        values = block_unit_costs(block, shared, scale, thr, util, acc, fail, workspace=space)
        yield rows, values, len(consts)


def rates_of(
    block: Block,
    shared: Mapping[str, FloatArray],
    seed: int,
    samples: int,
    *,
    workspace: Workspace | None = None,
) -> tuple[FloatArray | None, FloatArray | None]:
    """(C, S) acceptance and failure where a row carries measured ones (None: all shared)."""
    out: list[FloatArray | None] = []
    for name, attr in (("acceptance_rate", "acceptance"), ("failure_rate", "failure")):
        if block.path.startswith("train") or all(getattr(c, attr) is None for c in block.consts):
            out.append(None)
            continue
        out.append(
            candidate_matrix(block, name, attr, seed, samples, shared[name], workspace=workspace)
        )
    return out[0], out[1]


def sample_unit_costs(
    workload: WorkloadInput,
    candidates: Sequence[CandidateInput],
    *,
    seed: int,
    samples: int = DEFAULT_SAMPLES,
    chunk_candidates: int | None = None,
) -> FloatArray:
    """The full (candidates × samples) matrix of unit costs; for tests and small inputs."""
    out = np.empty((len(candidates), samples))
    for rows, values, _ in _iter_unit_costs(
        workload, candidates, seed=seed, samples=samples, chunk_candidates=chunk_candidates
    ):
        out[rows] = values
    return out


def _track_cheapest(
    values: FloatArray, rows: NDArray[np.intp], best_val: FloatArray, best_idx: NDArray[np.intp]
) -> None:
    """Fold one chunk into the per-sample cheapest (value, row); ties go to the earlier row.

    Only samples where the chunk can win (its minimum ≤ the best so far) need the chunk's
    argmin, which costs seven times its min: after the first chunks these are few."""
    chunk_min = values.min(axis=0)
    contested = chunk_min <= best_val
    if contested.all():
        cols: slice | NDArray[np.intp] = slice(None)
        chunk_idx = rows[values.argmin(axis=0)]
    else:
        cols = np.flatnonzero(contested)
        if not len(cols):
            return
        chunk_idx = rows[values[:, cols].argmin(axis=0)]
        chunk_min = chunk_min[cols]
    val, idx = best_val[cols], best_idx[cols]
    better = (chunk_min < val) | ((chunk_min == val) & (chunk_idx < idx))
    best_val[cols] = np.where(better, chunk_min, val)
    best_idx[cols] = np.where(better, chunk_idx, idx)


def simulate(
    workload: WorkloadInput,
    candidates: Sequence[CandidateInput],
    *,
    seed: int,
    samples: int = DEFAULT_SAMPLES,
    chunk_candidates: int | None = None,
    progress: Callable[[float], None] | None = None,
    constants: Sequence[CandidateConstants] | None = None,
) -> MonteCarloResult:
    """p10/p50/p90, mean and probability of being cheapest for each candidate (in order)."""
    n = len(candidates)
    pct = np.empty((n, 3))
    mean = np.empty(n)
    best_val = np.full(samples, np.inf)
    best_idx = np.full(samples, n, dtype=np.intp)
    check_seed(seed, samples)
    done = 0
    # Sized for the largest chunk, not the first: chunks are cut per cost path, so a path
    # with few rows (one GPU quote) may come before a longer one (several API routes).
    sort_space = Workspace(max(1, min(_chunk_rows(samples, chunk_candidates), n)), samples)
    for rows, values, _ in _iter_unit_costs(
        workload,
        candidates,
        seed=seed,
        samples=samples,
        chunk_candidates=chunk_candidates,
        constants=constants,
    ):
        pct[rows] = quantiles(values, (0.1, 0.5, 0.9), scratch=sort_space.take("sort", len(rows)))
        mean[rows] = values.mean(axis=1)
        _track_cheapest(values, rows, best_val, best_idx)
        done += len(rows)
        if progress is not None:
            progress(done / n)
    wins = np.bincount(best_idx, minlength=n + 1)[:n] / samples
    names = [*cost.shared_ranges(workload)]
    for cand in candidates:
        names += [f"{cand.id}:{k}" for k in cost.candidate_ranges(workload, cand)]
    stats = tuple(
        CandidateStats(
            candidate_id=c.id,
            p10=float(pct[i, 0]),
            p50=float(pct[i, 1]),
            p90=float(pct[i, 2]),
            mean=float(mean[i]),
            prob_cheapest=float(wins[i]),
        )
        for i, c in enumerate(candidates)
    )
    return MonteCarloResult(seed=seed, samples=samples, assumptions=tuple(names), stats=stats)
