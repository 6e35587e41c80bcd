"""Warnings as values, one stable code per problem (docs/domain.md, "Six common mistakes").

Each warning is ``EngineWarning(code, candidate_id, detail, severity)``; ``block`` means the
candidate is ineligible (it stays in the output, with the detail as its reason, and no rank).

| code | when | severity |
|---|---|---|
| MEMORY_DOES_NOT_FIT | the model + KV cache + headroom does not fit the replica | block |
| FIT_ONLY_AT_AVERAGE_CONTEXT | fits at average context, not at p95 context | warn |
| HEADROOM_BELOW_MARGIN | memory headroom under the brief's safety margin | warn |
| WEAK_INTERCONNECT | multi-GPU below the intra-node, or multi-node below the fabric, bar | warn |
| NO_ACCEPTANCE_DATA | performance evidence without accepted-output data | warn |
| NO_PLATFORM_LABOR | self-managed GPUs with no platform labour counted | warn |
| COMMITMENT_EXCEEDS_MODEL_CHURN | term (or hardware life) longer than the expected churn | warn |
| STALE_QUOTE | quote older than the stale threshold (default 30 days) | warn |
| FX_MISSING | the quote's currency has no FX rate: never silently converted | block |
| PERF_ESTIMATED | throughput is a roofline estimate, not a measurement | warn |
| CHECKLIST_BELOW_COMMITMENT | checklist evidence short of what the commitment needs | block |
| LATENCY_TARGET_UNMET | p95 TTFT, p95 ITL or p99 end-to-end above target | block |
| LATENCY_UNMEASURED | latency targets set, figures missing or only estimated | warn |
| DATA_BOUNDARY_VIOLATED | region/residency/private endpoint outside the brief | block |
| CHEAPEST_HOURLY_NOT_CHEAPEST_OUTPUT | lowest hourly price, not lowest unit cost | warn |
| TERM_OUTLASTS_USE | the contract outlasts the run or the horizon (commitment.py) | warn |
| TERM_NOT_STATED | fixed capacity states no term: the horizon is counted (commitment.py) | warn |
| STORAGE_NOT_PRICED | the brief needs storage but the row has no storage price | warn |
| PERF_PROXY | throughput from a proxy benchmark (other shape, or same family/size) | warn |
| PERF_PUBLISHED | throughput from a published result (MLPerf), not the team's measurement | info |
| MODEL_SUBSTITUTION | the route or offer serves another model than the brief's | warn |
| PRICE_FAR_FROM_MARKET | price far from the market, confirmed at entry | block if vendor-only |

FIT_ONLY_AT_AVERAGE_CONTEXT also fires when the fit holds at the brief's p95 input + output
but not at its full context window (``fits_at_context_window`` False).

Interconnect bars when the brief gives none (GB/s per GPU): training and full fine-tuning
300 inside a node and 50 across nodes (NVLink-class; 400 Gb/s InfiniBand per GPU);
other classes 100 and 25.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from enum import StrEnum

from core import workloads
from engine.types import CandidateInput, EngineWarning, Severity, WorkloadInput

__all__ = [
    "EngineWarning",
    "WarningCode",
    "candidate_warnings",
    "cheapest_hourly_warning",
    "interconnect_bars",
    "latency_status",
]


class WarningCode(StrEnum):
    MEMORY_DOES_NOT_FIT = "MEMORY_DOES_NOT_FIT"
    FIT_ONLY_AT_AVERAGE_CONTEXT = "FIT_ONLY_AT_AVERAGE_CONTEXT"
    HEADROOM_BELOW_MARGIN = "HEADROOM_BELOW_MARGIN"
    WEAK_INTERCONNECT = "WEAK_INTERCONNECT"
    NO_ACCEPTANCE_DATA = "NO_ACCEPTANCE_DATA"
    NO_PLATFORM_LABOR = "NO_PLATFORM_LABOR"
    COMMITMENT_EXCEEDS_MODEL_CHURN = "COMMITMENT_EXCEEDS_MODEL_CHURN"
    STALE_QUOTE = "STALE_QUOTE"
    FX_MISSING = "FX_MISSING"
    PERF_ESTIMATED = "PERF_ESTIMATED"
    CHECKLIST_BELOW_COMMITMENT = "CHECKLIST_BELOW_COMMITMENT"
    LATENCY_TARGET_UNMET = "LATENCY_TARGET_UNMET"
    LATENCY_UNMEASURED = "LATENCY_UNMEASURED"
    DATA_BOUNDARY_VIOLATED = "DATA_BOUNDARY_VIOLATED"
    CHEAPEST_HOURLY_NOT_CHEAPEST_OUTPUT = "CHEAPEST_HOURLY_NOT_CHEAPEST_OUTPUT"
    TERM_OUTLASTS_USE = "TERM_OUTLASTS_USE"
    TERM_NOT_STATED = "TERM_NOT_STATED"
    STORAGE_NOT_PRICED = "STORAGE_NOT_PRICED"
    PERF_PROXY = "PERF_PROXY"
    PERF_PUBLISHED = "PERF_PUBLISHED"
    MODEL_SUBSTITUTION = "MODEL_SUBSTITUTION"
    PRICE_FAR_FROM_MARKET = "PRICE_FAR_FROM_MARKET"


def interconnect_bars(workload: WorkloadInput) -> tuple[float, float]:
    """(intra-node, inter-node) GB/s per GPU below which multi-GPU work is flagged."""
    heavy = workload.workload_class in workloads.TRAINING_RUN
    intra = workload.min_interconnect_gbps
    fabric = workload.min_fabric_gbps
    return (
        intra if intra is not None else (300.0 if heavy else 100.0),
        fabric if fabric is not None else (50.0 if heavy else 25.0),
    )


def latency_checks(
    workload: WorkloadInput, cand: CandidateInput
) -> list[tuple[str, float, float | None]]:
    """(name, target, figure) for each latency target the brief sets, in the brief's order."""
    return [
        (name, target, figure)
        for name, target, figure in (
            ("TTFT p95", workload.ttft_p95_target_ms, cand.p95_ttft_ms),
            ("ITL p95", workload.itl_p95_target_ms, cand.itl_p95_ms),
            ("E2E p99", workload.e2e_p99_target_ms, cand.p99_e2e_ms),
        )
        if target is not None
    ]


def latency_status(workload: WorkloadInput, cand: CandidateInput) -> bool | None:
    """True/False when the figures settle it against the targets; None when unknown."""
    if cand.latency_met is not None:
        return cand.latency_met
    checks = latency_checks(workload, cand)
    if any(actual is not None and actual > target for _, target, actual in checks):
        return False
    if any(actual is None for _, _, actual in checks):
        return None
    return True


def _unmeasured_detail(workload: WorkloadInput, cand: CandidateInput) -> str:
    """Which target the row cannot be checked on: a measured TTFT does not vouch for the
    ITL or end-to-end target the benchmark file has no figure for; an estimate names every
    figure it stands in for, so an estimated ITL reads as estimated just as TTFT does."""
    checks = latency_checks(workload, cand)
    missing = [name for name, _, actual in checks if actual is None]
    if cand.latency_source == "measured" and missing:
        return (
            f"latency against the target is not measured: the benchmark has no "
            f"{' or '.join(missing)} figure, so that target is not checked"
        )
    if cand.latency_source == "estimated":
        estimated = [name for name, _, actual in checks if actual is not None]
        detail = "latency against the target is not measured"
        if estimated:
            detail += f": {' and '.join(estimated)} estimated, not measured"
        if missing:
            detail += f"; no {' or '.join(missing)} figure"
        return detail
    return "latency against the target is not measured"


def _speed(gbps: float | None) -> str:
    return "unknown" if gbps is None else f"{gbps:g} GB/s"


def _commitment_months(cand: CandidateInput) -> int:
    if cand.capacity_model == "purchase" and cand.purchase is not None:
        return max(cand.term_months, cand.purchase.life_months)
    return cand.term_months


def candidate_warnings(workload: WorkloadInput, cand: CandidateInput) -> tuple[EngineWarning, ...]:
    """Warnings that follow from one candidate's facts (ranking ones come later)."""
    out: list[EngineWarning] = []

    def add(code: WarningCode, detail: str, severity: Severity = "warn") -> None:
        out.append(
            EngineWarning(code=code.value, candidate_id=cand.id, detail=detail, severity=severity)
        )

    gpu = not cand.is_api
    if not cand.fits:
        add(
            WarningCode.MEMORY_DOES_NOT_FIT,
            "weights, KV cache and runtime headroom do not fit "
            f"in {cand.gpus_per_replica} GPU(s) per replica",
            "block",
        )
    else:
        if gpu and not cand.fits_at_p95_context:
            add(
                WarningCode.FIT_ONLY_AT_AVERAGE_CONTEXT,
                "fits at average context only; p95 inputs or production concurrency will not fit",
            )
        elif gpu and cand.fits_at_context_window is False:
            add(
                WarningCode.FIT_ONLY_AT_AVERAGE_CONTEXT,
                "fits at the brief's p95 input + output, not at its full context window: "
                "conversations that reach the window will not fit",
            )
        margin = workload.headroom_margin_pct
        if gpu and cand.headroom_pct is not None and cand.headroom_pct < margin:
            add(
                WarningCode.HEADROOM_BELOW_MARGIN,
                f"memory headroom {cand.headroom_pct:.1f}% is "
                f"under the {margin:.1f}% margin for spikes and fragmentation",
            )
    if gpu and (cand.gpus_per_replica > 1 or cand.crosses_nodes):
        intra_bar, fabric_bar = interconnect_bars(workload)
        fabric, intra = cand.fabric_gbps, cand.interconnect_gbps
        if cand.crosses_nodes and (fabric is None or fabric < fabric_bar):
            add(
                WarningCode.WEAK_INTERCONNECT,
                f"the replica crosses nodes over a {_speed(fabric)} fabric "
                f"per GPU (needs ≥ {fabric_bar:g} GB/s for this workload)",
            )
        elif cand.gpus_per_replica > 1 and (intra is None or intra < intra_bar):
            add(
                WarningCode.WEAK_INTERCONNECT,
                f"{cand.gpus_per_replica} GPUs per replica over "
                f"a {_speed(intra)} interconnect per GPU (needs ≥ {intra_bar:g} GB/s)",
            )
    if not cand.has_acceptance_data:
        add(
            WarningCode.NO_ACCEPTANCE_DATA,
            "no acceptance data: the cost assumes the brief's "
            "acceptance rate, not measured accepted outputs",
        )
    if (
        gpu
        and cand.self_managed
        and (workload.platform_labor_fte <= 0 or workload.loaded_monthly_cost_per_fte <= Decimal(0))
    ):
        add(
            WarningCode.NO_PLATFORM_LABOR,
            "self-managed GPUs but no platform labour counted: "
            "someone runs drivers, CUDA, serving, autoscaling and incidents",
        )
    months = _commitment_months(cand)
    if months > workload.expected_model_churn_months:
        add(
            WarningCode.COMMITMENT_EXCEEDS_MODEL_CHURN,
            f"{months}-month commitment outlives "
            f"the expected model churn of {workload.expected_model_churn_months} months",
        )
    stale = cand.quote_stale
    if stale is None and cand.quote_age_days is not None:
        stale = cand.quote_age_days > workload.stale_quote_days
    if stale:
        age = "" if cand.quote_age_days is None else f" ({cand.quote_age_days:g} days old)"
        add(WarningCode.STALE_QUOTE, f"quote is stale{age}: re-verify the price")
    if not cand.fx_available:
        add(WarningCode.FX_MISSING, "no FX rate for the quote's currency; not converted", "block")
    if gpu and cand.perf_source == "estimated":
        add(WarningCode.PERF_ESTIMATED, "throughput is an estimate, not a measured benchmark")
    if gpu and cand.perf_source == "published":
        add(
            WarningCode.PERF_PUBLISHED,
            "throughput from a published result, not measured by the team: "
            + (cand.evidence_detail or "a public benchmark submission"),
            "info",
        )
    if gpu and cand.perf_source == "proxy":
        add(
            WarningCode.PERF_PROXY,
            cand.evidence_detail or "throughput from a proxy benchmark, not this workload",
        )
    if cand.model_substitution:
        allowed = " (the brief allows substitution)" if cand.substitution_allowed else ""
        add(
            WarningCode.MODEL_SUBSTITUTION,
            f"{cand.model_substitution}: quality is not equivalent{allowed}",
        )
    if cand.price_far_from_market:
        if cand.price_far_unverified:
            add(
                WarningCode.PRICE_FAR_FROM_MARKET,
                f"{cand.price_far_from_market} Only the vendor confirmed it: procurement must "
                "verify it (a quote entered by staff) before it can be recommended",
                "block",
            )
        else:
            add(
                WarningCode.PRICE_FAR_FROM_MARKET,
                f"{cand.price_far_from_market} Confirmed by procurement at entry",
            )
    if not cand.checklist_complete:
        add(
            WarningCode.CHECKLIST_BELOW_COMMITMENT,
            "procurement checklist evidence is short of what "
            f"{_capacity_phrase(cand.capacity_model)} needs",
            "block",
        )
    latency = latency_status(workload, cand)
    if latency is False:
        add(
            WarningCode.LATENCY_TARGET_UNMET,
            "misses the latency target (p95 TTFT, p95 ITL or p99 end-to-end)",
            "block",
        )
    elif workload.has_latency_targets and (latency is None or cand.latency_source != "measured"):
        add(WarningCode.LATENCY_UNMEASURED, _unmeasured_detail(workload, cand))
    if not cand.data_boundary_ok:
        add(
            WarningCode.DATA_BOUNDARY_VIOLATED,
            "outside the brief's data boundary (region, residency or private endpoint)",
            "block",
        )
    if cand.is_api and workload.storage_gb > 0 and cand.storage_price_per_gb_month <= 0:
        add(
            WarningCode.STORAGE_NOT_PRICED,
            f"the brief needs {workload.storage_gb:g} GB of storage but this route has no "
            "storage price: its storage is counted as 0",
        )
    return tuple(out)


# The offer's terms in words, with their article, for "short of what … needs".
CAPACITY_PHRASES = {
    "on_demand": "an on-demand offer",
    "spot": "a spot offer",
    "reserved": "a reservation",
    "dedicated_cluster": "a dedicated cluster",
    "private_cloud": "a private cloud",
    "purchase": "a purchase",
    "marketplace": "a marketplace offer",
    "managed_endpoint": "a managed endpoint",
}


def _capacity_phrase(capacity_model: str) -> str:
    return CAPACITY_PHRASES.get(capacity_model, f"a {capacity_model.replace('_', ' ')} offer")


def cheapest_hourly_warning(
    cheapest_hourly: CandidateInput,
    hourly_price: Decimal,
    unit_rank: int,
    winner_id: str,
    unit_label: str,
    ranked: Sequence[str],
    winner_label: str = "",
) -> EngineWarning:
    """CHEAPEST_HOURLY_NOT_CHEAPEST_OUTPUT for the row with the lowest hourly price; the
    winner named by its label (a reviewer reads offers, not row ids)."""
    return EngineWarning(
        code=WarningCode.CHEAPEST_HOURLY_NOT_CHEAPEST_OUTPUT.value,
        candidate_id=cheapest_hourly.id,
        detail=(
            f"lowest hourly price ({hourly_price:.4f}/GPU-h) but rank {unit_rank} "
            f"of {len(ranked)} by cost {unit_label}; {winner_label or winner_id} is cheapest "
            "per accepted output"
        ),
        severity="warn",
    )
