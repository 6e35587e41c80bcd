"""Two reviewers approving at the same moment: exactly one wins, the other gets a Conflict.

Real threads, each with its own PostgreSQL connection, released together by a Barrier; the
comparison row lock (`select_for_update`) is what makes this hold.
"""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest
from django.db import connection

from core.errors import Conflict
from core.models import AuditEvent
from core.roles import Role
from procurement.models import Comparison, Review
from procurement.services.reviews import review_submit
from tests.factories import UserFactory
from tests.reviews.factories_reviews import ready_comparison

TRIALS = 20


def race(users, comparison_id, decisions):
    """Run review_submit for each user in its own thread, all released at once."""
    barrier = threading.Barrier(len(users))
    outcomes: list[object] = [None] * len(users)

    def act(index, user):
        try:
            comparison = Comparison.objects.get(pk=comparison_id)  # each thread reads it first
            barrier.wait(timeout=10)
            outcomes[index] = review_submit(
                acting_user=user,
                comparison=comparison,
                decision=decisions[index],
                comment=f"decision by {user.username}",
            )
        except Exception as exc:  # collected and asserted on below
            outcomes[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=act, args=(i, u)) for i, u in enumerate(users)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return outcomes


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_approvals_exactly_one_wins():
    lead = UserFactory(username="race-lead", role=Role.PROCUREMENT_LEAD)
    first = UserFactory(username="race-fin1", role=Role.FINANCE_REVIEWER)
    second = UserFactory(username="race-fin2", role=Role.FINANCE_REVIEWER)
    for trial in range(TRIALS):
        comparison = ready_comparison(created_by=lead, title=f"race {trial}")
        outcomes = race([first, second], comparison.pk, ["approve", "approve"])
        wins = [o for o in outcomes if isinstance(o, Review)]
        losses = [o for o in outcomes if isinstance(o, Conflict)]
        assert len(wins) == 1, outcomes
        assert len(losses) == 1, outcomes
        assert "already approved" in losses[0].message
        assert losses[0].status_code == 409
        decided = AuditEvent.objects.filter(
            action="comparison.decided", object_id=str(comparison.pk)
        )
        assert decided.count() == 1
        assert Review.objects.filter(comparison=comparison).count() == 1
        comparison.refresh_from_db()
        assert comparison.status == Comparison.Status.APPROVED


@pytest.mark.django_db(transaction=True)
def test_approve_racing_reject_leaves_one_decision():
    lead = UserFactory(username="race-lead2", role=Role.PROCUREMENT_LEAD)
    first = UserFactory(username="race-fin3", role=Role.FINANCE_REVIEWER)
    second = UserFactory(username="race-fin4", role=Role.FINANCE_REVIEWER)
    for trial in range(TRIALS):
        comparison = ready_comparison(created_by=lead, title=f"mixed race {trial}")
        outcomes = race([first, second], comparison.pk, ["approve", "reject"])
        assert sum(isinstance(o, Review) for o in outcomes) == 1, outcomes
        assert sum(isinstance(o, Conflict) for o in outcomes) == 1, outcomes
        winner = next(o for o in outcomes if isinstance(o, Review))
        comparison.refresh_from_db()
        expected = "approved" if winner.decision == "approve" else "rejected"
        assert comparison.status == expected
        assert (
            AuditEvent.objects.filter(
                action="comparison.decided", object_id=str(comparison.pk)
            ).count()
            == 1
        )


@pytest.mark.django_db(transaction=True)
def test_dual_approval_race_counts_both_slots_once():
    """Finance and security approving together: both count, the comparison ends approved
    with one decision event; two finance reviewers racing: only one finance slot."""
    lead = UserFactory(username="race-lead3", role=Role.PROCUREMENT_LEAD)
    fin = UserFactory(username="race-fin5", role=Role.FINANCE_REVIEWER)
    fin2 = UserFactory(username="race-fin6", role=Role.FINANCE_REVIEWER)
    sec = UserFactory(username="race-sec", role=Role.SECURITY_REVIEWER)
    for trial in range(5):
        both = ready_comparison(
            created_by=lead,
            title=f"dual {trial}",
            required_approvals=2,
            commitment_usd=Decimal("900000"),
        )
        outcomes = race([fin, sec], both.pk, ["approve", "approve"])
        assert all(isinstance(o, Review) for o in outcomes), outcomes
        both.refresh_from_db()
        assert both.status == Comparison.Status.APPROVED
        assert (
            AuditEvent.objects.filter(action="comparison.decided", object_id=str(both.pk)).count()
            == 1
        )

        same_slot = ready_comparison(
            created_by=lead,
            title=f"dual same slot {trial}",
            required_approvals=2,
            commitment_usd=Decimal("900000"),
        )
        outcomes = race([fin, fin2], same_slot.pk, ["approve", "approve"])
        assert sum(isinstance(o, Review) for o in outcomes) == 1, outcomes
        assert sum(isinstance(o, Conflict) for o in outcomes) == 1, outcomes
        same_slot.refresh_from_db()
        assert same_slot.status == Comparison.Status.READY
