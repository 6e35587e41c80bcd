"""A revised or withdrawn quote behind a ready or approved comparison tells the owner and
every reviewer who can act what it does: old and new price, % change, the row's new unit
cost and commitment and whether it still ranks first (recomputed on a copy of the frozen
snapshot), with Recompute and Acknowledge, on the comparison, review and record pages, and a
re-approval above the configured tolerance."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core import mail

from catalog.services.quotes import quote_revise, quote_withdraw
from core.models import AuditEvent
from procurement.models import Comparison, PriceChange
from procurement.selectors.reviews.acknowledge import CODES as TICKS
from procurement.services.reviews import review_submit
from tests.browser.worlds_browser import decision_world
from tests.reviews.factories_reviews import deliver_price_changes

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(lead, monkeypatch):
    monkeypatch.setenv("DUAL_APPROVAL_THRESHOLD_USD", str(10**12))
    return decision_world(lead=lead)


def approve(world, finance, capture):
    comparison = world.comparison
    with capture(execute=True):
        review_submit(
            acting_user=finance,
            comparison=comparison,
            decision="approve",
            comment="Checked.",
            acknowledged=TICKS,
        )
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    mail.outbox.clear()
    return comparison.candidates.get(key=comparison.recommended_key)


def revise(quote, lead, price, capture):
    """The revision, its on-commit publish, then the worker's run (in this process)."""
    with capture(execute=True):
        new = quote_revise(acting_user=lead, quote=quote, data={"price_per_gpu_hour": price})
    deliver_price_changes()
    return new


def test_v6_a_revision_above_the_tolerance_tells_everyone_who_can_act_with_its_impact(
    world, lead, finance, finance_other, login, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    row = approve(world, finance, capture)
    old = row.quote.price_per_gpu_hour
    new_price = (old * Decimal("1.5")).quantize(Decimal("0.01"))
    revise(row.quote, lead, new_price, capture)

    flag = PriceChange.objects.get(comparison=world.comparison)
    impact = flag.impact
    expected_pct = ((new_price - old) / old * 100).quantize(Decimal("0.01"))
    assert Decimal(impact["pct_change"]) == expected_pct
    assert Decimal(impact["new_unit_cost"]) > Decimal(impact["old_unit_cost"])
    assert impact["needs_reapproval"] is True
    # At 1.5× the price the H100 row falls behind the L40S one.
    assert (impact["still_first"], impact["rank"]) == (False, 2)
    assert impact["first_label"] == "Cheap GPUs: L40S on demand v1"
    world.comparison.refresh_from_db()
    assert world.comparison.status == Comparison.Status.APPROVED, "the decision is unchanged"

    # The owner, the approver and the other finance reviewer are told, each once.
    assert sorted(m.to[0] for m in mail.outbox) == sorted(
        [lead.email, finance.email, finance_other.email]
    )
    body = mail.outbox[0].body
    assert f"+{expected_pct} %" in body
    assert "unit cost of that row" in body
    assert "Re-approval needed" in body
    assert f"/comparisons/{world.comparison.pk}/" in body

    client = login(lead)
    for path in ("/", "/comparisons/{}/", "/comparisons/{}/review/", "/comparisons/{}/record/"):
        html = client.get(path.format(world.comparison.pk)).content.decode()
        assert f"+{expected_pct} %" in html, path
        assert "Re-approval needed" in html, path
        assert "it no longer ranks first</span> (now 2nd)" in html, path
        assert ">Recompute</button>" in html, path
        assert ">Acknowledge</button>" not in html, path
    # A reviewer may not recompute; above the tolerance nobody acknowledges.
    html = login(finance_other).get("/").content.decode()
    assert f"+{expected_pct} %" in html
    assert ">Recompute</button>" not in html
    assert ">Acknowledge</button>" not in html


def test_v6_a_small_change_is_acknowledged_once_and_audited(
    world, lead, finance, finance_other, login, django_capture_on_commit_callbacks, settings
):
    settings.PRICE_CHANGE_TOLERANCE_PCT = 5
    capture = django_capture_on_commit_callbacks
    row = approve(world, finance, capture)
    small = (row.quote.price_per_gpu_hour * Decimal("1.02")).quantize(Decimal("0.0001"))
    revise(row.quote, lead, small, capture)
    flag = PriceChange.objects.get(comparison=world.comparison)
    assert flag.impact["needs_reapproval"] is False
    assert flag.impact["still_first"] is True

    client = login(finance_other)
    record = f"/comparisons/{world.comparison.pk}/record/"
    assert ">Acknowledge</button>" in client.get(record).content.decode()
    url = f"/comparisons/{world.comparison.pk}/price-changes/{flag.pk}/acknowledge/"
    page = client.post(url, {"next": record}, follow=True).content.decode()
    assert "Price change acknowledged" in page
    assert "Acknowledged by finance2" in page
    flag.refresh_from_db()
    assert flag.acknowledged_by == finance_other
    assert AuditEvent.objects.filter(action="comparison.price_change_acknowledged").count() == 1
    assert "+2.00 %" not in client.get("/").content.decode(), "gone from the dashboard"
    # A second acknowledgement changes nothing.
    client.post(url, {"next": record})
    assert AuditEvent.objects.filter(action="comparison.price_change_acknowledged").count() == 1


def test_v6_a_change_behind_a_ready_comparison_is_flagged_too(
    world, lead, finance, django_capture_on_commit_callbacks
):
    comparison = world.comparison
    row = comparison.candidates.get(key=comparison.recommended_key)
    revise(row.quote, lead, row.quote.price_per_gpu_hour * 2, django_capture_on_commit_callbacks)
    flag = PriceChange.objects.get(comparison=comparison)
    assert flag.impact["pct_change"] == "100.00"
    assert finance.email in [m.to[0] for m in mail.outbox]
    assert mail.outbox[0].subject.startswith("Price changed under review")


def test_v6_a_withdrawal_says_who_would_rank_first(
    world, lead, finance, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    row = approve(world, finance, capture)
    with capture(execute=True):
        quote_withdraw(acting_user=lead, quote=row.quote, reason="capacity sold")
    deliver_price_changes()
    flag = PriceChange.objects.get(comparison=world.comparison)
    assert flag.impact["needs_reapproval"] is True
    assert flag.impact["still_first"] is False
    other = world.comparison.candidates.exclude(key=row.key).get()
    if other.eligible:
        assert flag.impact["first_label"] == other.label


def test_v6_the_owner_and_reviewers_may_act_others_may_not(
    world, lead, finance, engineer, django_capture_on_commit_callbacks, settings
):
    from core.errors import NotAllowed
    from procurement.services.price_changes import price_change_acknowledge

    settings.PRICE_CHANGE_TOLERANCE_PCT = 50
    capture = django_capture_on_commit_callbacks
    row = approve(world, finance, capture)
    revise(row.quote, lead, row.quote.price_per_gpu_hour * Decimal("1.1"), capture)
    flag = PriceChange.objects.get(comparison=world.comparison)
    with pytest.raises(NotAllowed):
        price_change_acknowledge(acting_user=engineer, flag=flag)
    flag.refresh_from_db()
    assert flag.acknowledged_at is None
    price_change_acknowledge(acting_user=lead, flag=flag)
    flag.refresh_from_db()
    assert flag.acknowledged_by == lead
