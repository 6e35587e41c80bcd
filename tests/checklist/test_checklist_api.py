"""API v1: GET a quote's checklist, POST answers (multipart or JSON), POST reviews."""

from __future__ import annotations

import pytest

from checklist.models import ChecklistAnswer, ChecklistReview
from tests.checklist import files_checklist as f
from tests.checklist.factories_checklist import AnswerFactory

pytestmark = pytest.mark.django_db


def checklist_url(quote):
    return f"/api/v1/quotes/{quote.pk}/checklist/"


def answers_url(quote):
    return f"/api/v1/quotes/{quote.pk}/checklist/answers/"


def _files(root):
    return [p for p in root.rglob("*") if p.is_file()]


def test_get_checklist_lists_items_effective_answers_and_summary(
    api_client, lead, quote_a, answer_a
):
    api_client.force_authenticate(lead)
    body = api_client.get(checklist_url(quote_a)).json()
    assert body["quote"] == quote_a.pk
    assert body["summary"]["required_level"] == "full"
    assert len(body["items"]) == 20
    first = body["items"][0]
    assert first["code"] == "gpu-model-node-shape"
    assert first["effective_scope"] == "quote"
    assert first["answer"]["id"] == answer_a.pk
    assert first["answer"]["evidence_url"] == "https://example.com/a-spec"
    assert body["items"][1]["answer"] is None
    assert body["items"][1]["missing_reason"] == "unanswered"


def test_reserved_quote_19_of_20_via_api_is_incomplete_then_complete(
    api_client, vendor_a, admin_member, quote_a, items
):
    api_client.force_authenticate(vendor_a)
    for item in items[:-1]:
        response = api_client.post(
            answers_url(quote_a),
            {
                "item": item.code,
                "answer": "Documented",
                "status": "yes",
                "evidence_url": f"https://example.com/{item.code}",
            },
            format="json",
        )
        assert response.status_code == 201, response.json()
    summary = api_client.get(checklist_url(quote_a)).json()["summary"]
    assert summary["complete"] is False
    unanswered = [m for m in summary["missing_items"] if m["reason"] == "unanswered"]
    assert [m["code"] for m in unanswered] == [items[-1].code]
    assert unanswered[0]["title"] == items[-1].title
    response = api_client.post(
        answers_url(quote_a),
        {
            "item": items[-1].code,
            "answer": "Tags and budgets",
            "status": "yes",
            "evidence_file": f.upload("budgets.xlsx", f.ooxml("xlsx")),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["evidence_file_name"] == "budgets.xlsx"
    assert response.json()["evidence_download_url"].endswith(
        f"/checklist/evidence/{response.json()['id']}/"
    )
    summary = api_client.get(checklist_url(quote_a)).json()["summary"]
    assert summary["complete"] is False  # M4: the vendor's word awaits a reviewer
    assert summary["awaiting_review"] == [item.code for item in items]
    api_client.force_authenticate(admin_member)
    for answer in ChecklistAnswer.objects.filter(quote=quote_a):
        reviewed = api_client.post(
            f"/api/v1/checklist/answers/{answer.pk}/reviews/",
            {"decision": "accepted"},
            format="json",
        )
        assert reviewed.status_code == 201, reviewed.json()
    summary = api_client.get(checklist_url(quote_a)).json()["summary"]
    assert summary["complete"] is True
    assert summary["completeness_pct"] == 100


def test_post_answer_with_provider_scope_and_history(api_client, vendor_a, quote_a, items):
    api_client.force_authenticate(vendor_a)
    payload = {
        "item": "iam-audit",
        "answer": "SSO",
        "status": "yes",
        "scope": "provider",
        "evidence_url": "https://example.com/iam",
    }
    first = api_client.post(answers_url(quote_a), payload, format="json").json()
    assert first["scope"] == "provider"
    assert first["quote"] is None
    payload.update(answer="SSO and SCIM", evidence_url="")
    second = api_client.post(answers_url(quote_a), payload, format="json").json()
    assert second["supersedes"] == first["id"]
    assert second["evidence_url"] == "https://example.com/iam"  # kept
    payload.update(answer="SSO only", keep_evidence=False)
    third = api_client.post(answers_url(quote_a), payload, format="json").json()
    assert third["has_evidence"] is False


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        ({"item": "no-such-item"}, "item", "There is no checklist item"),
        ({"status": "maybe"}, "status", "not a valid choice"),
        ({"answer": ""}, "answer", "may not be blank"),
        ({"scope": "galaxy"}, "scope", "not a valid choice"),
        ({"evidence_url": "not a url"}, "evidence_url", "valid URL"),
        ({"evidence_file": "EXE"}, "evidence_file", "named .pdf but its content is not a PDF"),
        ({"evidence_file": "HTML"}, "evidence_file", "Files of type .html are not accepted"),
        (
            {"evidence_file": "PDF", "evidence_url": "https://x.example"},
            "evidence_url",
            "not both",
        ),
    ],
)
def test_bad_answer_input_is_a_clear_400_and_changes_nothing(
    api_client, vendor_a, quote_a, items, private_root, payload, field, message
):
    data = {"item": "region-placement", "answer": "eu-west", "status": "yes", **payload}
    data["evidence_file"] = {
        "EXE": f.upload("terms.pdf", f.EXE),
        "HTML": f.upload("terms.html", f.HTML, "text/html"),
        "PDF": f.pdf(),
    }.get(payload.get("evidence_file"))
    if data["evidence_file"] is None:
        del data["evidence_file"]
    api_client.force_authenticate(vendor_a)
    response = api_client.post(answers_url(quote_a), data, format="multipart")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert message in " ".join(body["fields"][field])
    assert not ChecklistAnswer.objects.exists()
    assert _files(private_root) == []


def test_oversized_api_upload_is_refused_and_nothing_stored(
    api_client, vendor_a, quote_a, items, private_root, settings
):
    settings.EVIDENCE_UPLOAD_MAX_BYTES = 50_000
    api_client.force_authenticate(vendor_a)
    response = api_client.post(
        answers_url(quote_a),
        {
            "item": "region-placement",
            "answer": "eu-west",
            "status": "yes",
            "evidence_file": f.upload("big.pdf", f.PDF + b"0" * 1_000_000),
        },
        format="multipart",
    )
    assert response.status_code == 400
    assert "larger than the 50 kB limit" in response.json()["fields"]["evidence_file"][0]
    assert not ChecklistAnswer.objects.exists()
    assert _files(private_root) == []


def test_staff_cannot_answer_for_a_vendor(api_client, lead, quote_a, items):
    api_client.force_authenticate(lead)
    response = api_client.post(
        answers_url(quote_a),
        {"item": "iam-audit", "answer": "x", "status": "yes"},
        format="json",
    )
    assert response.status_code == 403
    assert not ChecklistAnswer.objects.exists()


def test_review_api_records_the_verdict(api_client, security, quote_a, items, vendor_a):
    answer = AnswerFactory(
        provider=quote_a.provider, quote=quote_a, item=items[15], answered_by=vendor_a
    )
    api_client.force_authenticate(security)
    response = api_client.post(
        f"/api/v1/checklist/answers/{answer.pk}/reviews/",
        {"decision": "red_flag", "comment": "Public endpoints only"},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["decision"] == "red_flag"
    assert response.json()["reviewer"] == "security"
    summary = api_client.get(checklist_url(quote_a)).json()["summary"]
    assert summary["red_flags"][0]["comment"] == "Public endpoints only"


@pytest.mark.parametrize(
    ("who", "payload", "status", "code"),
    [
        ("engineer", {"decision": "accepted"}, 403, "not_allowed"),  # security section
        ("security", {"decision": "needs_info"}, 400, "invalid"),  # no comment
        ("security", {"decision": "maybe"}, 400, "invalid"),
        ("vendor_a", {"decision": "accepted"}, 403, "not_allowed"),  # own answer
    ],
)
def test_review_api_refusals(
    request, api_client, quote_a, items, vendor_a, who, payload, status, code
):
    answer = AnswerFactory(
        provider=quote_a.provider, quote=quote_a, item=items[15], answered_by=vendor_a
    )
    api_client.force_authenticate(request.getfixturevalue(who))
    response = api_client.post(
        f"/api/v1/checklist/answers/{answer.pk}/reviews/", payload, format="json"
    )
    assert response.status_code == status
    assert response.json()["code"] == code
    assert not ChecklistReview.objects.exists()


def test_items_and_answer_detail_endpoints(api_client, vendor_a, answer_a):
    api_client.force_authenticate(vendor_a)
    items = api_client.get("/api/v1/checklist/items/").json()
    assert items["count"] == 20
    assert sum(i["is_basic"] for i in items["results"]) == 8
    body = api_client.get(f"/api/v1/checklist/answers/{answer_a.pk}/").json()
    assert body["item"] == "gpu-model-node-shape"
    assert body["reviews"] == []


def test_quote_checklist_api_takes_a_fixed_number_of_queries(
    api_client, lead, quote_a, items, vendor_a, django_assert_max_num_queries
):
    api_client.force_authenticate(lead)
    AnswerFactory(provider=quote_a.provider, quote=quote_a, item=items[0], answered_by=vendor_a)
    with django_assert_max_num_queries(10) as few:
        api_client.get(checklist_url(quote_a))
    for item in items:
        AnswerFactory(provider=quote_a.provider, quote=None, item=item, answered_by=vendor_a)
    with django_assert_max_num_queries(10) as many:
        api_client.get(checklist_url(quote_a))
    assert len(many.captured_queries) == len(few.captured_queries)


def test_quote_api_embeds_the_checklist_summary(api_client, vendor_a, quote_a, items):
    for item in items[1:]:
        AnswerFactory(
            provider=quote_a.provider,
            quote=quote_a,
            item=item,
            answered_by=vendor_a,
            review_status="accepted",
        )
    api_client.force_authenticate(vendor_a)
    response = api_client.get(f"/api/v1/quotes/{quote_a.pk}/")
    assert response.status_code == 200
    checklist = response.json()["checklist"]
    assert checklist["required_level"] == "full"
    assert checklist["completeness_pct"] == 95
    assert [m["code"] for m in checklist["missing_items"]] == [items[0].code]
    assert checklist["red_flags"] == []
