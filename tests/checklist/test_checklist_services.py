"""Services: answering (history, scope, evidence, atomicity) and reviewing (who, what)."""

from __future__ import annotations

import pytest

from checklist import selectors, services
from checklist.models import ChecklistAnswer, ChecklistReview
from checklist.services import AnswerEntry
from core.errors import Conflict, DomainError, NotAllowed
from core.models import AuditEvent
from tests.checklist import files_checklist as f
from tests.factories import QuoteFactory

pytestmark = pytest.mark.django_db


def _files(root):
    return [p for p in root.rglob("*") if p.is_file()]


def _submit(user, quote, item, **kwargs):
    entry = AnswerEntry(
        item=item,
        answer=kwargs.pop("answer", "Yes, see the spec."),
        status=kwargs.pop("status", "yes"),
        **kwargs,
    )
    return services.answer_submit(
        acting_user=user, provider=quote.provider, quote=quote, entry=entry
    )


def test_answering_again_supersedes_and_keeps_history(vendor_a, quote_a, items):
    first = _submit(vendor_a, quote_a, items[0], evidence_url="https://example.com/v1")
    second = _submit(vendor_a, quote_a, items[0], answer="Now with H200", status="partial")
    assert second.supersedes == first
    assert ChecklistAnswer.objects.filter(item=items[0]).count() == 2
    first.refresh_from_db()
    assert first.answer == "Yes, see the spec."  # never changed
    assert second.evidence_url == "https://example.com/v1"  # evidence kept
    row = selectors.quote_checklist_detail(quote_a).rows[0]
    assert row.answer == second
    assert row.history == [first]


def test_provider_scope_writes_a_default_answer(vendor_a, quote_a, items):
    answer = _submit(vendor_a, quote_a, items[5], scope="provider")
    assert answer.quote is None
    other = QuoteFactory(provider=quote_a.provider)
    assert selectors.effective_answer(other, items[5].pk) == answer


def test_quote_scope_does_not_supersede_the_provider_default(vendor_a, quote_a, items):
    default = _submit(vendor_a, quote_a, items[5], scope="provider")
    specific = _submit(vendor_a, quote_a, items[5], scope="quote", answer="Only here")
    assert specific.supersedes is None
    assert (
        selectors.current_answer_in_scope(
            provider_id=quote_a.provider_id, quote_id=None, item_id=items[5].pk
        )
        == default
    )
    assert specific.evidence_url == default.evidence_url  # the evidence shown is kept


def test_uploaded_evidence_is_stored_privately_with_uuid_name_and_sha256(
    vendor_a, quote_a, items, private_root
):
    answer = _submit(vendor_a, quote_a, items[0], evidence_file=f.pdf("../Our spec.pdf"))
    assert answer.evidence_name == "Our spec.pdf"
    assert len(answer.evidence_sha256) == 64
    stored = _files(private_root)
    assert len(stored) == 1
    assert stored[0].name == answer.evidence_file.name.rsplit("/", 1)[-1]
    assert "spec" not in stored[0].name
    assert answer.evidence_file.name.startswith("evidence/")


def test_a_bad_file_in_a_batch_saves_nothing_and_leaves_no_file(
    vendor_a, quote_a, items, private_root
):
    entries = [
        AnswerEntry(item=items[0], answer="ok", status="yes", evidence_file=f.pdf()),
        AnswerEntry(
            item=items[1], answer="ok", status="yes", evidence_file=f.upload("fake.pdf", f.EXE)
        ),
    ]
    audits = AuditEvent.objects.count()
    with pytest.raises(DomainError, match="not a PDF"):
        services.answers_submit(
            acting_user=vendor_a, provider=quote_a.provider, quote=quote_a, entries=entries
        )
    assert not ChecklistAnswer.objects.exists()
    assert _files(private_root) == []
    assert AuditEvent.objects.count() == audits


def test_oversized_file_is_refused_and_nothing_is_stored(
    vendor_a, quote_a, items, private_root, settings
):
    settings.EVIDENCE_UPLOAD_MAX_BYTES = 10_000
    big = f.upload("big.pdf", f.PDF + b"0" * 1_000_000)
    with pytest.raises(DomainError, match="larger than the 10 kB limit"):
        _submit(vendor_a, quote_a, items[0], evidence_file=big)
    assert not ChecklistAnswer.objects.exists()
    assert _files(private_root) == []


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"answer": "   "}, "answer"),
        ({"status": "maybe"}, "status"),
        ({"scope": "everyone"}, "scope"),
        ({"evidence_url": "ftp://x"}, "evidence_url"),
        ({"evidence_url": "https://x", "evidence_file": "FILE"}, "evidence_url"),
    ],
)
def test_bad_answers_are_refused_with_a_field_message(vendor_a, quote_a, items, kwargs, field):
    if kwargs.get("evidence_file") == "FILE":
        kwargs["evidence_file"] = f.pdf()
    with pytest.raises(DomainError) as caught:
        _submit(vendor_a, quote_a, items[0], **kwargs)
    assert field in caught.value.fields
    assert not ChecklistAnswer.objects.exists()


@pytest.mark.parametrize("who", ["vendor_b", "lead", "engineer", "admin_member"])
def test_only_the_providers_own_vendors_answer(request, who, quote_a, items):
    with pytest.raises(NotAllowed):
        _submit(request.getfixturevalue(who), quote_a, items[0])
    assert not ChecklistAnswer.objects.exists()


def test_a_revised_or_withdrawn_quote_cannot_be_answered(vendor_a, quote_a, items):
    QuoteFactory(provider=quote_a.provider, supersedes=quote_a, version=2)
    with pytest.raises(DomainError, match="newer version"):
        _submit(vendor_a, quote_a, items[0])
    withdrawn = QuoteFactory(provider=quote_a.provider, status="withdrawn")
    with pytest.raises(DomainError, match="withdrawn"):
        _submit(vendor_a, withdrawn, items[0])
    assert not ChecklistAnswer.objects.exists()


def test_every_answer_and_review_is_audited(vendor_a, engineer, quote_a, items):
    answer = _submit(vendor_a, quote_a, items[0])
    services.answer_review(acting_user=engineer, answer=answer, decision="accepted")
    events = list(AuditEvent.objects.filter(object_id=str(answer.pk)).order_by("id"))
    assert [e.action for e in events] == ["checklist.answer", "checklist.review"]
    assert events[0].summary["item"] == items[0].code
    assert events[1].summary["decision"] == "accepted"


@pytest.mark.parametrize(
    ("who", "section", "allowed"),
    [
        ("engineer", "hardware", True),
        ("engineer", "software", True),
        ("engineer", "commercial", False),
        ("engineer", "security", False),
        ("finance", "commercial", True),
        ("finance", "hardware", False),
        ("lead", "commercial", True),
        ("lead", "security", False),
        ("security", "security", True),
        ("security", "software", False),
        ("admin_member", "security", True),
        ("admin_member", "hardware", True),
        ("vendor_a", "hardware", False),
    ],
)
def test_reviewers_review_only_their_sections(
    request, who, section, allowed, vendor_a, quote_a, items
):
    item = next(i for i in items if i.section == section)
    answer = _submit(vendor_a, quote_a, item)
    user = request.getfixturevalue(who)
    if allowed:
        services.answer_review(acting_user=user, answer=answer, decision="accepted")
        answer.refresh_from_db()
        assert answer.review_status == "accepted"
    else:
        with pytest.raises(NotAllowed):
            services.answer_review(acting_user=user, answer=answer, decision="accepted")
        assert not ChecklistReview.objects.exists()


@pytest.mark.parametrize("decision", ["needs_info", "red_flag"])
def test_a_comment_is_required_unless_accepted(decision, vendor_a, engineer, quote_a, items):
    answer = _submit(vendor_a, quote_a, items[0])
    with pytest.raises(DomainError) as caught:
        services.answer_review(acting_user=engineer, answer=answer, decision=decision, comment="  ")
    assert "comment" in caught.value.fields
    answer.refresh_from_db()
    assert answer.review_status == "pending"
    assert not ChecklistReview.objects.exists()


def test_unknown_decision_is_refused(vendor_a, engineer, quote_a, items):
    answer = _submit(vendor_a, quote_a, items[0])
    with pytest.raises(DomainError) as caught:
        services.answer_review(acting_user=engineer, answer=answer, decision="pending")
    assert "decision" in caught.value.fields


def test_needs_info_then_new_answer_then_accept(vendor_a, engineer, quote_a, items):
    first = _submit(vendor_a, quote_a, items[0])
    services.answer_review(
        acting_user=engineer,
        answer=first,
        decision="needs_info",
        comment="Which NVLink generation?",
    )
    summary = selectors.quote_checklist_summary(quote_a)
    assert summary["needs_info_count"] == 1
    assert summary["missing_items"][0]["reason"] == "needs_info"
    second = _submit(vendor_a, quote_a, items[0], answer="NVLink 4, 900 GB/s")
    assert second.review_status == "pending"
    with pytest.raises(Conflict):  # the old answer can no longer be reviewed
        services.answer_review(acting_user=engineer, answer=first, decision="accepted")
    services.answer_review(acting_user=engineer, answer=second, decision="accepted")
    second.refresh_from_db()
    assert second.review_status == "accepted"
    first.refresh_from_db()
    assert first.review_status == "needs_info"  # history intact
