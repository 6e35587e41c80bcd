"""Price changed behind a comparison: a decision learns that the offer it rests on moved.

When a quote version that an APPROVED comparison's approved row rests on, any vendor part
of its approved cheapest plan across offers, or a READY comparison's recommended row (that
version or an earlier one of the same quote), is revised or withdrawn, the comparison is
flagged (a plan's flag says so, `on_plan`, and names that part's row): one `PriceChange`
row per (comparison, new version), naming the quote, the approved price and the new one.
On commit each new flag is published to a worker (`services.price_change_delivery`), which
recomputes its impact on a copy of the frozen snapshot (`services.price_impact`) and e-mails
the comparison's owner and every reviewer who can act; the vendor's save waits for neither.
The flag shows on the comparison, review and record pages and on their dashboards at once
("impact being computed" until the worker is done) until it is acknowledged (small changes,
once the impact is known) or the comparison is recomputed (changes above the tolerance need
a re-approval).

Notices that mean something (security round 4, R5): a revision that changes no priced figure
(price, unit, currency) raises no flag, and while a row's flag is unacknowledged a further
revision updates that flag to the newest version (its impact assessed again) instead of adding
one; its notice is mailed again at most once per `NOTICE_EVERY`.

The catalog's quote services call this through `catalog.hooks` inside their own transaction,
so the flag and the revision are saved together or not at all; a second call for the same
version adds nothing (idempotent), and each new flag is audited.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from checklist.selectors import quote_lineages
from core.audit import audit_record
from core.errors import Conflict, NotAllowed
from core.roles import Role, has_role
from procurement import access
from procurement.models import CandidateResult, Comparison, PlanPart, PriceChange, Review
from procurement.services.price_change_delivery import send_assessment

if TYPE_CHECKING:
    from catalog.models import Quote


# An unacknowledged flag updated by a later revision is mailed again at most this often.
NOTICE_EVERY = timedelta(hours=1)

# A row resting on a quote version, and whether it is a vendor part of an approved plan.
Resting = tuple[CandidateResult, bool]


def _approved_rows(version_ids: set[int]) -> dict[int, list[Resting]]:
    """Version id (of `version_ids`) → the rows resting on it: approved rows of APPROVED
    decisions, the vendor parts of their approved plans, and recommended rows of READY
    comparisons (the row their decision is about)."""
    approvals = Review.objects.filter(
        decision=Review.Decision.APPROVE,
        comparison__status=Comparison.Status.APPROVED,
        candidate__quote_id__in=version_ids,
    ).select_related("candidate__quote__provider", "candidate__quote__accelerator")
    parts = PlanPart.objects.filter(
        review__decision=Review.Decision.APPROVE,
        comparison__status=Comparison.Status.APPROVED,
        candidate__quote_id__in=version_ids,
    ).select_related("candidate__quote__provider", "candidate__quote__accelerator")
    recommended = CandidateResult.objects.filter(
        comparison__status=Comparison.Status.READY,
        key=F("comparison__recommended_key"),
        quote_id__in=version_ids,
    ).select_related("quote__provider", "quote__accelerator")
    found: dict[int, list[Resting]] = defaultdict(list)
    for row, on_plan in [
        *((review.candidate, False) for review in approvals),
        *((part.candidate, True) for part in parts),
        *((candidate, False) for candidate in recommended),
    ]:
        if row is not None and row.quote_id is not None:
            found[row.quote_id].append((row, on_plan))
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
        if new.status != new.Status.WITHDRAWN and _priced(old) == _priced(new):
            continue  # a new title or note: nothing a decision rests on moved
        seen: set[int] = set()
        for version_id in lineages.get(old.pk, [old.pk]):
            for row, on_plan in approved.get(version_id, []):
                if row.comparison_id in seen:
                    continue
                seen.add(row.comparison_id)
                flag = _flag(row, new, acting_user, on_plan=on_plan)
                if flag is not None:
                    created.append(flag.pk)
    for flag_id in created:
        # One message per flag, after the commit: workers assess them side by side, and a
        # broker that is down loses nothing (the flag waits for the beat re-drive).
        transaction.on_commit(partial(send_assessment, flag_id))
    return len(created)


def _priced(quote: Quote) -> tuple[Any, str, str]:
    return (*_price(quote), quote.currency)


def _coalesce(open_flag: PriceChange, new: Quote, acting_user: Any) -> PriceChange | None:
    """The unacknowledged flag now names `new`: assessed again, mailed again only when its
    last notice is older than NOTICE_EVERY."""
    if open_flag.new_quote_id == new.pk:
        return None
    withdrawn = new.status == new.Status.WITHDRAWN
    recently = open_flag.notified_at is not None and (
        open_flag.notified_at > timezone.now() - NOTICE_EVERY
    )
    open_flag.new_quote = new
    open_flag.kind = PriceChange.Kind.WITHDRAWN if withdrawn else PriceChange.Kind.REVISED
    open_flag.currency = new.currency
    open_flag.new_price = None if withdrawn else _price(new)[0]
    open_flag.impact = {}
    open_flag.impact_assessed_at = None
    open_flag.claimed_at = None
    open_flag.attempts = 0
    open_flag.notified_at = open_flag.notified_at if recently else None
    open_flag.save()
    _audit_flag(open_flag, acting_user, open_flag.comparison, coalesced_into=open_flag.pk)
    return open_flag


def _audit_flag(flag: PriceChange, acting_user: Any, comparison: Any, **extra: Any) -> None:
    audit_record(
        actor=acting_user,
        action="comparison.price_changed",
        obj=comparison,
        summary={
            "quote": flag.approved_quote_id,
            "new_version": flag.new_quote_id,
            "kind": flag.kind,
            "new_price": None if flag.new_price is None else str(flag.new_price),
            "currency": flag.currency,
            **extra,
        },
    )


def _flag(
    candidate: CandidateResult, new: Quote, acting_user: Any, *, on_plan: bool = False
) -> PriceChange | None:
    approved = candidate.quote
    if approved is None:
        return None  # the caller passes quote rows only
    open_flag = (
        PriceChange.objects.select_for_update()
        .filter(comparison_id=candidate.comparison_id, candidate=candidate)
        .filter(acknowledged_at__isnull=True)
        .order_by("-created_at", "-pk")
        .first()
    )
    if open_flag is not None:
        return _coalesce(open_flag, new, acting_user)
    old_price, unit = _price(approved)
    new_price, _ = _price(new)
    withdrawn = new.status == new.Status.WITHDRAWN
    flag, created = PriceChange.objects.get_or_create(
        comparison_id=candidate.comparison_id,
        new_quote=new,
        defaults={
            "candidate": candidate,
            "approved_quote": approved,
            "kind": PriceChange.Kind.WITHDRAWN if withdrawn else PriceChange.Kind.REVISED,
            "currency": new.currency,
            "old_price": old_price,
            "new_price": None if withdrawn else new_price,
            "price_unit": unit,
            "on_plan": on_plan,
        },
    )
    if not created:
        return None
    _audit_flag(
        flag,
        acting_user,
        candidate.comparison,
        old_price=None if old_price is None else str(old_price),
        **({"approved_plan_part": candidate.key} if on_plan else {}),
    )
    return flag


def may_act_on(user: Any, comparison: Comparison) -> bool:
    """The comparison's owner and the reviewers who can decide it (by role) act on a flag."""
    if comparison.created_by_id == getattr(user, "pk", None):
        return True
    if has_role(user, Role.FINANCE_REVIEWER):
        return True
    return comparison.required_approvals > 1 and has_role(user, *access.SECOND_APPROVER_ROLES)


@transaction.atomic
def price_change_acknowledge(*, acting_user: Any, flag: PriceChange) -> PriceChange:
    """Acknowledge a price change within the tolerance: the decision stands as it is. A change
    above the tolerance is not acknowledged: the comparison is recomputed and decided again."""
    locked = PriceChange.objects.select_for_update().select_related("comparison").get(pk=flag.pk)
    if not may_act_on(acting_user, locked.comparison):
        raise NotAllowed("Only the comparison's owner or one of its reviewers acknowledges this.")
    if locked.acknowledged_at is not None:
        raise Conflict(f"Already acknowledged by {locked.acknowledged_by}.")
    if locked.impact_pending:
        raise Conflict(
            "The impact of this change is still being computed: refresh in a moment, then "
            "acknowledge it if it is within the tolerance."
        )
    if locked.impact.get("needs_reapproval", True):
        raise Conflict(
            "This change is above the tolerance: recompute the comparison so the reviewers "
            "decide on the new price."
        )
    locked.acknowledged_by = acting_user
    locked.acknowledged_at = timezone.now()
    locked.save(update_fields=["acknowledged_by", "acknowledged_at"])
    audit_record(
        actor=acting_user,
        action="comparison.price_change_acknowledged",
        obj=locked.comparison,
        summary={
            "price_change": locked.pk,
            "new_version": locked.new_quote_id,
            "pct_change": locked.impact.get("pct_change"),
        },
    )
    return locked
