"""Reads: effective answers per quote, and the checklist summary other areas embed.

The effective answer to an item for a quote is, nearest first: the current answer given for
this quote, for an earlier version of the same quote (a revision keeps its checklist), and
the provider's default answer. "Current" means no newer answer supersedes it.

`quote_checklist_summaries(quotes)` is batched: its query count does not depend on how many
quotes are passed (one more query per level of revision depth only).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Prefetch, Q, QuerySet

from catalog.models import Quote, Rfq
from checklist import levels
from checklist.models import ChecklistAnswer, ChecklistItem, ChecklistReview, Section

SCOPE_QUOTE = "quote"
SCOPE_EARLIER_VERSION = "earlier_version"
SCOPE_PROVIDER = "provider"
SCOPE_LABELS = {
    SCOPE_QUOTE: "this quote",
    SCOPE_EARLIER_VERSION: "an earlier version of this quote",
    SCOPE_PROVIDER: "default for all quotes",
}


@dataclass
class ItemRow:
    """One checklist item as a page shows it: the effective answer and what came before."""

    item: ChecklistItem
    answer: ChecklistAnswer | None = None
    scope: str = ""
    history: list[ChecklistAnswer] = field(default_factory=list)
    missing_reason: str | None = None

    @property
    def scope_label(self) -> str:
        return SCOPE_LABELS.get(self.scope, "")

    @property
    def missing_why(self) -> str:
        return levels.REASON_TEXT[self.missing_reason] if self.missing_reason else ""

    @property
    def latest_review(self) -> ChecklistReview | None:
        if self.answer is None:
            return None
        reviews = list(self.answer.reviews.all())
        return reviews[0] if reviews else None

    @property
    def anchor(self) -> str:
        return f"item-{self.item.code}"


@dataclass
class ChecklistDetail:
    rows: list[ItemRow]
    summary: dict[str, Any]

    @property
    def sections(self) -> list[tuple[str, str, list[ItemRow]]]:
        grouped: dict[str, list[ItemRow]] = defaultdict(list)
        for row in self.rows:
            grouped[row.item.section].append(row)
        return [(key, label, grouped[key]) for key, label in Section.choices if grouped[key]]


def items_all() -> list[ChecklistItem]:
    return list(ChecklistItem.objects.order_by("order"))


def _item_inputs(items: Sequence[ChecklistItem]) -> list[levels.ItemInput]:
    return [levels.ItemInput(i.code, i.title, i.section, i.is_basic) for i in items]


def quote_lineages(quotes: Sequence[Quote]) -> dict[int, list[int]]:
    """quote id → [itself, the version it revised, ...], nearest first."""

    parent: dict[int, int | None] = {q.pk: q.supersedes_id for q in quotes}
    pending = {p for p in parent.values() if p is not None and p not in parent}
    while pending:
        rows = Quote.objects.filter(pk__in=pending).values_list("pk", "supersedes_id")
        pending = set()
        for pk, supersedes_id in rows:
            parent[pk] = supersedes_id
            if supersedes_id is not None and supersedes_id not in parent:
                pending.add(supersedes_id)
    lineages: dict[int, list[int]] = {}
    for quote in quotes:
        chain: list[int] = []
        current: int | None = quote.pk
        while current is not None and current not in chain:
            chain.append(current)
            current = parent.get(current)
        lineages[quote.pk] = chain
    return lineages


def _head_answers(
    quotes: Sequence[Quote], lineages: dict[int, list[int]], *, as_of: datetime | None = None
) -> QuerySet[Any]:
    """The current answers; with `as_of`, the answers that were current at that time."""
    quote_ids = {qid for chain in lineages.values() for qid in chain}
    provider_ids = {q.provider_id for q in quotes}
    scope = Q(quote_id__in=quote_ids) | Q(quote__isnull=True)
    answers = ChecklistAnswer.objects.filter(scope, provider_id__in=provider_ids)
    if as_of is None:
        answers = answers.filter(superseded_by__isnull=True)
    else:
        answers = answers.filter(answered_at__lte=as_of).exclude(
            superseded_by__answered_at__lte=as_of
        )
    return answers.order_by("-answered_at", "-pk")


def answers_frozen_at(quotes: Sequence[Quote]) -> dict[int, datetime]:
    """quote id → when its RFQ stopped taking answers, for quotes of closed RFQs.

    Their checklist is read as it stood then: a provider default given after the deadline
    does not count for them (until the lead reopens the RFQ). One query for all the quotes.
    """

    rfq_ids = {q.rfq_id for q in quotes if q.rfq_id is not None}
    if not rfq_ids:
        return {}
    closed = {
        rfq.pk: rfq.deadline
        for rfq in Rfq.objects.filter(pk__in=rfq_ids)
        if not rfq.is_open_for_answers()
    }
    return {q.pk: closed[q.rfq_id] for q in quotes if q.rfq_id in closed}


def _pick_effective(
    quote: Quote, chain: list[int], heads: Iterable[ChecklistAnswer]
) -> dict[int, tuple[ChecklistAnswer, str]]:
    """item id → (effective answer, scope) for one quote, from the candidate head answers."""
    rank = {qid: depth for depth, qid in enumerate(chain)}
    best: dict[int, tuple[int, ChecklistAnswer]] = {}
    for answer in heads:  # newest first: on a tie the newest wins
        if answer.provider_id != quote.provider_id:
            continue
        if answer.quote_id is None:
            depth = len(chain)
        elif answer.quote_id in rank:
            depth = rank[answer.quote_id]
        else:
            continue
        if answer.item_id not in best or depth < best[answer.item_id][0]:
            best[answer.item_id] = (depth, answer)
    out: dict[int, tuple[ChecklistAnswer, str]] = {}
    for item_id, (depth, answer) in best.items():
        if depth == 0:
            scope = SCOPE_QUOTE
        elif depth < len(chain):
            scope = SCOPE_EARLIER_VERSION
        else:
            scope = SCOPE_PROVIDER
        out[item_id] = (answer, scope)
    return out


def _answer_input(
    item: ChecklistItem, answer: ChecklistAnswer, comment: str = ""
) -> levels.AnswerInput:
    return levels.AnswerInput(
        item_code=item.code,
        status=answer.status,
        has_evidence=answer.has_evidence,
        review_status=answer.review_status,
        review_comment=comment,
    )


def _result_for(
    quote: Quote,
    items: Sequence[ChecklistItem],
    effective: dict[int, tuple[ChecklistAnswer, str]],
    comments: dict[int, str],
    level: str | None = None,
) -> levels.ChecklistResult:
    answers: dict[str, levels.AnswerInput] = {}
    for item in items:
        if item.pk in effective:
            answer = effective[item.pk][0]
            answers[item.code] = _answer_input(item, answer, comments.get(answer.pk, ""))
    if level is not None:  # a level asked by someone else (a plan's largest commitment)
        return levels.evaluate(_item_inputs(items), answers, level=level)
    return levels.checklist_summary(
        _item_inputs(items),
        answers,
        capacity_model=quote.capacity_model,
        min_commitment_gpus=quote.min_commitment_gpus,
        term_months=quote.term_months,
    )


def _latest_comments(answer_ids: Iterable[int]) -> dict[int, str]:
    """answer id → comment of its latest review (for needs-info and red-flag answers)."""
    ids = list(answer_ids)
    if not ids:
        return {}
    comments: dict[int, str] = {}
    reviews = ChecklistReview.objects.filter(answer_id__in=ids).order_by(
        "answer_id", "-created_at", "-pk"
    )
    for answer_id, comment in reviews.values_list("answer_id", "comment"):
        comments.setdefault(answer_id, comment)
    return comments


def quote_checklist_summaries(
    quotes: Iterable[Quote], *, level: str | None = None
) -> dict[int, dict[str, Any]]:
    """quote id → summary dict (see `quote_checklist_summary`), in a constant number of queries.

    Pass quotes with `provider` loaded or not: only ids and terms are read. `level` ("basic"
    or "full") scores every quote at that level instead of the one its own terms need.
    """
    quotes = list(quotes)
    if not quotes:
        return {}
    lineages = quote_lineages(quotes)
    items = items_all()
    frozen = answers_frozen_at(quotes)
    live = [q for q in quotes if q.pk not in frozen]
    heads = list(_head_answers(live, lineages)) if live else []
    heads_at: dict[int, list[ChecklistAnswer]] = {}
    for cutoff in set(frozen.values()):  # one query per closed RFQ, not per quote
        closed = [q for q in quotes if frozen.get(q.pk) == cutoff]
        found = list(_head_answers(closed, lineages, as_of=cutoff))
        heads_at.update({q.pk: found for q in closed})
    every = heads + [a for found in heads_at.values() for a in found]
    flagged = [
        a.pk
        for a in every
        if a.review_status
        in (ChecklistAnswer.ReviewStatus.RED_FLAG, ChecklistAnswer.ReviewStatus.NEEDS_INFO)
    ]
    comments = _latest_comments(flagged)
    by_provider: dict[int, list[ChecklistAnswer]] = defaultdict(list)
    for answer in heads:
        by_provider[answer.provider_id].append(answer)
    out: dict[int, dict[str, Any]] = {}
    for quote in quotes:
        candidates = heads_at.get(quote.pk, by_provider[quote.provider_id])
        effective = _pick_effective(quote, lineages[quote.pk], candidates)
        out[quote.pk] = _result_for(quote, items, effective, comments, level).as_dict()
    return out


def quote_checklist_summary(quote: Quote) -> dict[str, Any]:
    """The checklist summary of one quote, as the quote API embeds it.

    Keys: required_level ("basic"/"full"), complete, completeness_pct (0-100, rounded down),
    required_count, counted_count, answered_count, evidenced_count, needs_info_count,
    missing_items [{code, title, section, reason, why}], red_flags [{code, title, section,
    comment}].
    """
    return quote_checklist_summaries([quote])[quote.pk]


def _answers_with_reviews(*scope: Q, **lookup: Any) -> list[ChecklistAnswer]:
    """The answers matching the filter, newest first, with their items and reviews."""
    answers = ChecklistAnswer.objects.filter(*scope, **lookup).order_by("-answered_at", "-pk")
    return list(
        answers.select_related("item", "answered_by", "quote").prefetch_related(
            Prefetch("reviews", queryset=ChecklistReview.objects.select_related("reviewer"))
        )
    )


def quote_checklist_detail(quote: Quote) -> ChecklistDetail:
    """Every item for one quote: effective answer, its scope, older answers, the summary."""
    items = items_all()
    chain = quote_lineages([quote])[quote.pk]
    for_quote = Q(quote_id__in=chain) | Q(quote__isnull=True)
    answers = _answers_with_reviews(for_quote, provider_id=quote.provider_id)
    heads = _heads(answers, as_of=answers_frozen_at([quote]).get(quote.pk))
    effective = _pick_effective(quote, chain, heads)
    comments = {a.pk: _first_comment(a) for a, _ in effective.values()}
    result = _result_for(quote, items, effective, comments)
    missing = {m.code: m.reason for m in result.missing_items}
    rows = []
    for item in items:
        answer, scope = effective.get(item.pk, (None, ""))
        history = [a for a in answers if a.item_id == item.pk and a is not answer]
        rows.append(ItemRow(item, answer, scope, history, missing.get(item.code)))
    return ChecklistDetail(rows=rows, summary=result.as_dict())


def provider_defaults_detail(provider_id: int) -> ChecklistDetail:
    """Every item with the provider's current default answer and the older ones."""
    items = items_all()
    answers = _answers_with_reviews(provider_id=provider_id, quote__isnull=True)
    heads = _heads(answers)
    rows = []
    for item in items:
        current = next((a for a in heads if a.item_id == item.pk), None)
        history = [a for a in answers if a.item_id == item.pk and a is not current]
        rows.append(ItemRow(item, current, SCOPE_PROVIDER if current else "", history))
    return ChecklistDetail(rows=rows, summary={})


def _heads(
    answers: Sequence[ChecklistAnswer], *, as_of: datetime | None = None
) -> list[ChecklistAnswer]:
    """The current answers among `answers`; with `as_of`, those current at that time."""
    if as_of is not None:
        answers = [a for a in answers if a.answered_at <= as_of]
    superseded = {a.supersedes_id for a in answers if a.supersedes_id is not None}
    return [a for a in answers if a.pk not in superseded]


def _first_comment(answer: ChecklistAnswer) -> str:
    reviews = list(answer.reviews.all())
    return reviews[0].comment if reviews else ""


def effective_answer(quote: Quote, item_id: int) -> ChecklistAnswer | None:
    """The answer that counts for one item of one quote (None when unanswered)."""
    chain = quote_lineages([quote])[quote.pk]
    heads = _head_answers([quote], {quote.pk: chain}).filter(item_id=item_id)
    picked = _pick_effective(quote, chain, heads)
    return picked[item_id][0] if item_id in picked else None


def rfq_closed_reason(quote: Quote) -> str:
    """Why the quote's RFQ no longer takes checklist answers for it ("" while it does)."""
    rfq = quote.rfq
    if rfq is None or rfq.is_open_for_answers():
        return ""
    return (
        f"The RFQ “{rfq}” closed on {rfq.deadline:%Y-%m-%d %H:%M} UTC: checklist answers for "
        "its quotes are refused. Ask the procurement lead to reopen the RFQ."
    )


def quote_closed_reason(quote: Quote) -> str:
    """Why the quote's checklist can no longer be answered ("" when it can)."""
    if reason := rfq_closed_reason(quote):
        return reason
    if quote.status == "withdrawn":
        return "This quote was withdrawn; its checklist can no longer be answered."
    newer = type(quote).objects.filter(supersedes_id=quote.pk).values_list("pk", flat=True)
    if newer_id := newer.first():
        return f"This quote has a newer version (#{newer_id}); answer the checklist there."
    return ""


def current_answer_in_scope(
    *, provider_id: int, quote_id: int | None, item_id: int
) -> ChecklistAnswer | None:
    """The answer a new one in the same scope (this quote, or the default) supersedes."""
    return (
        ChecklistAnswer.objects.filter(
            Q(quote__isnull=True) if quote_id is None else Q(quote_id=quote_id),
            provider_id=provider_id,
            item_id=item_id,
            superseded_by__isnull=True,
        )
        .order_by("-answered_at", "-pk")
        .first()
    )
