"""U13: a refused checklist save keeps the valid chosen files server-side (a signed token in
a hidden field), the next submit saves them, and nothing reaches the database until then."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.core import signing

from checklist import held
from checklist.models import ChecklistAnswer
from tests.checklist import files_checklist as f
from tests.checklist.test_checklist_views import answer_url, form_data

pytestmark = pytest.mark.django_db

FIELD = "gpu-model-node-shape-evidence_file"
TOKEN_INPUT = re.compile(r'name="gpu-model-node-shape-held_evidence" value="([^"]+)"')


def refused_save(client, quote) -> str:
    """Item 1 valid with a PDF, item 2 broken: the token of the kept PDF."""
    data = form_data(
        {
            "gpu-model-node-shape": {
                "answer": "8x H100 SXM per node",
                "status": "yes",
                "scope": "quote",
                "evidence_file": f.pdf("node-spec.pdf"),
            },
            "region-placement": {"answer": "eu-west-1", "status": "yes", "evidence_url": "x y"},
        }
    )
    response = client.post(answer_url(quote), data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "“node-spec.pdf” is kept and will be saved with this answer" in html
    match = TOKEN_INPUT.search(html)
    assert match, "the page carries the kept file's token"
    return match.group(1)


def resubmit(client, quote, token: str, **extra):
    data = form_data(
        {
            "gpu-model-node-shape": {
                "answer": "8x H100 SXM per node",
                "status": "yes",
                "scope": "quote",
                "held_evidence": token,
                **extra,
            },
            "region-placement": {
                "answer": "eu-west-1",
                "status": "yes",
                "scope": "quote",
                "evidence_url": "https://example.com/regions",
            },
        }
    )
    return client.post(answer_url(quote), data)


def test_u13_refused_save_keeps_the_valid_file_and_the_next_save_stores_it(
    login, vendor_a, quote_a, private_root
):
    client = login(vendor_a)
    token = refused_save(client, quote_a)
    assert not ChecklistAnswer.objects.exists(), "a refused save writes nothing"
    held_files = list((private_root / held.HOLD_FOLDER).iterdir())
    assert [p.read_bytes() for p in held_files] == [f.PDF]

    response = resubmit(client, quote_a, token)
    assert response.status_code == 302
    answer = ChecklistAnswer.objects.get(item__code="gpu-model-node-shape")
    assert answer.evidence_name == "node-spec.pdf"
    with answer.evidence_file.open("rb") as handle:
        assert handle.read() == f.PDF
    assert ChecklistAnswer.objects.filter(item__code="region-placement").exists()
    assert list((private_root / held.HOLD_FOLDER).iterdir()) == [], "the kept copy is released"


def test_u13_a_kept_file_is_kept_again_across_a_second_refusal(login, vendor_a, quote_a):
    client = login(vendor_a)
    token = refused_save(client, quote_a)
    data = form_data(
        {
            "gpu-model-node-shape": {
                "answer": "8x H100 SXM per node",
                "status": "yes",
                "scope": "quote",
                "held_evidence": token,
            },
            "region-placement": {"answer": "", "status": "yes", "scope": "quote"},
        }
    )
    response = client.post(answer_url(quote_a), data)
    assert response.status_code == 400
    assert TOKEN_INPUT.search(response.content.decode()).group(1) == token
    assert resubmit(client, quote_a, token).status_code == 302
    assert ChecklistAnswer.objects.get(item__code="gpu-model-node-shape").evidence_sha256


def test_u13_another_users_or_a_forged_token_claims_nothing(
    login, vendor_a, vendor_b, quote_a, quote_b, private_root
):
    token = refused_save(login(vendor_a), quote_a)
    for bad in (token, token[:-2] + "xx"):
        response = resubmit(login(vendor_b), quote_b, bad)
        assert response.status_code == 400
        assert "no longer available" in response.content.decode()
    assert not ChecklistAnswer.objects.filter(provider=quote_b.provider).exists()
    # The token is bound to its item too: on another item it claims nothing.
    assert held.claim(token, user_id=vendor_a.pk, field="interconnect-evidence_file") is None
    assert held.claim(token, user_id=vendor_a.pk, field=FIELD) is not None


def test_u13_an_expired_token_is_refused_and_its_file_purged(
    login, vendor_a, quote_a, private_root, monkeypatch
):
    client = login(vendor_a)
    token = refused_save(client, quote_a)
    later = datetime.now(UTC) + held.HOLD_MAX_AGE + timedelta(minutes=1)
    payload = signing.loads(token, salt=held._SALT)
    issued_long_ago = (datetime.now(UTC) - held.HOLD_MAX_AGE - timedelta(minutes=1)).timestamp()
    with monkeypatch.context() as frozen:
        frozen.setattr(signing.time, "time", lambda: issued_long_ago)
        token = signing.dumps(payload, salt=held._SALT)
    response = resubmit(client, quote_a, token)
    assert response.status_code == 400
    assert "no longer available (it expires after 2 hours); choose it again" in (
        response.content.decode()
    )
    assert not ChecklistAnswer.objects.filter(item__code="region-placement").exists()
    assert held.purge_expired(now=later) == 1
    assert list((private_root / held.HOLD_FOLDER).iterdir()) == []


def test_u13_discarding_the_kept_file_saves_the_answer_without_it(login, vendor_a, quote_a):
    client = login(vendor_a)
    token = refused_save(client, quote_a)
    response = resubmit(client, quote_a, token, discard_held="on")
    assert response.status_code == 302
    answer = ChecklistAnswer.objects.get(item__code="gpu-model-node-shape")
    assert not answer.evidence_file


def test_u13_the_default_answers_page_keeps_a_valid_file_too(login, vendor_a, items):
    client = login(vendor_a)
    data = form_data(
        {
            "software-versions": {
                "answer": "CUDA 12.4, NCCL 2.21",
                "status": "yes",
                "evidence_file": f.pdf("versions.pdf"),
            },
            "region-placement": {"answer": "", "status": "yes"},
        }
    )
    response = client.post("/checklist/provider/", data)
    assert response.status_code == 400
    token = re.search(
        r'name="software-versions-held_evidence" value="([^"]+)"', response.content.decode()
    ).group(1)
    again = form_data(
        {
            "software-versions": {
                "answer": "CUDA 12.4, NCCL 2.21",
                "status": "yes",
                "held_evidence": token,
            }
        }
    )
    assert client.post("/checklist/provider/", again).status_code == 302
    saved = ChecklistAnswer.objects.get(item__code="software-versions", quote=None)
    assert saved.evidence_name == "versions.pdf"
