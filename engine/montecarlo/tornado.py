"""The tornado: swing of the recommended candidate's unit cost as each range goes low → high.

Every other assumption stays at its likely value; "flips" says whether another candidate
becomes the cheapest at either end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from engine import cost
from engine.montecarlo.blocks import DRAWN_RANGES, Block, block_unit_costs, blocks, unit_scale
from engine.montecarlo.constants import CandidateConstants, candidate_constants
from engine.montecarlo.sampling import FloatArray
from engine.types import CandidateInput, Range, Tornado, TornadoEntry, WorkloadInput

_OWN = dict(DRAWN_RANGES)


def _own_likely(consts: Sequence[CandidateConstants], attr: str) -> FloatArray:
    """(N,) each row's own likely value of ``attr``; NaN where the row has no own range."""
    return np.array(
        [np.nan if (r := getattr(c, attr)) is None else r.likely for c in consts], dtype=float
    )


def _unit_costs_at(
    scale: float,
    parts: Sequence[tuple[NDArray[np.intp], Block]],
    own: Mapping[str, FloatArray],
    shared: Mapping[str, FloatArray],
    overrides: Mapping[str, Mapping[int, FloatArray]],
) -> FloatArray:
    """Unit costs (C, S) at explicit values (likely unless overridden) — for the tornado.

    A row's own range (throughput, utilisation, measured acceptance/failure) sits at its
    likely value (``own``); ``overrides[name][row]`` replaces it. ``parts`` are built once
    per tornado so that each block's constant columns are gathered once, not per trial."""
    samples = len(next(iter(shared.values())))
    rows_total = len(next(iter(own.values())))
    out = np.empty((rows_total, samples))
    for rows, block in parts:
        values: dict[str, FloatArray] = {}
        for name in _OWN:
            default = shared.get(name, np.full(samples, np.nan))
            likely = own[name][rows]
            mat = np.where(np.isnan(likely)[:, None], default[None, :], likely[:, None])
            for i, value in overrides.get(name, {}).items():
                at = np.flatnonzero(rows == i)
                if at.size:
                    mat[at[0]] = value
            values[name] = mat
        out[rows] = block_unit_costs(
            block,
            shared,
            scale,
            values["throughput_per_replica"],
            values["utilisation"],
            values["acceptance_rate"] if "acceptance_rate" in shared else None,
            values["failure_rate"] if "failure_rate" in shared else None,
        )
    return out


def tornado(
    workload: WorkloadInput,
    candidates: Sequence[CandidateInput],
    *,
    recommended_id: str,
    unit_label: str,
    constants: Sequence[CandidateConstants] | None = None,
) -> Tornado:
    """Swing of the recommended candidate's unit cost as each range goes low → high."""
    consts = constants or [candidate_constants(workload, c) for c in candidates]
    ids = [c.id for c in candidates]
    rec = ids.index(recommended_id)
    ranges = cost.shared_ranges(workload)
    likely = {name: np.full(2, r.likely) for name, r in ranges.items()}
    scale = unit_scale(workload)
    parts = list(blocks(consts, max(1, len(consts))))
    own_likely = {name: _own_likely(consts, attr) for name, attr in _OWN.items()}
    base = _unit_costs_at(scale, parts, own_likely, {k: v[:1] for k, v in likely.items()}, {})
    trials: list[tuple[str, Range, FloatArray]] = []
    for name, r in ranges.items():
        if r.is_fixed:
            continue
        shared = dict(likely)
        shared[name] = np.array([r.low, r.high])
        trials.append((name, r, _unit_costs_at(scale, parts, own_likely, shared, {})))
    own = cost.candidate_ranges(workload, candidates[rec])
    for name, r in own.items():
        if r.is_fixed:
            continue
        over = {name: {rec: np.array([r.low, r.high])}}
        trials.append(
            (f"{recommended_id}:{name}", r, _unit_costs_at(scale, parts, own_likely, likely, over))
        )
    entries = []
    for name, r, values in trials:
        winners = values.argmin(axis=0)
        entries.append(
            TornadoEntry(
                assumption=name,
                low_value=r.low,
                high_value=r.high,
                unit_cost_at_low=float(values[rec, 0]),
                unit_cost_at_high=float(values[rec, 1]),
                swing=float(abs(values[rec, 1] - values[rec, 0])),
                recommended_at_low=ids[int(winners[0])],
                recommended_at_high=ids[int(winners[1])],
                flips=bool(winners[0] != rec or winners[1] != rec),
            )
        )
    entries.sort(key=lambda e: (-e.swing, e.assumption))
    return Tornado(
        candidate_id=recommended_id,
        baseline_unit_cost=float(base[rec, 0]),
        unit_label=unit_label,
        entries=tuple(entries),
    )
