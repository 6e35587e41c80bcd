"""U25, U29, U10: the decision at the top of the review page, the finance queue on the
dashboard, the reviewer's comment on the comparison page, and no live form after a 409."""

from __future__ import annotations

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def review_url(comparison) -> str:
    return f"/comparisons/{comparison.pk}/review/"


def test_the_decision_bar_comes_before_the_candidate_rows(client, comparison, finance):
    """U25: the form, the approvals and who is next sit above the first candidate row."""
    client.force_login(finance)
    html = client.get(review_url(comparison)).content.decode()
    bar = html.index('class="decision-bar"')
    assert bar < html.index('id="candidate-rows"')
    assert bar < html.index('class="review-form decision-form"') < html.index("<h2>Candidates</h2>")
    assert "Your decision is needed" in html
    assert "0 of 1 approvals" in html
    assert re.search(r"1 still needed · next: a finance reviewer", html)
    assert html.count('name="comment"') == 1, "one decision form on the page"


def test_dual_approval_names_the_missing_reviewer(client, dual_comparison, finance, engineer):
    """U25: after finance approves, the bar says a platform or security reviewer is next."""
    client.force_login(finance)
    client.post(review_url(dual_comparison), {"decision": "approve", "comment": "ok"})
    client.force_login(engineer)
    html = client.get(review_url(dual_comparison)).content.decode()
    assert "1 of 2 approvals" in html
    assert "1 still needed · next: a platform or security reviewer" in html
    assert "USD 480,000.00" in html


def test_after_a_409_the_page_shows_no_live_form(client, comparison, finance, finance_other):
    """U29: the stale reviewer sees why, not an Approve / Reject form that cannot work."""
    client.force_login(finance)
    client.post(review_url(comparison), {"decision": "approve", "comment": "ok"})
    client.force_login(finance_other)
    response = client.post(review_url(comparison), {"decision": "reject", "comment": "no"})
    assert response.status_code == 409
    html = response.content.decode()
    assert "already approved" in html
    assert 'name="decision"' not in html
    assert 'name="comment"' not in html


def test_request_changes_message_is_grammatical(client, comparison, finance):
    """U29: "changes requested", not "the comparison is now changes requested"."""
    client.force_login(finance)
    page = client.post(
        review_url(comparison),
        {"decision": "request_changes", "comment": "Add a reserved offer."},
        follow=True,
    )
    html = page.content.decode()
    assert "is now changes requested" not in html
    assert "Decision recorded: changes requested" in html


def test_finance_dashboard_lists_what_awaits_my_decision(comparison, dual_comparison, finance):
    """U25: the ready comparisons finance may decide, with the commitment, linked to review."""
    client = Client()
    client.force_login(finance)
    html = client.get("/").content.decode()
    assert "Awaiting my decision" in html
    section = html[html.index('id="awaiting-decision"') :]
    assert review_url(comparison) in section
    assert review_url(dual_comparison) in section
    assert "USD 480,000.00" in section
    client.post(review_url(comparison), {"decision": "approve", "comment": "ok"})
    html = client.get("/").content.decode()
    assert review_url(comparison) not in html[html.index('id="awaiting-decision"') :]


def test_the_creator_has_no_decision_queue(comparison, lead):
    """U25: the lead created it (four-eyes), so nothing awaits the lead's decision."""
    client = Client()
    client.force_login(lead)
    assert "Awaiting my decision" not in client.get("/").content.decode()


def test_the_reviewer_comment_reaches_the_comparison_page(client, comparison, finance, lead):
    """U10: after "request changes" the lead reads the comment on the comparison page."""
    client.force_login(finance)
    client.post(
        review_url(comparison),
        {"decision": "request_changes", "comment": "Add a reserved offer from Northwind."},
    )
    client.force_login(lead)
    html = client.get(f"/comparisons/{comparison.pk}/").content.decode()
    assert "Add a reserved offer from Northwind." in html
    assert "Request changes" in html or "Changes requested" in html


def _due(comparison, *, days_from_now: int) -> None:
    from datetime import timedelta

    from django.utils import timezone

    comparison.review_due_at = timezone.now() + timedelta(days=days_from_now)
    comparison.save(update_fields=["review_due_at"])


def test_the_decision_bar_shows_the_due_date_and_flags_it_overdue(client, comparison, finance):
    """The bar says by when finance should decide, and says so loudly once it is late."""
    _due(comparison, days_from_now=3)
    client.force_login(finance)
    html = client.get(review_url(comparison)).content.decode()
    bar = html[html.index('class="decision-bar"') : html.index("</section>")]
    assert f"Due {comparison.review_due_at:%Y-%m-%d %H:%M} UTC" in bar
    assert "overdue" not in bar
    _due(comparison, days_from_now=-1)
    html = client.get(review_url(comparison)).content.decode()
    bar = html[html.index('class="decision-bar"') : html.index("</section>")]
    assert f"Due {comparison.review_due_at:%Y-%m-%d %H:%M} UTC" in bar
    assert 'class="badge bad overdue">overdue<' in bar


def test_the_queue_row_shows_due_date_approvals_given_and_the_commitment_term(
    dual_comparison, comparison, finance, engineer
):
    """The finance queue: due date with an overdue badge, approvals as "1 of 2", and the
    commitment with its term ("12-month commitment")."""
    from procurement.models import CandidateResult

    _due(dual_comparison, days_from_now=-2)
    _due(comparison, days_from_now=4)
    CandidateResult.objects.filter(comparison=dual_comparison, key="q-h100").update(
        detail={"commitment": {"contract_usd": "480000.00", "months_counted": 12}}
    )
    client = Client()
    client.force_login(finance)
    client.post(review_url(dual_comparison), {"decision": "approve", "comment": "ok"})
    client.force_login(engineer)
    html = client.get("/").content.decode()
    section = html[html.index('id="awaiting-decision"') : html.index("</table>")]
    rows = section.split("<tr>")[2:]
    late = next(r for r in rows if review_url(dual_comparison) in r)
    assert f"{dual_comparison.review_due_at:%Y-%m-%d %H:%M} UTC" in late
    assert 'class="badge bad overdue">overdue<' in late
    assert re.search(r'class="approvals">1 of 2<', late)
    assert "USD 480,000.00" in late
    assert "12-month commitment" in late
    assert rows.index(late) == 0, "the overdue one comes first"


def test_the_decision_form_takes_the_focus_only_after_a_refused_decision(
    client, comparison, finance
):
    """app.js focuses [data-error-summary] on load: a plain visit must not jump to the form."""
    client.force_login(finance)
    html = client.get(review_url(comparison)).content.decode()
    assert 'class="review-form decision-form"' in html
    assert "data-error-summary" not in html
    response = client.post(review_url(comparison), {"decision": "approve", "comment": ""})
    assert response.status_code == 400
    assert 'class="review-form decision-form" tabindex="-1" data-error-summary' in (
        response.content.decode()
    )
