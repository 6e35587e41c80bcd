"""API: reviews of a comparison (403 four-eyes, 409 conflict, 404 vendors) and audit events."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from core.models import AuditEvent
from procurement.models import Comparison, Review

pytestmark = pytest.mark.django_db

STAFF = ["lead", "lead_other", "engineer", "finance", "finance_other", "security", "admin_member"]
VENDORS = ["vendor_a", "vendor_b"]
COMPARISON_ROUTES = ["reviews/", "export.csv", "export.xlsx"]


def api(request, who) -> APIClient:
    client = APIClient()
    if who != "anonymous":
        client.force_authenticate(request.getfixturevalue(who))
    return client


def reviews_url(comparison):
    return f"/api/v1/comparisons/{comparison.pk}/reviews/"


@pytest.mark.parametrize("route", COMPARISON_ROUTES)
@pytest.mark.parametrize(
    ("who", "expected"),
    [*((w, 200) for w in STAFF), *((v, 404) for v in VENDORS), ("anonymous", 403)],
)
def test_comparison_review_routes_access_matrix(request, comparison, route, who, expected):
    response = api(request, who).get(f"/api/v1/comparisons/{comparison.pk}/{route}")
    assert response.status_code == expected


@pytest.mark.parametrize("who", VENDORS)
def test_vendor_post_review_is_404(request, comparison, who):
    response = api(request, who).post(
        reviews_url(comparison), {"decision": "approve", "comment": "x"}, format="json"
    )
    assert response.status_code == 404
    assert not Review.objects.exists()


@pytest.mark.parametrize("route", COMPARISON_ROUTES)
def test_missing_comparison_is_404(request, finance, route):
    assert api(request, "finance").get(f"/api/v1/comparisons/999999/{route}").status_code == 404


def test_finance_approves_through_the_api(api_client, comparison, finance):
    api_client.force_authenticate(finance)
    response = api_client.post(
        reviews_url(comparison),
        {"decision": "approve", "comment": "Lines checked."},
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["decision"] == "approve"
    assert body["candidate"] == "q-h100"
    assert body["reviewer"] == "finance"
    assert body["comparison_status"] == "approved"
    assert body["approvals"] == "1 of 1 approvals"
    listed = api_client.get(reviews_url(comparison)).json()
    assert listed["count"] == 1
    assert listed["results"][0]["comment"] == "Lines checked."


def test_creator_approval_is_refused_by_the_api(api_client, comparison, lead):
    api_client.force_authenticate(lead)
    response = api_client.post(
        reviews_url(comparison), {"decision": "approve", "comment": "mine"}, format="json"
    )
    assert response.status_code == 403
    assert response.json()["code"] == "not_allowed"
    assert "four-eyes" in response.json()["detail"]
    comparison.refresh_from_db()
    assert comparison.status == Comparison.Status.READY
    assert not Review.objects.exists()


def test_second_decision_is_a_409(api_client, comparison, finance, finance_other):
    api_client.force_authenticate(finance)
    api_client.post(reviews_url(comparison), {"decision": "approve", "comment": "ok"})
    api_client.force_authenticate(finance_other)
    response = api_client.post(
        reviews_url(comparison), {"decision": "reject", "comment": "no"}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["code"] == "conflict"
    assert Review.objects.count() == 1


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"decision": "approve"}, "comment"),
        ({"decision": "approve", "comment": "   "}, "comment"),
        ({"decision": "yes", "comment": "x"}, "decision"),
        ({"decision": "approve", "comment": "x", "candidate": "q-h200"}, "justification"),
        ({"decision": "approve", "comment": "x", "candidate": "nope"}, "candidate"),
        ({"decision": "approve", "comment": "x" * 5001}, "comment"),
    ],
)
def test_bad_review_input_is_a_clear_400(api_client, comparison, finance, data, field):
    api_client.force_authenticate(finance)
    response = api_client.post(reviews_url(comparison), data, format="json")
    assert response.status_code == 400
    body = response.json()
    assert field in body["fields"], body
    assert body["detail"]
    assert not Review.objects.exists()
    assert not AuditEvent.objects.filter(action__startswith="review.").exists()


def test_reviews_have_no_put_patch_or_delete(api_client, comparison, finance):
    api_client.force_authenticate(finance)
    for method in ("put", "patch", "delete"):
        assert getattr(api_client, method)(reviews_url(comparison)).status_code == 405


@pytest.mark.parametrize(
    ("who", "expected"),
    [
        ("admin_member", 200),
        ("finance", 403),
        ("security", 403),
        ("lead", 403),
        ("engineer", 403),
        ("vendor_a", 404),
        ("anonymous", 403),
    ],
)
def test_audit_events_api_is_for_admins(request, comparison, who, expected):
    assert api(request, who).get("/api/v1/audit-events/").status_code == expected


def test_audit_events_api_lists_and_filters(api_client, comparison, finance, admin_member):
    client = APIClient()
    client.force_authenticate(finance)
    client.post(reviews_url(comparison), {"decision": "approve", "comment": "ok"})
    api_client.force_authenticate(admin_member)
    body = api_client.get("/api/v1/audit-events/", {"action": "comparison.decided"}).json()
    assert body["count"] == 1
    event = body["results"][0]
    assert event["actor_name"] == "finance"
    assert event["summary"]["after"]["status"] == "approved"
    assert len(event["row_hash"]) == 64
    detail = api_client.get(f"/api/v1/audit-events/{event['id']}/")
    assert detail.status_code == 200
    assert api_client.get("/api/v1/audit-events/", {"actor": "nobody"}).json()["count"] == 0


def test_audit_events_cannot_be_written_through_the_api(api_client, comparison, admin_member):
    from core.audit import audit_record

    event = audit_record(actor=admin_member, action="test.event", obj=comparison)
    api_client.force_authenticate(admin_member)
    before = AuditEvent.objects.count()
    assert api_client.post("/api/v1/audit-events/", {"action": "x"}).status_code == 405
    url = f"/api/v1/audit-events/{event.pk}/"
    assert api_client.put(url, {"action": "x"}).status_code == 405
    assert api_client.patch(url, {"action": "x"}).status_code == 405
    assert api_client.delete(url).status_code == 405
    assert AuditEvent.objects.count() == before
    event.refresh_from_db()
    assert event.action == "test.event"


def test_review_list_queries_do_not_grow(api_client, finance, lead, django_assert_num_queries):
    from tests.factories import UserFactory
    from tests.reviews.factories_reviews import ready_comparison

    few = ready_comparison(created_by=lead, required_approvals=2)
    many = ready_comparison(created_by=lead, title="many", required_approvals=2)
    for i, target in enumerate([few, many, many, many, many, many]):
        Review.objects.create(
            comparison=target,
            comparison_creator=lead,
            reviewer=UserFactory(username=f"rev{i}", role="finance"),
            reviewer_role="finance",
            decision="request_changes",
            comment="more",
        )
    api_client.force_authenticate(finance)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts = []
    for comparison in (few, many):
        with CaptureQueriesContext(connection) as ctx:
            assert api_client.get(reviews_url(comparison)).status_code == 200
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1]
