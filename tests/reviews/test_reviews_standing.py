"""Before acting, each reviewer sees what they may do: separation of duties and the filled
approval slot in the decision bar and the dashboard queue, Approve disabled with the reason;
after deciding, the reviewer's own decision and what it waits for, no form."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

import pytest
from django.test import Client

from catalog.models import FxRate
from procurement.models import Comparison, Review
from tests.reviews.factories_reviews import ready_comparison

pytestmark = pytest.mark.django_db

DAY = date(2026, 11, 2)


def review_url(comparison) -> str:
    return f"/comparisons/{comparison.pk}/review/"


def fx_comparison(lead, keeper, **kw):
    """A ready comparison converting with a EUR rate that `keeper` entered."""
    frozen = {
        "USD": {"rate_to_base": "1", "as_of": DAY.isoformat()},
        "EUR": {"rate_to_base": "1.08500000", "as_of": DAY.isoformat()},
    }
    comparison = ready_comparison(
        created_by=lead, snapshot_facts={"base_currency": "USD", "fx_rates": frozen}, **kw
    )
    FxRate.objects.create(
        currency="EUR", rate_to_base=Decimal("1.0850"), as_of=DAY, entered_by=keeper
    )
    return comparison


def approve_radio(html: str) -> str:
    return re.search(r'<input[^>]*value="approve"[^>]*>', html).group(0)


def test_v4_finance_sees_why_it_cannot_approve_before_submitting(
    client, lead, finance, finance_other
):
    comparison = fx_comparison(lead, finance)
    client.force_login(finance)
    html = client.get(review_url(comparison)).content.decode()
    bar = html[html.index('class="decision-bar"') : html.index("</section>")]
    assert "You may reject or request changes" in bar
    assert "Your decision is needed" not in bar
    assert "You entered the FX rate this comparison converts prices with" in bar
    assert "EUR" in bar
    assert "finance2" in bar, "the bar names who may approve instead"
    assert "disabled" in approve_radio(bar)
    for other in ("reject", "request_changes"):
        assert "disabled" not in re.search(rf'<input[^>]*value="{other}"[^>]*>', bar).group(0)
    # The reviewer who did not enter the rate may approve.
    client.force_login(finance_other)
    html = client.get(review_url(comparison)).content.decode()
    assert "Your decision is needed" in html
    assert "disabled" not in approve_radio(html)


def test_v4_the_queue_marks_reject_or_request_changes_only(lead, finance, finance_other):
    comparison = fx_comparison(lead, finance)
    client = Client()
    client.force_login(finance)
    html = client.get("/").content.decode()
    queue = html[html.index('id="awaiting-decision"') :]
    assert review_url(comparison) in queue
    assert "Reject or request changes only" in queue
    assert "You entered the FX rate" in queue
    client.force_login(finance_other)
    html = client.get("/").content.decode()
    assert "Reject or request changes only" not in html


def test_v4_a_filled_approval_slot_is_said_before_acting(lead, finance, finance_other):
    """Dual approval: once finance approved, the other finance reviewer is told at once that
    only a platform or security reviewer may give the other approval."""
    comparison = ready_comparison(
        created_by=lead, required_approvals=2, commitment_usd=Decimal("480000.00")
    )
    client = Client()
    client.force_login(finance)
    client.post(review_url(comparison), {"decision": "approve", "comment": "ok"})
    client.force_login(finance_other)
    html = client.get(review_url(comparison)).content.decode()
    assert "The finance approval was already given by finance" in html
    assert "disabled" in approve_radio(html)
    queue = client.get("/").content.decode()
    assert "Reject or request changes only" in queue


def test_v4_demo_fx_rates_are_kept_by_the_admin_so_finance_may_approve(db):
    from accounts import demo as accounts_demo
    from catalog import demo as catalog_demo

    accounts_demo.load()
    catalog_demo.load()
    keepers = set(FxRate.objects.values_list("entered_by__username", flat=True))
    assert keepers == {"admin"}


def test_v5_after_approving_the_bar_says_so_and_shows_no_form(client, lead, finance, engineer):
    comparison = ready_comparison(
        created_by=lead, required_approvals=2, commitment_usd=Decimal("480000.00")
    )
    client.force_login(finance)
    client.post(review_url(comparison), {"decision": "approve", "comment": "ok"})
    html = client.get(review_url(comparison)).content.decode()
    bar = html[html.index('class="decision-bar"') : html.index("</section>")]
    review = Review.objects.get(reviewer=finance)
    when = review.created_at.strftime("%Y-%m-%d %H:%M")
    assert f"You approved on {when} UTC" in bar
    assert "Waiting for a platform or security reviewer" in bar
    assert "Your decision is needed" not in bar
    assert 'name="decision"' not in html
    assert 'name="comment"' not in html
    # Once the second approval decides, the first reviewer reads the outcome.
    client.force_login(engineer)
    client.post(review_url(comparison), {"decision": "approve", "comment": "ok"})
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.APPROVED
    client.force_login(finance)
    html = client.get(review_url(comparison)).content.decode()
    assert f"You approved on {when} UTC" in html
    assert "The comparison is approved" in html
