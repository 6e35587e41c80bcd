"""Public-format files as users have them (findings R1-R4, R8, R10, R12, R15-R17).

Each file below is written for the test in the format of SkyPilot's `vms.csv` or LiteLLM's
`model_prices_and_context_window.json`; the figures are made up.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import Decimal

import pytest

from catalog.errors import ImportRejected
from catalog.importers.skypilot import skip_no_host
from catalog.models import ModelApiRoute, Quote
from catalog.services import ImportKind, catalog_import
from core.models import AuditEvent
from tests.factories import ProviderFactory

pytestmark = pytest.mark.django_db

DAY = date(2026, 11, 20)


def _import(user, payload, kind, **kwargs):
    data = payload if isinstance(payload, bytes) else payload.encode()
    return catalog_import(
        acting_user=user,
        kind=kind,
        data=data,
        filename=kwargs.pop("filename", "file"),
        captured_on=kwargs.pop("captured_on", DAY),
        **kwargs,
    )


# --- LiteLLM ------------------------------------------------------------------------------------

LITELLM_CURRENT = {
    "sample_spec": {"litellm_provider": "one of https://docs.litellm.ai/docs/providers"},
    "gpt-4o": {
        "litellm_provider": "openai",
        "mode": "chat",
        "input_cost_per_token": 2.5e-06,
        "output_cost_per_token": 1e-05,
        "cache_read_input_token_cost": 1.25e-06,
        "input_cost_per_token_batches": 1.25e-06,
        "output_cost_per_token_batches": 5e-06,
        "input_cost_per_token_priority": 4.25e-06,
        "output_cost_per_token_priority": 1.7e-05,
        "input_cost_per_token_flex": 1.25e-06,
        "max_input_tokens": 128000,
    },
    "claude-sonnet-4-5": {
        "litellm_provider": "anthropic",
        "mode": "chat",
        "input_cost_per_token": 3e-06,
        "output_cost_per_token": 1.5e-05,
        "input_cost_per_token_above_200k_tokens": 6e-06,
        "output_cost_per_token_above_200k_tokens": 2.25e-05,
        "cache_creation_input_token_cost": 3.75e-06,
        "cache_creation_input_token_cost_above_1hr": 6e-06,
        "max_input_tokens": 1000000,
    },
    "azure/gpt-mini-latest": {"alias_of": "gpt-4o"},
    "openai/gpt-4o-latest": {"alias_of": "gpt-4o"},
    "fallback_generalizations": {"gpt-4o": ["gpt-4o-mini"]},
    "lambda_ai/llama3.3-70b-instruct-fp8": {
        "litellm_provider": "lambda_ai",
        "mode": "chat",
        "input_cost_per_token": 1.2e-07,
        "output_cost_per_token": 3e-07,
    },
    "broken-entry": {
        "mode": "chat",
        "input_cost_per_token": 1e-06,
        "output_cost_per_token": 2e-06,
    },
}


@pytest.fixture
def api_providers(db):
    return {
        "openai": ProviderFactory(slug="openai", name="OpenAI"),
        "anthropic": ProviderFactory(slug="anthropic", name="Anthropic"),
        "lambda": ProviderFactory(slug="lambda", name="Lambda"),
    }


def test_r1_current_litellm_file_imports_skipping_aliases_and_metadata(
    lead, catalog, api_providers
):
    """R1: alias and metadata entries are skipped and counted; one bad entry does not refuse
    the good ones (it is reported)."""
    outcome = _import(lead, json.dumps(LITELLM_CURRENT), ImportKind.LITELLM)
    assert outcome.created == 3
    assert outcome.skipped["alias of another entry (the target entry is imported)"] == 2
    assert outcome.skipped["not a model entry (metadata or documentation)"] == 1
    assert [(e["row"], e["column"]) for e in outcome.errors] == [
        ("broken-entry", "litellm_provider")
    ]
    assert ModelApiRoute.objects.count() == 3


def test_r1_litellm_all_or_nothing_on_request(lead, catalog, api_providers):
    """R1: the user can still ask for all-or-nothing."""
    with pytest.raises(ImportRejected) as exc:
        _import(lead, json.dumps(LITELLM_CURRENT), ImportKind.LITELLM, all_or_nothing=True)
    assert exc.value.errors[0]["row"] == "broken-entry"
    assert ModelApiRoute.objects.count() == 0


def test_r8_r17_litellm_tiers_and_max_input_tokens_are_stored(lead, catalog, api_providers):
    """R8, R17: batch, priority, flex, long-context and cache-write prices kept as tiers;
    max_input_tokens stored on the route."""
    _import(lead, json.dumps(LITELLM_CURRENT), ImportKind.LITELLM)
    gpt = ModelApiRoute.objects.get(model_name="gpt-4o")
    assert gpt.max_input_tokens == 128000
    assert gpt.price_tiers["batch"] == {"input_per_m": "1.25", "output_per_m": "5"}
    assert gpt.price_tiers["priority"] == {"input_per_m": "4.25", "output_per_m": "17"}
    assert gpt.price_tiers["flex"] == {"input_per_m": "1.25"}
    claude = ModelApiRoute.objects.get(model_name="claude-sonnet-4-5")
    assert claude.max_input_tokens == 1_000_000
    assert claude.price_tiers["above_200k_tokens"] == {
        "above_input_tokens": 200_000,
        "input_per_m": "6",
        "output_per_m": "22.5",
    }
    assert claude.price_tiers["standard"] == {
        "cache_write_per_m": "3.75",
        "cache_write_1h_per_m": "6",
    }


def test_n10_litellm_cache_write_price_is_kept_on_the_route(lead, catalog, api_providers):
    """`cache_creation_input_token_cost` 3.75e-06 per token → $3.75 per 1M tokens in the
    route's cache-write price (comparisons charge written tokens at it); a route whose entry
    has none keeps it empty (writes are ordinary input there)."""
    _import(lead, json.dumps(LITELLM_CURRENT), ImportKind.LITELLM)
    claude = ModelApiRoute.objects.get(model_name="claude-sonnet-4-5")
    assert claude.price_cache_write_per_m_tokens == Decimal("3.75")
    assert ModelApiRoute.objects.get(model_name="gpt-4o").price_cache_write_per_m_tokens is None


def test_r15_litellm_provider_ids_map_to_ours_by_name_and_slug(lead, catalog, api_providers):
    """R15: `lambda_ai` is our Lambda."""
    _import(lead, json.dumps(LITELLM_CURRENT), ImportKind.LITELLM)
    route = ModelApiRoute.objects.get(model_name="llama3.3-70b-instruct-fp8")
    assert route.provider == api_providers["lambda"]


def test_r15_litellm_provider_matched_by_name_when_slug_differs(lead, catalog):
    """R15: a provider whose slug differs is found by its name."""
    lam = ProviderFactory(slug="lambda-cloud", name="Lambda")
    data = {k: LITELLM_CURRENT[k] for k in ("lambda_ai/llama3.3-70b-instruct-fp8",)}
    _import(lead, json.dumps(data), ImportKind.LITELLM)
    assert ModelApiRoute.objects.get().provider == lam


def test_r2_litellm_reimport_revises_changed_routes_and_retires_gone_ones(
    lead, catalog, api_providers
):
    """R2: routes are matched on provider + model; unchanged ones are left alone."""
    _import(lead, json.dumps(LITELLM_CURRENT), ImportKind.LITELLM)
    second = json.loads(json.dumps(LITELLM_CURRENT))
    second["gpt-4o"]["input_cost_per_token"] = 2e-06
    del second["claude-sonnet-4-5"]
    outcome = _import(
        lead, json.dumps(second), ImportKind.LITELLM, captured_on=DAY + timedelta(days=7)
    )
    assert (outcome.created, outcome.revised, outcome.unchanged, outcome.withdrawn) == (0, 1, 1, 1)
    active = ModelApiRoute.objects.filter(is_active=True)
    assert sorted(active.values_list("model_name", flat=True)) == [
        "gpt-4o",
        "llama3.3-70b-instruct-fp8",
    ]
    assert active.get(model_name="gpt-4o").price_input_per_m_tokens == Decimal("2.0000")
    assert ModelApiRoute.objects.filter(model_name="gpt-4o").count() == 2


# --- SkyPilot -----------------------------------------------------------------------------------

GCP_VMS = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone\n"
    "a2-highgpu-1g,,,12.0,85.0,,0.75,0.22,us-central1,us-central1-a\n"
    "a2-highgpu-1g,,,12.0,85.0,,0.75,0.22,us-central1,us-central1-b\n"
    ",A100,1.0,,,,2.93,0.88,us-central1,us-central1-a\n"
    ",A100,1.0,,,,2.93,0.88,us-central1,us-central1-b\n"
    "a2-ultragpu-1g,,,12.0,170.0,,2.10,0.60,us-central1,us-central1-a\n"
    ",A100-80GB,1.0,,,,3.10,1.00,us-central1,us-central1-a\n"
    ",H100,8.0,,,,80.0,,us-central1,us-central1-a\n"
    ",T4,1.0,,,,0.35,0.07,us-central1,us-central1-a\n"
    "n1-standard-8,,,8.0,30.0,,0.38,0.08,us-central1,us-central1-a\n"
)


@pytest.fixture
def clouds(db):
    return {
        "gcp": ProviderFactory(slug="gcp", name="Google Cloud"),
        "aws": ProviderFactory(slug="aws", name="Amazon Web Services"),
        "lambda": ProviderFactory(slug="lambda", name="Lambda"),
        "runpod": ProviderFactory(slug="runpod", name="RunPod"),
    }


def test_r3_gcp_gpu_rows_are_priced_with_their_host_machine_type(lead, catalog, clouds):
    """R3: the host VM's price is added to the GPU price; titles are the machine type."""
    outcome = _import(lead, GCP_VMS, ImportKind.SKYPILOT, provider=clouds["gcp"])
    quotes = {(q.title, q.capacity_model): q for q in Quote.objects.filter(provider=clouds["gcp"])}
    assert set(quotes) == {
        ("a2-highgpu-1g", "on_demand"),
        ("a2-highgpu-1g", "spot"),
        ("a2-ultragpu-1g", "on_demand"),
        ("a2-ultragpu-1g", "spot"),
    }
    a100 = quotes["a2-highgpu-1g", "on_demand"]
    assert a100.price_per_gpu_hour == Decimal("3.6800")  # 0.75 host + 2.93 GPU
    assert quotes["a2-highgpu-1g", "spot"].price_per_gpu_hour == Decimal("1.1000")
    assert a100.vcpu_per_node == 12
    a100_80 = quotes["a2-ultragpu-1g", "on_demand"]
    assert a100_80.price_per_gpu_hour == Decimal("5.2000")
    assert a100_80.price_per_gpu_hour > a100.price_per_gpu_hour
    assert all(q.title for q in Quote.objects.all())
    # Named: the GPU, its count and the host looked for (8× H100 needs a3-highgpu-8g; a T4
    # is priced on n1-highmem-8, which this file does not list).
    assert outcome.skipped[skip_no_host("H100", 8, ("a3-highgpu-8g",))] == 1
    assert outcome.skipped[skip_no_host("T4", 1, ("n1-highmem-8",))] == 1


def test_r10_identical_zone_prices_collapse_into_one_quote(lead, catalog, clouds):
    """R10: one quote per instance type, region and capacity model, with its zone list."""
    _import(lead, GCP_VMS, ImportKind.SKYPILOT, provider=clouds["gcp"])
    quote = Quote.objects.get(title="a2-highgpu-1g", capacity_model="on_demand")
    assert quote.zones == ["us-central1-a", "us-central1-b"]
    assert quote.zone == ""


RUNPOD_LAMBDA = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone\n"
    "gpu_1x_h100_pcie,H100,1.0,26.0,200.0,\"{'Gpus': [{'Name': 'H100'}]}\",2.49,,us-east-1,\n"
    "gpu_8x_h100_sxm5,H100,8.0,208.0,1800.0,\"{'Gpus': [{'Name': 'H100'}]}\",23.92,,us-east-1,\n"
    "gpu_1x_gh200,GH200,1.0,64.0,432.0,,1.49,,us-east-3,\n"
    "gpu_8x_v100,V100,8.0,88.0,448.0,,4.40,,us-south-1,\n"
    "gpu_1x_a10,A10,1.0,30.0,200.0,,0.75,,us-west-1,\n"
    "gpu_1x_a6000,A6000,1.0,14.0,100.0,,0.80,,us-west-1,\n"
)


def test_r4_pcie_cards_are_not_taken_for_sxm(lead, catalog, clouds):
    """R4: `_pcie` in the instance type maps H100 to the PCIe row; SXM stays SXM."""
    _import(lead, RUNPOD_LAMBDA, ImportKind.SKYPILOT, provider=clouds["lambda"])
    by_title = {q.title: q.accelerator.slug for q in Quote.objects.all()}
    assert by_title["gpu_1x_h100_pcie"] == "h100-pcie-80gb"
    assert by_title["gpu_8x_h100_sxm5"] == "h100-sxm-80gb"


def test_r4_runpod_a100_pcie_from_gpu_info(lead, catalog, clouds):
    """R4: GpuInfo "A100 PCIe" maps A100-80GB to the PCIe row, not SXM."""
    text = (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
        "Region,AvailabilityZone\n"
        "1x_A100-80GB_SECURE,A100-80GB,1.0,8.0,117.0,"
        "\"{'Gpus': [{'Name': 'A100 PCIe', 'Count': 1}]}\",1.64,1.64,CA,CA-MTL-1\n"
        "1x_H100-80GB_SECURE,H100,1.0,16.0,176.0,"
        "\"{'Gpus': [{'Name': 'H100 SXM', 'Count': 1}]}\",2.69,2.69,CA,CA-MTL-1\n"
    )
    _import(lead, text, ImportKind.SKYPILOT, provider=clouds["runpod"])
    slugs = {q.title: q.accelerator.slug for q in Quote.objects.all()}
    assert slugs == {
        "1x_A100-80GB_SECURE": "a100-pcie-80gb",
        "1x_H100-80GB_SECURE": "h100-sxm-80gb",
    }


def test_r12_common_inference_cards_are_in_the_catalog(lead, catalog, clouds):
    """R12: GH200, V100, A10, A6000 rows import instead of being listed as unknown."""
    outcome = _import(lead, RUNPOD_LAMBDA, ImportKind.SKYPILOT, provider=clouds["lambda"])
    assert outcome.unknown == {}
    slugs = set(Quote.objects.values_list("accelerator__slug", flat=True))
    assert {"gh200-96gb", "v100-sxm2-16gb", "a10-24gb", "rtx-a6000-48gb"} <= slugs
    for slug in ("a10g-24gb", "t4-16gb", "v100-sxm2-32gb", "l40-48gb"):
        assert slug in catalog


def test_r16_file_of_another_cloud_is_refused(lead, catalog, clouds):
    """R16: a GCP file imported as AWS is refused with a clear message."""
    with pytest.raises(ImportRejected) as exc:
        _import(lead, GCP_VMS, ImportKind.SKYPILOT, provider=clouds["aws"])
    message = exc.value.errors[0]["message"]
    assert "Google Cloud" in message
    assert "Amazon Web Services" in message
    assert Quote.objects.count() == 0
    assert AuditEvent.objects.filter(action="catalog.import_rejected").exists()


def test_r2_reimport_revises_changed_quotes_and_withdraws_gone_ones(lead, catalog, clouds):
    """R2: a weekly refresh revises the matching quote (a new version), leaves unchanged ones
    alone and withdraws the offers that left the file."""
    lam = clouds["lambda"]
    first = _import(lead, RUNPOD_LAMBDA, ImportKind.SKYPILOT, provider=lam)
    assert first.created == 6
    second_text = RUNPOD_LAMBDA.replace(
        "gpu_1x_gh200,GH200,1.0,64.0,432.0,,1.49", ("gpu_1x_gh200,GH200,1.0,64.0,432.0,,1.29")
    ).replace("gpu_1x_a10,A10,1.0,30.0,200.0,,0.75,,us-west-1,\n", "")
    second = _import(
        lead, second_text, ImportKind.SKYPILOT, provider=lam, captured_on=DAY + timedelta(days=7)
    )
    assert (second.created, second.revised, second.unchanged, second.withdrawn) == (0, 1, 4, 1)
    current = Quote.objects.current().filter(provider=lam)
    assert current.count() == 5
    gh200 = current.get(title="gpu_1x_gh200")
    assert (gh200.version, gh200.price_per_gpu_hour) == (2, Decimal("1.2900"))
    assert gh200.supersedes.price_per_gpu_hour == Decimal("1.4900")
    assert gh200.quoted_at.date() == DAY + timedelta(days=7)
    withdrawn = Quote.objects.get(title="gpu_1x_a10", status=Quote.Status.WITHDRAWN)
    assert withdrawn.version == 2
    assert AuditEvent.objects.filter(action="quote.revised").count() == 1
    assert AuditEvent.objects.filter(action="quote.withdrawn").count() == 1
    # A third import of the same content with other line endings changes nothing.
    third = _import(
        lead,
        second_text.replace("\n", "\r\n"),
        ImportKind.SKYPILOT,
        provider=lam,
        captured_on=DAY + timedelta(days=8),
    )
    assert (third.created, third.revised, third.withdrawn) == (0, 0, 0)
    assert Quote.objects.current().filter(provider=lam).count() == 5


def test_r2_large_refresh_writes_versions_in_bulk_with_audit(lead, catalog, clouds, monkeypatch):
    """R2 at scale: many changes are written as new versions in bulk, each listed in an
    audit event; old versions stay as they were."""
    from catalog.services import import_apply

    monkeypatch.setattr(import_apply, "BULK_FROM", 1)
    lam = clouds["lambda"]
    _import(lead, RUNPOD_LAMBDA, ImportKind.SKYPILOT, provider=lam)
    before = {q.pk: q.price_per_gpu_hour for q in Quote.objects.all()}
    cheaper = RUNPOD_LAMBDA.replace(",2.49,", ",2.29,").replace(",1.49,", ",1.19,")
    cheaper = cheaper.replace("gpu_1x_a10,A10,1.0,30.0,200.0,,0.75,,us-west-1,\n", "")
    outcome = _import(
        lead, cheaper, ImportKind.SKYPILOT, provider=lam, captured_on=DAY + timedelta(days=7)
    )
    assert (outcome.revised, outcome.withdrawn, outcome.unchanged) == (2, 1, 3)
    assert {q.pk: q.price_per_gpu_hour for q in Quote.objects.filter(pk__in=before)} == before
    current = Quote.objects.current().filter(provider=lam)
    assert current.get(title="gpu_1x_h100_pcie").price_per_gpu_hour == Decimal("2.2900")
    assert current.get(title="gpu_1x_h100_pcie").version == 2
    assert not current.filter(title="gpu_1x_a10").exists()
    [event] = AuditEvent.objects.filter(action="quote.revised_by_import")
    assert len(event.summary["versions"]) == 3
    assert {v["status"] for v in event.summary["versions"]} == {"submitted", "withdrawn"}


def test_r2_quotes_imported_before_offer_keys_are_revised_and_their_copies_withdrawn(
    lead, catalog, clouds
):
    """R2 after an upgrade: three earlier imports left three copies of each offer (no offer
    key); the next refresh keeps one version line per offer and withdraws the copies."""
    from core.audit import audit_record
    from tests.factories import QuoteFactory

    lam = clouds["lambda"]
    audit_record(
        actor=lead,
        action="catalog.imported",
        object_type="catalog.import",
        summary={"kind": "skypilot", "filename": "vms.csv"},
    )
    copies = [
        QuoteFactory(
            provider=lam,
            accelerator=catalog["gh200-96gb"],
            title="gpu_1x_gh200",
            region="us-east-3",
            capacity_model="on_demand",
            gpus_per_node=1,
            price_per_gpu_hour=Decimal("1.4900"),
            is_public_list_price=True,
            source_document="vms.csv",
            source_url="",
        )
        for _ in range(3)
    ]
    hand_entered = QuoteFactory(
        provider=lam, accelerator=catalog["gh200-96gb"], is_public_list_price=True
    )
    outcome = _import(lead, RUNPOD_LAMBDA, ImportKind.SKYPILOT, provider=lam, filename="vms.csv")
    current = Quote.objects.current().filter(provider=lam, title="gpu_1x_gh200")
    assert current.count() == 1
    assert current.get().supersedes_id in {c.pk for c in copies} | {None}
    assert outcome.withdrawn == 2
    assert Quote.objects.current().filter(pk=hand_entered.pk).exists()


def test_n10_routes_imported_before_the_column_get_their_cache_write_price(db):
    """The migration copies the `standard` tier's cache-write price into the new column."""
    import importlib

    from django.apps import apps

    from tests.factories import ModelApiRouteFactory

    migration = importlib.import_module("catalog.migrations.0016_api_route_cache_write_price")
    old = ModelApiRouteFactory(price_tiers={"standard": {"cache_write_per_m": "3.75"}})
    plain = ModelApiRouteFactory(price_tiers={"batch": {"input_per_m": "1.5"}})
    migration.copy_cache_write_prices(apps, None)
    old.refresh_from_db()
    plain.refresh_from_db()
    assert old.price_cache_write_per_m_tokens == Decimal("3.75")
    assert plain.price_cache_write_per_m_tokens is None
