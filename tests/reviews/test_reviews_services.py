"""review_submit: four-eyes, comments, justification, dual approval, frozen decisions."""

from __future__ import annotations

import pytest
from django.db import IntegrityError

from core.errors import Conflict, DomainError, NotAllowed
from core.models import AuditEvent
from core.roles import Role
from procurement.models import Comparison, Review
from procurement.selectors.reviews.acknowledge import CODES as TICKS
from procurement.selectors.reviews.policy import review_refusal
from procurement.services.reviews import review_submit
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def submit(user, comparison, decision="approve", comment="Checked the lines.", **kw):
    """The factories' rows are estimates: the approver ticks that (U8)."""
    kw.setdefault("acknowledged", TICKS)
    return review_submit(
        acting_user=user, comparison=comparison, decision=decision, comment=comment, **kw
    )


def assert_unchanged(comparison):
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.READY
    assert comparison.decided_at is None
    assert not Review.objects.filter(comparison=comparison).exists()


def test_finance_approval_approves_a_single_approval_comparison(comparison, finance):
    review = submit(finance, comparison)
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    assert comparison.decided_at is not None
    assert review.candidate.key == "q-h100"  # the recommended row by default
    assert review.reviewer_role == Role.FINANCE_REVIEWER
    assert review.comparison_creator == comparison.created_by
    decided = AuditEvent.objects.get(action="comparison.decided")
    assert decided.summary["before"] == {"status": "ready"}
    assert decided.summary["after"]["status"] == "approved"
    assert decided.summary["after"]["approvals"] == "1 of 1 approvals"
    assert AuditEvent.objects.filter(action="review.approve", object_id=str(review.pk)).count() == 1


def test_creator_cannot_approve_own_comparison(finance):
    from tests.reviews.factories_reviews import ready_comparison

    own = ready_comparison(created_by=finance)
    with pytest.raises(NotAllowed, match="four-eyes"):
        submit(finance, own)
    assert_unchanged(own)


def test_superuser_creator_has_no_bypass(admin_member):
    from tests.reviews.factories_reviews import ready_comparison

    own = ready_comparison(created_by=admin_member)
    with pytest.raises(NotAllowed):
        submit(admin_member, own)
    assert_unchanged(own)


def test_finance_superuser_cannot_review_own_comparison():
    from tests.reviews.factories_reviews import ready_comparison

    boss = UserFactory(role=Role.FINANCE_REVIEWER, is_superuser=True, is_staff=True)
    own = ready_comparison(created_by=boss)
    with pytest.raises(NotAllowed):
        submit(boss, own)
    assert_unchanged(own)


def test_database_backstops_four_eyes(comparison):
    with pytest.raises(IntegrityError):
        Review.objects.create(
            comparison=comparison,
            comparison_creator=comparison.created_by,
            reviewer=comparison.created_by,
            reviewer_role="lead",
            decision="approve",
            comment="sneaky",
        )


@pytest.mark.parametrize("who", ["lead_other", "engineer", "security", "admin_member", "vendor_a"])
def test_only_finance_reviews_a_single_approval_comparison(request, comparison, who):
    user = request.getfixturevalue(who)
    with pytest.raises(NotAllowed):
        submit(user, comparison)
    assert_unchanged(comparison)


@pytest.mark.parametrize("comment", ["", "   \n "])
def test_every_decision_needs_a_comment(comparison, finance, comment):
    with pytest.raises(DomainError) as info:
        submit(finance, comparison, "reject", comment)
    assert "comment" in info.value.fields
    assert_unchanged(comparison)


def test_unknown_decision_is_refused(comparison, finance):
    with pytest.raises(DomainError) as info:
        submit(finance, comparison, "maybe")
    assert "decision" in info.value.fields
    assert_unchanged(comparison)


def test_approving_another_row_needs_a_justification(comparison, finance):
    with pytest.raises(DomainError) as info:
        submit(finance, comparison, candidate_key="q-h200")
    assert "justification" in info.value.fields
    assert_unchanged(comparison)
    review = submit(
        finance, comparison, candidate_key="q-h200", justification="Reserved capacity is safer."
    )
    assert review.candidate.key == "q-h200"
    assert review.justification == "Reserved capacity is safer."


def test_ineligible_row_cannot_be_approved(comparison, finance):
    with pytest.raises(DomainError, match="not eligible"):
        submit(finance, comparison, candidate_key="q-l40s", justification="cheap")
    assert_unchanged(comparison)


def test_unknown_candidate_is_a_clear_error(comparison, finance):
    with pytest.raises(DomainError) as info:
        submit(finance, comparison, candidate_key="nope", justification="x")
    assert info.value.fields["candidate"] == ["Unknown candidate 'nope'."]
    assert_unchanged(comparison)


def test_reject_and_request_changes_decide_at_once(comparison, finance, finance_other):
    submit(finance, comparison, "request_changes", "Add the egress lines.")
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.CHANGES_REQUESTED
    with pytest.raises(Conflict, match="changes requested"):
        submit(finance_other, comparison, "reject", "No.")


def test_reject(comparison, finance):
    submit(finance, comparison, "reject", "Too risky.")
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.REJECTED


def test_approved_comparison_is_frozen(comparison, finance, finance_other):
    submit(finance, comparison)
    with pytest.raises(Conflict, match="frozen"):
        submit(finance_other, comparison, "reject", "late")
    assert Review.objects.filter(comparison=comparison).count() == 1


def test_comparison_not_ready_cannot_be_reviewed(comparison, finance):
    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.RUNNING)
    comparison.refresh_from_db()
    with pytest.raises(DomainError, match="not ready"):
        submit(finance, comparison)
    assert not Review.objects.exists()


def test_dual_approval_needs_finance_and_a_second_role(dual_comparison, finance, engineer):
    submit(finance, dual_comparison)
    dual_comparison.refresh_from_db()
    assert dual_comparison.status == Comparison.Status.READY
    first = AuditEvent.objects.get(action="review.approve")
    assert first.summary["approvals"] == "1 of 2 approvals"
    assert not AuditEvent.objects.filter(action="comparison.decided").exists()
    submit(engineer, dual_comparison)
    dual_comparison.refresh_from_db()
    assert dual_comparison.status == Comparison.Status.APPROVED
    decided = AuditEvent.objects.get(action="comparison.decided")
    assert decided.summary["after"]["approvals"] == "2 of 2 approvals"


def test_dual_approval_order_does_not_matter(dual_comparison, security, finance):
    submit(security, dual_comparison)
    submit(finance, dual_comparison)
    dual_comparison.refresh_from_db()
    assert dual_comparison.status == Comparison.Status.APPROVED


def test_two_finance_approvals_do_not_make_two_of_two(dual_comparison, finance, finance_other):
    submit(finance, dual_comparison)
    with pytest.raises(Conflict, match="platform or security"):
        submit(finance_other, dual_comparison)
    dual_comparison.refresh_from_db()
    assert dual_comparison.status == Comparison.Status.READY
    assert dual_comparison.reviews.count() == 1


def test_second_approval_must_be_for_the_same_row(dual_comparison, finance, engineer):
    submit(finance, dual_comparison)
    with pytest.raises(DomainError, match="first approval"):
        submit(engineer, dual_comparison, candidate_key="q-h200", justification="faster")
    assert dual_comparison.reviews.count() == 1


def test_second_role_can_reject_a_dual_approval_comparison(dual_comparison, finance, security):
    submit(finance, dual_comparison)
    submit(security, dual_comparison, "reject", "Data boundary not evidenced.")
    dual_comparison.refresh_from_db()
    assert dual_comparison.status == Comparison.Status.REJECTED


def test_a_reviewer_reviews_once(dual_comparison, finance):
    submit(finance, dual_comparison)
    with pytest.raises(Conflict, match="already reviewed"):
        submit(finance, dual_comparison)


def test_review_refusal_explains_itself(comparison, lead, finance, engineer):
    assert review_refusal(finance, comparison) is None
    assert "four-eyes" in review_refusal(lead, comparison)
    assert "finance" in review_refusal(engineer, comparison)
