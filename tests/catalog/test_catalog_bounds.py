"""Issue 15 (L6): quote figures and FX rates have stated bounds, the engine's own limits,
checked at every entry (form, API, import) with the field named."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from catalog.errors import ImportRejected
from catalog.models import FxRate, Quote
from catalog.services import ImportKind, catalog_import
from catalog.validation import BOUNDED, fx_rule_errors, quote_rule_errors
from engine.limits import MAX_TERM_MONTHS
from tests.factories import ProviderFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("term_months", MAX_TERM_MONTHS + 1),
        ("term_months", 10**9),
        ("amortisation_months", 10**9),
        ("price_per_gpu_hour", "99999999.9999"),
        ("price_per_node", "1e12"),
        ("min_commitment_gpus", 10**8),
        ("egress_per_gb", "50000"),
        ("power_kw_per_node", "NaN"),
    ],
)
def test_quote_figures_beyond_the_engines_limits_name_their_field(quote_data, field, value):
    errors = quote_rule_errors({**quote_data, field: value}, accelerator=quote_data["accelerator"])
    assert field in errors, errors
    assert "(the engine's limits)" in errors[field][0]


def test_quote_figures_at_the_limits_are_accepted(quote_data):
    edge = {
        **quote_data,
        "capacity_model": "reserved",
        "term_months": MAX_TERM_MONTHS,
        "price_per_gpu_hour": str(BOUNDED["price_per_gpu_hour"][1]),
    }
    assert quote_rule_errors(edge, accelerator=quote_data["accelerator"]) == {}


def test_api_refuses_a_ten_year_plus_term_with_the_field_named(api, lead, provider_a, h100):
    payload = {
        "provider": provider_a.slug,
        "accelerator": h100.slug,
        "capacity_model": "reserved",
        "currency": "USD",
        "price_per_gpu_hour": "2.00",
        "term_months": 1_000_000_000,
        "quoted_at": (timezone.now() - timedelta(hours=1)).isoformat(),
        "source_url": "https://example.com/p",
    }
    response = api(lead).post("/api/v1/quotes/", payload, format="json")
    assert response.status_code == 400
    assert "term_months" in response.json()["fields"]
    assert not Quote.objects.exists()


def test_import_row_beyond_the_limits_names_row_and_column(lead, catalog):
    ProviderFactory(slug="northwind", name="Northwind")
    text = (
        "provider,accelerator,capacity_model,currency,price_per_gpu_hour,gpus_per_node,region\n"
        "northwind,h100-sxm-80gb,on_demand,USD,250000.00,8,eu-west\n"
    )
    with pytest.raises(ImportRejected) as exc:
        catalog_import(
            acting_user=lead,
            kind=ImportKind.PRICE_LIST,
            data=text.encode(),
            filename="list.csv",
            captured_on=timezone.now().date(),
        )
    assert [(e["row"], e["column"]) for e in exc.value.errors] == [(2, "price_per_gpu_hour")]
    assert not Quote.objects.exists()


@pytest.mark.parametrize("rate", ["0.000000001", "10000000"])
def test_fx_rate_outside_the_engines_limits_is_refused(rate):
    errors = fx_rule_errors(
        {"currency": "GBP", "rate_to_base": rate, "as_of": timezone.now().date()},
        base_currency="USD",
    )
    assert "(the engine's limits)" in errors["rate_to_base"][0]
    assert not FxRate.objects.exists()
