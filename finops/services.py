"""Writes of the FinOps app: billing imports (stored, then read by a worker), the team's
counts of accepted outputs, and the monthly reconciliation they feed.

Nothing is half-imported: an upload whose header is not FOCUS is refused before a byte is
stored; the worker reads the whole file before writing anything, and writes the totals, the
reconciliation and the audit event in one transaction, or marks the import FAILED with the
row and column that stopped it. Counts are written all months or none.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from functools import partial
from typing import IO, TYPE_CHECKING, Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.files import File
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from catalog.models import CalibrationEntry
from core import jobs
from core.audit import audit_record
from core.errors import Conflict, DomainError, NotAllowed
from finops import access, selectors
from finops.focus.actuals import MonthCount
from finops.focus.export import DATASETS, to_csv, to_parquet
from finops.focus.matching import BillingRowError, BillingSummary, MatchRule, summarise
from finops.focus.reader import NotFocus, check_header, read_batches
from finops.focus.reconcile import Actual, ReconcileError, reconcile
from finops.focus.spec import FOCUS_VERSION
from finops.models import ActualOutputs, BillingImport, Reconciliation
from procurement.models import CandidateResult, Comparison

if TYPE_CHECKING:
    from accounts.models import User

logger = logging.getLogger(__name__)

IMPORT_TASK = "finops.tasks.billing_import_run_task"
# A bill gets this many tries; one that never finishes is failed, not re-driven for ever (R3).
MAX_ATTEMPTS = 3
IMPORT_TIME_LIMIT_S = 300  # the task's soft time limit (finops.tasks)
TOTAL_MAX = Decimal(10) ** 14  # the totals' fields hold 14 digits before the point
PROGRESS_EVERY = 0.02  # write progress when it moved by this much (each write is a heartbeat)


def drift_tolerance() -> Decimal:
    """FINOPS_DRIFT_TOLERANCE as a share (0.10: 10 %); a bad value is a configuration error."""
    raw = str(getattr(settings, "FINOPS_DRIFT_TOLERANCE", "0.10"))
    try:
        value = Decimal(raw)
    except InvalidOperation:
        value = Decimal("NaN")
    if not (value.is_finite() and 0 <= value < 100):
        raise ImproperlyConfigured(
            f"FINOPS_DRIFT_TOLERANCE must be a share such as 0.10, not {raw!r}."
        )
    return value


def _approved(comparison: Comparison) -> None:
    if comparison.status != Comparison.Status.APPROVED:
        raise Conflict(
            f"This comparison is {comparison.get_status_display().lower()}, not approved: "
            "only an approved decision has a commitment to export and a bill to reconcile."
        )
    if comparison.decision_superseded_by_id is not None:
        raise Conflict(
            f"This decision was superseded by comparison {comparison.decision_superseded_by_id} "
            f"on {comparison.decision_superseded_at:%Y-%m-%d}: it is no longer tracked; import "
            "bills and counts on the decision that superseded it."
        )


def _clean_list(values: Sequence[str]) -> list[str]:
    return sorted({v.strip() for v in values if v and v.strip()})


def _tag_pairs(tags: Sequence[str]) -> list[str]:
    out = []
    for tag in _clean_list(tags):
        if "=" not in tag:
            raise DomainError(
                f"The tag {tag!r} is not written key=value.",
                fields={"tags": [f"Write {tag!r} as key=value."]},
            )
        out.append(tag)
    return out


def _in_contract(comparison: Comparison, month: date, field: str) -> None:
    """Refuse a month the decision's contract does not cover (another period)."""
    row = selectors.approved_candidate(comparison)
    if row is None:
        return
    contract = selectors.contract_of(comparison, row)
    start, end = selectors.month_bounds(month)
    if start < contract.end and end > contract.start:
        return
    message = (
        f"{month:%Y-%m} is outside this decision's contract period "
        f"({contract.start:%Y-%m-%d} to {contract.end:%Y-%m-%d}, UTC, end exclusive)."
    )
    raise DomainError(message, fields={field: [message]})


def billing_import_check(*, acting_user: User, comparison: Comparison) -> None:
    """Raise why this user may not import a bill for this comparison now (403, 409)."""
    if not access.can_import_bill(acting_user):
        raise NotAllowed("Only the procurement lead and finance import bills.")
    _approved(comparison)


def actual_outputs_check(*, acting_user: User, comparison: Comparison) -> None:
    """Raise why this user may not enter counts for this comparison now (403, 409)."""
    if not access.can_count_outputs(acting_user):
        raise NotAllowed("Only the lead, platform engineers and finance enter accepted outputs.")
    _approved(comparison)


def billing_import_create(
    *,
    acting_user: User,
    comparison: Comparison,
    month: date,
    upload: IO[bytes],
    name: str,
    size: int,
    provider_names: Sequence[str],
    account_ids: Sequence[str] = (),
    tags: Sequence[str] = (),
    sku_ids: Sequence[str] = (),
    resource_ids: Sequence[str] = (),
    gpus_per_instance: int = 1,
) -> BillingImport:
    """Keep a FOCUS file for a month of a decision and hand it to a worker."""
    billing_import_check(acting_user=acting_user, comparison=comparison)
    _in_contract(comparison, month, "month")
    providers = [p.lower() for p in _clean_list(provider_names)]
    if not providers:
        raise DomainError(
            "Name the provider whose bill this is.",
            fields={"provider_names": ["Give the provider name as the bill writes it."]},
        )
    try:
        check_header(upload, name)
    except NotFocus as exc:
        raise DomainError(str(exc), fields={"file": [str(exc)]}) from None
    with transaction.atomic():
        job = BillingImport(
            comparison=comparison,
            month=month.replace(day=1),
            original_name=name[:255],
            size_bytes=size,
            provider_names=providers,
            account_ids=_clean_list(account_ids),
            tags=_tag_pairs(tags),
            sku_ids=_clean_list(sku_ids),
            resource_ids=_clean_list(resource_ids),
            gpus_per_instance=max(1, gpus_per_instance),
            created_by=acting_user,
        )
        job.raw_file.save(name[-100:] or "bill.csv", File(upload), save=False)
        stored = job.raw_file.name
        try:
            job.save()
            audit_record(
                actor=acting_user,
                action="billing_import.created",
                obj=job,
                summary={"comparison": comparison.pk, "month": f"{job.month:%Y-%m}", "file": name},
            )
        except Exception:
            if stored:
                job.raw_file.storage.delete(stored)
            raise
        transaction.on_commit(partial(jobs.send_safely, IMPORT_TASK, (job.pk,)))
    return job


@dataclass(frozen=True, slots=True)
class FocusFile:
    body: bytes
    content_type: str
    filename: str


FOCUS_FORMATS = {"csv": "text/csv", "parquet": "application/vnd.apache.parquet"}


def focus_export(
    *, acting_user: User, comparison: Comparison, dataset: str, file_format: str = "csv"
) -> FocusFile:
    """A decision's FOCUS commitments or prices as a file, audited (who took which decision's
    commitments out, and when); 409 before the decision is approved."""
    if dataset not in DATASETS:
        raise DomainError(f"Unknown FOCUS dataset {dataset!r}: commitments or prices.")
    if file_format not in FOCUS_FORMATS:
        raise DomainError(f"Unknown format {file_format!r}: csv or parquet.")
    rows = (
        selectors.commitment_rows(comparison)
        if dataset == "commitments"
        else selectors.price_rows(comparison)
    )
    if not rows:
        raise Conflict(
            "Only an approved comparison has a commitment to export: this one is "
            f"{comparison.get_status_display().lower()}."
        )
    columns = DATASETS[dataset]
    body = to_parquet(rows, columns) if file_format == "parquet" else to_csv(rows, columns)
    audit_record(
        actor=acting_user,
        action=f"comparison.exported_focus_{dataset}",
        obj=comparison,
        summary={"format": file_format},
    )
    name = f"focus-{FOCUS_VERSION}-{dataset}-decision-{comparison.pk}.{file_format}"
    return FocusFile(body, FOCUS_FORMATS[file_format], name)


def _rule(job: BillingImport) -> MatchRule:
    return MatchRule(
        provider_names=frozenset(job.provider_names),
        account_ids=frozenset(job.account_ids),
        tags=frozenset((key, value) for key, _, value in (t.partition("=") for t in job.tags)),
        sku_ids=frozenset(job.sku_ids),
        resource_ids=frozenset(job.resource_ids),
        gpus_per_instance=job.gpus_per_instance,
    )


def _fail(job_id: int, reason: str) -> None:
    with transaction.atomic():
        unfinished = [BillingImport.Status.PENDING, BillingImport.Status.RUNNING]
        updated = BillingImport.objects.filter(pk=job_id, status__in=unfinished).update(
            status=BillingImport.Status.FAILED,
            error=reason,
            progress=1.0,
            finished_at=timezone.now(),
        )
        if updated:
            audit_record(
                actor=None,
                action="billing_import.refused",
                object_type="finops.billingimport",
                object_id=str(job_id),
                summary={"reason": reason[:500]},
                outcome="failed",
            )


class _Progress:
    def __init__(self, job_id: int, attempt: int) -> None:
        self.job_id, self.attempt, self.last = job_id, attempt, 0.0

    def __call__(self, share: float) -> None:
        value = round(min(max(share, 0.0), 0.99), 4)
        if value - self.last >= PROGRESS_EVERY:
            jobs.heartbeat(
                BillingImport,
                self.job_id,
                running=BillingImport.Status.RUNNING,
                attempt=self.attempt,
                progress=value,
            )
            self.last = value


def billing_import_run(*, import_id: int) -> BillingImport | None:
    """Read a stored bill (Celery). Safe to run twice: the claim admits one run at a time,
    and only the run holding it writes."""
    attempt = jobs.claim(
        BillingImport,
        import_id,
        waiting=BillingImport.Status.PENDING,
        running=BillingImport.Status.RUNNING,
        progress=0.0,
    )
    if attempt is None:
        return None
    if attempt > MAX_ATTEMPTS:
        # Each earlier attempt died without a verdict (killed, out of memory, out of time):
        # reading it again would only do the same, every minute, for ever (R3).
        _fail(
            import_id,
            f"Stopped after {MAX_ATTEMPTS} attempts: the worker never finished reading this "
            "file. Check its size and contents, then upload it again.",
        )
        return BillingImport.objects.get(pk=import_id)
    job = BillingImport.objects.select_related("comparison").get(pk=import_id)
    start, end = selectors.month_bounds(job.month)
    try:
        with (
            jobs.heartbeat_while(
                BillingImport, import_id, running=BillingImport.Status.RUNNING, attempt=attempt
            ),
            job.raw_file.open("rb") as handle,
        ):
            summary = summarise(
                read_batches(handle, job.original_name, job.size_bytes),
                rule=_rule(job),
                month_start=start,
                month_end=end,
                base_currency=settings.BASE_CURRENCY,
                fx=selectors.fx_rates_for(job.month),
                progress=_Progress(import_id, attempt),
            )
    except (NotFocus, BillingRowError) as exc:
        _fail(import_id, str(exc))
        return BillingImport.objects.get(pk=import_id)
    except SoftTimeLimitExceeded:
        _fail(import_id, f"Reading the file took over {IMPORT_TIME_LIMIT_S} s: split it up.")
        return BillingImport.objects.get(pk=import_id)
    except Exception as exc:  # a reader bug must not leave the import RUNNING forever
        logger.exception("Reading billing import %s failed", import_id)
        _fail(import_id, f"The file could not be read ({type(exc).__name__}).")
        return BillingImport.objects.get(pk=import_id)
    if summary.rows and not summary.matched_rows:
        # A bill that matches nothing says nothing of the month: reconciling it would flag a
        # drift on a zero (U7). The reasons tell what to change in the rule.
        reasons = ", ".join(f"{n:,} {why}" for why, n in summary.unmatched_by_reason.items())
        _fail(
            import_id,
            f"None of the file's {summary.rows:,} rows matched this decision ({reasons}): "
            "check the provider names, accounts, tags and SKU ids (a bill carries the "
            "provider's own SKU ids), then import it again.",
        )
        return BillingImport.objects.get(pk=import_id)
    too_big = [
        name
        for name, total in (
            ("GPU cost", summary.gpu_cost),
            ("other cost", summary.other_cost),
            ("unmatched cost", summary.unmatched_cost),
            ("GPU-hours", summary.gpu_hours),
        )
        if abs(total) >= TOTAL_MAX
    ]
    if too_big:
        _fail(import_id, f"The month's {', '.join(too_big)} exceed {TOTAL_MAX:,}: not a real bill.")
        return BillingImport.objects.get(pk=import_id)
    try:
        _write_import(import_id, attempt, job, summary)
    except Exception as exc:  # the totals must never leave the import RUNNING either (R3)
        logger.exception("Saving billing import %s failed", import_id)
        _fail(import_id, f"The file's totals could not be saved ({type(exc).__name__}).")
    return BillingImport.objects.get(pk=import_id)


def _write_import(
    import_id: int, attempt: int, job: BillingImport, summary: BillingSummary
) -> None:
    values: dict[str, Any] = {
        "status": BillingImport.Status.DONE,
        "progress": 1.0,
        "error": "",
        "finished_at": timezone.now(),
        "rows_total": summary.rows,
        "rows_matched": summary.matched_rows,
        "rows_unmatched": summary.unmatched_rows,
        "gpu_hours": summary.gpu_hours,
        "gpu_cost_usd": summary.gpu_cost,
        "other_cost_usd": summary.other_cost,
        "unmatched_cost_usd": summary.unmatched_cost,
        "unmatched_by_reason": summary.unmatched_by_reason,
        "unmatched_sample": [
            {**vars_of(u), "cost": format(u.cost, "f")} for u in summary.unmatched_sample
        ],
        "currencies": list(summary.currencies),
    }
    with transaction.atomic():
        updated = BillingImport.objects.filter(
            pk=import_id, status=BillingImport.Status.RUNNING, attempts=attempt
        ).update(**values)
        if updated:
            audit_record(
                actor=None,
                action="billing_import.imported",
                object_type="finops.billingimport",
                object_id=str(import_id),
                summary={
                    "rows": summary.rows,
                    "matched": summary.matched_rows,
                    "unmatched": summary.unmatched_rows,
                    "matched_cost_usd": format(summary.matched_cost, "f"),
                },
            )
            reconciliation_refresh(comparison=job.comparison, month=job.month)


def vars_of(row: Any) -> dict[str, Any]:
    return {name: getattr(row, name) for name in row.__slots__}


def actual_outputs_record(
    *,
    acting_user: User,
    comparison: Comparison,
    counts: Sequence[MonthCount],
    source: str,
    original_name: str = "",
) -> list[ActualOutputs]:
    """Keep the team's counts (every month or none) and reconcile each month."""
    actual_outputs_check(acting_user=acting_user, comparison=comparison)
    if not counts:
        raise DomainError("No month to record.")
    for count in counts:
        _in_contract(comparison, count.month, "month")
    with transaction.atomic():
        saved = [
            ActualOutputs.objects.create(
                comparison=comparison,
                month=count.month.replace(day=1),
                accepted_outputs=count.accepted_outputs,
                acceptance_share=count.acceptance_share,
                completed_outputs=count.completed_outputs,
                generation_tokens=count.generation_tokens,
                source=source,
                original_name=original_name[:255],
                entered_by=acting_user,
            )
            for count in counts
        ]
        audit_record(
            actor=acting_user,
            action="actual_outputs.recorded",
            obj=comparison,
            summary={
                "months": [f"{c.month:%Y-%m}" for c in counts],
                "accepted_outputs": [format(c.accepted_outputs, "f") for c in counts],
                "source": source,
            },
        )
        for row in saved:
            reconciliation_refresh(comparison=comparison, month=row.month)
    return saved


def reconciliation_refresh(*, comparison: Comparison, month: date) -> Reconciliation | None:
    """Recompute a month once it has both a bill and counts (inside the caller's
    transaction); None while one of them is missing or the figures cannot be reconciled."""
    bill = selectors.latest_import(comparison, month)
    counts = selectors.latest_outputs(comparison, month)
    row = selectors.approved_candidate(comparison)
    if bill is None or counts is None or row is None:
        return None
    forecast = selectors.forecast_of(comparison, row)
    actual = Actual(
        spend=bill.gpu_cost_usd + bill.other_cost_usd,
        accepted_outputs=counts.accepted_outputs,
        acceptance=counts.acceptance_share,
        gpu_cost=bill.gpu_cost_usd,
        gpu_hours=bill.gpu_hours,
    )
    tolerance = drift_tolerance()
    try:
        result = reconcile(forecast, actual, tolerance=tolerance)
    except ReconcileError as exc:
        logger.info("Month %s of comparison %s not reconciled: %s", month, comparison.pk, exc)
        return None
    values = {
        "billing_import": bill,
        "actual_outputs": counts,
        "forecast_spend_usd": forecast.spend,
        "actual_spend_usd": actual.spend,
        "forecast_accepted_outputs": forecast.accepted_outputs,
        "actual_accepted_outputs": actual.accepted_outputs,
        "forecast_unit_cost_usd": _q(result.forecast_unit_cost),
        "actual_unit_cost_usd": _q(result.actual_unit_cost),
        "cost_ratio": _q(result.cost_ratio),
        "forecast_utilisation": _q(result.forecast_utilisation),
        "actual_utilisation": _q(result.actual_utilisation),
        "forecast_acceptance": forecast.acceptance.quantize(Decimal("1e-6")),
        "actual_acceptance": actual.acceptance,
        "drivers": [
            {"name": d.name, "label": d.label, "per_output": format(_q(d.per_output), "f")}
            for d in result.drivers
        ],
        "note": result.note,
        "tolerance": tolerance,
        "drift": result.drift,
    }
    saved, _ = Reconciliation.objects.update_or_create(
        comparison=comparison, month=month.replace(day=1), defaults=values
    )
    audit_record(
        actor=None,
        action="reconciliation.computed",
        obj=saved,
        summary={
            "comparison": comparison.pk,
            "month": f"{month:%Y-%m}",
            "cost_ratio": format(values["cost_ratio"], "f"),
            "drift": result.drift,
        },
    )
    billed_month_record(comparison=comparison, row=row, reconciliation=saved)
    return saved


def billed_month_record(
    *, comparison: Comparison, row: CandidateResult, reconciliation: Reconciliation
) -> CalibrationEntry | None:
    """Keep a reconciled month's actual / forecast cost per accepted output in the
    calibration ledger, on the quote the decision took (inside the caller's transaction): a
    month reconciled again replaces its entry. None for a row on no quote (a model API)."""
    quote = row.quote
    if quote is None or not reconciliation.cost_ratio or reconciliation.cost_ratio <= 0:
        return None
    entry, created = CalibrationEntry.objects.update_or_create(
        kind=CalibrationEntry.Kind.COST,
        comparison_id=comparison.pk,
        month=reconciliation.month,
        defaults={
            "accelerator_id": quote.accelerator_id,
            "quote": quote,
            "model_profile_id": comparison.brief.model_id,
            "model_name": str(comparison.brief.model or "")[:200],
            "shape": f"billed {reconciliation.month:%Y-%m}",
            "gpus": int(row.gpus or 1),
            "forecast_unit_cost_usd": reconciliation.forecast_unit_cost_usd,
            "actual_unit_cost_usd": reconciliation.actual_unit_cost_usd,
            "cost_ratio": reconciliation.cost_ratio,
            "engine_version": comparison.engine_version,
        },
    )
    audit_record(
        actor=None,
        action="calibration_entry.billed_month_recorded",
        obj=entry,
        summary={
            "comparison": comparison.pk,
            "month": f"{reconciliation.month:%Y-%m}",
            "quote": quote.pk,
            "cost_ratio": format(reconciliation.cost_ratio, "f"),
            "replaced": not created,
        },
    )
    return entry


def _q(value: Decimal | None) -> Any:
    return None if value is None else value.quantize(Decimal("1e-12"))


# A PENDING import whose message was lost is re-sent after this long; a RUNNING one as soon as
# its claim is stale (its worker died), as the benchmark parses are.
PENDING_GRACE = timedelta(minutes=5)


def billing_imports_redrive_stuck(*, now: datetime | None = None) -> int:
    """Re-send imports stuck waiting or on a dead worker (beat); returns how many."""
    now = now or timezone.now()
    stuck = list(
        BillingImport.objects.filter(
            Q(status=BillingImport.Status.PENDING, created_at__lt=now - PENDING_GRACE)
            | jobs.stale_claims(BillingImport.Status.RUNNING, now=now)
        ).values_list("pk", flat=True)
    )
    for import_id in stuck:
        transaction.on_commit(partial(jobs.send_safely, IMPORT_TASK, (import_id,)))
    return len(stuck)
