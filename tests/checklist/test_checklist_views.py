"""HTML pages: the vendor answer form, provider defaults, staff review, evidence download."""

from __future__ import annotations

import pytest
from django.test import Client

from checklist import held, services
from checklist.models import ChecklistAnswer, ChecklistReview
from checklist.services import AnswerEntry
from tests.checklist import files_checklist as f
from tests.checklist.factories_checklist import AnswerFactory
from tests.factories import QuoteFactory

pytestmark = pytest.mark.django_db


def answer_url(quote):
    return f"/checklist/quotes/{quote.pk}/answer/"


def detail_url(quote):
    return f"/checklist/quotes/{quote.pk}/"


def review_url(quote, answer):
    return f"/checklist/quotes/{quote.pk}/answers/{answer.pk}/review/"


def form_data(answers: dict[str, dict]) -> dict:
    """Prefixed POST data for the answer page, as the browser sends it."""
    data = {}
    for code, fields in answers.items():
        for name, value in fields.items():
            data[f"{code}-{name}"] = value
    return data


def _files(root):
    return [p for p in root.rglob("*") if p.is_file()]


def test_vendor_sees_every_item_with_stable_field_ids(login, vendor_a, quote_a):
    response = login(vendor_a).get(answer_url(quote_a))
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('class="card checklist-item') == 20
    for field in ("answer", "status", "evidence_file", "evidence_url", "scope_0"):
        assert f'id="id_gpu-model-node-shape-{field}"' in html
    assert 'id="save-answers"' in html
    assert "Good evidence:" in html


def test_vendor_answers_two_items_with_a_document_and_a_link(
    login, vendor_a, quote_a, private_root
):
    data = form_data(
        {
            "gpu-model-node-shape": {
                "answer": "8x H100 SXM 80 GB",
                "status": "yes",
                "scope": "quote",
                "evidence_file": f.pdf("node spec.pdf"),
            },
            "software-versions": {
                "answer": "CUDA 12.4",
                "status": "partial",
                "scope": "provider",
                "evidence_url": "https://example.com/release-notes",
            },
        }
    )
    response = login(vendor_a).post(answer_url(quote_a), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    hw = ChecklistAnswer.objects.get(item__code="gpu-model-node-shape")
    assert hw.quote == quote_a
    assert hw.evidence_name == "node spec.pdf"
    sw = ChecklistAnswer.objects.get(item__code="software-versions")
    assert sw.quote is None
    assert sw.status == "partial"
    assert len(_files(private_root)) == 1
    page = login(vendor_a).get(answer_url(quote_a)).content.decode()
    assert "node spec.pdf" in page
    assert f"/checklist/evidence/{hw.pk}/" in page


def test_resubmitting_the_page_unchanged_saves_nothing(login, vendor_a, quote_a, items):
    client = login(vendor_a)
    first = {
        "gpu-model-node-shape": {
            "answer": "Line one\r\nline two",
            "status": "yes",
            "scope": "quote",
            "evidence_url": "https://e.com/x",
        }
    }
    assert client.post(answer_url(quote_a), form_data(first)).status_code == 302
    response = client.post(answer_url(quote_a), form_data(first), follow=True)
    assert "Nothing changed" in response.content.decode()
    assert ChecklistAnswer.objects.count() == 1


def test_a_bad_upload_refuses_the_whole_page_and_stores_nothing(
    login, vendor_a, quote_a, private_root
):
    data = form_data(
        {
            "gpu-model-node-shape": {
                "answer": "ok",
                "status": "yes",
                "scope": "quote",
                "evidence_file": f.pdf(),
            },
            "interconnect": {
                "answer": "NVLink",
                "status": "yes",
                "scope": "quote",
                "evidence_file": f.upload("nvlink.pdf", f.EXE),
            },
            "node-resources": {
                "answer": "x",
                "status": "yes",
                "scope": "quote",
                "evidence_file": f.upload("page.html", f.HTML, "text/html"),
            },
        }
    )
    response = login(vendor_a).post(answer_url(quote_a), data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "named .pdf but its content is not a PDF" in html
    assert "Files of type .html are not accepted" in html
    assert "Nothing was saved" in html
    assert not ChecklistAnswer.objects.exists()
    # No evidence is stored; only the valid PDF waits in the held folder (U13).
    assert [p for p in _files(private_root) if held.HOLD_FOLDER not in p.parts] == []
    assert [p.read_bytes() for p in (private_root / held.HOLD_FOLDER).iterdir()] == [f.PDF]


def test_an_oversized_upload_is_cut_off_and_refused(
    login, vendor_a, quote_a, private_root, settings
):
    settings.EVIDENCE_UPLOAD_MAX_BYTES = 100_000
    data = form_data(
        {
            "gpu-model-node-shape": {
                "answer": "ok",
                "status": "yes",
                "scope": "quote",
                "evidence_file": f.upload("big.pdf", f.PDF + b"0" * 1_000_000),
            }
        }
    )
    response = login(vendor_a).post(answer_url(quote_a), data)
    assert response.status_code == 400
    assert "larger than the 100 kB limit" in response.content.decode()
    assert not ChecklistAnswer.objects.exists()
    assert _files(private_root) == []


def test_missing_answer_or_status_is_a_clear_error(login, vendor_a, quote_a):
    data = form_data({"region-placement": {"answer": "", "status": "yes", "scope": "quote"}})
    response = login(vendor_a).post(answer_url(quote_a), data)
    assert response.status_code == 400
    assert "Write an answer" in response.content.decode()
    assert not ChecklistAnswer.objects.exists()


def test_provider_defaults_page_writes_default_answers(login, vendor_a, items):
    data = form_data(
        {
            "iam-audit": {
                "answer": "SSO via OIDC",
                "status": "yes",
                "evidence_url": "https://e.com/iam",
            }
        }
    )
    response = login(vendor_a).post("/checklist/provider/", data)
    assert response.status_code == 302
    answer = ChecklistAnswer.objects.get()
    assert answer.quote is None
    assert answer.provider == vendor_a.provider


def test_vendor_sees_a_request_for_more_information_and_answers_again(
    login, vendor_a, engineer, quote_a, answer_a
):
    services.answer_review(
        acting_user=engineer,
        answer=answer_a,
        decision="needs_info",
        comment="Please attach nvidia-smi output",
    )
    client = login(vendor_a)
    html = client.get(answer_url(quote_a)).content.decode()
    assert 'id="request-gpu-model-node-shape"' in html
    assert "Please attach nvidia-smi output" in html
    assert "checklist-item needs-info" in html
    data = form_data(
        {
            "gpu-model-node-shape": {
                "answer": "See attached",
                "status": "yes",
                "scope": "quote",
                "evidence_file": f.pdf(),
            }
        }
    )
    assert client.post(answer_url(quote_a), data).status_code == 302
    newest = ChecklistAnswer.objects.get(superseded_by__isnull=True)
    assert newest.supersedes == answer_a
    assert newest.review_status == "pending"
    html = client.get(answer_url(quote_a)).content.decode()
    assert "Earlier answers (1)" in html


def test_staff_are_sent_to_the_review_page_and_vendors_to_the_answer_page(
    login, lead, vendor_a, quote_a
):
    assert login(lead).get(answer_url(quote_a))["Location"] == detail_url(quote_a)
    assert login(vendor_a).get(detail_url(quote_a))["Location"] == answer_url(quote_a)


def test_review_page_offers_buttons_only_for_the_reviewers_sections(
    login, engineer, finance, quote_a, items, vendor_a
):
    for item in items:
        AnswerFactory(provider=quote_a.provider, quote=quote_a, item=item, answered_by=vendor_a)
    html = login(engineer).get(detail_url(quote_a)).content.decode()
    assert 'id="review-accept-gpu-model-node-shape"' in html
    assert 'id="review-accept-observability"' in html
    assert 'id="review-accept-ancillary-costs"' not in html
    html = login(finance).get(detail_url(quote_a)).content.decode()
    assert 'id="review-needs-info-ancillary-costs"' in html
    assert 'id="review-accept-gpu-model-node-shape"' not in html


def test_review_by_form_post_redirects_and_records(login, engineer, quote_a, answer_a):
    data = {
        "gpu-model-node-shape-decision": "needs_info",
        "gpu-model-node-shape-comment": "Which zone?",
    }
    response = login(engineer).post(review_url(quote_a, answer_a), data)
    assert response.status_code == 302
    assert response["Location"].endswith("#item-gpu-model-node-shape")
    answer_a.refresh_from_db()
    assert answer_a.review_status == "needs_info"
    assert ChecklistReview.objects.get().comment == "Which zone?"


def test_review_by_htmx_returns_the_item_and_an_out_of_band_summary(
    login, engineer, quote_a, answer_a
):
    data = {"gpu-model-node-shape-decision": "accepted"}
    response = login(engineer).post(review_url(quote_a, answer_a), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith("<article")
    assert 'id="item-gpu-model-node-shape"' in html
    assert 'id="checklist-summary" aria-live="polite" hx-swap-oob="true"' in html
    assert "<html" not in html
    answer_a.refresh_from_db()
    assert answer_a.review_status == "accepted"


def test_review_without_a_required_comment_is_refused(login, engineer, quote_a, answer_a):
    data = {"gpu-model-node-shape-decision": "red_flag", "gpu-model-node-shape-comment": ""}
    response = login(engineer).post(review_url(quote_a, answer_a), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "a comment is required" in response.content.decode()
    assert not ChecklistReview.objects.exists()
    answer_a.refresh_from_db()
    assert answer_a.review_status == "pending"


def test_review_outside_the_reviewers_section_is_refused(login, finance, quote_a, answer_a):
    data = {"gpu-model-node-shape-decision": "accepted"}
    response = login(finance).post(review_url(quote_a, answer_a), data)
    assert response.status_code == 403
    assert "does not review the Hardware and topology section" in response.content.decode()
    assert not ChecklistReview.objects.exists()


def test_evidence_download_is_an_attachment_with_safe_headers(
    login, vendor_a, lead, quote_a, items
):
    answer = services.answer_submit(
        acting_user=vendor_a,
        provider=quote_a.provider,
        quote=quote_a,
        entry=AnswerEntry(
            item=items[0],
            answer="x",
            status="yes",
            evidence_file=f.upload('évil"; name=x.pdf', f.PDF),
        ),
    )
    response = login(lead).get(f"/checklist/evidence/{answer.pk}/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Disposition"] == 'attachment; filename="evil_ name_x.pdf"'
    assert b"".join(response.streaming_content) == f.PDF


def test_evidence_link_only_answer_has_no_download(login, lead, answer_a):
    assert login(lead).get(f"/checklist/evidence/{answer_a.pk}/").status_code == 404


def test_a_revised_quote_shows_why_it_cannot_be_answered(login, vendor_a, quote_a):
    QuoteFactory(provider=quote_a.provider, supersedes=quote_a, version=2)
    client = login(vendor_a)
    html = client.get(answer_url(quote_a)).content.decode()
    assert "has a newer version" in html
    assert 'id="save-answers"' not in html
    data = form_data({"region-placement": {"answer": "x", "status": "yes", "scope": "quote"}})
    assert client.post(answer_url(quote_a), data).status_code == 400
    assert not ChecklistAnswer.objects.exists()


def test_answer_post_needs_a_csrf_token(vendor_a, quote_a):
    client = Client(enforce_csrf_checks=True)
    client.force_login(vendor_a)
    data = form_data({"region-placement": {"answer": "x", "status": "yes", "scope": "quote"}})
    assert client.post(answer_url(quote_a), data).status_code == 403
    assert not ChecklistAnswer.objects.exists()


def test_review_post_needs_a_csrf_token(engineer, quote_a, answer_a):
    client = Client(enforce_csrf_checks=True)
    client.force_login(engineer)
    data = {"gpu-model-node-shape-decision": "accepted"}
    assert client.post(review_url(quote_a, answer_a), data).status_code == 403


def test_index_lists_quotes_with_their_completeness(login, lead, vendor_a, quote_a, quote_b):
    html = login(lead).get("/checklist/").content.decode()
    assert f'id="quote-{quote_a.pk}"' in html
    assert f'id="quote-{quote_b.pk}"' in html
    html = login(vendor_a).get("/checklist/").content.decode()
    assert f'id="quote-{quote_a.pk}"' in html
    assert f'id="quote-{quote_b.pk}"' not in html
    assert 'id="provider-defaults-link"' in html


def _populate(quote, items, vendor, n_versions):
    for item in items:
        previous = None
        for _ in range(n_versions):
            previous = AnswerFactory(
                provider=quote.provider,
                quote=quote,
                item=item,
                answered_by=vendor,
                supersedes=previous,
            )


@pytest.mark.parametrize("path", ["answer", "detail"])
def test_quote_pages_take_a_fixed_number_of_queries(
    path, login, vendor_a, engineer, quote_a, items, django_assert_max_num_queries
):
    user = vendor_a if path == "answer" else engineer
    url = answer_url(quote_a) if path == "answer" else detail_url(quote_a)
    client = login(user)
    _populate(quote_a, items[:2], vendor_a, 1)
    with django_assert_max_num_queries(12) as few:
        assert client.get(url).status_code == 200
    _populate(quote_a, items, vendor_a, 4)
    with django_assert_max_num_queries(12) as many:
        assert client.get(url).status_code == 200
    assert len(many.captured_queries) == len(few.captured_queries)


def test_index_takes_a_fixed_number_of_queries(
    login, lead, provider_a, items, django_assert_max_num_queries
):
    client = login(lead)
    QuoteFactory(provider=provider_a)
    with django_assert_max_num_queries(10) as few:
        client.get("/checklist/")
    for _ in range(15):
        quote = QuoteFactory(provider=provider_a, capacity_model="reserved")
        AnswerFactory(provider=provider_a, quote=quote, item=items[0])
    with django_assert_max_num_queries(10) as many:
        client.get("/checklist/")
    assert len(many.captured_queries) == len(few.captured_queries)
