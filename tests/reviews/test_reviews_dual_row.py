"""Issue 15 (1): dual approval cannot be dodged by approving a non-recommended row.

The compute fixes `required_approvals` from the recommended row only. An on-demand row that
commits little is recommended (one approval); an eligible reserved row commits far above the
threshold. Approving the reserved row (with a justification) must need two approvals, and
approvals of different rows never add up to a decision.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from core.errors import Conflict, DomainError
from core.models import AuditEvent
from procurement.models import Comparison, Review
from procurement.selectors.reviews.acknowledge import CODES as TICKS
from procurement.services.reviews import review_submit
from tests.reviews.factories_reviews import ready_comparison

pytestmark = pytest.mark.django_db

RESERVED = "q-h200"
RESERVED_COMMITMENT = {
    "commitment_usd": "496000.00",
    "commitment": {"contract_usd": "496000.00", "months_counted": 12, "horizon_months": 1},
}


@pytest.fixture
def cheap_recommended(db, lead, settings):
    settings.DUAL_APPROVAL_THRESHOLD_USD = 250_000
    comparison = ready_comparison(created_by=lead, commitment_usd=Decimal("19250.00"))
    comparison.candidates.filter(key="q-h100").update(detail={"commitment_usd": "19250.00"})
    comparison.candidates.filter(key=RESERVED).update(detail=RESERVED_COMMITMENT)
    return comparison


def _approve_reserved(user, comparison):
    return review_submit(
        acting_user=user,
        comparison=comparison,
        decision="approve",
        comment="Reserved term is cheaper over the year.",
        candidate_key=RESERVED,
        justification="We will use the capacity for the whole term.",
        acknowledged=TICKS,
    )


def test_approving_a_big_non_recommended_row_needs_two_approvals(cheap_recommended, finance):
    assert cheap_recommended.required_approvals == 1
    _approve_reserved(finance, cheap_recommended)
    cheap_recommended.refresh_from_db()
    assert cheap_recommended.status == Comparison.Status.READY
    assert cheap_recommended.required_approvals == 2
    raised = AuditEvent.objects.get(action="comparison.approvals_raised")
    assert raised.summary["candidate"] == RESERVED
    assert raised.summary["commitment_usd"] == "496000.00"


def test_the_second_approver_of_the_same_row_completes_it(cheap_recommended, finance, engineer):
    _approve_reserved(finance, cheap_recommended)
    _approve_reserved(engineer, cheap_recommended)
    cheap_recommended.refresh_from_db()
    assert cheap_recommended.status == Comparison.Status.APPROVED
    assert Review.objects.filter(comparison=cheap_recommended, decision="approve").count() == 2


def test_a_second_finance_approval_does_not_count_as_the_other_slot(
    cheap_recommended, finance, finance_other
):
    # Dual approval is finance AND a platform or security reviewer (L16); two finance users
    # approving are one slot, whatever row they pick.
    _approve_reserved(finance, cheap_recommended)
    with pytest.raises(Conflict, match="finance approval was already given"):
        _approve_reserved(finance_other, cheap_recommended)
    cheap_recommended.refresh_from_db()
    assert cheap_recommended.status == Comparison.Status.READY


def test_approvals_of_different_rows_do_not_add_up(cheap_recommended, finance, engineer):
    _approve_reserved(finance, cheap_recommended)
    with pytest.raises(DomainError, match="first approval is for"):
        review_submit(
            acting_user=engineer,
            comparison=cheap_recommended,
            decision="approve",
            comment="The recommended row is fine.",
            acknowledged=TICKS,
        )
    cheap_recommended.refresh_from_db()
    assert cheap_recommended.status == Comparison.Status.READY
    assert Review.objects.filter(comparison=cheap_recommended).count() == 1


def test_a_small_non_recommended_row_still_needs_one_approval(cheap_recommended, finance):
    cheap_recommended.candidates.filter(key=RESERVED).update(detail={"commitment_usd": "9000.00"})
    _approve_reserved(finance, cheap_recommended)
    cheap_recommended.refresh_from_db()
    assert cheap_recommended.status == Comparison.Status.APPROVED
    assert cheap_recommended.required_approvals == 1


def test_the_review_page_says_one_of_two_and_why(client, cheap_recommended, finance, engineer):
    client.force_login(finance)
    response = client.post(
        f"/comparisons/{cheap_recommended.pk}/review/",
        {
            "decision": "approve",
            "comment": "Reserved term.",
            "candidate": RESERVED,
            "justification": "Whole-term use is planned.",
            "acknowledge": list(TICKS),
        },
        follow=True,
    )
    html = response.content.decode()
    assert "1 of 2 approvals" in html
    assert 'id="dual-row"' in html
    assert "commits USD 496,000.00" in html
    cheap_recommended.refresh_from_db()
    assert cheap_recommended.status == Comparison.Status.READY
    client.force_login(engineer)
    client.post(
        f"/comparisons/{cheap_recommended.pk}/review/",
        {
            "decision": "approve",
            "comment": "Ok.",
            "candidate": RESERVED,
            "justification": "Same.",
            "acknowledge": list(TICKS),
        },
    )
    cheap_recommended.refresh_from_db()
    assert cheap_recommended.status == Comparison.Status.APPROVED


def test_the_api_keeps_it_ready_at_one_of_two(cheap_recommended, finance, engineer):
    client = APIClient()
    client.force_authenticate(finance)
    body = {
        "decision": "approve",
        "comment": "Reserved term.",
        "candidate": RESERVED,
        "justification": "Whole-term use is planned.",
        "acknowledge": list(TICKS),
    }
    url = f"/api/v1/comparisons/{cheap_recommended.pk}/reviews/"
    response = client.post(url, body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["comparison_status"] == "ready"
    assert response.json()["approvals"] == "1 of 2 approvals"
    client.force_authenticate(engineer)
    response = client.post(url, body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["comparison_status"] == "approved"
