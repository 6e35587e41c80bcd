"""The tornado: swing of the recommended candidate's unit cost as each range goes low → high.

Every other assumption stays at its likely value; "flips" says whether another candidate
becomes the cheapest at either end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from procurement.engine import cost
from procurement.engine.mc_blocks import block_unit_costs, blocks, unit_scale
from procurement.engine.mc_constants import CandidateConstants, candidate_constants
from procurement.engine.sampling import FloatArray
from procurement.engine.types import CandidateInput, Range, Tornado, TornadoEntry, WorkloadInput

_OWN = {
    "throughput_per_replica": "throughput",
    "utilisation": "utilisation",
    "acceptance_rate": "acceptance",
    "failure_rate": "failure",
}


def _unit_costs_at(
    workload: WorkloadInput,
    consts: Sequence[CandidateConstants],
    shared: Mapping[str, FloatArray],
    overrides: Mapping[str, Mapping[int, FloatArray]],
) -> FloatArray:
    """Unit costs (C, S) at explicit values (likely unless overridden) — for the tornado.

    A row's own range (throughput, utilisation, measured acceptance/failure) sits at its
    likely value; ``overrides[name][row]`` replaces it."""
    samples = len(next(iter(shared.values())))
    scale = unit_scale(workload)
    out = np.empty((len(consts), samples))
    for rows, block in blocks(consts, max(1, len(consts))):
        values: dict[str, FloatArray] = {}
        for name, attr in _OWN.items():
            default = shared.get(name, np.full(samples, np.nan))
            mat = np.repeat(default[None, :], len(rows), axis=0)
            for j, i in enumerate(rows.tolist()):
                own = getattr(block.consts[j], attr)
                if own is not None:
                    mat[j] = own.likely
                if i in overrides.get(name, {}):
                    mat[j] = overrides[name][i]
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
    base = _unit_costs_at(workload, consts, {k: v[:1] for k, v in likely.items()}, {})
    trials: list[tuple[str, Range, FloatArray]] = []
    for name, r in ranges.items():
        if r.is_fixed:
            continue
        shared = dict(likely)
        shared[name] = np.array([r.low, r.high])
        trials.append((name, r, _unit_costs_at(workload, consts, shared, {})))
    own = cost.candidate_ranges(workload, candidates[rec])
    for name, r in own.items():
        if r.is_fixed:
            continue
        over = {name: {rec: np.array([r.low, r.high])}}
        trials.append(
            (f"{recommended_id}:{name}", r, _unit_costs_at(workload, consts, likely, over))
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
