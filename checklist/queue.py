"""Reviewer queues: which vendors' answers await *my* review, and accepting a whole section.

A reviewer reviews the sections of their role (`access.CHECKLIST_REVIEWERS`); an answer awaits
review while its review status is pending. "Accept all in this section" runs the ordinary
review service once per answer, so each acceptance is checked and audited on its own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from django.db import transaction

from checklist import access, levels, services
from checklist.models import ChecklistAnswer, Section
from checklist.selectors import ChecklistDetail, _head_answers, _pick_effective, quote_lineages
from core.roles import Role

if TYPE_CHECKING:
    from accounts.models import User
    from catalog.models import Quote
    from checklist.models import ChecklistReview

# Section → who reviews it, as people call those roles (never "the commercial reviewers").
ROLE_WORDS = {
    Role.PLATFORM_ENGINEER: "platform engineers",
    Role.FINANCE_REVIEWER: "finance reviewers",
    Role.PROCUREMENT_LEAD: "procurement leads",
    Role.SECURITY_REVIEWER: "security reviewers",
}


def section_reviewers(section: str) -> str:
    """ "platform engineers", "finance reviewers or procurement leads" (admins go unsaid)."""
    roles = access.CHECKLIST_REVIEWERS.get(section, frozenset())
    words = [ROLE_WORDS[r] for r in ROLE_WORDS if r in roles]
    return " or ".join(words) or "administrators"


def my_sections(user: User) -> list[str]:
    return [key for key, _ in Section.choices if access.can_review_checklist_section(user, key)]


def awaiting_my_review(user: User, quotes: Sequence[Quote]) -> dict[int, dict[str, int]]:
    """quote id → {section: answers awaiting review in the sections `user` reviews}, for the
    quotes' current answers (a provider default counts for every quote it applies to)."""
    sections = set(my_sections(user))
    if not sections or not quotes:
        return {}
    lineages = quote_lineages(quotes)
    heads = list(_head_answers(quotes, lineages).select_related("item"))
    by_provider: dict[int, list[ChecklistAnswer]] = defaultdict(list)
    for answer in heads:
        by_provider[answer.provider_id].append(answer)
    out: dict[int, dict[str, int]] = {}
    for quote in quotes:
        effective = _pick_effective(quote, lineages[quote.pk], by_provider[quote.provider_id])
        counts: dict[str, int] = defaultdict(int)
        for answer, _scope in effective.values():
            if (
                answer.review_status == ChecklistAnswer.ReviewStatus.PENDING
                and answer.item.section in sections
            ):
                counts[answer.item.section] += 1
        if counts:
            out[quote.pk] = dict(counts)
    return out


def pending_in_section(user: User, detail: ChecklistDetail, section: str) -> list[ChecklistAnswer]:
    """The answers of one section of a quote's checklist that await review and that `user`
    may review."""
    if not access.can_review_checklist_section(user, section):
        return []
    return [
        row.answer
        for row in detail.rows
        if row.item.section == section
        and row.answer is not None
        and row.answer.review_status == ChecklistAnswer.ReviewStatus.PENDING
    ]


def bulk_sections(user: User, detail: ChecklistDetail) -> dict[str, int]:
    """section → how many answers "Accept all in this section" would accept."""
    out = {}
    for key, _label, _rows in detail.sections:
        if pending := pending_in_section(user, detail, key):
            out[key] = len(pending)
    return out


@transaction.atomic
def section_accept(
    *, acting_user: User, answers: Iterable[ChecklistAnswer]
) -> list[ChecklistReview]:
    """Accept each answer through the review service: one review and one audit event each."""
    accepted = ChecklistAnswer.ReviewStatus.ACCEPTED
    return [
        services.answer_review(acting_user=acting_user, answer=answer, decision=accepted)
        for answer in answers
    ]


def queue_context(user: User, quotes: Sequence[Quote], *, mine_only: bool) -> dict[str, Any]:
    """What the index shows a reviewer: counts per quote and section, the total, the filter."""
    waiting = awaiting_my_review(user, quotes)
    labels = dict(Section.choices)
    return {
        "waiting_by_quote": {
            qid: [(labels.get(key, key), n) for key, n in counts.items()]
            for qid, counts in waiting.items()
        },
        "my_sections": [(key, label) for key, label in Section.choices if key in my_sections(user)],
        "waiting": waiting,
        "waiting_total": sum(sum(c.values()) for c in waiting.values()),
        "waiting_quotes": len(waiting),
        "mine_only": mine_only,
    }


def vendor_part(detail: ChecklistDetail) -> dict[str, Any]:
    """What is left for the vendor on one quote's checklist: the items it must still answer
    or document, and how many of its answers wait for the buyer's reviewers."""
    missing = detail.summary.get("missing_items") or []
    todo = [m for m in missing if m.get("reason") != levels.AWAITING_REVIEW]
    waiting = sum(
        1
        for row in detail.rows
        if row.answer is not None
        and row.answer.review_status == ChecklistAnswer.ReviewStatus.PENDING
    )
    if todo:
        state = "todo"
    elif waiting:
        state = "waiting"
    else:
        state = "accepted"
    return {"state": state, "todo": todo, "waiting": waiting}
