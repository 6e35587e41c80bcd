"""How much checklist evidence a quote needs, and how far its answers go. Pure: no Django.

docs/domain.md: "the bigger the commitment, the more evidence to demand".

- required level "basic": on-demand and spot (and marketplace or managed endpoint without a
  commitment) need the basic items answered;
- required level "full": reserved, dedicated cluster, private cloud, purchase, and anything
  with a commitment (minimum GPUs or a term) need every item answered AND evidenced.

An answer counts when its status is yes or partial (partial counts: the vendor states what
is covered and a reviewer can still mark it needs-info or red flag), it is not awaiting more
information, not red-flagged, and, at the full level, it carries evidence (document or URL)
and a reviewer accepted it: above the basic level the vendor's own word is not enough
(the buyer qualifies the supplier). Such items are listed as awaiting review.
`completeness_pct` is the share of required items that count, rounded down, so 100 means
complete.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

BASIC = "basic"
FULL = "full"

# Capacity models that need only the basics when nothing is committed.
BASIC_CAPACITY_MODELS = frozenset({"on_demand", "spot", "marketplace", "managed_endpoint"})

COUNTING_STATUSES = frozenset({"yes", "partial"})

# Why a required item does not count, in the order they are checked.
UNANSWERED = "unanswered"
STATUS_UNKNOWN = "status_unknown"
ANSWERED_NO = "answered_no"
RED_FLAG = "red_flag"
NEEDS_INFO = "needs_info"
NO_EVIDENCE = "no_evidence"
AWAITING_REVIEW = "awaiting_review"

REASON_TEXT = {
    UNANSWERED: "not answered",
    STATUS_UNKNOWN: "the vendor answered 'unknown'",
    ANSWERED_NO: "the vendor answered 'no'",
    RED_FLAG: "a reviewer raised a red flag",
    NEEDS_INFO: "a reviewer asked for more information",
    NO_EVIDENCE: "no evidence attached (a document or a link is required at this commitment)",
    AWAITING_REVIEW: "self-attested: awaiting a reviewer's acceptance (required at this "
    "commitment)",
}


@dataclass(frozen=True, slots=True)
class ItemInput:
    code: str
    title: str
    section: str
    is_basic: bool


@dataclass(frozen=True, slots=True)
class AnswerInput:
    """The effective answer to one item (quote-specific, else the provider default)."""

    item_code: str
    status: str  # yes / partial / no / unknown
    has_evidence: bool
    review_status: str = "pending"  # pending / accepted / needs_info / red_flag
    review_comment: str = ""


@dataclass(frozen=True, slots=True)
class MissingItem:
    code: str
    title: str
    section: str
    reason: str

    @property
    def why(self) -> str:
        return REASON_TEXT[self.reason]

    def as_dict(self) -> dict[str, str]:
        return {**asdict(self), "why": self.why}


@dataclass(frozen=True, slots=True)
class RedFlag:
    code: str
    title: str
    section: str
    comment: str


@dataclass(frozen=True, slots=True)
class ChecklistResult:
    required_level: str
    required_count: int
    counted_count: int
    answered_count: int
    evidenced_count: int
    needs_info_count: int
    missing_items: tuple[MissingItem, ...] = field(default_factory=tuple)
    red_flags: tuple[RedFlag, ...] = field(default_factory=tuple)
    # Codes of items whose effective answer a reviewer accepted (a yes or partial): what a
    # comparison may take as verified, not merely stated by the vendor.
    accepted: tuple[str, ...] = field(default_factory=tuple)

    @property
    def awaiting_review(self) -> tuple[str, ...]:
        """Codes of required items answered and evidenced that no reviewer accepted yet."""
        return tuple(m.code for m in self.missing_items if m.reason == AWAITING_REVIEW)

    @property
    def complete(self) -> bool:
        return self.counted_count == self.required_count

    @property
    def completeness_pct(self) -> int:
        if self.required_count == 0:
            return 100
        return (100 * self.counted_count) // self.required_count

    def as_dict(self) -> dict[str, Any]:
        return {
            "required_level": self.required_level,
            "complete": self.complete,
            "completeness_pct": self.completeness_pct,
            "required_count": self.required_count,
            "counted_count": self.counted_count,
            "answered_count": self.answered_count,
            "evidenced_count": self.evidenced_count,
            "needs_info_count": self.needs_info_count,
            "missing_items": [m.as_dict() for m in self.missing_items],
            "red_flags": [asdict(r) for r in self.red_flags],
            "awaiting_review": list(self.awaiting_review),
            "accepted": list(self.accepted),
        }


def required_level(
    capacity_model: str, *, min_commitment_gpus: int = 0, term_months: int = 0
) -> str:
    """'basic' for uncommitted elastic capacity, 'full' for everything else.

    Any commitment (minimum GPUs or a term) raises the level, whatever the capacity model;
    an unknown capacity model is treated as a commitment (ask for more, not less).
    """
    committed = (min_commitment_gpus or 0) > 0 or (term_months or 0) > 0
    if capacity_model in BASIC_CAPACITY_MODELS and not committed:
        return BASIC
    return FULL


def _reason(answer: AnswerInput | None, level: str) -> str | None:
    if answer is None:
        return UNANSWERED
    if answer.status == "unknown":
        return STATUS_UNKNOWN
    if answer.status not in COUNTING_STATUSES:
        return ANSWERED_NO
    if answer.review_status == "red_flag":
        return RED_FLAG
    if answer.review_status == "needs_info":
        return NEEDS_INFO
    if level == FULL and not answer.has_evidence:
        return NO_EVIDENCE
    if level == FULL and answer.review_status != "accepted":
        return AWAITING_REVIEW
    return None


def evaluate(
    items: Iterable[ItemInput], answers: Mapping[str, AnswerInput], *, level: str
) -> ChecklistResult:
    """Score the effective answers (keyed by item code) against the required level."""
    if level not in (BASIC, FULL):
        raise ValueError(f"Unknown checklist level {level!r}.")
    items = list(items)
    required = [item for item in items if level == FULL or item.is_basic]
    missing: list[MissingItem] = []
    for item in required:
        reason = _reason(answers.get(item.code), level)
        if reason is not None:
            missing.append(MissingItem(item.code, item.title, item.section, reason))
    known = [(item, answers[item.code]) for item in items if item.code in answers]
    red_flags = tuple(
        RedFlag(item.code, item.title, item.section, answer.review_comment)
        for item, answer in known
        if answer.review_status == "red_flag"
    )
    return ChecklistResult(
        required_level=level,
        required_count=len(required),
        counted_count=len(required) - len(missing),
        answered_count=sum(1 for _, a in known if a.status in COUNTING_STATUSES),
        evidenced_count=sum(1 for _, a in known if a.has_evidence),
        needs_info_count=sum(1 for _, a in known if a.review_status == "needs_info"),
        missing_items=tuple(missing),
        red_flags=red_flags,
        accepted=tuple(
            item.code
            for item, a in known
            if a.review_status == "accepted" and a.status in COUNTING_STATUSES
        ),
    )


def checklist_summary(
    items: Iterable[ItemInput],
    answers: Mapping[str, AnswerInput],
    *,
    capacity_model: str,
    min_commitment_gpus: int = 0,
    term_months: int = 0,
) -> ChecklistResult:
    """The whole computation for one quote: its level from the terms, then the score."""
    level = required_level(
        capacity_model, min_commitment_gpus=min_commitment_gpus, term_months=term_months
    )
    return evaluate(items, answers, level=level)
