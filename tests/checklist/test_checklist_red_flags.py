"""H4 (security findings): a vendor cannot erase a reviewer's red flag by answering again.

The new answer reopens the item for review and keeps the flag until a reviewer decides, also
when the vendor answers in another scope (quote-specific over a flagged provider default).
"""

from __future__ import annotations

import pytest

from checklist import services
from checklist.models import ChecklistAnswer
from checklist.selectors import quote_checklist_summary
from checklist.services import AnswerEntry

pytestmark = pytest.mark.django_db
ITEM = "network-boundary"


def _item(items):
    return next(i for i in items if i.code == ITEM)


def _answer(vendor, quote, item, *, scope="quote", text="Yes, fully compliant."):
    return services.answer_submit(
        acting_user=vendor,
        provider=quote.provider,
        quote=quote,
        entry=AnswerEntry(
            item=item, answer=text, status="yes", scope=scope, evidence_url="https://x.example/t"
        ),
    )


def _flags(quote):
    return [f["code"] for f in quote_checklist_summary(quote)["red_flags"]]


def test_h4_answering_again_keeps_the_red_flag(quote_a, vendor_a, security, items):
    first = _answer(vendor_a, quote_a, _item(items), text="No private endpoint.")
    services.answer_review(
        acting_user=security,
        answer=first,
        decision="red_flag",
        comment="No private endpoint offered.",
    )
    assert _flags(quote_a) == [ITEM]
    again = _answer(vendor_a, quote_a, _item(items))
    assert again.review_status == ChecklistAnswer.ReviewStatus.RED_FLAG
    assert _flags(quote_a) == [ITEM]


def test_h4_a_quote_answer_cannot_wash_a_flag_on_the_provider_default(
    quote_a, vendor_a, security, items
):
    default = _answer(vendor_a, quote_a, _item(items), scope="provider", text="No VPC peering.")
    services.answer_review(
        acting_user=security,
        answer=default,
        decision="red_flag",
        comment="No private endpoint offered.",
    )
    assert _flags(quote_a) == [ITEM]
    _answer(vendor_a, quote_a, _item(items), scope="quote")
    assert _flags(quote_a) == [ITEM]


def test_h4_only_a_reviewer_clears_the_flag(quote_a, vendor_a, security, items):
    first = _answer(vendor_a, quote_a, _item(items), text="No private endpoint.")
    services.answer_review(
        acting_user=security,
        answer=first,
        decision="red_flag",
        comment="No private endpoint offered.",
    )
    again = _answer(vendor_a, quote_a, _item(items))
    services.answer_review(acting_user=security, answer=again, decision="accepted")
    assert _flags(quote_a) == []
