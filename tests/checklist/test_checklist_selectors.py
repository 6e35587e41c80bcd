"""The selector other areas call: effective answers, summaries, batched queries."""

from __future__ import annotations

import pytest

from checklist import selectors
from checklist.models import ChecklistAnswer, ChecklistReview
from tests.checklist.factories_checklist import AnswerFactory
from tests.factories import QuoteFactory

pytestmark = pytest.mark.django_db


def _answer_all(quote, items, *, skip=(), evidence=True, on_quote=True, review="accepted"):
    """Answer every item (but `skip`); accepted by a reviewer unless told otherwise, since
    above the basic level only accepted answers count (M4)."""
    for item in items:
        if item.code in skip:
            continue
        AnswerFactory(
            provider=quote.provider,
            quote=quote if on_quote else None,
            item=item,
            evidence_url="https://example.com/e" if evidence else "",
            review_status=review,
        )


def test_reserved_quote_19_of_20_is_incomplete_with_the_missing_item_named(quote_a, items):
    _answer_all(quote_a, items, skip={"budgets-chargeback"})
    summary = selectors.quote_checklist_summary(quote_a)
    assert summary["required_level"] == "full"
    assert summary["complete"] is False
    assert summary["completeness_pct"] == 95
    assert [(m["code"], m["reason"]) for m in summary["missing_items"]] == [
        ("budgets-chargeback", "unanswered")
    ]


def test_reserved_quote_all_answered_with_evidence_is_complete(quote_a, items):
    _answer_all(quote_a, items)
    summary = selectors.quote_checklist_summary(quote_a)
    assert summary["complete"] is True
    assert summary["completeness_pct"] == 100
    assert summary["missing_items"] == []
    assert summary["red_flags"] == []


def test_m4_unreviewed_answers_leave_a_reserved_quote_awaiting_review(quote_a, items):
    _answer_all(quote_a, items, review="pending")
    summary = selectors.quote_checklist_summary(quote_a)
    assert summary["complete"] is False
    assert summary["awaiting_review"] == [item.code for item in items]
    assert {m["reason"] for m in summary["missing_items"]} == {"awaiting_review"}


def test_provider_defaults_count_for_every_quote_of_that_provider(quote_a, items, provider_a):
    _answer_all(quote_a, items, on_quote=False)
    other = QuoteFactory(provider=provider_a, capacity_model="purchase")
    summaries = selectors.quote_checklist_summaries([quote_a, other])
    assert summaries[quote_a.pk]["complete"]
    assert summaries[other.pk]["complete"]


def test_quote_specific_answer_overrides_the_provider_default(quote_a, items, provider_a):
    _answer_all(quote_a, items, on_quote=False)
    AnswerFactory(provider=provider_a, quote=quote_a, item=items[3], status="unknown")
    other = QuoteFactory(provider=provider_a, capacity_model="reserved")
    summaries = selectors.quote_checklist_summaries([quote_a, other])
    assert [m["code"] for m in summaries[quote_a.pk]["missing_items"]] == [items[3].code]
    assert summaries[other.pk]["complete"]


def test_answers_of_another_provider_never_count(quote_a, quote_b, items):
    _answer_all(quote_b, items, on_quote=False)
    summary = selectors.quote_checklist_summary(quote_a)
    assert summary["completeness_pct"] == 0
    assert len(summary["missing_items"]) == 20


def test_a_superseded_answer_no_longer_counts(quote_a, items):
    _answer_all(quote_a, items)
    old = ChecklistAnswer.objects.get(quote=quote_a, item=items[0])
    AnswerFactory(
        provider=quote_a.provider, quote=quote_a, item=items[0], status="no", supersedes=old
    )
    summary = selectors.quote_checklist_summary(quote_a)
    assert [(m["code"], m["reason"]) for m in summary["missing_items"]] == [
        (items[0].code, "answered_no")
    ]


def test_a_revised_quote_keeps_the_answers_of_its_earlier_version(quote_a, items):
    _answer_all(quote_a, items)
    v2 = QuoteFactory(
        provider=quote_a.provider, capacity_model="reserved", supersedes=quote_a, version=2
    )
    detail = selectors.quote_checklist_detail(v2)
    assert detail.summary["complete"]
    assert {row.scope for row in detail.rows} == {selectors.SCOPE_EARLIER_VERSION}


def test_red_flags_and_needs_info_carry_the_latest_review_comment(quote_a, items, security):
    _answer_all(quote_a, items)
    flagged = ChecklistAnswer.objects.get(quote=quote_a, item__code="network-boundary")
    ChecklistReview.objects.create(
        answer=flagged,
        reviewer=security,
        decision="red_flag",
        comment="Public IPs only, no private endpoint",
    )
    flagged.review_status = "red_flag"
    flagged.save(update_fields=["review_status"])
    summary = selectors.quote_checklist_summary(quote_a)
    assert summary["red_flags"][0]["comment"] == "Public IPs only, no private endpoint"
    assert summary["missing_items"][0]["reason"] == "red_flag"


def test_summaries_take_a_constant_number_of_queries(
    items, provider_a, provider_b, django_assert_max_num_queries, django_assert_num_queries
):
    def build(n):
        quotes = []
        for i in range(n):
            quote = QuoteFactory(
                provider=provider_a if i % 2 else provider_b, capacity_model="reserved"
            )
            AnswerFactory(provider=quote.provider, quote=quote, item=items[i % 20])
            quotes.append(quote)
        return quotes

    few, many = build(2), build(12)
    with django_assert_max_num_queries(3):
        selectors.quote_checklist_summaries(few)
    with django_assert_max_num_queries(3):
        result = selectors.quote_checklist_summaries(many)
    assert set(result) == {q.pk for q in many}
    with django_assert_num_queries(0):
        assert selectors.quote_checklist_summaries([]) == {}


def test_quote_detail_rows_show_history_newest_first(quote_a, items):
    first = AnswerFactory(provider=quote_a.provider, quote=quote_a, item=items[0], answer="v1")
    second = AnswerFactory(
        provider=quote_a.provider, quote=quote_a, item=items[0], answer="v2", supersedes=first
    )
    detail = selectors.quote_checklist_detail(quote_a)
    row = detail.rows[0]
    assert row.answer == second
    assert row.scope == selectors.SCOPE_QUOTE
    assert row.history == [first]
    assert [code for code, _, _ in detail.sections] == [
        "hardware",
        "software",
        "commercial",
        "security",
    ]
