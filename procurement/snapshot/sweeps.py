"""Which rows get every point of their sweep costed. Pure: no Django.

Costing a sweep's every point takes about as long as costing the row itself again for each
point, and the pages chart only the cheapest rows (the first results page). So, once the
engine has ranked the rows, the `CHARTED_ROWS` cheapest eligible ones (and the recommended
row) get their points costed and frozen with them; the others keep their chosen point only.
"""

from __future__ import annotations

from engine.types import ComparisonOutput
from procurement.snapshot.facts import SWEEP_FACT, CostedPoint, RowFacts, UncostedSweep
from procurement.snapshot.quotes import sweep_costs
from procurement.snapshot.thaw import Thawed

CHARTED_ROWS = 50  # the results page's first page (views.comparisons.RESULTS_PAGE_SIZE)


def charted_point_costs(
    thawed: Thawed, output: ComparisonOutput, *, rows: int | None = None
) -> dict[str, list[CostedPoint]]:
    """Row key → its sweep's points, costed, for the cheapest eligible rows with a sweep."""
    if thawed.input is None:
        return {}
    rows = CHARTED_ROWS if rows is None else rows
    candidates = {c.id: c for c in thawed.input.candidates}
    wanted = {
        o.candidate_id
        for o in output.candidates
        if o.rank_by_unit_cost is not None and o.rank_by_unit_cost <= rows
    }
    if output.recommended_candidate_id:
        wanted.add(output.recommended_candidate_id)
    out = {}
    for key in sorted(wanted):
        facts = thawed.facts.get(key)
        sweep = None if facts is None else facts.get(SWEEP_FACT)
        if sweep is not None and key in candidates:
            out[key] = sweep_costs(thawed.input.workload, candidates[key], sweep)
    return out


def uncosted_sweep(facts: RowFacts) -> UncostedSweep | None:
    """For a row with a sweep whose points were not costed: how many points it has and why
    the page draws no chart for it (the row still says its chosen point). None otherwise."""
    sweep = facts.get(SWEEP_FACT)
    if sweep is None:
        return None
    return {
        "points": len(sweep.points),
        "note": f"points are costed for the first {CHARTED_ROWS} eligible rows",
    }
