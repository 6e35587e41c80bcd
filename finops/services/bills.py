"""A month's FOCUS bill: kept, read and matched on the imports worker, bounded, and re-driven."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import partial
from typing import IO, TYPE_CHECKING, Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.files import File
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core import jobs
from core.audit import audit_record
from core.errors import DomainError
from finops import selectors
from finops.focus.matching import BillingRowError, BillingSummary, MatchRule, summarise
from finops.focus.reader import NotFocus, check_header, read_batches
from finops.models import BillingImport
from finops.services.common import _clean_list, _in_contract, _tag_pairs, billing_import_check
from finops.services.reconcile import reconciliation_refresh
from procurement.models import Comparison

if TYPE_CHECKING:
    from accounts.models import User

logger = logging.getLogger(__name__)


IMPORT_TASK = "finops.tasks.billing_import_run_task"


# A bill gets this many tries; one that never finishes is failed, not re-driven for ever (R3).
MAX_ATTEMPTS = 3


IMPORT_TIME_LIMIT_S = 300  # the task's soft time limit (finops.tasks)


TOTAL_MAX = Decimal(10) ** 14  # the totals' fields hold 14 digits before the point


PROGRESS_EVERY = 0.02  # write progress when it moved by this much (each write is a heartbeat)
SPLIT = re.compile(r"[\s,;]+")


def split_ids(text: str) -> list[str]:
    """Ids typed one per line or separated by commas."""
    return [part for part in SPLIT.split(text or "") if part]


def billing_import_submit(
    *, acting_user: User, comparison: Comparison, data: Mapping[str, Any]
) -> BillingImport:
    """A bill as the decision page's form or the API sends it: the file, the month, the
    provider names, and the matching ids typed one per line or separated by commas."""
    upload = data["file"]
    return billing_import_create(
        acting_user=acting_user,
        comparison=comparison,
        month=data["month"],
        upload=upload,
        name=upload.name or "bill.csv",
        size=upload.size or 0,
        provider_names=data["provider_names"],
        account_ids=split_ids(data.get("account_ids", "")),
        tags=split_ids(data.get("tags", "")),
        sku_ids=split_ids(data.get("sku_ids", "")),
        resource_ids=split_ids(data.get("resource_ids", "")),
        gpus_per_instance=data.get("gpus_per_instance") or 1,
    )


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


def _rule(job: BillingImport) -> MatchRule:
    return MatchRule(
        provider_names=frozenset(job.provider_names),
        account_ids=frozenset(job.account_ids),
        tags=frozenset((key, value) for key, _, value in (t.partition("=") for t in job.tags)),
        sku_ids=frozenset(job.sku_ids),
        resource_ids=frozenset(job.resource_ids),
        gpus_per_instance=job.gpus_per_instance,
    )


def _fail(job_id: int, reason: str) -> BillingImport:
    """Mark the import FAILED with the reason (once: a finished one stays as it is); the row."""
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
    return BillingImport.objects.get(pk=job_id)


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
        return _fail(
            import_id,
            f"Stopped after {MAX_ATTEMPTS} attempts: the worker never finished reading this "
            "file. Check its size and contents, then upload it again.",
        )
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
                progress=jobs.progress_writer(
                    BillingImport,
                    import_id,
                    running=BillingImport.Status.RUNNING,
                    attempt=attempt,
                    step=PROGRESS_EVERY,
                ),
            )
    except (NotFocus, BillingRowError) as exc:
        return _fail(import_id, str(exc))
    except SoftTimeLimitExceeded:
        return _fail(import_id, f"Reading the file took over {IMPORT_TIME_LIMIT_S} s: split it up.")
    except Exception as exc:  # a reader bug must not leave the import RUNNING forever
        logger.exception("Reading billing import %s failed", import_id)
        return _fail(import_id, f"The file could not be read ({type(exc).__name__}).")
    if summary.rows and not summary.matched_rows:
        # A bill that matches nothing says nothing of the month: reconciling it would flag a
        # drift on a zero (U7). The reasons tell what to change in the rule.
        reasons = ", ".join(f"{n:,} {why}" for why, n in summary.unmatched_by_reason.items())
        return _fail(
            import_id,
            f"None of the file's {summary.rows:,} rows matched this decision ({reasons}): "
            "check the provider names, accounts, tags and SKU ids (a bill carries the "
            "provider's own SKU ids), then import it again.",
        )
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
        return _fail(
            import_id, f"The month's {', '.join(too_big)} exceed {TOTAL_MAX:,}: not a real bill."
        )
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
        "by_provider": {
            name: {
                "rows": t.rows,
                "gpu_hours": format(t.gpu_hours, "f"),
                "gpu_cost_usd": format(t.gpu_cost, "f"),
                "other_cost_usd": format(t.other_cost, "f"),
            }
            for name, t in summary.by_provider.items()
        },
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
