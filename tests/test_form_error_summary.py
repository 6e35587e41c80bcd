"""U38: a refused brief, RFQ or quote form opens on one error summary with a link to each
field in error (`#error-summary a[href="#id_…"]`), as the checklist does; a page without an
error has no summary, so nothing grabs the focus on a plain visit."""

from __future__ import annotations

import re

import pytest

from briefs.models import WorkloadBrief
from catalog.models import Quote, Rfq
from tests.factories import RfqFactory

pytestmark = pytest.mark.django_db


def summary_links(html: str) -> list[str]:
    found = re.search(
        r'<div class="error-summary card" id="error-summary"[^>]*>(.*?)</div>', html, re.S
    )
    assert found, "no error summary on the refused form"
    return re.findall(r'<a href="#(id_[^"]+)"', found.group(1))


def assert_linked_fields_exist(html: str, links: list[str]) -> None:
    for anchor in links:
        assert f'id="{anchor}"' in html, f"the summary links to #{anchor}, which is not on the page"


def test_brief_form_summary_links_each_bad_field(login, lead):
    client = login(lead)
    assert 'id="error-summary"' not in client.get("/briefs/new/").content.decode()
    response = client.post("/briefs/new/", {"title": "", "acceptance_rate_likely": "abc"})
    assert response.status_code == 400
    html = response.content.decode()
    links = summary_links(html)
    assert "id_title" in links
    assert_linked_fields_exist(html, links)
    assert "Please correct the fields marked below" not in html
    assert not WorkloadBrief.objects.exists()


def test_rfq_form_summary_links_each_bad_field(login, lead):
    client = login(lead)
    assert 'id="error-summary"' not in client.get("/catalog/rfqs/new/").content.decode()
    response = client.post("/catalog/rfqs/new/", {"title": "", "deadline": "tomorrow"})
    assert response.status_code == 400
    html = response.content.decode()
    links = summary_links(html)
    assert {"id_title", "id_deadline"} <= set(links)
    assert_linked_fields_exist(html, links)
    assert not Rfq.objects.exists()


def test_staff_quote_form_summary_links_each_bad_field(login, lead):
    client = login(lead)
    response = client.post("/catalog/quotes/new/", {"price_per_gpu_hour": "abc"})
    assert response.status_code == 400
    html = response.content.decode()
    links = summary_links(html)
    assert "id_price_per_gpu_hour" in links
    assert_linked_fields_exist(html, links)
    assert not Quote.objects.exists()


def test_vendor_quote_form_summary_links_each_bad_field(login, lead, vendor_a, provider_a):
    rfq = RfqFactory(title="64 H100s", providers=[provider_a], created_by=lead)
    client = login(vendor_a)
    page = client.get(f"/vendor/rfqs/{rfq.pk}/quote/").content.decode()
    assert 'id="error-summary"' not in page
    response = client.post(f"/vendor/rfqs/{rfq.pk}/quote/", {"price_per_gpu_hour": "abc"})
    assert response.status_code == 400
    html = response.content.decode()
    links = summary_links(html)
    assert "id_price_per_gpu_hour" in links
    assert_linked_fields_exist(html, links)
    assert not Quote.objects.exists()
