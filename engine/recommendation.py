"""The recommendation, and what it must say in words.

- A row serving another model than the brief's (``model_substitution``) is never the
  recommended row unless the brief allows substitution or an evaluation of the brief's own
  acceptance test is attached (``substitution_allowed``); the next eligible row is.
- The recommendation says when it is a **statistical tie** with the runner-up (overlapping
  p10–p90 and P(cheapest) below ``TIE_PROBABILITY``), when it is **estimated while the
  runner-up is measured**, when it is a **substitution**, and when **no GPU offer meets a
  latency target** ("closest: 612 ms against 500 ms").
- ``latency_verdict`` never reads "meets" unless the figure was measured on this workload:
  an estimated or stated figure within the target reads "within target (estimated)".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.cost import contracts
from engine.evidence import EVIDENCE_KINDS
from engine.types import CandidateInput, CandidateStats, WorkloadInput
from engine.warnings import latency_status

TIE_PROBABILITY = 0.8


def why_not_recommended(workload: WorkloadInput, cand: CandidateInput) -> str:
    """Why an eligible row may not be the recommendation ("": it may): a model the brief
    does not allow, or spot alone under a real-time service's latency targets (P4)."""
    if cand.model_substitution and not cand.substitution_allowed:
        return f"{cand.model_substitution}; the brief does not allow model substitution"
    return contracts.spot_alone_reason(workload, cand) or ""


def recommendable(workload: WorkloadInput, cand: CandidateInput) -> bool:
    return not why_not_recommended(workload, cand)


def pick(workload: WorkloadInput, by_unit: Sequence[CandidateInput]) -> str | None:
    """The cheapest eligible row that may be recommended (see ``why_not_recommended``)."""
    return next((c.id for c in by_unit if recommendable(workload, c)), None)


def latency_verdict(workload: WorkloadInput, cand: CandidateInput) -> str:
    """'meets (measured)', 'misses', 'within target (estimated)', 'unmeasured' or ''."""
    if not workload.has_latency_targets:
        return ""
    status = latency_status(workload, cand)
    if status is False:
        return "misses the target"
    if status is None:
        return "unmeasured"
    if cand.latency_source == "measured":
        return "meets (measured)"
    source = "stated by the provider" if cand.is_api else "estimated"
    return f"within target ({source}, not measured)"


def evidence_words(cand: CandidateInput) -> str:
    if cand.is_api:
        return "provider's model API"
    head = cand.perf_source if cand.perf_source in EVIDENCE_KINDS else "estimated"
    detail = cand.evidence_detail
    if detail.startswith(head):  # "published · MLPerf Inference v4.1 · …" names its kind
        return detail
    return f"{head}: {detail}" if detail else head


def _overlap(a: CandidateStats, b: CandidateStats) -> bool:
    return a.p10 <= b.p90 and b.p10 <= a.p90


def _closest(workload: WorkloadInput, candidates: Sequence[CandidateInput]) -> list[str]:
    out: list[str] = []
    gpus = [c for c in candidates if not c.is_api]
    if not gpus:
        return out
    for name, target, attr in (
        ("TTFT p95", workload.ttft_p95_target_ms, "p95_ttft_ms"),
        ("ITL p95", workload.itl_p95_target_ms, "itl_p95_ms"),
        ("end-to-end p99", workload.e2e_p99_target_ms, "p99_e2e_ms"),
    ):
        if target is None:
            continue
        figures = [(getattr(c, attr), c) for c in gpus if getattr(c, attr) is not None]
        if not figures or any(v <= target for v, _ in figures):
            continue
        value, best = min(figures, key=lambda pair: pair[0])
        out.append(
            f"no GPU offer meets {name} {target:,.0f} ms; closest: {value:,.0f} ms against "
            f"{target:,.0f} ms ({best.label})"
        )
    return out


def notes(
    workload: WorkloadInput,
    candidates: Sequence[CandidateInput],
    by_unit: Sequence[CandidateInput],
    recommended: str | None,
    stats: Mapping[str, CandidateStats],
) -> tuple[str, ...]:
    """What the recommendation must say in words (see the module docstring)."""
    out: list[str] = []
    skipped = [c for c in by_unit if not recommendable(workload, c)]
    if recommended is None:
        if skipped:
            out.append(
                f"the cheapest eligible row {skipped[0].label} is not recommended: "
                f"{why_not_recommended(workload, skipped[0])}"
            )
        return tuple(out + _closest(workload, candidates))
    rec = next(c for c in by_unit if c.id == recommended)
    if skipped and by_unit.index(skipped[0]) < by_unit.index(rec):
        out.append(
            f"{skipped[0].label} is cheaper but not recommended: "
            f"{why_not_recommended(workload, skipped[0])}"
        )
    if rec.model_substitution:
        out.append(f"recommended row is a different model: {rec.model_substitution}")
    runner = next((c for c in by_unit if c.id != rec.id and recommendable(workload, c)), None)
    a, b = stats.get(rec.id), stats.get(runner.id) if runner else None
    if (
        runner is not None
        and a is not None
        and b is not None
        and _overlap(a, b)
        and a.prob_cheapest < TIE_PROBABILITY
    ):
        out.append(
            f"effectively tied with {runner.label}: p10–p90 bands overlap "
            f"({a.p10:,.4g}–{a.p90:,.4g} against {b.p10:,.4g}–{b.p90:,.4g}) and "
            f"P(cheapest) is {a.prob_cheapest:.0%}"
        )
    rec_unmeasured = not rec.is_api and rec.perf_source != "measured"
    if runner is not None and rec_unmeasured and runner.perf_source == "measured":
        out.append(
            f"the recommended row's throughput is {rec.perf_source} while the runner-up "
            f"{runner.label} is measured: the measured one carries less risk"
        )
    return tuple(out + _closest(workload, candidates))
