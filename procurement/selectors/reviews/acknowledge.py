"""The warnings an approver accepts one by one before approving (U8): an approval of a row, or
of a plan across offers, whose recommendation carries a named warning needs an acknowledgement
of each, ticked in the decision bar or listed in the API's `acknowledge`; the audit trail keeps
what was acknowledged. A policy exception turned into a required tick, as Coupa and Zip do.

- PERF_ESTIMATED: no measured evidence, the throughput and latency are estimates;
- SPOT_FOR_REALTIME: spot capacity, which can be reclaimed, for a real-time service;
- PERF_PROXY: the throughput comes from a proxy benchmark (another shape or model).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from procurement.models import CandidateResult

ESTIMATED = "PERF_ESTIMATED"
SPOT_FOR_REALTIME = "SPOT_FOR_REALTIME"
PROXY = "PERF_PROXY"
WORDS = {
    ESTIMATED: "No measured evidence: the throughput and latency are estimates",
    SPOT_FOR_REALTIME: "Spot capacity, which can be reclaimed at any time, for a real-time service",
    PROXY: "Proxy evidence: the throughput was measured on another shape or model",
}
CODES = tuple(WORDS)


@dataclass(frozen=True, slots=True)
class Acknowledgement:
    code: str
    rows: tuple[str, ...]  # the labels of the rows that carry it

    @property
    def words(self) -> str:
        return f"{WORDS[self.code]} ({'; '.join(self.rows)})"


def _codes(row: CandidateResult) -> list[str]:
    stated = {w.get("code") for w in row.warnings or [] if isinstance(w, dict)}
    gpu = row.kind == CandidateResult.Kind.GPU
    found = []
    if gpu and (row.perf_source == "estimated" or ESTIMATED in stated):
        found.append(ESTIMATED)
    if SPOT_FOR_REALTIME in stated:
        found.append(SPOT_FOR_REALTIME)
    if gpu and (row.perf_source == "proxy" or PROXY in stated):
        found.append(PROXY)
    return found


def acknowledgements(rows: Iterable[CandidateResult]) -> list[Acknowledgement]:
    """What approving these rows (one row, or each vendor's part of a plan) asks to accept."""
    by_code: dict[str, list[str]] = {}
    for row in rows:
        for code in _codes(row):
            by_code.setdefault(code, []).append(row.label)
    return [Acknowledgement(code, tuple(by_code[code])) for code in CODES if code in by_code]
