"""The vendor portal: my RFQs, submit, revise until the deadline, withdraw; nothing of others."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from catalog.models import Quote, Rfq
from tests.factories import QuoteFactory, RfqFactory

pytestmark = pytest.mark.django_db

NOW = "%Y-%m-%dT%H:%M"


def _answer(h100, **overrides):
    data = {
        "accelerator": h100.pk,
        "capacity_model": "reserved",
        "currency": "EUR",
        "price_per_gpu_hour": "2.10",
        "gpus_per_node": "8",
        "term_months": "12",
        "min_commitment_gpus": "32",
        "quoted_at": timezone.now().strftime(NOW),
        "inter_node_fabric": "InfiniBand NDR",
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def test_home_lists_only_rfqs_addressed_to_my_organisation(login, vendor_a, provider_b, rfq, lead):
    hidden = RfqFactory(title="Secret B deal", providers=[provider_b], created_by=lead)
    html = login(vendor_a).get("/vendor/").content.decode()
    assert rfq.title in html
    assert hidden.title not in html


def test_submit_a_quote_then_go_to_the_checklist(login, vendor_a, rfq, h100):
    client = login(vendor_a)
    form = client.get(f"/vendor/rfqs/{rfq.pk}/quote/")
    assert form.status_code == 200
    assert "Price of one GPU for one hour" in form.content.decode()  # fields are explained
    response = client.post(f"/vendor/rfqs/{rfq.pk}/quote/", _answer(h100))
    quote = Quote.objects.get()
    assert response["Location"] == f"/vendor/quotes/{quote.pk}/"
    assert (quote.provider, quote.rfq, quote.entered_by) == (vendor_a.provider, rfq, vendor_a)
    page = client.get(response["Location"]).content.decode()
    assert f"/checklist/quotes/{quote.pk}/answer/" in page


def test_form_errors_are_clear_and_save_nothing(login, vendor_a, rfq, h100):
    response = login(vendor_a).post(
        f"/vendor/rfqs/{rfq.pk}/quote/", _answer(h100, term_months="0", price_per_gpu_hour="0")
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert "A reserved quote needs its term in months." in html
    assert "Must be greater than zero." in html
    assert not Quote.objects.exists()


def test_revise_until_the_deadline_then_only_procurement(login, vendor_a, quote_a, lead):
    client = login(vendor_a)
    response = client.post(
        f"/vendor/quotes/{quote_a.pk}/revise/",
        _answer(
            quote_a.accelerator,
            capacity_model="on_demand",
            term_months="0",
            price_per_gpu_hour="1.80",
        ),
    )
    v2 = Quote.objects.get(supersedes=quote_a)
    assert response["Location"] == f"/vendor/quotes/{v2.pk}/"
    Rfq.objects.filter(pk=quote_a.rfq_id).update(deadline=timezone.now() - timedelta(hours=1))
    late = client.post(f"/vendor/quotes/{v2.pk}/revise/", _answer(quote_a.accelerator))
    assert late.status_code == 302
    assert Quote.objects.count() == 2
    page = client.get(f"/vendor/rfqs/{quote_a.rfq_id}/").content.decode()
    assert "deadline has passed" in page
    assert client.get(f"/vendor/rfqs/{quote_a.rfq_id}/quote/").status_code == 302


def test_withdraw_from_the_portal(login, vendor_a, quote_a):
    client = login(vendor_a)
    client.post(f"/vendor/quotes/{quote_a.pk}/withdraw/", {"reason": "No capacity"})
    withdrawn = Quote.objects.get(supersedes=quote_a)
    assert withdrawn.status == "withdrawn"
    page = client.get(f"/vendor/quotes/{withdrawn.pk}/").content.decode()
    assert "Withdrawn" in page
    assert f"/vendor/quotes/{withdrawn.pk}/revise/" not in page


def test_shared_rfq_shows_only_my_answers(login, vendor_a, quote_a, quote_b):
    html = login(vendor_a).get(f"/vendor/rfqs/{quote_a.rfq_id}/").content.decode()
    assert f"/vendor/quotes/{quote_a.pk}/" in html
    assert f"/vendor/quotes/{quote_b.pk}/" not in html
    assert "Provider B" not in html


@pytest.mark.parametrize("url", ["/vendor/", "/vendor/rfqs/{rfq}/", "/vendor/quotes/{quote}/"])
def test_vendor_pages_have_a_flat_query_count(
    login, vendor_a, rfq, quote_a, h100, url, monkeypatch, django_assert_max_num_queries
):
    from catalog import panels, services

    monkeypatch.setattr(panels, "checklist_summary", lambda quote: None)
    client = login(vendor_a)
    path = url.format(rfq=rfq.pk, quote=quote_a.pk)
    client.get(path)
    with django_assert_max_num_queries(30) as small:
        client.get(path)
    for _ in range(12):
        QuoteFactory(provider=vendor_a.provider, accelerator=h100, rfq=rfq, entered_by=vendor_a)
        RfqFactory(providers=[vendor_a.provider], created_by=rfq.created_by)
    latest = quote_a
    for _ in range(5):
        latest = services.quote_revise(acting_user=vendor_a, quote=latest, data={})
    with django_assert_max_num_queries(len(small.captured_queries)):
        assert client.get(path).status_code == 200


def test_rfq_pages_list_the_latest_version_of_each_answer(login, vendor_a, lead, quote_a):
    from catalog import services

    v2 = services.quote_revise(acting_user=vendor_a, quote=quote_a, data={})
    mine = login(vendor_a).get(f"/vendor/rfqs/{quote_a.rfq_id}/").content.decode()
    assert f"/vendor/quotes/{v2.pk}/" in mine
    assert f"/vendor/quotes/{quote_a.pk}/" not in mine
    staff = login(lead).get(f"/catalog/rfqs/{quote_a.rfq_id}/").content.decode()
    assert f"/catalog/quotes/{v2.pk}/" in staff
    assert f"/catalog/quotes/{quote_a.pk}/" not in staff


def test_vendor_rfq_page_names_capacity_models_in_words(login, vendor_a, rfq):
    """U15: the vendor reads "On-demand, Reserved" like the lead does, not the stored codes."""
    rfq.capacity_models = ["on_demand", "reserved"]
    rfq.save(update_fields=["capacity_models"])
    html = login(vendor_a).get(f"/vendor/rfqs/{rfq.pk}/").content.decode()
    assert "<dd>On-demand, Reserved</dd>" in html
    assert "on_demand" not in html
