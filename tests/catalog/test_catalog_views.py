"""Staff HTML pages: catalog, compare, models, quotes, RFQs, FX, model APIs; forms give a
clear 400 and save nothing; query counts stay flat as rows grow."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from catalog.models import Accelerator, FxRate, ModelApiRoute, ModelProfile, Quote, Rfq
from tests.factories import ModelApiRouteFactory, ProviderFactory, QuoteFactory, RfqFactory

pytestmark = pytest.mark.django_db

NOW = "%Y-%m-%dT%H:%M"


def _form(h100, provider, **overrides):
    data = {
        "provider": provider.pk,
        "accelerator": h100.pk,
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": "2.49",
        "gpus_per_node": "8",
        "min_commitment_gpus": "0",
        "term_months": "0",
        "idle_billed": "on",
        "quoted_at": (timezone.now() - timedelta(hours=1)).strftime(NOW),
        "source_url": "https://example.com/p",
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def _figure(html: str, element_id: str) -> dict:
    match = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.S
    )
    assert match, element_id
    return json.loads(match.group(1))


def test_catalog_filters_and_sorts(login, engineer, catalog):
    client = login(engineer)
    page = client.get("/catalog/?vendor=AMD&sort=-memory").content.decode()
    rows = re.findall(r'<a href="/catalog/accelerators/([a-z0-9-]+)/">', page)
    assert rows == ["mi355x-288gb", "mi325x-256gb", "mi300x-192gb"]
    fp4 = client.get("/catalog/?fp4=on&min_memory_gb=150").content.decode()
    assert "b200-hgx-180gb" in fp4
    assert "h100-sxm-80gb/" not in fp4
    fig = _figure(client.get("/catalog/").content.decode(), "fig-memory-bandwidth")
    # one point per catalog accelerator (catalog/data/accelerators.json)
    assert sum(len(t["x"]) for t in fig["data"]) == Accelerator.objects.count() == 33


def test_compare_two_to_four(login, engineer, catalog):
    client = login(engineer)
    ok = client.get("/catalog/compare/?a=h100-sxm-80gb&b=h200-sxm-141gb&c=b200-hgx-180gb")
    html = ok.content.decode()
    assert ok.status_code == 200
    assert html.count('class="best"') >= 3
    assert [t["name"] for t in _figure(html, "fig-compute")["data"]] == ["BF16", "FP8", "FP4"]
    one = client.get("/catalog/compare/?a=h100-sxm-80gb")
    assert one.status_code == 200
    assert b'<option value="h100-sxm-80gb" selected>' in one.content
    same = client.get("/catalog/compare/?a=h100-sxm-80gb&b=h100-sxm-80gb")
    assert b"only once" in same.content
    unknown = client.get("/catalog/compare/?a=h100-sxm-80gb&b=nope")
    assert unknown.status_code == 400
    assert client.get("/catalog/compare/").status_code == 200


def test_custom_model_form(login, engineer, catalog):
    client = login(engineer)
    data = {
        "name": "House 13B",
        "params_total_b": "13",
        "params_active_b": "13",
        "layers": "40",
        "attention_heads": "40",
        "kv_heads": "48",
        "head_dim": "128",
        "sliding_window_layers": "0",
    }
    bad = client.post("/catalog/models/new/", data)
    assert bad.status_code == 400
    assert b"KV heads cannot exceed attention heads" in bad.content
    assert not ModelProfile.objects.filter(is_custom=True).exists()
    good = client.post("/catalog/models/new/", {**data, "kv_heads": "8"})
    assert good.status_code == 302
    profile = ModelProfile.objects.get(slug="house-13b")
    assert (profile.is_custom, profile.created_by) == (True, engineer)


def test_issue14_a_custom_model_takes_aliases_shown_on_the_model_page(login, engineer, catalog):
    """Aliases are entered with the profile, an alias that names another profile is refused
    (nothing saved), and the model page lists them; seeded profiles carry theirs."""
    client = login(engineer)
    data = {
        "name": "House 13B",
        "params_total_b": "13",
        "params_active_b": "13",
        "layers": "40",
        "attention_heads": "40",
        "kv_heads": "8",
        "head_dim": "128",
        "sliding_window_layers": "0",
    }
    taken = client.post("/catalog/models/new/", {**data, "aliases": "house:13b, llama3.1:70b"})
    assert taken.status_code == 400
    assert "already names the model profile Llama 3.1 70B" in taken.content.decode()
    assert not ModelProfile.objects.filter(is_custom=True).exists()
    good = client.post("/catalog/models/new/", {**data, "aliases": "acme/House-13B\nhouse:13b"})
    assert good.status_code == 302
    assert ModelProfile.objects.get(slug="house-13b").aliases == ["acme/House-13B", "house:13b"]
    page = client.get("/catalog/models/").content.decode()
    assert "acme/House-13B, house:13b" in page
    assert "meta-llama/Llama-3.1-70B-Instruct" in page
    assert "llama3.1:70b" in ModelProfile.objects.get(slug="llama-3-1-70b").aliases


def test_enter_a_quote_through_the_form(login, lead, provider_a, h100):
    response = login(lead).post("/catalog/quotes/new/", _form(h100, provider_a))
    quote = Quote.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/catalog/quotes/{quote.pk}/"
    assert (quote.provider, quote.entered_by, quote.version) == (provider_a, lead, 1)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"price_per_gpu_hour": "-3"}, "greater than zero"),
        ({"price_per_gpu_hour": "abc"}, "Enter a number"),
        ({"currency": "ZZZ"}, "ISO 4217"),
        ({"gpus_per_node": "12"}, "hold 1 to 8 GPUs"),
        ({"quoted_at": (timezone.now() + timedelta(days=2)).strftime(NOW)}, "future"),
        ({"valid_until": (timezone.now() - timedelta(days=2)).strftime(NOW)}, "on or after"),
        ({"capacity_model": "purchase", "price_per_gpu_hour": None}, "purchase quote needs"),
    ],
)
def test_bad_quote_form_is_400_with_message_and_saves_nothing(
    login, lead, provider_a, h100, overrides, message
):
    response = login(lead).post("/catalog/quotes/new/", _form(h100, provider_a, **overrides))
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Quote.objects.count() == 0


def test_revise_form_creates_a_version_and_detail_shows_history(login, lead, staff_quote):
    quote_a = staff_quote  # procurement revises the quotes it entered (H6)
    client = login(lead)
    form = client.get(f"/catalog/quotes/{quote_a.pk}/revise/")
    assert form.status_code == 200
    assert b"version 1 stays exactly as it is" in form.content
    data = _form(quote_a.accelerator, quote_a.provider, price_per_gpu_hour="1.95")
    data.pop("provider")
    response = client.post(f"/catalog/quotes/{quote_a.pk}/revise/", data)
    new = Quote.objects.get(supersedes=quote_a)
    assert response["Location"] == f"/catalog/quotes/{new.pk}/"
    page = client.get(f"/catalog/quotes/{quote_a.pk}/").content.decode()
    assert "superseded by v2" in page
    assert f'/catalog/quotes/{new.pk}/">v2</a>' in page
    assert "Revise" not in page.split("<h2>Versions")[0].split("</h1>")[1]


def test_withdraw_form(login, lead, quote_a):
    response = login(lead).post(f"/catalog/quotes/{quote_a.pk}/withdraw/", {"reason": "gone"})
    withdrawn = Quote.objects.get(supersedes=quote_a)
    assert response.status_code == 302
    assert withdrawn.status == "withdrawn"
    assert withdrawn.notes == "Withdrawn: gone"


def test_quote_list_flags_stale_and_defaults_to_current(login, engineer, provider_a, h100):
    QuoteFactory(provider=provider_a, accelerator=h100, title="fresh")
    QuoteFactory(
        provider=provider_a,
        accelerator=h100,
        title="old",
        valid_until=None,
        quoted_at=timezone.now() - timedelta(days=45),
    )
    html = login(engineer).get("/catalog/quotes/").content.decode()
    assert html.count('class="badge warn"') == 2  # the legend + the stale row
    stale_only = login(engineer).get("/catalog/quotes/?stale=true").content.decode()
    assert "2 quotes" in html
    assert "1 quote." in stale_only


def test_quote_list_yes_no_filters_offer_any_not_dashes(login, engineer):
    html = login(engineer).get("/catalog/quotes/").content.decode()
    assert "---------" not in html
    for name in ("stale", "public", "current"):
        select = html.split(f'name="{name}"', 1)[1].split("</select>", 1)[0]
        assert '<option value=""' in select
        assert ">Any</option>" in select


def test_rfq_create_close_and_reopen(login, lead, provider_a, provider_b, h100):
    client = login(lead)
    deadline = (timezone.now() + timedelta(days=7)).strftime(NOW)
    bad = client.post("/catalog/rfqs/new/", {"title": "X", "deadline": deadline})
    assert bad.status_code == 400
    assert not Rfq.objects.exists()
    response = client.post(
        "/catalog/rfqs/new/",
        {
            "title": "64 GPUs",
            "deadline": deadline,
            "providers": [provider_a.pk, provider_b.pk],
            "accelerators": [h100.pk],
            "capacity_models": ["reserved", "on_demand"],
            "gpus_needed": "64",
        },
    )
    rfq = Rfq.objects.get()
    assert response["Location"] == f"/catalog/rfqs/{rfq.pk}/"
    assert rfq.created_by == lead
    assert set(rfq.capacity_models) == {"reserved", "on_demand"}
    early = client.post(f"/catalog/rfqs/{rfq.pk}/reopen/", {"deadline": deadline})
    assert early.status_code == 400
    assert b"still open" in early.content
    client.post(f"/catalog/rfqs/{rfq.pk}/close/")
    rfq.refresh_from_db()
    assert rfq.status == "closed"
    past = (timezone.now() - timedelta(days=1)).strftime(NOW)
    assert client.post(f"/catalog/rfqs/{rfq.pk}/reopen/", {"deadline": past}).status_code == 400
    client.post(f"/catalog/rfqs/{rfq.pk}/reopen/", {"deadline": deadline})
    rfq.refresh_from_db()
    assert rfq.is_open_for_answers()
    assert rfq.reopened_at is not None


def test_fx_and_api_route_forms(login, finance, lead, provider_a):
    bad = login(finance).post(
        "/catalog/fx/new/",
        {"currency": "XXX", "rate_to_base": "1", "as_of": str(timezone.now().date())},
    )
    assert bad.status_code == 400
    login(finance).post(
        "/catalog/fx/new/",
        {"currency": "gbp", "rate_to_base": "1.27", "as_of": str(timezone.now().date())},
    )
    assert FxRate.objects.get().currency == "GBP"
    assert login(lead).get("/catalog/fx/new/").status_code == 404
    response = login(lead).post(
        "/catalog/api-routes/new/",
        {
            "provider": provider_a.pk,
            "model_name": "gpt-x",
            "currency": "USD",
            "price_input_per_m_tokens": "0.5",
            "price_output_per_m_tokens": "1.5",
            "quoted_at": timezone.now().strftime(NOW),
        },
    )
    assert response.status_code == 302
    assert ModelApiRoute.objects.get().entered_by == lead


def _grow(provider, h100, n):
    for _ in range(n):
        quote = QuoteFactory(provider=provider, accelerator=h100)
        QuoteFactory(provider=provider, accelerator=h100, supersedes=quote, version=2)


@pytest.mark.parametrize(
    "url",
    [
        "/catalog/quotes/",
        "/catalog/quotes/?current=false",
        "/catalog/rfqs/",
        "/catalog/",
        "/catalog/api-routes/",
        "/catalog/fx/",
        "/catalog/models/",
        "/catalog/providers/",
        "/catalog/accelerators/h100-sxm-80gb/",
    ],
)
def test_list_pages_have_a_flat_query_count(
    login, lead, provider_a, provider_b, h100, url, django_assert_max_num_queries
):
    client = login(lead)
    _grow(provider_a, h100, 2)
    RfqFactory(providers=[provider_a], created_by=lead)
    ModelApiRouteFactory(provider=provider_a)
    client.get(url)  # warm caches (content types, sessions)
    with django_assert_max_num_queries(40) as small:
        assert client.get(url).status_code == 200
    _grow(provider_b, h100, 20)
    for i in range(15):
        RfqFactory(providers=[provider_a, provider_b], created_by=lead).accelerators.set([h100])
        ModelApiRouteFactory(provider=provider_b, model_name=f"m{i}")
        ProviderFactory()
    with django_assert_max_num_queries(len(small.captured_queries)):
        assert client.get(url).status_code == 200


def test_quote_detail_query_count_is_flat_in_versions(
    login, lead, staff_quote, monkeypatch, django_assert_max_num_queries
):
    """Our part of the page is flat; the checklist summary is the checklist app's budget."""
    from catalog import panels, services

    monkeypatch.setattr(panels, "checklist_summary", lambda quote: None)
    quote_a = staff_quote
    client = login(lead)
    client.get(f"/catalog/quotes/{quote_a.pk}/")
    with django_assert_max_num_queries(40) as small:
        client.get(f"/catalog/quotes/{quote_a.pk}/")
    latest = quote_a
    for i in range(10):
        latest = services.quote_revise(acting_user=lead, quote=latest, data={"region": f"eu-{i}"})
    with django_assert_max_num_queries(len(small.captured_queries)):
        page = client.get(f"/catalog/quotes/{latest.pk}/")
    assert page.content.decode().count("Submitted</span>") == 11 + 1  # versions + header


def test_quote_detail_shows_choices_in_words(login, lead):
    """A field with choices reads as its label ("Not stated"), not its stored code."""
    quote = QuoteFactory(private_endpoint="unknown", capacity_model="on_demand")
    page = login(lead).get(f"/catalog/quotes/{quote.pk}/").content.decode()
    facts = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert "Private endpoint Not stated" in facts
    assert "Capacity model On-demand" in facts
