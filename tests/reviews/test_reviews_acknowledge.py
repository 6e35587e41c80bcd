"""U8: approving a recommendation that carries named warnings (estimate-only, spot for a
real-time service, proxy evidence) needs an acknowledgement of each, ticked in the decision
bar or listed in the API's `acknowledge`; a missing one is a 400 naming it, and the audit
trail keeps what was acknowledged."""

from __future__ import annotations

import pytest

from core.errors import DomainError
from core.models import AuditEvent
from procurement.models import Comparison, Review
from procurement.services.reviews import review_submit
from tests.reviews.factories_reviews import ready_comparison

pytestmark = pytest.mark.django_db

SPOT = {
    "code": "SPOT_FOR_REALTIME",
    "detail": "spot capacity can be reclaimed at any time",
    "severity": "warn",
}


@pytest.fixture
def spot_estimate(lead):
    """The recommended H100 row as round 4 met it: estimate only, spot, for a real-time brief."""
    comparison = ready_comparison(created_by=lead)
    row = comparison.candidates.get(key="q-h100")
    row.perf_source = "estimated"
    row.warnings = [*row.warnings, SPOT]
    row.save(update_fields=["perf_source", "warnings"])
    return comparison


def test_an_approval_without_the_ticks_is_refused_naming_each_warning(spot_estimate, finance):
    with pytest.raises(DomainError) as refused:
        review_submit(
            acting_user=finance,
            comparison=spot_estimate,
            decision="approve",
            comment="Cheapest.",
            acknowledged=["PERF_ESTIMATED"],
        )
    assert refused.value.status_code == 400
    missing = refused.value.fields["acknowledge"]
    assert len(missing) == 1
    assert missing[0].startswith("SPOT_FOR_REALTIME: Spot capacity")
    assert not Review.objects.exists()


def test_the_api_lists_the_missing_ones_and_takes_the_ticks(
    spot_estimate, finance, api_client
) -> None:
    api_client.force_authenticate(finance)
    url = f"/api/v1/comparisons/{spot_estimate.pk}/reviews/"
    body = {"decision": "approve", "comment": "Checked."}
    bare = api_client.post(url, body, format="json")
    assert bare.status_code == 400
    assert [m.split(":")[0] for m in bare.json()["fields"]["acknowledge"]] == [
        "PERF_ESTIMATED",
        "SPOT_FOR_REALTIME",
    ]
    assert "No measured evidence" in bare.json()["detail"]
    ticked = api_client.post(
        url, {**body, "acknowledge": ["PERF_ESTIMATED", "SPOT_FOR_REALTIME"]}, format="json"
    )
    assert ticked.status_code == 201, ticked.json()
    spot_estimate.refresh_from_db()
    assert spot_estimate.status == Comparison.Status.APPROVED
    event = AuditEvent.objects.get(action="review.approve")
    assert event.summary["acknowledged"] == ["PERF_ESTIMATED", "SPOT_FOR_REALTIME"]


def test_the_decision_bar_asks_one_tick_per_warning(spot_estimate, finance, client) -> None:
    client.force_login(finance)
    url = f"/comparisons/{spot_estimate.pk}/review/"
    page = client.get(url).content.decode()
    box = page.split('id="acknowledge"')[1].split("</fieldset>")[0]
    assert "Approving accepts 2 warnings: tick each one" in box
    assert 'value="PERF_ESTIMATED"' in box
    assert 'value="SPOT_FOR_REALTIME"' in box
    post = {"decision": "approve", "comment": "Checked.", "candidate": "q-h100"}
    refused = client.post(url, {**post, "acknowledge": ["PERF_ESTIMATED"]})
    assert refused.status_code == 400
    assert "SPOT_FOR_REALTIME: Spot capacity" in refused.content.decode()
    done = client.post(url, {**post, "acknowledge": ["PERF_ESTIMATED", "SPOT_FOR_REALTIME"]})
    assert done.status_code == 302


def test_a_row_without_named_warnings_asks_for_nothing(lead, finance, client) -> None:
    comparison = ready_comparison(created_by=lead)  # measured, on demand
    client.force_login(finance)
    page = client.get(f"/comparisons/{comparison.pk}/review/").content.decode()
    assert 'id="acknowledge"' not in page
    review = review_submit(
        acting_user=finance, comparison=comparison, decision="approve", comment="Checked."
    )
    assert review.candidate.key == "q-h100"


def test_the_ticks_name_the_candidate_they_were_shown_for(spot_estimate, finance, client) -> None:
    """The page's script hides and disables them once another candidate is chosen, so a tick
    given for one row never counts for another (static/js/reviews.js)."""
    client.force_login(finance)
    page = client.get(f"/comparisons/{spot_estimate.pk}/review/").content.decode()
    assert 'data-acknowledge-for="q-h100"' in page
    assert 'data-recommended="q-h100"' in page
    refused = client.post(
        f"/comparisons/{spot_estimate.pk}/review/",
        {"decision": "approve", "comment": "Checked.", "candidate": "q-h200", "justification": "x"},
    )
    assert 'data-acknowledge-for="q-h200"' in refused.content.decode()
