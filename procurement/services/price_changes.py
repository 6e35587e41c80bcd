"""Price changed since approval: a decision learns that the offer it approved moved.

When a quote version that an APPROVED comparison's approved row rests on (that version or an
earlier one of the same quote) is revised or withdrawn, the decision is flagged: one
`PriceChange` row per (decision, new version), naming the quote, the approved price and the
new one. The flag shows on the decision record and the approvers' dashboards, and each
approver gets an e-mail after the commit.

The catalog's quote services call this through `catalog.hooks` inside their own transaction,
so the flag and the revision are saved together or not at all; a second call for the same
version adds nothing (idempotent), and each new flag is audited.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from django.db import transaction

from checklist.selectors import quote_lineages
from core.audit import audit_record
from procurement import notifications
from procurement.models import Comparison, PriceChange, Review

if TYPE_CHECKING:
    from catalog.models import Quote


def _approved_rows(version_ids: set[int]) -> dict[int, list[Review]]:
    """Version id (of `version_ids`) → approvals of APPROVED decisions resting on it."""
    found: dict[int, list[Review]] = defaultdict(list)
    approvals = Review.objects.filter(
        decision=Review.Decision.APPROVE,
        comparison__status=Comparison.Status.APPROVED,
        candidate__quote_id__in=version_ids,
    ).select_related("comparison", "candidate__quote__provider", "candidate__quote__accelerator")
    for review in approvals:
        if review.candidate is not None and review.candidate.quote_id is not None:
            found[review.candidate.quote_id].append(review)
    return found


def _price(quote: Quote) -> tuple[Any, str]:
    if quote.price_per_gpu_hour is None and quote.price_per_node is not None:
        return quote.price_per_node, "per node"
    return quote.price_per_gpu_hour, "per GPU-hour"


def flag_approved_decisions(pairs: Sequence[tuple[Quote, Quote]], acting_user: Any) -> int:
    """Flag every approved decision resting on the replaced versions. Returns new flags."""
    # Every earlier version counts: a decision may have approved v1 of what is now v3.
    lineages = quote_lineages([old for old, _ in pairs])
    approved = _approved_rows({qid for chain in lineages.values() for qid in chain})
    if not approved:
        return 0  # the common case: nothing approved rests on these quotes
    created: list[int] = []
    for old, new in pairs:
        seen: set[int] = set()
        for version_id in lineages.get(old.pk, [old.pk]):
            for review in approved.get(version_id, []):
                if review.comparison_id in seen:
                    continue
                seen.add(review.comparison_id)
                flag = _flag(review, new, acting_user)
                if flag is not None:
                    created.append(flag.pk)
    if created:
        transaction.on_commit(partial(notifications.notify_price_changed, created))
    return len(created)


def _flag(review: Review, new: Quote, acting_user: Any) -> PriceChange | None:
    candidate = review.candidate
    approved = candidate.quote if candidate is not None else None
    if candidate is None or approved is None:
        return None  # the caller passes approvals of quote rows only
    old_price, unit = _price(approved)
    new_price, _ = _price(new)
    withdrawn = new.status == new.Status.WITHDRAWN
    flag, created = PriceChange.objects.get_or_create(
        comparison_id=review.comparison_id,
        new_quote=new,
        defaults={
            "candidate": candidate,
            "approved_quote": approved,
            "kind": PriceChange.Kind.WITHDRAWN if withdrawn else PriceChange.Kind.REVISED,
            "currency": new.currency,
            "old_price": old_price,
            "new_price": None if withdrawn else new_price,
            "price_unit": unit,
        },
    )
    if not created:
        return None
    audit_record(
        actor=acting_user,
        action="comparison.price_changed",
        obj=review.comparison,
        summary={
            "quote": approved.pk,
            "new_version": new.pk,
            "kind": flag.kind,
            "old_price": None if old_price is None else str(old_price),
            "new_price": None if flag.new_price is None else str(flag.new_price),
            "currency": flag.currency,
        },
    )
    return flag
