"""Snapshot → the engine's `ComparisonInput` and each candidate's row facts. Pure: no Django.

`thaw(snapshot)` is a function of the snapshot alone (no clock, no database), so running the
engine on it with the stored seed reproduces the stored rows exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from engine.types import CandidateInput, ComparisonInput
from procurement.snapshot.context import Context, quote_key, route_key
from procurement.snapshot.facts import RowFacts
from procurement.snapshot.quotes import quote_candidate
from procurement.snapshot.routes import route_candidate
from procurement.snapshot.schema import Snapshot
from procurement.snapshot.upgrade import upgrade
from procurement.snapshot.workload import workload_input

# What building one candidate gives: the engine's input (None: not costable), the row's
# facts, and why it was not costed.
Built = tuple[CandidateInput | None, RowFacts, list[str]]


@dataclass
class Thawed:
    """The engine input (None when no candidate could be built) and every candidate's facts."""

    input: ComparisonInput | None
    facts: dict[str, RowFacts] = field(default_factory=dict)  # snapshot/facts.py
    rejected: dict[str, list[str]] = field(default_factory=dict)  # key → why it was not costed
    order: list[str] = field(default_factory=list)


def thaw(
    stored: Mapping[str, object], *, progress: Callable[[float], None] | None = None
) -> Thawed:
    """Build the workload and candidates; raises EngineInputError for a bad workload.

    `stored` is the snapshot as saved, in any format ever written: it is upgraded to the
    current one first (upgrade.py), so everything below reads one shape."""
    snapshot = upgrade(stored)
    workload = workload_input(snapshot)
    ctx = Context(snapshot, workload)
    out = Thawed(input=None)
    candidates: list[CandidateInput] = []
    total = len(snapshot["quotes"]) + len(snapshot["api_routes"])
    for index, (key, (cand, facts, rejected)) in enumerate(_built(ctx, snapshot)):
        out.order.append(key)
        out.facts[key] = facts
        if cand is None:
            out.rejected[key] = rejected
        else:
            candidates.append(cand)
        if progress is not None and index % 25 == 0:
            progress(index / max(1, total))
    if candidates:
        out.input = ComparisonInput(
            workload=workload,
            candidates=tuple(candidates),
            base_currency=snapshot["base_currency"],
        )
    return out


def _built(ctx: Context, snapshot: Snapshot) -> Iterator[tuple[str, Built]]:
    """Each GPU quote, then each API route, built one at a time (progress is reported)."""
    for quote in snapshot["quotes"]:
        yield quote_key(quote["id"]), quote_candidate(ctx, quote)
    for route in snapshot["api_routes"]:
        yield route_key(route["id"]), route_candidate(ctx, route)
