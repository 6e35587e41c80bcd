"""Bulk imports: all rows valid or nothing saved; every error reported with row and column."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.errors import ImportRejected
from catalog.models import ModelApiRoute, Quote
from catalog.services import ImportKind, catalog_import
from core.errors import NotAllowed
from core.models import AuditEvent
from tests.factories import ProviderFactory

pytestmark = pytest.mark.django_db

HEADER = "provider,accelerator,capacity_model,currency,price_per_gpu_hour,gpus_per_node,region\n"


@pytest.fixture
def providers(db):
    return [
        ProviderFactory(slug="northwind", name="Northwind"),
        ProviderFactory(slug="contoso", name="Contoso"),
    ]


def _rows(n: int) -> list[str]:
    # Names that state the variant: a bare "H100" is no longer taken for the SXM card.
    names = ["h100-sxm-80gb", "H100-SXM", "A100-SXM4-80GB", "l40s-48gb", "L4"]
    return [
        f"northwind,{names[i % 5]},on_demand,USD,{2 + i / 10:.2f},{1 if i % 5 == 4 else 8},"
        f"eu-west\n"
        for i in range(n)
    ]


def _import(user, text: str, kind: str = ImportKind.PRICE_LIST, **kwargs):
    return catalog_import(
        acting_user=user,
        kind=kind,
        data=text.encode(),
        filename="list.csv",
        captured_on=kwargs.pop("captured_on", timezone.now().date()),
        **kwargs,
    )


def test_valid_price_list_imports_every_row_as_public_list_prices(lead, catalog, providers):
    outcome = _import(lead, HEADER + "".join(_rows(7)))
    assert outcome.created == 7
    quotes = Quote.objects.order_by("pk")
    assert quotes.count() == 7
    assert all(q.is_public_list_price and q.entered_by == lead for q in quotes)
    assert {q.quoted_at.date() for q in quotes} == {timezone.now().date()}
    assert quotes[0].source_document == "list.csv"
    assert AuditEvent.objects.filter(action="catalog.imported").count() == 1


@pytest.mark.parametrize("bad_index", [0, 3, 6], ids=["first", "middle", "last"])
def test_one_bad_row_saves_nothing_and_names_that_row(lead, catalog, providers, bad_index):
    rows = _rows(7)
    rows[bad_index] = "northwind,h100-sxm-80gb,on_demand,USD,-1.00,8,eu-west\n"
    with pytest.raises(ImportRejected) as exc:
        _import(lead, HEADER + "".join(rows))
    assert [(e["row"], e["column"]) for e in exc.value.errors] == [
        (bad_index + 2, "price_per_gpu_hour")
    ]
    assert "greater than zero" in exc.value.errors[0]["message"]
    assert Quote.objects.count() == 0
    rejected = AuditEvent.objects.get(action="catalog.import_rejected")
    assert rejected.outcome == "rejected"
    assert rejected.summary["errors"] == 1


def test_all_row_errors_are_reported_at_once(lead, catalog, providers):
    rows = [
        "ghost,h100-sxm-80gb,on_demand,USD,2.00,8,eu\n",
        "northwind,TPU-v5,on_demand,USD,2.00,8,eu\n",
        "northwind,h100-sxm-80gb,on_demand,XYZ,2.00,8,eu\n",
        "northwind,h100-sxm-80gb,on_demand,USD,2.00,16,eu\n",
        "northwind,h100-sxm-80gb,purchase,USD,,8,eu\n",
        "northwind,h100-sxm-80gb,weekly,USD,2.00,8,eu\n",
        "ghost,h100-sxm-80gb,on_demand,USD,=1+1,8,eu\n",
    ]
    with pytest.raises(ImportRejected) as exc:
        _import(lead, HEADER + "".join(rows))
    found = {(e["row"], e["column"]) for e in exc.value.errors}
    assert {
        (2, "provider"),
        (3, "accelerator"),
        (4, "currency"),
        (5, "gpus_per_node"),
        (6, "price_per_node"),
        (7, "capacity_model"),
    } <= found
    assert Quote.objects.count() == 0


def test_file_dated_in_the_future_is_rejected(lead, catalog, providers):
    with pytest.raises(ImportRejected) as exc:
        _import(lead, HEADER + _rows(1)[0], captured_on=timezone.now().date() + timedelta(days=2))
    assert exc.value.errors[0]["column"] == "quoted_at"


def test_same_bytes_twice_is_a_no_op(lead, catalog, providers):
    text = HEADER + "".join(_rows(3))
    assert _import(lead, text).created == 3
    again = _import(lead, text)
    assert again.created == 0
    assert again.duplicate_of
    assert Quote.objects.count() == 3


def test_only_procurement_imports(engineer, catalog, providers):
    with pytest.raises(NotAllowed):
        _import(engineer, HEADER + _rows(1)[0])


SKYPILOT = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone\n"
    "m5.large,,,2.0,8.0,,0.096,0.035,us-east-1,use1-az1\n"
    "p5.48xlarge,H100,8.0,192.0,2048.0,,98.32,39.33,us-east-1,use1-az2\n"
    "g6.xlarge,L4,1.0,4.0,16.0,,0.805,,eu-west-1,euw1-az1\n"
    "inf2.xlarge,Inferentia2,1.0,4.0,16.0,,0.758,0.3,eu-west-1,euw1-az1\n"
    "a2-megagpu-16g,A100,16.0,96.0,1360.0,,55.74,,us-central1,us-central1-a\n"
)


def test_skypilot_import_creates_on_demand_and_spot_per_gpu_hour(lead, catalog, providers):
    aws = ProviderFactory(slug="aws", name="AWS")
    outcome = _import(lead, SKYPILOT, kind=ImportKind.SKYPILOT, provider=aws)
    quotes = {(q.title, q.capacity_model): q for q in Quote.objects.filter(provider=aws)}
    assert set(quotes) == {
        ("p5.48xlarge", "on_demand"),
        ("p5.48xlarge", "spot"),
        ("g6.xlarge", "on_demand"),
    }
    assert quotes["p5.48xlarge", "on_demand"].price_per_gpu_hour == Decimal("12.2900")
    assert quotes["p5.48xlarge", "spot"].price_per_gpu_hour == Decimal("4.9163")
    assert quotes["p5.48xlarge", "on_demand"].accelerator.slug == "h100-sxm-80gb"
    # The stray GCP row states neither form factor nor memory: listed, not taken for a look-alike.
    assert outcome.unknown == {
        "Inferentia2": 1,
        "A100 (form factor not stated: SXM or PCIe; memory not stated: 40 GB or 80 GB)": 1,
    }
    assert outcome.created == 3


def test_skypilot_needs_a_provider(lead, catalog):
    with pytest.raises(ImportRejected) as exc:
        _import(lead, SKYPILOT, kind=ImportKind.SKYPILOT)
    assert exc.value.errors[0]["column"] == "provider"


LITELLM = {
    "gpt-4o-mini": {
        "input_cost_per_token": 1.5e-07,
        "output_cost_per_token": 6e-07,
        "cache_read_input_token_cost": 7.5e-08,
        "litellm_provider": "openai",
        "mode": "chat",
    },
    "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo": {
        "input_cost_per_token": 8.8e-07,
        "output_cost_per_token": 8.8e-07,
        "litellm_provider": "together_ai",
        "mode": "chat",
    },
    "mistral/mistral-large": {
        "input_cost_per_token": 2e-06,
        "output_cost_per_token": 6e-06,
        "litellm_provider": "mistral",
        "mode": "chat",
    },
}


def test_litellm_import_creates_routes_for_known_providers_only(lead, catalog):
    openai = ProviderFactory(slug="openai", name="OpenAI")
    together = ProviderFactory(slug="together-ai", name="Together AI")
    outcome = _import(lead, json.dumps(LITELLM), kind=ImportKind.LITELLM)
    routes = {r.model_name: r for r in ModelApiRoute.objects.all()}
    assert set(routes) == {"gpt-4o-mini", "meta-llama/Llama-3.3-70B-Instruct-Turbo"}
    mini = routes["gpt-4o-mini"]
    assert (mini.provider, mini.price_input_per_m_tokens) == (openai, Decimal("0.1500"))
    assert mini.price_cached_input_per_m_tokens == Decimal("0.0750")
    assert mini.is_public_list_price
    llama = routes["meta-llama/Llama-3.3-70B-Instruct-Turbo"]
    assert llama.provider == together
    assert llama.model_profile.slug == "llama-3-3-70b"
    assert outcome.unknown == {"provider mistral": 1}


def test_litellm_provider_filter(lead, catalog):
    ProviderFactory(slug="openai", name="OpenAI")
    together = ProviderFactory(slug="together-ai", name="Together AI")
    _import(lead, json.dumps(LITELLM), kind=ImportKind.LITELLM, only_providers=[together])
    assert list(ModelApiRoute.objects.values_list("provider__slug", flat=True)) == ["together-ai"]


def test_import_page_lists_row_errors_and_saves_nothing(login, lead, catalog, providers):
    from django.core.files.uploadedfile import SimpleUploadedFile

    rows = _rows(3)
    rows[2] = "northwind,h100-sxm-80gb,on_demand,USD,=HYPERLINK(1),8,eu-west\n"
    upload = SimpleUploadedFile("list.csv", (HEADER + "".join(rows)).encode(), "text/csv")
    response = login(lead).post(
        "/catalog/import/",
        {"kind": "price_list", "file": upload, "captured_on": timezone.now().date().isoformat()},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "nothing was imported" in html
    assert "Formula cells are not accepted" in html
    assert Quote.objects.count() == 0


def test_import_page_success_and_template_download(login, lead, catalog, providers):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client = login(lead)
    template = client.get("/catalog/import/template.csv")
    assert template["Content-Disposition"].startswith("attachment")
    upload = SimpleUploadedFile("t.csv", template.content, "text/csv")
    response = client.post(
        "/catalog/import/",
        {"kind": "price_list", "file": upload, "captured_on": timezone.now().date().isoformat()},
    )
    assert response.status_code == 200
    assert Quote.objects.count() == 2
    assert b"2</strong> rows imported" in response.content
