"""Snapshot → the engine's `ComparisonInput` and each candidate's row facts. Pure: no Django.

`thaw(snapshot)` is a function of the snapshot alone (no clock, no database), so running the
engine on it with the stored seed reproduces the stored rows exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.types import CandidateInput, ComparisonInput
from procurement.snapshot.context import Context, quote_key, route_key
from procurement.snapshot.quotes import quote_candidate
from procurement.snapshot.routes import route_candidate
from procurement.snapshot.workload import workload_input


@dataclass
class Thawed:
    """The engine input (None when no candidate could be built) and every candidate's facts."""

    input: ComparisonInput | None
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)
    rejected: dict[str, list[str]] = field(default_factory=dict)  # key → why it was not costed
    order: list[str] = field(default_factory=list)


def thaw(snapshot: dict[str, Any], *, progress: Callable[[float], None] | None = None) -> Thawed:
    """Build the workload and candidates; raises EngineInputError for a bad workload."""
    workload = workload_input(snapshot)
    ctx = Context(snapshot, workload)
    out = Thawed(input=None)
    candidates: list[CandidateInput] = []
    rows = [("quote", q) for q in snapshot["quotes"]] + [("api", r) for r in snapshot["api_routes"]]
    for index, (kind, row) in enumerate(rows):
        if kind == "quote":
            key = quote_key(row["id"])
            cand, facts, rejected = quote_candidate(ctx, row)
        else:
            key = route_key(row["id"])
            cand, facts, rejected = route_candidate(ctx, row)
        out.order.append(key)
        out.facts[key] = facts
        if cand is None:
            out.rejected[key] = rejected
        else:
            candidates.append(cand)
        if progress is not None and index % 25 == 0:
            progress(index / max(1, len(rows)))
    if candidates:
        out.input = ComparisonInput(
            workload=workload,
            candidates=tuple(candidates),
            base_currency=snapshot["base_currency"],
        )
    return out
