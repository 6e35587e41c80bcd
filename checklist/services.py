"""Writes: vendors answer checklist items (with evidence), reviewers give verdicts.

Answers are never changed: answering again adds a row that supersedes the current one in the
same scope (this quote, or the provider default). Only `review_status` moves, always
together with a new ChecklistReview row. Every write is audited; nothing is saved half-way
(a failed batch removes the files it had stored).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction

from accounts.models import Provider
from catalog.errors import RfqClosed
from checklist import access, evidence, selectors
from checklist.models import ChecklistAnswer, ChecklistItem, ChecklistReview
from core.audit import audit_record
from core.errors import Conflict, DomainError, NotAllowed
from core.roles import is_vendor

if TYPE_CHECKING:
    from accounts.models import User
    from catalog.models import Quote

SCOPE_QUOTE = "quote"
SCOPE_PROVIDER = "provider"
SCOPES = (SCOPE_QUOTE, SCOPE_PROVIDER)


@dataclass(frozen=True, slots=True)
class AnswerEntry:
    """One item's new answer. Without new evidence the previous evidence is kept, unless
    `keep_evidence` is False."""

    item: ChecklistItem
    answer: str
    status: str
    scope: str = SCOPE_QUOTE
    evidence_url: str = ""
    evidence_file: UploadedFile[bytes] | None = None
    keep_evidence: bool = True


def _invalid(field: str, message: str) -> DomainError:
    return DomainError(message, fields={field: [message]})


def _check_entry(entry: AnswerEntry, quote: Quote | None) -> None:
    if entry.scope not in SCOPES:
        raise _invalid("scope", "Choose 'this quote only' or 'use for all my quotes'.")
    if entry.scope == SCOPE_QUOTE and quote is None:
        raise _invalid("scope", "A quote-specific answer needs a quote.")
    if not entry.answer.strip():
        raise _invalid("answer", "Write an answer (what you offer, or why not).")
    if entry.status not in ChecklistAnswer.Status.values:
        raise _invalid("status", "Choose yes, partial, no or unknown.")
    if entry.evidence_url and entry.evidence_file is not None:
        raise _invalid("evidence_url", "Give either a document or a link, not both.")
    if entry.evidence_url and not entry.evidence_url.lower().startswith(("https://", "http://")):
        raise _invalid("evidence_url", "The evidence link must start with https:// or http://.")


def _check_vendor(acting_user: User, provider: Provider, quote: Quote | None) -> None:
    if not is_vendor(acting_user) or acting_user.provider_id != provider.pk:
        raise NotAllowed("Only the provider's own vendor users answer its checklist.")
    if quote is None:
        return
    if quote.provider_id != provider.pk:
        raise NotAllowed()
    if reason := selectors.rfq_closed_reason(quote):
        raise RfqClosed(reason)  # 409, as for a late quote revision
    if reason := selectors.quote_closed_reason(quote):
        raise DomainError(reason)


def _previous_evidence(
    quote: Quote | None, item: ChecklistItem, current: ChecklistAnswer | None
) -> ChecklistAnswer | None:
    """Where kept evidence comes from: the current answer in scope, else the one shown."""
    if current is not None:
        return current
    if quote is None:
        return None
    return selectors.effective_answer(quote, item.pk)


def _standing_flag(
    provider: Provider, quote: Quote | None, item: ChecklistItem, current: ChecklistAnswer | None
) -> str:
    """A reviewer's red flag stands until a reviewer decides.

    Answering again reopens the item for review but keeps the flag, in this scope and across
    scopes: a quote-specific answer cannot wash a flag raised on the provider's default. (A
    request for information is answered by answering: that answer awaits review as before.)
    """
    flagged = (ChecklistAnswer.ReviewStatus.RED_FLAG,)
    earlier = [current]
    if quote is not None:
        earlier.append(
            selectors.current_answer_in_scope(
                provider_id=provider.pk, quote_id=None, item_id=item.pk
            )
        )
    for answer in earlier:
        if answer is not None and answer.review_status in flagged:
            return str(answer.review_status)
    return str(ChecklistAnswer.ReviewStatus.PENDING)


def _submit_one(
    acting_user: User,
    provider: Provider,
    quote: Quote | None,
    entry: AnswerEntry,
    stored: list[str],
) -> ChecklistAnswer:
    _check_entry(entry, quote)
    scoped_quote = quote if entry.scope == SCOPE_QUOTE else None
    current = selectors.current_answer_in_scope(
        provider_id=provider.pk,
        quote_id=scoped_quote.pk if scoped_quote else None,
        item_id=entry.item.pk,
    )
    row = ChecklistAnswer(
        provider=provider,
        quote=scoped_quote,
        item=entry.item,
        answer=entry.answer.replace("\r\n", "\n").strip(),
        status=entry.status,
        evidence_url=entry.evidence_url,
        supersedes=current,
        answered_by=acting_user,
        review_status=_standing_flag(provider, quote, entry.item, current),
    )
    if entry.evidence_file is not None:
        checked = evidence.check_upload(entry.evidence_file)
        row.evidence_file.save(evidence.storage_name(checked), entry.evidence_file, save=False)
        if row.evidence_file.name:  # set by save()
            stored.append(row.evidence_file.name)
        row.evidence_name = checked.display_name
        row.evidence_sha256 = checked.sha256
    elif not entry.evidence_url and entry.keep_evidence:
        previous = _previous_evidence(quote, entry.item, current)
        if previous is not None:
            row.evidence_url = previous.evidence_url
            row.evidence_file = previous.evidence_file.name
            row.evidence_name = previous.evidence_name
            row.evidence_sha256 = previous.evidence_sha256
    row.save()
    audit_record(
        actor=acting_user,
        action="checklist.answer",
        obj=row,
        summary={
            "item": entry.item.code,
            "status": row.status,
            "scope": entry.scope,
            "quote": quote.pk if quote else None,
            "evidence": "file" if row.evidence_file else ("url" if row.evidence_url else "none"),
            "evidence_sha256": row.evidence_sha256,
            "supersedes": current.pk if current else None,
        },
    )
    return row


def answers_submit(
    *,
    acting_user: User,
    provider: Provider,
    quote: Quote | None,
    entries: Sequence[AnswerEntry],
) -> list[ChecklistAnswer]:
    """Save several answers at once, all or nothing (files included)."""
    _check_vendor(acting_user, provider, quote)
    stored: list[str] = []
    try:
        with transaction.atomic():
            # One writer per provider at a time, so two answers cannot both supersede
            # the same row (the one-to-one constraint would refuse the second anyway).
            Provider.objects.select_for_update().filter(pk=provider.pk).first()
            return [_submit_one(acting_user, provider, quote, e, stored) for e in entries]
    except IntegrityError as exc:
        _remove_files(stored)
        raise Conflict(
            "Someone answered this item at the same time; reload and try again."
        ) from exc
    except BaseException:
        _remove_files(stored)
        raise


def answer_submit(
    *, acting_user: User, provider: Provider, quote: Quote | None, entry: AnswerEntry
) -> ChecklistAnswer:
    """Save one answer (the API's write)."""
    return answers_submit(acting_user=acting_user, provider=provider, quote=quote, entries=[entry])[
        0
    ]


def _remove_files(names: Sequence[str]) -> None:
    for name in names:
        default_storage.delete(name)


REVIEW_DECISIONS = tuple(c for c in ChecklistAnswer.ReviewStatus.values if c != "pending")


@transaction.atomic
def answer_review(
    *, acting_user: User, answer: ChecklistAnswer, decision: str, comment: str = ""
) -> ChecklistReview:
    """Record a verdict on the current answer; the section decides who may review."""
    if not access.can_review_checklist_section(acting_user, answer.item.section):
        raise NotAllowed(
            f"Your role does not review the {answer.item.get_section_display()} section."
        )
    comment = comment.strip()
    if decision not in REVIEW_DECISIONS:
        raise _invalid("decision", "Choose accepted, needs more information, or red flag.")
    if decision != ChecklistAnswer.ReviewStatus.ACCEPTED and not comment:
        raise _invalid(
            "comment",
            "Say what is missing or wrong: a comment is required unless you accept the answer.",
        )
    locked = ChecklistAnswer.objects.select_for_update().get(pk=answer.pk)
    if ChecklistAnswer.objects.filter(supersedes_id=locked.pk).exists():
        raise Conflict("The vendor has answered again since; review the newer answer.")
    review = ChecklistReview.objects.create(
        answer=locked, reviewer=acting_user, decision=decision, comment=comment
    )
    before = locked.review_status
    locked.review_status = decision
    locked.save(update_fields=["review_status"])
    answer.review_status = decision
    audit_record(
        actor=acting_user,
        action="checklist.review",
        obj=locked,
        summary={
            "item": answer.item.code,
            "decision": decision,
            "before": before,
            "comment": comment[:500],
        },
    )
    return review


def entry_from_data(item: ChecklistItem, data: dict[str, Any]) -> AnswerEntry:
    """Build an AnswerEntry from validated form or serializer data."""
    return AnswerEntry(
        item=item,
        answer=data.get("answer", ""),
        status=data.get("status", ""),
        scope=data.get("scope") or SCOPE_QUOTE,
        evidence_url=data.get("evidence_url") or "",
        evidence_file=data.get("evidence_file"),
        keep_evidence=not data.get("remove_evidence", False),
    )
