"""Every role × every checklist route, HTML and API. Vendors of another provider get 404,
exactly as for an id that does not exist; nothing changes on a refused write."""

from __future__ import annotations

import pytest

from checklist.api import urls as api_urls
from checklist.models import ChecklistAnswer, ChecklistReview
from checklist.urls import urlpatterns as html_urls
from tests.checklist import files_checklist as f

pytestmark = pytest.mark.django_db

ROLES = [
    "anonymous",
    "vendor_a",
    "vendor_b",
    "lead",
    "engineer",
    "finance",
    "security",
    "admin_member",
]
STAFF = {"lead": None, "engineer": None, "finance": None, "security": None, "admin_member": None}


def _expect(**by_role):
    """Expected status per role; `staff=` fills the five staff roles."""
    staff = by_role.pop("staff", None)
    out = dict.fromkeys(STAFF, staff) if staff is not None else {}
    out.update(by_role)
    return out


# (route name, method, path template, expected status per role)
MATRIX = [
    ("index", "get", "/checklist/", _expect(anonymous=302, vendor_a=200, vendor_b=200, staff=200)),
    (
        "provider",
        "get",
        "/checklist/provider/",
        _expect(anonymous=302, vendor_a=200, vendor_b=200, staff=404),
    ),
    (
        "quote-answer",
        "get",
        "/checklist/quotes/{quote}/answer/",
        _expect(anonymous=302, vendor_a=200, vendor_b=404, staff=302),
    ),
    (
        "quote-answer",
        "post",
        "/checklist/quotes/{quote}/answer/",
        _expect(anonymous=302, vendor_a=302, vendor_b=404, staff=302),
    ),
    (
        "quote-detail",
        "get",
        "/checklist/quotes/{quote}/",
        _expect(anonymous=302, vendor_a=302, vendor_b=404, staff=200),
    ),
    (
        "answer-review",
        "post",
        "/checklist/quotes/{quote}/answers/{answer}/review/",
        _expect(
            anonymous=302,
            vendor_a=404,
            vendor_b=404,
            lead=403,
            engineer=302,
            finance=403,
            security=403,
            admin_member=302,
        ),
    ),
    (
        "evidence",
        "get",
        "/checklist/evidence/{answer}/",
        _expect(anonymous=302, vendor_a=200, vendor_b=404, staff=200),
    ),
    (
        "api-checklist-items",
        "get",
        "/api/v1/checklist/items/",
        _expect(anonymous=403, vendor_a=200, vendor_b=200, staff=200),
    ),
    (
        "api-quote-checklist",
        "get",
        "/api/v1/quotes/{quote}/checklist/",
        _expect(anonymous=403, vendor_a=200, vendor_b=404, staff=200),
    ),
    (
        "api-quote-checklist-answers",
        "post",
        "/api/v1/quotes/{quote}/checklist/answers/",
        _expect(anonymous=403, vendor_a=201, vendor_b=404, staff=403),
    ),
    (
        "api-checklist-answer",
        "get",
        "/api/v1/checklist/answers/{answer}/",
        _expect(anonymous=403, vendor_a=200, vendor_b=404, staff=200),
    ),
    (
        "api-checklist-answer-reviews",
        "post",
        "/api/v1/checklist/answers/{answer}/reviews/",
        _expect(
            anonymous=403,
            vendor_a=403,
            vendor_b=404,
            lead=403,
            engineer=201,
            finance=403,
            security=403,
            admin_member=201,
        ),
    ),
]


def _body(name, answer):
    if name in ("quote-answer",):
        return {
            "region-placement-answer": "eu-west",
            "region-placement-status": "yes",
            "region-placement-scope": "quote",
        }
    if name == "answer-review":
        return {f"{answer.item.code}-decision": "accepted"}
    if name == "api-quote-checklist-answers":
        return {"item": "region-placement", "answer": "eu-west", "status": "yes"}
    if name == "api-checklist-answer-reviews":
        return {"decision": "accepted"}
    return None


@pytest.fixture
def evidenced_answer_a(quote_a, vendor_a, items):
    from checklist import services

    return services.answer_submit(
        acting_user=vendor_a,
        provider=quote_a.provider,
        quote=quote_a,
        entry=services.AnswerEntry(
            item=items[0], answer="8x H100", status="yes", evidence_file=f.pdf()
        ),
    )


def _counts():
    return ChecklistAnswer.objects.count(), ChecklistReview.objects.count()


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    ("name", "method", "template", "expected"), MATRIX, ids=[f"{m[1]} {m[0]}" for m in MATRIX]
)
def test_checklist_access_matrix(
    request, client, api_client, role, name, method, template, expected, quote_a, evidenced_answer_a
):
    user = request.getfixturevalue(role)
    path = template.format(quote=quote_a.pk, answer=evidenced_answer_a.pk)
    body = _body(name, evidenced_answer_a)
    before = _counts()
    if path.startswith("/api/"):
        if user is not None:
            api_client.force_authenticate(user)
        response = getattr(api_client, method)(path, body, format="json")
    else:
        if user is not None:
            client.force_login(user)
        response = getattr(client, method)(path, body) if body else getattr(client, method)(path)
    assert response.status_code == expected[role], (role, name, response.content[:300])
    if method == "post" and (response.status_code >= 400 or user is None):
        assert _counts() == before


@pytest.mark.parametrize(
    "template",
    [
        "/checklist/quotes/{id}/answer/",
        "/checklist/quotes/{id}/",
        "/checklist/evidence/{id}/",
        "/api/v1/quotes/{id}/checklist/",
        "/api/v1/checklist/answers/{id}/",
    ],
)
def test_other_providers_objects_look_exactly_like_missing_ones(
    client, api_client, vendor_b, quote_a, evidenced_answer_a, template
):
    real = evidenced_answer_a.pk if "answers" in template or "evidence" in template else quote_a.pk
    missing = 999_999
    if template.startswith("/api/"):
        api_client.force_authenticate(vendor_b)
        forbidden = api_client.get(template.format(id=real))
        absent = api_client.get(template.format(id=missing))
        assert forbidden.json() == absent.json()
    else:
        client.force_login(vendor_b)
        forbidden = client.get(template.format(id=real))
        absent = client.get(template.format(id=missing))
    assert forbidden.status_code == absent.status_code == 404


def test_review_of_an_answer_through_another_providers_quote_is_404(
    client, engineer, quote_b, evidenced_answer_a
):
    client.force_login(engineer)
    response = client.post(
        f"/checklist/quotes/{quote_b.pk}/answers/{evidenced_answer_a.pk}/review/",
        {"gpu-model-node-shape-decision": "accepted"},
    )
    assert response.status_code == 404
    assert not ChecklistReview.objects.exists()


def test_vendor_b_cannot_answer_through_vendor_a_quote_with_provider_scope(
    api_client, vendor_b, quote_a, items
):
    api_client.force_authenticate(vendor_b)
    response = api_client.post(
        f"/api/v1/quotes/{quote_a.pk}/checklist/answers/",
        {"item": "iam-audit", "answer": "x", "status": "yes", "scope": "provider"},
        format="json",
    )
    assert response.status_code == 404
    assert not ChecklistAnswer.objects.exists()


def test_vendor_lists_show_none_of_the_other_providers_rows(
    client, vendor_b, quote_a, evidenced_answer_a
):
    client.force_login(vendor_b)
    html = client.get("/checklist/").content.decode()
    assert f"quote-{quote_a.pk}" not in html
    html = client.get("/checklist/provider/").content.decode()
    assert "8x H100" not in html


def test_every_checklist_route_is_in_the_matrix():
    covered = {row[0] for row in MATRIX}
    names = {p.name for p in html_urls} | {p.name for p in api_urls.urlpatterns}
    assert names <= covered, names - covered
