"""A price-change flag's impact and notices, on a worker after the vendor's commit.

The vendor's revision saves the flag (`services.price_changes`) and publishes
`price_change_assess_and_notify_task` on commit; the broker is only a doorbell and the flag
row the source of truth. A run:

1. claims the flag with one conditional UPDATE (`claimed_at`, `attempts + 1`): only a flag
   whose impact or notices are still pending and that no live run holds (no claim, or one
   older than `CLAIM_STALE_AFTER`), so two deliveries of the same message never both work;
2. assesses the impact once (`price_impact.price_change_impact`, a recompute on a copy of
   the frozen snapshot, outside any transaction), written only while `impact_assessed_at` is
   still empty and this attempt holds the claim;
3. sends the notices once: the flag row is locked (`select_for_update`) while still
   un-notified, `notified_at` and the audit event `comparison.price_change_notified` are
   written and the mails sent in that one transaction, so a concurrent run waits on the lock
   and then finds the notices sent. A mail failure rolls all three back.

A run that fails is logged, keeps its `last_error` on the flag and releases its claim; the
beat re-drive (`price_changes_redrive_pending`, every minute) sends again every flag still
pending after `PENDING_GRACE`, up to `MAX_ATTEMPTS` runs. Past them an impact that could not be
assessed is recorded as such (re-approval needed, the reason in words), so the pages never
wait for ever, and its notices get one more run; notices that still could not be sent stay
unsent, logged (the flag still shows on the pages and dashboards). A worker that dies after
its mails left but before its commit lets the re-drive send them again: at least once, never
lost.
"""

from __future__ import annotations

import enum
import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core import jobs
from core.audit import audit_record
from procurement import notifications
from procurement.models import PriceChange
from procurement.services.price_impact import pct_change, price_change_impact

logger = logging.getLogger(__name__)

ASSESS_TASK = "procurement.tasks.price_change_assess_and_notify_task"
# A flag whose impact or notices are still pending this long after it was raised is sent
# again by the beat re-drive (its message was lost, or its run failed).
PENDING_GRACE = timedelta(minutes=1)
# The assessment recomputes one comparison with a few hundred draws (a plan: a MILP solve of at
# most 10 s): a claim this old belongs to a dead worker.
CLAIM_STALE_AFTER = timedelta(minutes=5)
MAX_ATTEMPTS = 10  # about ten minutes of one-a-minute retries, then the flag gives up
ERROR_CHARS = 500


class Delivery(enum.StrEnum):
    """What a run did with its flag."""

    DONE = "done"  # assessed (if it was pending) and the notices sent
    NOTHING_TO_DO = "nothing to do"  # finished already, or held by a live run
    FAILED = "failed"  # logged, kept on the flag, released for the re-drive


def send_assessment(flag_id: int) -> bool:
    """Publish the flag's run; False (logged) when the broker is down: the re-drive sends it."""
    return jobs.send_safely(ASSESS_TASK, (flag_id,))


def _pending() -> Q:
    return Q(impact_assessed_at__isnull=True) | Q(notified_at__isnull=True)


def _unclaimed(now: datetime) -> Q:
    return Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - CLAIM_STALE_AFTER)


def _claim(flag_id: int) -> int | None:
    """This run's attempt number, or None when the flag is finished or a live run holds it."""
    now = timezone.now()
    return jobs.claim_where(PriceChange, flag_id, _pending() & _unclaimed(now), claimed_at=now)


def gave_up_impact(flag: PriceChange, reason: str) -> dict[str, object]:
    """The impact kept when it could not be assessed: the price change in %, and a
    re-approval (nobody may acknowledge a change whose effect is unknown)."""
    pct = pct_change(flag.old_price, flag.new_price)
    return {
        "pct_change": None if pct is None else str(pct),
        "tolerance_pct": settings.PRICE_CHANGE_TOLERANCE_PCT,
        "needs_reapproval": True,
        "error": (
            f"The impact could not be computed after {flag.attempts} attempts ({reason}); "
            "recompute the comparison to see it."
        ),
    }


def _assess(flag_id: int, attempt: int) -> None:
    """Compute and keep the flag's impact unless it is known already."""
    flag = PriceChange.objects.select_related("comparison", "candidate").get(pk=flag_id)
    if flag.impact_assessed_at is not None:
        return  # a run before this one assessed it; its notices failed
    try:
        impact = price_change_impact(flag)
    except Exception as exc:
        if attempt < MAX_ATTEMPTS:
            raise
        logger.exception("gave up assessing price change %s", flag_id)
        impact = gave_up_impact(flag, type(exc).__name__)
    now = timezone.now()
    PriceChange.objects.filter(  # only while still pending and this attempt holds the claim
        pk=flag_id, impact_assessed_at__isnull=True, attempts=attempt
    ).update(impact=impact, impact_assessed_at=now, claimed_at=now)


def _notify(flag_id: int) -> int:
    """Send the flag's notices once; the number of messages sent."""
    with transaction.atomic():
        flag = (
            PriceChange.objects.select_for_update(of=("self",))
            .select_related(
                "comparison", "approved_quote__provider", "approved_quote__accelerator", "new_quote"
            )
            .filter(pk=flag_id, notified_at__isnull=True, impact_assessed_at__isnull=False)
            .first()
        )
        if flag is None:
            return 0  # sent already (a concurrent run held the lock), or not assessed
        recipients = notifications.price_change_recipients(flag)
        flag.notified_at = timezone.now()
        flag.save(update_fields=["notified_at"])
        audit_record(
            actor=None,
            action="comparison.price_change_notified",
            obj=flag.comparison,
            summary={
                "price_change": flag.pk,
                "new_version": flag.new_quote_id,
                "recipients": [user.username for user in recipients],
            },
        )
        # Last: a mail failure raises and rolls the mark and its audit event back.
        return notifications.notify_price_changed(flag, recipients)


def _release(flag_id: int, attempt: int, *, error: str) -> None:
    PriceChange.objects.filter(pk=flag_id, attempts=attempt).update(
        claimed_at=None, last_error=error[:ERROR_CHARS]
    )


def price_change_assess_and_notify(*, flag_id: int) -> Delivery:
    """Assess the flag's impact and tell the people who can act, each at most once per flag
    (module docstring). Safe to run twice or at once: a second run does nothing."""
    attempt = _claim(flag_id)
    if attempt is None:
        return Delivery.NOTHING_TO_DO
    try:
        _assess(flag_id, attempt)
        _notify(flag_id)
    except Exception as exc:
        logger.exception("price change %s: attempt %s failed", flag_id, attempt)
        _release(flag_id, attempt, error=f"{type(exc).__name__}: {exc}")
        if attempt >= MAX_ATTEMPTS:
            logger.error("price change %s: gave up after %s attempts", flag_id, attempt)
        return Delivery.FAILED
    _release(flag_id, attempt, error="")
    return Delivery.DONE


def _give_up(now: datetime) -> list[int]:
    """Flags whose attempts are spent while their impact is still pending (the last run's
    worker died): record the impact as not assessed, so the pages stop waiting. Their ids:
    the re-drive sends each once more, for its notices."""
    spent = PriceChange.objects.filter(
        _unclaimed(now), impact_assessed_at__isnull=True, attempts__gte=MAX_ATTEMPTS
    )
    given_up: list[int] = []
    for flag in spent:
        if PriceChange.objects.filter(
            _unclaimed(now), pk=flag.pk, impact_assessed_at__isnull=True
        ).update(
            impact=gave_up_impact(flag, flag.last_error or "the worker was lost"),
            impact_assessed_at=now,
        ):
            logger.error("price change %s: gave up after %s attempts", flag.pk, flag.attempts)
            given_up.append(flag.pk)
    return given_up


def price_changes_redrive_pending(*, now: datetime | None = None) -> int:
    """Send again every flag whose impact or notices are still pending `PENDING_GRACE` after
    it was raised, held by no live run, with attempts left (beat, every minute). Returns how
    many were sent; stops at the first publish that fails (the broker is down: the next
    re-drive tries again). A message sent twice is harmless: the run claims the flag."""
    now = now or timezone.now()
    given_up = _give_up(now)
    pending = (
        PriceChange.objects.filter(
            _pending(),
            _unclaimed(now),
            created_at__lt=now - PENDING_GRACE,
            attempts__lt=MAX_ATTEMPTS,
        )
        .order_by("created_at", "pk")
        .values_list("pk", flat=True)
    )
    sent = 0
    for flag_id in [*pending, *given_up]:
        if not send_assessment(flag_id):
            break
        sent += 1
    if sent:
        logger.info("re-drove %s pending price change(s)", sent)
    return sent
