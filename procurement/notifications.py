"""E-mail notifications of the review flow (Django e-mail; the console backend by default).

- `notify_comparison_ready(comparison)`: a comparison is ready → its reviewers (finance, plus
  platform engineers and security reviewers when two approvals are needed), never its creator;
- `notify_approval_needed(comparison, review)`: the first of two approvals is in → the
  reviewers who can give the second one;
- `notify_comparison_decided(comparison, review)`: approved, rejected or changes requested →
  the creator;
- `notify_rfq_outcome(comparison, review)` (from `notify_comparison_decided`, once approved):
  the RFQs whose answers the comparison weighed close, naming the decision, each vendor
  that answered is told whether it was selected, and each invited one that did not answer
  that the RFQ closed;
- `notify_price_changed(flag, recipients)`: a quote a ready or approved comparison rests on
  was revised or withdrawn → its owner, its approvers and every reviewer who can act
  (`price_change_recipients`), with the impact recomputed on a copy of the frozen snapshot.
  Sent by a worker (`services.price_change_delivery`), which keeps the flag for a retry when
  the mail fails: this one raises instead of logging.

Call the others after the transaction commits (`transaction.on_commit`); a mail failure is
logged and never undoes a decision. One message per recipient, so no one sees the others'
addresses.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.template.loader import render_to_string
from django.urls import reverse

from accounts.models import User
from accounts.selectors import reachable_users
from catalog import services as catalog_services
from catalog.models import Quote
from core.roles import Role
from procurement import access
from procurement.models import Comparison, PlanPart, PriceChange, Review

logger = logging.getLogger(__name__)


def _absolute(path: str) -> str:
    """The link a mail reader can open: settings.SITE_URL + the path."""
    return f"{settings.SITE_URL}{path}"


def reviewers_of(comparison: Comparison, *, roles: Iterable[str] | None = None) -> list[User]:
    """Active users who may review this comparison (by role), minus its creator."""
    if roles is None:
        roles = {Role.FINANCE_REVIEWER}
        if comparison.required_approvals > 1:
            roles |= access.SECOND_APPROVER_ROLES
    return list(reachable_users(roles=roles).exclude(pk=comparison.created_by_id))


def _send(
    template: str,
    context: dict[str, Any],
    recipients: Iterable[User],
    *,
    raise_errors: bool = False,
) -> int:
    recipients = list(recipients)
    if not recipients:
        return 0
    subject = render_to_string(f"emails/{template}_subject.txt", context).strip()
    messages = [
        EmailMessage(
            subject=" ".join(subject.split()),
            body=render_to_string(f"emails/{template}.txt", {**context, "recipient": user}),
            to=[user.email],
        )
        for user in recipients
    ]
    try:
        return get_connection().send_messages(messages) or 0
    except Exception:  # a mail outage never breaks the review flow
        if raise_errors:
            raise  # the caller keeps the notice for a retry
        logger.exception("could not send %s notifications for %s", template, context)
        return 0


def _context(comparison: Comparison) -> dict[str, Any]:
    return {
        "comparison": comparison,
        "review_url": _absolute(reverse("procurement:comparison-review", args=[comparison.pk])),
        "record_url": _absolute(reverse("procurement:comparison-record", args=[comparison.pk])),
    }


def notify_comparison_ready(comparison: Comparison) -> int:
    """Tell the reviewers a comparison awaits them. Returns the number of messages sent.

    Re-reads the row first: callers may hold an instance from before the queryset
    `update()` that made it ready (its `required_approvals` decides who is told).
    """
    comparison.refresh_from_db()
    if comparison.status != comparison.Status.READY:
        return 0
    return _send("comparison_ready", _context(comparison), reviewers_of(comparison))


def notify_approval_needed(comparison: Comparison, review: Review) -> int:
    """First of two approvals given: ask the reviewers of the other slot."""
    roles = (
        access.SECOND_APPROVER_ROLES
        if review.reviewer_role == Role.FINANCE_REVIEWER
        else {Role.FINANCE_REVIEWER}
    )
    recipients = [u for u in reviewers_of(comparison, roles=roles) if u.pk != review.reviewer_id]
    return _send("approval_needed", {**_context(comparison), "review": review}, recipients)


def price_change_recipients(flag: PriceChange) -> list[User]:
    """The owner, the approvers and the reviewers who can act on the flag's comparison, active
    and with an address, by username."""
    comparison = flag.comparison
    approvers = Review.objects.filter(
        comparison_id=flag.comparison_id, decision=Review.Decision.APPROVE
    ).values_list("reviewer_id", flat=True)
    ids = {*approvers, comparison.created_by_id, *(u.pk for u in reviewers_of(comparison))}
    return list(reachable_users(ids=ids).order_by("username"))


def notify_price_changed(flag: PriceChange, recipients: Iterable[User]) -> int:
    """Tell `recipients` (`price_change_recipients`) that a price the comparison rests on
    changed, with its impact. Raises when the mail cannot be sent (the caller retries)."""
    comparison = flag.comparison
    context = {
        **_context(comparison),
        "flag": flag,
        "impact": flag.impact,
        "detail_url": _absolute(comparison.get_absolute_url()),
    }
    return _send("price_changed", context, recipients, raise_errors=True)


def notify_comparison_decided(comparison: Comparison, review: Review) -> int:
    """Tell the creator what was decided, by whom and why; an approval also closes the RFQs
    it drew on and tells their vendors (`notify_rfq_outcome`)."""
    creator = reachable_users(ids=[comparison.created_by_id])
    sent = _send("comparison_decided", {**_context(comparison), "review": review}, creator)
    if comparison.status == Comparison.Status.APPROVED:
        try:
            sent += notify_rfq_outcome(comparison, review)
        except Exception:  # the decision stands; the RFQ can still be closed by hand
            logger.exception("could not close the RFQs of comparison %s", comparison.pk)
    return sent


def _winning_quote_ids(comparison: Comparison) -> set[int]:
    """The quote versions the approvals chose: the approved row, or every part of an approved
    plan across offers."""
    rows = Review.objects.filter(
        comparison=comparison, decision=Review.Decision.APPROVE, candidate__quote__isnull=False
    ).values_list("candidate__quote_id", flat=True)
    parts = PlanPart.objects.filter(
        comparison=comparison, candidate__quote__isnull=False
    ).values_list("candidate__quote_id", flat=True)
    return {*rows, *parts}


def notify_rfq_outcome(comparison: Comparison, review: Review) -> int:
    """Close the RFQs whose answers the approved comparison weighed, naming it on each, tell
    every vendor that answered one whether its offer was selected, and every invited vendor
    that did not answer that the RFQ closed (one message per vendor user). Returns the number
    of messages sent."""
    rfq_ids = sorted(
        set(comparison.quotes.filter(rfq__isnull=False).order_by().values_list("rfq_id", flat=True))
    )
    if not rfq_ids:
        return 0
    winners = sorted(
        set(
            Quote.objects.filter(pk__in=_winning_quote_ids(comparison)).values_list(
                "provider_id", flat=True
            )
        )
    )
    rfqs = catalog_services.rfqs_close_on_decision(
        acting_user=review.reviewer,
        rfq_ids=rfq_ids,
        decision={
            "comparison": comparison.pk,
            "title": comparison.title,
            "url": comparison.get_absolute_url(),
            "selected_providers": winners,  # the vendor's RFQ page says selected or not
        },
    )
    sent = 0
    for rfq in rfqs:
        answered = set(
            Quote.objects.filter(rfq=rfq, superseded_by__isnull=True)
            .exclude(status=Quote.Status.WITHDRAWN)
            .values_list("provider_id", flat=True)
        )
        invited = set(rfq.providers.values_list("pk", flat=True))
        context = {"rfq": rfq, "rfq_url": _absolute(reverse("vendor:rfq-detail", args=[rfq.pk]))}
        for template, providers in (
            ("rfq_selected", answered & set(winners)),
            ("rfq_not_selected", answered - set(winners)),
            ("rfq_closed", invited - answered),  # invited, never answered: it is over
        ):
            vendors = reachable_users(roles={Role.VENDOR}).filter(provider_id__in=providers)
            sent += _send(template, context, vendors)
    return sent
