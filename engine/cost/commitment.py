"""The commitment a decision creates: the figure dual approval routes on (ADR 0006).

For every costed row::

    expected_spend = (total − platform_labor) × horizon months   volume classes, per month
                   = total − platform_labor                      training, per run
    (the team's own labour is not an obligation to a vendor; nor, on a model API route, is
    the storage line: the team's own object storage, which the API vendor does not bill)

    fixed capacity (reserved, dedicated cluster, private cloud):
        committed_gpu_h = max(min commitment, GPUs held) per month   (GPUs held: the sized
                          replicas × 730 h; training: the run's GPUs × 730 h)
        contract        = committed_gpu_h × price × term months    (the whole term, whatever
                          the horizon; no stated term: the horizon, at least 1 month)
        commitment      = max(contract, expected_spend)
    purchase:
        contract        = max(capex × nodes bought, committed_gpu_h × price × term)
        commitment      = max(contract, expected_spend)
    elastic capacity (on-demand, spot, marketplace, managed endpoint) and API routes:
        contract        = min commitment × price × term when both are stated, else none
        commitment      = max(contract, expected_spend)

So no brief field can bring a fixed row's commitment under min commitment × term × price.
A training run on fixed capacity shows ``run_share_usd`` (what the run uses) next to the
contract, and TERM_OUTLASTS_USE says when the rest of the term has no stated use; a volume
row gets it when the term outlasts the brief's horizon. Fixed capacity without a stated term
(dedicated cluster, private cloud) counts the horizon and says so with TERM_NOT_STATED: the
real contract may bind longer (ADR 0006).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, localcontext

from core.cost_lines import API_ROUTE_UNBILLED_LINES
from engine.cost.common import DECIMAL_CONTEXT, fixed_gpus_allocated, money
from engine.types import (
    HOURS_PER_MONTH,
    CandidateInput,
    EngineWarning,
    JsonMixin,
    PointEstimate,
    WorkloadInput,
)

TERM_OUTLASTS_USE = "TERM_OUTLASTS_USE"
TERM_NOT_STATED = "TERM_NOT_STATED"


@dataclass(frozen=True, slots=True)
class CommitmentDetail(JsonMixin):
    """How a row's ``commitment_usd`` was reached."""

    commitment_usd: Decimal
    basis: str  # fixed_term | fixed_no_term | purchase | elastic | training_fixed | ...
    contract_usd: Decimal | None  # what the contract binds (None: nothing contracted)
    committed_gpu_hours_per_month: Decimal | None
    term_months: int
    months_counted: int  # months the contract counts (the whole term)
    horizon_months: int
    expected_spend_usd: Decimal  # vendor spend over the horizon (training: the run)
    run_share_usd: Decimal | None = None  # training on fixed capacity: the run's GPU spend
    explanation: str = ""


def _expected_spend(workload: WorkloadInput, cand: CandidateInput, est: PointEstimate) -> Decimal:
    # What the horizon uses: the stranded months of a longer term are the contract's side.
    outside: tuple[str, ...] = ("platform_labor", "term_beyond_horizon")
    if cand.is_api:
        outside += API_ROUTE_UNBILLED_LINES
    vendor = est.total - sum((est.lines.get(name, Decimal(0)) for name in outside), Decimal(0))
    if workload.is_training:
        return money(vendor)
    return money(vendor * workload.horizon_months)


def _held_gpus(workload: WorkloadInput, cand: CandidateInput, est: PointEstimate) -> Decimal:
    """GPU-hours per month the fixed capacity holds (sized replicas, or the run's GPUs)."""
    if workload.is_training:
        gpus = fixed_gpus_allocated(cand, 1) if cand.is_fixed else cand.gpus_per_replica
        return Decimal(gpus) * HOURS_PER_MONTH
    return est.billed_gpu_hours or Decimal(0)


def _purchase_price(cand: CandidateInput, held_gpu_h: Decimal) -> Decimal:
    assert cand.purchase is not None  # noqa: S101 - validated on input
    gpus = held_gpu_h / HOURS_PER_MONTH
    nodes = math.ceil(gpus / cand.gpus_per_node) if gpus > 0 else 0
    return money(cand.purchase.capex_per_node * nodes)


def commitment(
    workload: WorkloadInput, cand: CandidateInput, est: PointEstimate
) -> CommitmentDetail:
    """The obligation ``cand`` creates if chosen (see the module docstring)."""
    with localcontext(DECIMAL_CONTEXT):
        horizon = workload.horizon_months
        expected = _expected_spend(workload, cand, est)
        price = est.price_per_gpu_hour or Decimal(0)
        term = cand.term_months
        run_share: Decimal | None = None
        contract: Decimal | None = None
        committed: Decimal | None = None
        months = term
        if cand.is_fixed:
            committed = max(
                cand.min_commitment_gpu_hours_per_month, _held_gpus(workload, cand, est)
            )
            if term <= 0:
                months = max(1, horizon)
                if workload.is_training and est.training and est.training.held_h:
                    months = max(1, math.ceil(est.training.held_h / float(HOURS_PER_MONTH)))
            contract = money(committed * price * months)
            if cand.capacity_model == "purchase":
                contract = max(contract, _purchase_price(cand, committed))
                basis = "purchase"
            else:
                basis = "fixed_term" if term > 0 else "fixed_no_term"
            if workload.is_training:
                run_share = est.gpu_spend
                basis = f"training_{basis}"
        else:
            basis = "api" if cand.is_api else "elastic"
            if cand.min_commitment_gpu_hours_per_month > 0 and term > 0:
                committed = cand.min_commitment_gpu_hours_per_month
                contract = money(committed * price * term)
        total = expected if contract is None else max(contract, expected)
    return CommitmentDetail(
        commitment_usd=total,
        basis=basis,
        contract_usd=contract,
        committed_gpu_hours_per_month=committed,
        term_months=term,
        months_counted=months,
        horizon_months=horizon,
        expected_spend_usd=expected,
        run_share_usd=run_share,
        explanation=_explain(workload, basis, contract, expected, months),
    )


def _explain(
    workload: WorkloadInput, basis: str, contract: Decimal | None, expected: Decimal, months: int
) -> str:
    spend = (
        "the run's vendor spend"
        if workload.is_training
        else (f"expected vendor spend over the {workload.horizon_months}-month horizon")
    )
    if contract is None:
        return f"{spend} (labour excluded); nothing is contracted"
    what = "purchase price or " if basis.endswith("purchase") else ""
    return (
        f"the larger of the contract ({what}committed GPU-hours × price × {months} months) "
        f"and the {spend} (labour excluded)"
    )


def commitment_warnings(
    workload: WorkloadInput, cand: CandidateInput, detail: CommitmentDetail
) -> list[EngineWarning]:
    """TERM_NOT_STATED when fixed capacity states no term; TERM_OUTLASTS_USE when the contract
    runs past the run or the brief's horizon."""
    out: list[EngineWarning] = []
    if detail.basis.endswith("fixed_no_term"):
        out.append(
            EngineWarning(
                code=TERM_NOT_STATED,
                candidate_id=cand.id,
                detail=(
                    f"{cand.capacity_model.replace('_', ' ')} capacity with no stated term: the "
                    f"commitment counts {detail.months_counted} month"
                    f"{'' if detail.months_counted == 1 else 's'} (USD "
                    f"{detail.commitment_usd:,.2f}); ask the provider for the contract's term, "
                    "which may bind longer"
                ),
            )
        )
    if detail.contract_usd is None:
        return out
    if workload.is_training:
        share = detail.run_share_usd or Decimal(0)
        if detail.contract_usd <= share:
            return out
        text = (
            f"the {detail.months_counted}-month contract (USD {detail.contract_usd:,.2f}) "
            f"outlasts the run, which uses USD {share:,.2f} of it; the rest of the term has "
            "no stated use, and the commitment counts the whole contract; so does the row's "
            "cost, through its 'term not used' line"
        )
        if workload.term_residual_use_share > 0:
            text += (
                f", less the stated residual use of {workload.term_residual_use_share * 100:g} %"
            )
    elif detail.term_months > workload.horizon_months:
        text = (
            f"the {detail.term_months}-month term outlasts the brief's "
            f"{workload.horizon_months}-month horizon; the commitment counts the whole term "
            f"(USD {detail.commitment_usd:,.2f}) and so does the unit cost, through its "
            "'term beyond the horizon' line"
        )
        if workload.term_residual_use_share > 0:
            text += (
                f", less the stated residual use of "
                f"{workload.term_residual_use_share * 100:g} % of the months past the horizon"
            )
    else:
        return out
    out.append(EngineWarning(code=TERM_OUTLASTS_USE, candidate_id=cand.id, detail=text))
    return out
