"""Real catalog files identified right (findings X1-X6, X14).

Each file is written here in the layout of the real one: RunPod's 2023 SkyPilot catalog (no
AvailabilityZone column, counts written "1.0", country regions, GpuInfo as a bare GPU id),
Azure's v6 layout (a Generation column, no zones), OCI's v8 layout and LiteLLM's Vertex AI
entries. The prices are made up.
"""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest

from catalog.errors import ImportRejected
from catalog.importers.instances import INSTANCE_GPUS, RUNPOD_GPUS, SOURCES
from catalog.models import ModelApiRoute, Quote
from catalog.services import ImportKind, catalog_import
from tests.factories import ProviderFactory

pytestmark = pytest.mark.django_db

DAY = date(2026, 11, 20)


def _import(user, text, kind, **kwargs):
    return catalog_import(
        acting_user=user,
        kind=kind,
        data=text.encode(),
        filename="file",
        captured_on=kwargs.pop("captured_on", DAY),
        **kwargs,
    )


@pytest.fixture
def clouds(db):
    return {
        slug: ProviderFactory(slug=slug, name=name)
        for slug, name in (
            ("aws", "Amazon Web Services"),
            ("azure", "Microsoft Azure"),
            ("oci", "Oracle Cloud"),
            ("runpod", "RunPod"),
            ("gcp", "Google Cloud"),
            ("anthropic", "Anthropic"),
        )
    }


def _slugs(provider):
    return {
        (q.title, q.capacity_model): q.accelerator.slug
        for q in Quote.objects.filter(provider=provider)
    }


RUNPOD_2023 = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price\n"
    "1x_A100-80GB_SECURE,A100-80GB,1.0,8.0,80.0,A100_80GB,CA,1.99,1.99\n"
    "8x_A100-80GB_SECURE,A100-80GB,8.0,64.0,640.0,A100_80GB,CA,15.92,15.92\n"
    "1x_A100-80GB-SXM4_SECURE,A100-80GB-SXM4,1.0,16.0,125.0,A100_SXM_80GB,US,1.79,2.19\n"
    "1x_H100-80GB-HBM3_SECURE,H100-80GB-HBM3,1.0,16.0,125.0,H100_80GB_SXM5,US,3.59,4.49\n"
    "1x_H100-PCIe_SECURE,H100-PCIe,1.0,16.0,125.0,H100_PCIe,US,4.29,4.29\n"
    "8x_RTX4090_SECURE,RTX4090,8.0,64.0,500.0,RTX4090,SE,5.52,5.52\n"
    "8x_RTX6000-Ada_SECURE,RTX6000-Ada,8.0,64.0,500.0,RTX6000_Ada,SE,8.00,8.00\n"
    "1x_A40_SECURE,A40,1.0,9.0,48.0,A40,CZ,0.35,0.35\n"
)


def test_x1_runpod_a100_80gb_is_the_pcie_card_and_sxm_rows_import(lead, catalog, clouds):
    """X1: RunPod's bare A100-80GB is its PCIe card (the file lists the SXM4 one apart); the
    SXM4 A100 and the HBM3 H100 rows import as the SXM cards instead of "not in the catalog"."""
    outcome = _import(lead, RUNPOD_2023, ImportKind.SKYPILOT, provider=clouds["runpod"])
    slugs = _slugs(clouds["runpod"])
    assert slugs["1x_A100-80GB_SECURE", "on_demand"] == "a100-pcie-80gb"
    assert slugs["8x_A100-80GB_SECURE", "on_demand"] == "a100-pcie-80gb"
    assert slugs["1x_A100-80GB-SXM4_SECURE", "on_demand"] == "a100-sxm-80gb"
    assert slugs["1x_A100-80GB-SXM4_SECURE", "spot"] == "a100-sxm-80gb"
    assert slugs["1x_H100-80GB-HBM3_SECURE", "on_demand"] == "h100-sxm-80gb"
    assert slugs["1x_H100-PCIe_SECURE", "on_demand"] == "h100-pcie-80gb"
    pcie = Quote.objects.get(title="8x_A100-80GB_SECURE")
    assert pcie.price_per_gpu_hour == Decimal("1.9900")  # 15.92 / 8
    assert set(outcome.unknown) == {"A40 (A40 48GB)"}


def test_x1_an_unstated_form_factor_beside_a_stated_one_is_not_guessed(lead, catalog):
    """X1: without a table entry, a plain name is not taken for SXM when the same file lists
    the SXM card separately."""
    provider = ProviderFactory(slug="smallcloud", name="Small Cloud")
    text = (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,Region\n"
        "box-a100,A100-80GB,1.0,8.0,80.0,,1.50,us\n"
        "box-a100-sxm,A100-80GB-SXM4,1.0,8.0,80.0,,1.90,us\n"
    )
    outcome = _import(lead, text, ImportKind.SKYPILOT, provider=provider)
    assert _slugs(provider) == {("box-a100-sxm", "on_demand"): "a100-sxm-80gb"}
    [label] = outcome.unknown
    assert label.startswith("A100-80GB (form factor not stated")


AZURE_V6 = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,Generation\n"
    "Standard_NC40ads_H100_v5,H100,1.0,40.0,320.0,H100,6.98,6.98,eastus,V2\n"
    "Standard_NC80adis_H100_v5,H100,2.0,80.0,640.0,H100,13.96,13.96,eastus,V2\n"
    "Standard_ND96isr_H100_v5,H100,8.0,96.0,1900.0,H100,98.32,,eastus,V2\n"
    "Standard_NC12s_v3,V100,2.0,12.0,224.0,V100,6.12,0.6732,westus3,V1\n"
    "Standard_ND40rs_v2,V100-32GB,8.0,40.0,672.0,V100,22.03,,eastus,V1\n"
    "Standard_NC24ads_A100_v4,A100-80GB,1.0,24.0,220.0,A100-80GB,3.673,0.73,eastus,V2\n"
    "Standard_NC8ads_A10_v4,,,8.0,55.0,,0.90,,eastus,V2\n"
    "Standard_D8s_v5,,,8.0,32.0,,0.38,0.08,eastus,V2\n"
)


def test_x2_azure_ncads_h100_v5_is_the_h100_nvl(lead, catalog, clouds):
    """X2: NC40ads / NC80adis H100 v5 carry H100 NVL 94GB cards; ND96isr H100 v5 is SXM."""
    _import(lead, AZURE_V6, ImportKind.SKYPILOT, provider=clouds["azure"])
    slugs = _slugs(clouds["azure"])
    assert slugs["Standard_NC40ads_H100_v5", "on_demand"] == "h100-nvl-94gb"
    assert slugs["Standard_NC80adis_H100_v5", "on_demand"] == "h100-nvl-94gb"
    assert slugs["Standard_ND96isr_H100_v5", "on_demand"] == "h100-sxm-80gb"
    assert slugs["Standard_NC24ads_A100_v4", "on_demand"] == "a100-pcie-80gb"


def test_x3_azure_ncv3_is_the_v100_pcie_and_never_the_sxm2(lead, catalog, clouds):
    """X3: NCv3 is a V100 PCIe 16GB (now in the catalog with its datasheet figures); the SXM2
    row gets only the NDv2 SXM2 card, so its lowest price is not the PCIe card's."""
    outcome = _import(lead, AZURE_V6, ImportKind.SKYPILOT, provider=clouds["azure"])
    slugs = _slugs(clouds["azure"])
    assert slugs["Standard_NC12s_v3", "on_demand"] == "v100-pcie-16gb"
    assert slugs["Standard_NC12s_v3", "spot"] == "v100-pcie-16gb"
    assert slugs["Standard_ND40rs_v2", "on_demand"] == "v100-sxm2-32gb"
    assert not Quote.objects.filter(accelerator__slug="v100-sxm2-16gb").exists()
    pcie = catalog["v100-pcie-16gb"]
    assert (pcie.form_factor, pcie.memory_gb, pcie.bf16_dense_tflops) == ("PCIe", 16, 112)
    assert pcie.source_url.startswith("https://images.nvidia.com/")
    # A GPU family whose row names no accelerator is not called "CPU-only".
    assert outcome.skipped["GPU instance type, but the file names no accelerator for it"] == 1
    assert outcome.skipped["CPU-only instance (no accelerator)"] == 1


OCI_V8 = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone\n"
    "BM.GPU.RTXPRO.8,RTXPRO6000,8.0,128.0,2048.0,RTXPRO6000,26.00,,af-johannesburg-1,\n"
    "BM.GPU.H100.8,H100,8.0,112.0,2048.0,H100,80.00,,af-johannesburg-1,\n"
    "BM.GPU4.8,A100,8.0,64.0,2048.0,A100,24.40,,af-johannesburg-1,\n"
    "VM.GPU2.1,P100,1.0,12.0,72.0,P100,1.275,,af-johannesburg-1,\n"
)


def test_x4_oci_rtx_pro_server_edition_and_eight_gpu_workstation_nodes(lead, catalog, clouds):
    """X4: OCI's BM.GPU.RTXPRO.8 is eight RTX PRO 6000 *Server* Edition cards (a new catalog
    row), not the Workstation Edition; RunPod's 8× RTX 4090 and 8× RTX 6000 Ada nodes import."""
    outcome = _import(lead, OCI_V8, ImportKind.SKYPILOT, provider=clouds["oci"])
    slugs = _slugs(clouds["oci"])
    assert slugs["BM.GPU.RTXPRO.8", "on_demand"] == "rtx-pro-6000-blackwell-server-96gb"
    assert slugs["BM.GPU.H100.8", "on_demand"] == "h100-sxm-80gb"
    assert slugs["BM.GPU4.8", "on_demand"] == "a100-sxm-40gb"
    assert outcome.unknown == {"P100 (Tesla P100 16GB)": 1}
    assert Quote.objects.get(title="BM.GPU.RTXPRO.8").price_per_gpu_hour == Decimal("3.2500")
    _import(lead, RUNPOD_2023, ImportKind.SKYPILOT, provider=clouds["runpod"])
    runpod = _slugs(clouds["runpod"])
    assert runpod["8x_RTX4090_SECURE", "on_demand"] == "rtx-4090-24gb"
    assert runpod["8x_RTX6000-Ada_SECURE", "on_demand"] == "rtx-6000-ada-48gb"


def test_x4_f13_a_node_the_catalog_has_not_seen_is_imported_as_the_file_states(
    lead, catalog, clouds
):
    """X4, F13 (issue 37): the file states the node size, so a node larger than the catalog's
    usual one is the offer (it was skipped naming the catalog rule); only more GPUs than one
    machine holds is skipped."""
    l4 = catalog["l4-24gb"]
    l4.max_gpus_per_node = 4  # a catalog entry that describes smaller nodes than the file's
    l4.save()
    text = (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,"
        "SpotPrice,Price\n"
        "8x_L4_SECURE,L4,8.0,96.0,384.0,L4,US,,3.60\n"
        "80x_L4_SECURE,L4,80.0,960.0,3840.0,L4,US,,36.00\n"
    )
    outcome = _import(lead, text, ImportKind.SKYPILOT, provider=clouds["runpod"])
    quote = Quote.objects.get(title="8x_L4_SECURE")
    assert quote.gpus_per_node == 8
    assert quote.price_per_gpu_hour == Decimal("0.4500")  # 3.60 / 8
    [reason] = [r for r in outcome.skipped if "per instance" in r]
    assert reason.startswith(f"80× {l4.name} per instance: more GPUs than one machine")


def test_x1_x4_instance_table_cites_a_source_for_every_entry():
    """X1-X4: every entry of the instance-to-GPU table names a source page."""
    for rules in INSTANCE_GPUS.values():
        for rule in rules:
            assert SOURCES[rule.source].startswith("https://")
    assert RUNPOD_GPUS["a10080gb"][0] == "a100-pcie-80gb"


def test_x14_known_bytes_under_another_cloud_are_refused(lead, catalog, clouds):
    """X14: the same Azure file and date sent again as AWS gets the cloud-mismatch refusal,
    not "already imported"."""
    _import(lead, AZURE_V6, ImportKind.SKYPILOT, provider=clouds["azure"])
    with pytest.raises(ImportRejected) as exc:
        _import(lead, AZURE_V6, ImportKind.SKYPILOT, provider=clouds["aws"])
    message = exc.value.errors[0]["message"]
    assert "Azure" in message
    assert "Amazon Web Services" in message
    again = _import(lead, AZURE_V6, ImportKind.SKYPILOT, provider=clouds["azure"])
    assert again.duplicate_of is not None
    assert not Quote.objects.filter(provider=clouds["aws"]).exists()


LITELLM_VERTEX = {
    "vertex_ai/claude-3-5-sonnet@20240620": {
        "litellm_provider": "vertex_ai-anthropic_models",
        "mode": "chat",
        "input_cost_per_token": 3e-06,
        "output_cost_per_token": 1.5e-05,
    },
    "vertex_ai/meta/llama-3.3-70b-instruct-maas": {
        "litellm_provider": "vertex_ai-llama_models",
        "mode": "chat",
        "input_cost_per_token": 7.2e-07,
        "output_cost_per_token": 7.2e-07,
    },
    "vertex_ai/mistral-large@2407": {
        "litellm_provider": "vertex_ai-mistral_models",
        "mode": "chat",
        "input_cost_per_token": 2e-06,
        "output_cost_per_token": 6e-06,
    },
    "vertex_ai/jamba-1.5-mini@001": {
        "litellm_provider": "vertex_ai-ai21_models",
        "mode": "chat",
        "input_cost_per_token": 2e-07,
        "output_cost_per_token": 4e-07,
    },
    "chat-bison": {
        "litellm_provider": "vertex_ai-chat-models",
        "mode": "chat",
        "input_cost_per_token": 1.25e-07,
        "output_cost_per_token": 1.25e-07,
    },
    "gemini-1.5-pro-preview-0514": {
        "litellm_provider": "vertex_ai-language-models",
        "mode": "chat",
        "input_cost_per_token": 7.8125e-08,
        "output_cost_per_token": 3.125e-07,
    },
    "gemini-1.5-flash-exp-0827": {
        "litellm_provider": "vertex_ai-language-models",
        "mode": "chat",
        "input_cost_per_token": 4.688e-09,
        "output_cost_per_token": 4.6875e-09,
    },
    "claude-3-5-sonnet-20240620": {
        "litellm_provider": "anthropic",
        "mode": "chat",
        "input_cost_per_token": 3e-06,
        "output_cost_per_token": 1.5e-05,
    },
}


def test_x5_vertex_ai_sub_providers_are_google_cloud_routes_with_their_publisher(
    lead, catalog, clouds
):
    """X5: every `vertex_ai-*` group is a Google Cloud route; the model's publisher is kept."""
    outcome = _import(lead, json.dumps(LITELLM_VERTEX), ImportKind.LITELLM)
    assert outcome.unknown == {}
    routes = {
        r.model_name: (r.provider.slug, r.publisher)
        for r in ModelApiRoute.objects.select_related("provider")
    }
    assert routes["claude-3-5-sonnet@20240620"] == ("gcp", "Anthropic")
    assert routes["meta/llama-3.3-70b-instruct-maas"] == ("gcp", "Meta")
    assert routes["mistral-large@2407"] == ("gcp", "Mistral AI")
    assert routes["jamba-1.5-mini@001"] == ("gcp", "AI21 Labs")
    assert routes["chat-bison"] == ("gcp", "Google")
    assert routes["claude-3-5-sonnet-20240620"] == ("anthropic", "")


def test_x6_litellm_token_prices_are_stored_exactly(lead, catalog, clouds):
    """X6: per-token price × 10⁶ is stored without rounding to 4 decimals."""
    _import(lead, json.dumps(LITELLM_VERTEX), ImportKind.LITELLM)
    pro = ModelApiRoute.objects.get(model_name="gemini-1.5-pro-preview-0514")
    assert pro.price_input_per_m_tokens == Decimal("0.078125")
    flash = ModelApiRoute.objects.get(model_name="gemini-1.5-flash-exp-0827")
    assert flash.price_input_per_m_tokens == Decimal("0.004688")
    assert flash.price_output_per_m_tokens == Decimal("0.0046875")
