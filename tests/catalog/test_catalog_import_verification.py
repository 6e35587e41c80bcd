"""Verification pass over the real-data findings: the cases the earlier tests left out.

Each file is written for the test in the public format it names (LiteLLM's
`model_prices_and_context_window.json`); the figures are made up.
"""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest

from catalog.importers.skypilot import SKIP_SPOT_NOT_CHEAPER
from catalog.models import ModelApiRoute, Quote
from catalog.services import ImportKind, catalog_import
from catalog.services.import_plans import SKIP_SAME_MODEL
from tests.factories import ProviderFactory

pytestmark = pytest.mark.django_db

GEMINI = {
    "gemini-2.5-pro": {
        "litellm_provider": "vertex_ai-language-models",
        "mode": "chat",
        "input_cost_per_token": 1.25e-06,
        "output_cost_per_token": 1e-05,
        "input_cost_per_token_above_200k_tokens": 2.5e-06,
        "max_input_tokens": 1048576,
    },
    "vertex_ai/gemini-2.5-pro": {
        "litellm_provider": "vertex_ai",
        "mode": "chat",
        "input_cost_per_token": 1.25e-06,
        "output_cost_per_token": 1e-05,
    },
    "gemini/gemini-2.5-flash": {
        "litellm_provider": "gemini",
        "mode": "chat",
        "input_cost_per_token": 3e-07,
        "output_cost_per_token": 2.5e-06,
    },
}


def _import_litellm(user, entries, captured_on=date(2026, 11, 20)):
    return catalog_import(
        acting_user=user,
        kind=ImportKind.LITELLM,
        data=json.dumps(entries).encode(),
        filename="model_prices_and_context_window.json",
        captured_on=captured_on,
    )


def test_r12_gemini_models_reach_the_catalog_through_google(lead, catalog):
    """R12: Gemini models were all "provider not in the catalog". Vertex AI entries are Google
    Cloud's; the Gemini API's are the Google AI Studio provider's where the catalog has one,
    and named as missing where it does not. One model listed twice for one provider is one
    route."""
    gcp = ProviderFactory(slug="gcp", name="Google Cloud")
    outcome = _import_litellm(lead, GEMINI)
    routes = ModelApiRoute.objects.filter(provider=gcp)
    assert list(routes.values_list("model_name", flat=True)) == ["gemini-2.5-pro"]
    pro = routes.get()
    assert pro.price_input_per_m_tokens == Decimal("1.2500")
    assert pro.max_input_tokens == 1048576
    assert outcome.unknown == {"provider gemini": 1}
    assert outcome.skipped[SKIP_SAME_MODEL] == 1
    studio = ProviderFactory(slug="google-ai-studio", name="Google AI Studio")
    _import_litellm(lead, GEMINI, captured_on=date(2026, 11, 27))
    flash = ModelApiRoute.objects.get(provider=studio)
    assert flash.model_name == "gemini-2.5-flash"
    assert flash.price_output_per_m_tokens == Decimal("2.5000")


AZURE_VMS = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,Generation\n"
    "Standard_NC24ads_A100_v4,A100-80GB,1.0,24.0,220.0,A100-80GB,3.67,0.73,westeurope,V2\n"
    "Standard_NC96ads_A100_v4,A100-80GB,4.0,96.0,880.0,A100-80GB,14.69,2.94,westeurope,V2\n"
    "Standard_ND96amsr_A100_v4,A100-80GB,8.0,96.0,1900.0,A100-80GB,32.77,6.55,westeurope,V2\n"
    "Standard_D8s_v5,,,8.0,32.0,,0.38,0.08,westeurope,V2\n"
)


def test_r4_azure_nc_a100_is_pcie_and_nd_is_sxm(lead, catalog):
    """R4 (not tried in the findings): Azure's NC A100 v4 carries PCIe cards, the ND series
    SXM ones, with the same AcceleratorName in the file."""
    azure = ProviderFactory(slug="azure", name="Microsoft Azure")
    catalog_import(
        acting_user=lead,
        kind=ImportKind.SKYPILOT,
        data=AZURE_VMS.encode(),
        filename="vms.csv",
        captured_on=date(2026, 11, 20),
        provider=azure,
    )
    slugs = {
        (q.title, q.capacity_model): q.accelerator.slug
        for q in Quote.objects.filter(provider=azure)
    }
    assert slugs["Standard_NC24ads_A100_v4", "on_demand"] == "a100-pcie-80gb"
    assert slugs["Standard_NC96ads_A100_v4", "spot"] == "a100-pcie-80gb"
    assert slugs["Standard_ND96amsr_A100_v4", "on_demand"] == "a100-sxm-80gb"
    nd = Quote.objects.get(title="Standard_ND96amsr_A100_v4", capacity_model="on_demand")
    assert nd.price_per_gpu_hour == Decimal("4.0963")  # 32.77 / 8, half-up
    assert nd.region == "westeurope"


RUNPOD_VMS = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone\n"
    "1x_H100-80GB_SECURE,H100,1.0,16.0,176.0,"
    "\"{'Gpus': [{'Name': 'H100 SXM', 'Count': 1}]}\",2.69,2.69,CA,CA-MTL-1\n"
    "2x_H100-80GB_SECURE,H100,2.0,32.0,352.0,"
    "\"{'Gpus': [{'Name': 'H100 SXM', 'Count': 2}]}\",5.38,4.40,CA,CA-MTL-1\n"
)


def test_r10_spot_at_the_on_demand_price_is_not_a_second_quote(lead, catalog):
    """R10: RunPod's file gives the same spot and on-demand price; that row is one quote
    (on-demand), counted in the outcome. A cheaper spot price stays a spot quote."""
    runpod = ProviderFactory(slug="runpod", name="RunPod")
    outcome = catalog_import(
        acting_user=lead,
        kind=ImportKind.SKYPILOT,
        data=RUNPOD_VMS.encode(),
        filename="vms.csv",
        captured_on=date(2026, 11, 20),
        provider=runpod,
    )
    quotes = sorted(
        Quote.objects.filter(provider=runpod).values_list(
            "title", "capacity_model", "price_per_gpu_hour"
        )
    )
    assert quotes == [
        ("1x_H100-80GB_SECURE", "on_demand", Decimal("2.6900")),
        ("2x_H100-80GB_SECURE", "on_demand", Decimal("2.6900")),
        ("2x_H100-80GB_SECURE", "spot", Decimal("2.2000")),
    ]
    assert outcome.skipped[SKIP_SPOT_NOT_CHEAPER] == 1
