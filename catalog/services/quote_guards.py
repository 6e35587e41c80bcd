"""What refuses a quote's save before any rule is checked: a flood of revisions (R5) and a late
answer to a closed RFQ sent without it."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.utils import timezone

from accounts.models import Provider
from catalog import selectors
from catalog.errors import RfqClosed, TooManyRevisions
from catalog.models import Accelerator, Quote
from core.roles import Role

REVISIONS_PER_HOUR = 30


def refuse_revision_flood(provider: Provider) -> None:
    """At most REVISIONS_PER_HOUR versions a provider's people save in an hour (R5): each
    revision of an offer a decision rests on recomputes and notifies."""
    since = timezone.now() - timedelta(hours=1)
    saved = Quote.objects.filter(
        provider=provider, created_at__gte=since, entered_by__role=Role.VENDOR
    ).count()
    if saved >= REVISIONS_PER_HOUR:
        raise TooManyRevisions(
            f"{provider} saved {saved} quote versions in the last hour, the most allowed: wait "
            "a while, or change several figures in one revision."
        )


def refuse_late_unsolicited(provider: Provider, values: Mapping[str, Any]) -> None:
    accelerator = values.get("accelerator")
    if not isinstance(accelerator, Accelerator):
        return  # the rules name the missing accelerator
    closed = selectors.closed_rfq_answered_by(
        provider_id=provider.pk,
        accelerator_id=accelerator.pk,
        capacity_model=str(values.get("capacity_model") or ""),
    )
    if closed is not None:
        raise RfqClosed(
            f"The RFQ “{closed}” asked for this offer and closed on "
            f"{closed.deadline:%Y-%m-%d %H:%M} UTC: a late offer, with or without the RFQ, is "
            "refused. Ask the procurement lead to reopen the RFQ."
        )
