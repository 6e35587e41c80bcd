"""A14: a quote's price is declared once, on the model field (its label, help text, limits and
decimals); the form, the API and the import read it there and refuse the same out-of-range
price in the same words."""

from __future__ import annotations

import ast
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from catalog.api.serializers import QuoteInputSerializer
from catalog.errors import ImportRejected
from catalog.forms.quotes import QuoteForm
from catalog.models import Quote
from catalog.services import ImportKind, catalog_import
from catalog.services.quotes import QUOTE_INPUT_FIELDS
from tests.factories import ProviderFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
# 150,000 a GPU-hour: above the 100,000 the model declares, and a number every entry reads.
PRICE = "150000"
SAID = "Price per GPU-hour must be between 0 and 100,000 (the engine's limits)."


def test_the_form_refuses_the_price_in_the_models_words(login, vendor_a, rfq, h100):
    response = login(vendor_a).post(
        f"/vendor/rfqs/{rfq.pk}/quote/",
        {
            "accelerator": h100.pk,
            "capacity_model": "on_demand",
            "currency": "USD",
            "price_per_gpu_hour": PRICE,
            "gpus_per_node": "8",
            "region": "",
            "quoted_at": timezone.now().strftime("%Y-%m-%dT%H:%M"),
        },
    )
    assert response.status_code == 400
    assert response.context["form"].errors["price_per_gpu_hour"] == [SAID]
    assert not Quote.objects.exists()


def test_the_api_refuses_the_price_in_the_models_words(api, lead, provider_a, h100):
    payload = {
        "provider": provider_a.slug,
        "accelerator": h100.slug,
        "capacity_model": "on_demand",
        "currency": "USD",
        "price_per_gpu_hour": PRICE,
        "quoted_at": (timezone.now() - timedelta(hours=1)).isoformat(),
        "source_url": "https://example.com/p",
    }
    response = api(lead).post("/api/v1/quotes/", payload, format="json")
    assert response.status_code == 400
    assert response.json()["fields"]["price_per_gpu_hour"] == [SAID]
    # Below zero: the service's words too, not the serializer's own minimum.
    response = api(lead).post("/api/v1/quotes/", {**payload, "price_per_gpu_hour": "-1"})
    assert response.json()["fields"]["price_per_gpu_hour"] == ["Must be greater than zero."]
    assert not Quote.objects.exists()


def test_the_import_refuses_the_price_in_the_models_words(lead, h100):
    ProviderFactory(slug="northwind", name="Northwind")
    text = (
        "provider,accelerator,capacity_model,currency,price_per_gpu_hour,gpus_per_node,region\n"
        f"northwind,h100-sxm-80gb,on_demand,USD,{PRICE},8,eu-west\n"
    )
    with pytest.raises(ImportRejected) as exc:
        catalog_import(
            acting_user=lead,
            kind=ImportKind.PRICE_LIST,
            data=text.encode(),
            filename="list.csv",
            captured_on=timezone.now().date(),
        )
    assert [(e["column"], e["message"]) for e in exc.value.errors] == [("price_per_gpu_hour", SAID)]


def test_form_and_api_take_label_and_help_from_the_model():
    form = QuoteForm()
    api = QuoteInputSerializer().fields
    for name in QUOTE_INPUT_FIELDS:
        field = Quote._meta.get_field(name)
        label = str(field.verbose_name)
        assert form.fields[name].label.lower() == label.lower(), name
        assert form.fields[name].help_text == field.help_text, name
        if name not in QuoteInputSerializer._declared_fields:  # the accelerator by its slug
            assert api[name].help_text == (field.help_text or None), name
    price = Quote._meta.get_field("price_per_gpu_hour")
    assert (price.max_digits, price.decimal_places) == (14, 4)
    assert form.fields["price_per_gpu_hour"].decimal_places == 4
    assert api["price_per_gpu_hour"].decimal_places == 4


def _strings(path: Path) -> set[str]:
    return {
        node.value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def test_no_entry_point_declares_a_quote_field_a_second_time():
    """The model's labels and help texts are written nowhere else in the product: not in the
    form, the serializers, the rules, the services or the importers."""
    declared = set()
    for name in QUOTE_INPUT_FIELDS:
        field = Quote._meta.get_field(name)
        declared |= {str(field.verbose_name), str(field.help_text)} - {"", name.replace("_", " ")}
    entries = [
        ROOT / "catalog" / "forms" / "quotes.py",
        *(ROOT / "catalog" / "api").glob("*.py"),
        *(ROOT / "catalog" / "services").glob("*.py"),
        *(ROOT / "catalog" / "importers").glob("*.py"),
        ROOT / "catalog" / "validation.py",
        ROOT / "engine" / "limits.py",
    ]
    again = {str(p.relative_to(ROOT)): _strings(p) & declared for p in entries}
    assert {path: found for path, found in again.items() if found} == {}
