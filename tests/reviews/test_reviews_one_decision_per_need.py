"""One decision per need (issue 40, U2): approving a comparison when another of the same brief
is approved or part-approved says so before acting and asks whether it supersedes or adds; a
superseded decision stops being tracked by FinOps, which shows the brief's line with its
history."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.errors import Conflict
from core.models import AuditEvent
from finops import access as finops_access
from finops import services as finops_services
from procurement.models import Comparison, Review
from procurement.services.reviews import review_submit
from tests.factories import WorkloadBriefFactory
from tests.reviews.factories_reviews import ready_comparison

pytestmark = pytest.mark.django_db


def _approve(user, comparison, **kw):
    return review_submit(
        acting_user=user,
        comparison=comparison,
        decision="approve",
        comment="Checked the lines and the evidence.",
        **kw,
    )


@pytest.fixture
def two_of_one_brief(lead):
    """Comparison A (L40S spot, 77,874.84) approved; B (H100 reserved, 529,804.80) ready."""
    brief = WorkloadBriefFactory(created_by=lead)
    a = ready_comparison(
        created_by=lead, brief=brief, title="A", commitment_usd=Decimal("77874.84")
    )
    b = ready_comparison(
        created_by=lead,
        brief=brief,
        title="B",
        commitment_usd=Decimal("529804.80"),
        provider_names=("Northwind B", "Contoso B", "Fabrikam B"),
    )
    return a, b


def test_a_second_approval_of_one_brief_is_asked_before_anything_is_recorded(
    two_of_one_brief, finance, finance_other
) -> None:
    a, b = two_of_one_brief
    _approve(finance, a)
    with pytest.raises(Conflict, match=r"already has comparison \d+ “A”, approved on") as refused:
        _approve(finance_other, b)
    assert "USD 77,874.84" in refused.value.message
    assert "same_need" in refused.value.fields
    b.refresh_from_db()
    assert b.status == Comparison.Status.READY
    assert not Review.objects.filter(comparison=b).exists()


def test_superseding_stops_tracking_the_earlier_decision(
    two_of_one_brief, finance, finance_other, client
) -> None:
    a, b = two_of_one_brief
    _approve(finance, a)
    _approve(finance_other, b, same_need="supersede")
    a.refresh_from_db()
    b.refresh_from_db()
    assert b.status == Comparison.Status.APPROVED
    assert a.decision_superseded_by == b
    assert a.decision_superseded_at is not None
    assert list(finops_access.decisions_for(finance).order_by("pk")) == [b]
    event = AuditEvent.objects.get(action="comparison.decision_superseded")
    assert (event.object_id, event.summary) == (str(a.pk), {"superseded_by": b.pk})
    with pytest.raises(Conflict, match="superseded by comparison"):
        finops_services.billing_import_check(acting_user=finance, comparison=a)
    client.force_login(finance)
    page = client.get("/finops/").content.decode()
    assert "supersedes" in page
    assert page.count('class="drift-flag') == 0
    assert f"/finops/decisions/{a.pk}/" in page  # its history, on B's line


def test_adding_keeps_both_tracked(two_of_one_brief, finance, finance_other) -> None:
    a, b = two_of_one_brief
    _approve(finance, a)
    _approve(finance_other, b, same_need="add")
    assert list(finops_access.decisions_for(finance).order_by("pk")) == [a, b]
    approve = AuditEvent.objects.get(action="review.approve", summary__same_need="add")
    assert approve.summary["others"] == [a.pk]


def test_the_review_page_says_so_before_acting(two_of_one_brief, finance, finance_other, client):
    a, b = two_of_one_brief
    _approve(finance, a)
    client.force_login(finance_other)
    page = client.get(f"/comparisons/{b.pk}/review/").content.decode()
    assert 'id="same-need"' in page
    assert "The same brief already has" in page
    assert 'name="same_need"' in page
    posted = client.post(
        f"/comparisons/{b.pk}/review/",
        {"decision": "approve", "candidate": "q-h100", "comment": "Checked the lines."},
    )
    assert posted.status_code == 409
    assert "Choose whether this approval supersedes or adds." in posted.content.decode()
