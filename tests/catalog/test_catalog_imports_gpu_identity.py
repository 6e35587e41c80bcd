"""A GPU's identity is what the row states; a file goes in only under its own provider (issue 37:
F1-F4, F13-F15).

Each file below is written for the test in the layout of SkyPilot's v8 `vms.csv` for Hyperstack,
Cudo Compute and the Prime Intellect aggregator (its `UpstreamCloudId` column and JSON
`GpuInfo`); names and instance types follow those catalogs, prices are the ones the findings
quote.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from catalog.errors import ImportRejected
from catalog.importers.identity import identify
from catalog.models import ModelApiRoute, Quote
from catalog.services import ImportKind, catalog_import
from tests.factories import ProviderFactory, QuoteFactory

pytestmark = pytest.mark.django_db

DAY = date(2026, 12, 6)


def _gpu_info(name: str, count: int, mib: int) -> str:
    return (
        f"\"{{'Gpus': [{{'Name': '{name}', 'Manufacturer': 'NVIDIA', 'Count': {count}.0, "
        f"'MemoryInfo': {{'SizeInMiB': {mib}}}}}], 'TotalGpuMemoryInMiB': {mib * count}}}\""
    )


HYPERSTACK = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region\n"
    f"n3-A100x1,A100-80G-PCIe,1.0,28.0,120.0,{_gpu_info('A100-80G-PCIe', 1, 81920)},"
    "1.35,,CANADA-1\n"
    f"n3-A100x8-NVLink,A100-80G-PCIe-NVLink,8.0,252.0,1440.0,"
    f"{_gpu_info('A100-80G-PCIe-NVLink', 8, 81920)},11.2,,CANADA-1\n"
    f"n3-H100x1,H100-80G-PCIe,1.0,28.0,180.0,{_gpu_info('H100-80G-PCIe', 1, 81920)},"
    "1.9,,CANADA-1\n"
    f"n3-H100x8-NVLink,H100-80G-PCIe-NVLink,8.0,252.0,1440.0,"
    f"{_gpu_info('H100-80G-PCIe-NVLink', 8, 81920)},15.6,,CANADA-1\n"
    f"n3-H100-SXM5x8,H100-80G-SXM5,8.0,192.0,1800.0,{_gpu_info('H100-80G-SXM5', 8, 81920)},"
    "19.2,,CANADA-1\n"
    f"n3-H100-SXM5x8,H100-80G-SXM5,8.0,192.0,1800.0,{_gpu_info('H100-80G-SXM5', 8, 81920)},"
    "19.2,,US-1\n"
    f"n3-L40x1,L40,1.0,28.0,58.0,{_gpu_info('L40', 1, 49152)},1.0,,CANADA-1\n"
    f"n3-RTX-A6000x1,RTX-A6000,1.0,28.0,58.0,{_gpu_info('RTX-A6000', 1, 49152)},0.5,,CANADA-1\n"
    f"n3-RTX-A4000x1,RTX-A4000,1.0,6.0,24.0,{_gpu_info('RTX-A4000', 1, 16384)},0.15,,CANADA-1\n"
)

CUDO = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,"
    "SpotPrice\n"
    f"epyc-genoa-a100-pcie_1x2v4gb,A100,1,2,4,1.5294,no-luster-1,{_gpu_info('A100', 1, 81920)},\n"
    f"epyc-genoa-a100-pcie_8x64v128gb,A100,8,64,128,12.9408,no-luster-1,"
    f"{_gpu_info('A100', 8, 81920)},\n"
    f"intel-ice-lake-a100-pci_1x2v4gb,A100,1,2,4,1.3734,se-smedjebacken-1,"
    f"{_gpu_info('A100', 1, 81920)},\n"
    f"intel-ice-lake-a100-pci_8x64v128gb,A100,8,64,128,11.5488,se-smedjebacken-1,"
    f"{_gpu_info('A100', 8, 81920)},\n"
    f"intel-broadwell-v100_1x2v4gb,V100,1,2,4,0.21,ca-montreal-2,{_gpu_info('V100', 1, 16384)},\n"
    f"intel-broadwell-v100_8x64v128gb,V100,8,64,128,2.16,ca-montreal-2,"
    f"{_gpu_info('V100', 8, 16384)},\n"
    f"epyc-milan-rtx-a4000_1x2v4gb,RTXA4000,1,2,4,0.36979999999999996,gb-bournemouth-1,"
    f"{_gpu_info('RTXA4000', 1, 16384)},\n"
)

PRIME_INTELLECT = (
    "InstanceType,UpstreamCloudId,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,"
    "Region,Price,SpotPrice\n"
    f"hyperstack__1xH100_80GB__28__180,n3-H100x1,28.0,180.0,H100,1.0,"
    f"{_gpu_info('H100', 1, 81920)},canada,1.9,\n"
    f"hyperstack__1xA100_80GB__28__120,n3-A100x1,28.0,120.0,A100-80GB,1.0,"
    f"{_gpu_info('A100-80GB', 1, 81920)},canada,1.35,\n"
    f"oblivus__1xA100_80GB__28__120,A100_PCIE_80GB,28.0,120.0,A100-80GB,1.0,"
    f"{_gpu_info('A100-80GB', 1, 81920)},canada,1.4755,\n"
    f"lambdalabs__8xH100_80GB__208__1800,gpu_8x_h100_sxm5,208.0,1800.0,H100,8.0,"
    f"{_gpu_info('H100', 8, 81920)},united_states,23.92,\n"
    f"lambdalabs__8xA100_40GB__124__1800,gpu_8x_a100,124.0,1800.0,A100,8.0,"
    f"{_gpu_info('A100', 8, 40960)},united_states,10.32,\n"
    f"crusoecloud__10xL40S_48GB__80__1470,l40s-48gb.10x,80.0,1470.0,L40S,10.0,"
    f"{_gpu_info('L40S', 10, 49152)},united_states,14.5,\n"
    f"datacrunch__1xA100_80GB__22__120__SPOT,1A100.22V,22.0,120.0,A100-80GB,1.0,"
    f"{_gpu_info('A100-80GB', 1, 81920)},finland,,0.53\n"
    f"datacrunch__1xH200_141GB__44__182,1H200.141S.44V,44.0,182.0,H200,1.0,"
    f"{_gpu_info('H200', 1, 144384)},finland,2.0,\n"
    f"massedcompute__1xA100_80GB__16__128,A100-80GB-1x,16.0,128.0,A100-80GB,1.0,"
    f"{_gpu_info('A100-80GB', 1, 81920)},united_states,1.29,\n"
)


@pytest.fixture
def providers(db):
    return {
        slug: ProviderFactory(slug=slug, name=name)
        for slug, name in (
            ("hyperstack", "Hyperstack"),
            ("cudo", "Cudo Compute"),
            ("primeintellect", "Prime Intellect"),
            ("aws", "Amazon Web Services"),
            ("smallcloud", "Small Cloud"),
            ("othercloud", "Other Cloud"),
        )
    }


def _import(user, text: str, provider, **kwargs):
    return catalog_import(
        acting_user=user,
        kind=ImportKind.SKYPILOT,
        data=text.encode(),
        filename="vms.csv",
        captured_on=kwargs.pop("captured_on", DAY),
        provider=provider,
        **kwargs,
    )


def _offers(provider) -> dict[tuple[str, str], tuple[str, Decimal, int]]:
    return {
        (q.title, q.region): (q.accelerator.slug, q.price_per_gpu_hour, q.gpus_per_node)
        for q in Quote.objects.filter(provider=provider).select_related("accelerator")
    }


def test_f1_hyperstack_a100_and_h100_are_the_cards_their_names_state(lead, catalog, providers):
    outcome = _import(lead, HYPERSTACK, providers["hyperstack"])
    offers = _offers(providers["hyperstack"])
    assert offers["n3-A100x1", "CANADA-1"] == ("a100-pcie-80gb", Decimal("1.3500"), 1)
    # 11.20 / 8 = 1.40; PCIe-NVLink is the bridge on the 80 GB PCIe card, not the H100 NVL.
    assert offers["n3-A100x8-NVLink", "CANADA-1"] == ("a100-pcie-80gb", Decimal("1.4000"), 8)
    assert offers["n3-H100x1", "CANADA-1"] == ("h100-pcie-80gb", Decimal("1.9000"), 1)
    assert offers["n3-H100x8-NVLink", "CANADA-1"] == ("h100-pcie-80gb", Decimal("1.9500"), 8)
    # 19.20 / 8 = 2.40, in both regions.
    assert offers["n3-H100-SXM5x8", "CANADA-1"] == ("h100-sxm-80gb", Decimal("2.4000"), 8)
    assert offers["n3-H100-SXM5x8", "US-1"] == ("h100-sxm-80gb", Decimal("2.4000"), 8)
    assert offers["n3-L40x1", "CANADA-1"][0] == "l40-48gb"
    assert offers["n3-RTX-A6000x1", "CANADA-1"][0] == "rtx-a6000-48gb"
    assert outcome.created == 8
    assert outcome.unknown == {"RTX-A4000 (RTX A4000 16GB)": 1}


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("A100-80G-PCIe", "a100-pcie-80gb"),
        ("A100-80G-PCIe-NVLink", "a100-pcie-80gb"),
        ("H100-80G-PCIe", "h100-pcie-80gb"),
        ("H100-80G-PCIe-NVLink", "h100-pcie-80gb"),
        ("H100-80G-SXM5", "h100-sxm-80gb"),
        ("NVIDIA-H100-80GB-HBM3", "h100-sxm-80gb"),  # Hyperbolic: HBM3 rules out the PCIe card
    ],
)
def test_f1_the_name_alone_states_the_variant(catalog, name, slug):
    """Without any instance table entry, Hyperstack's `80G` / `(PCIe|SXM5)` spellings are read."""
    assert identify(name, set(catalog)).slug == slug


def test_f2_f3_cudo_rows_are_what_gpu_info_and_instance_type_state(lead, catalog, providers):
    outcome = _import(lead, CUDO, providers["cudo"])
    offers = _offers(providers["cudo"])
    # GpuInfo says 81920 MiB: the 80 GB card; `-pcie` and `-pci` both say PCIe.
    assert offers["epyc-genoa-a100-pcie_1x2v4gb", "no-luster-1"] == (
        "a100-pcie-80gb",
        Decimal("1.5294"),
        1,
    )
    assert offers["epyc-genoa-a100-pcie_8x64v128gb", "no-luster-1"] == (
        "a100-pcie-80gb",
        Decimal("1.6176"),  # 12.9408 / 8
        8,
    )
    assert offers["intel-ice-lake-a100-pci_1x2v4gb", "se-smedjebacken-1"] == (
        "a100-pcie-80gb",
        Decimal("1.3734"),
        1,
    )
    assert offers["intel-ice-lake-a100-pci_8x64v128gb", "se-smedjebacken-1"] == (
        "a100-pcie-80gb",
        Decimal("1.4436"),  # 11.5488 / 8
        8,
    )
    assert not Quote.objects.filter(accelerator__slug="a100-pcie-40gb").exists()
    # F3: a bare V100 on a Broadwell VM states no form factor: unknown, with the reason.
    assert not Quote.objects.filter(accelerator__slug__startswith="v100").exists()
    assert outcome.unknown["V100 (form factor not stated: SXM or PCIe)"] == 2
    assert outcome.unknown["RTXA4000"] == 1


def test_f4_aggregator_rows_are_the_cards_their_upstream_ids_name(lead, catalog, providers):
    outcome = _import(lead, PRIME_INTELLECT, providers["primeintellect"])
    offers = _offers(providers["primeintellect"])
    # Hyperstack's n3-H100x1 / n3-A100x1 are its PCIe cards; Oblivus says PCIe in its id.
    assert offers["hyperstack__1xH100_80GB__28__180", "canada"] == (
        "h100-pcie-80gb",
        Decimal("1.9000"),
        1,
    )
    assert offers["hyperstack__1xA100_80GB__28__120", "canada"][0] == "a100-pcie-80gb"
    assert offers["oblivus__1xA100_80GB__28__120", "canada"] == (
        "a100-pcie-80gb",
        Decimal("1.4755"),
        1,
    )
    # Lambda's own ids through Lambda's table: SXM5 H100s; the 8-GPU A100 40GB is SXM4.
    assert offers["lambdalabs__8xH100_80GB__208__1800", "united_states"] == (
        "h100-sxm-80gb",
        Decimal("2.9900"),  # 23.92 / 8
        8,
    )
    assert offers["lambdalabs__8xA100_40GB__124__1800", "united_states"][0] == "a100-sxm-40gb"
    # DataCrunch's ids mark SXM boards (`.141S.`; its A100s are SXM4); a spot-only row is spot.
    assert offers["datacrunch__1xH200_141GB__44__182", "finland"] == (
        "h200-sxm-141gb",
        Decimal("2.0000"),
        1,
    )
    spot = Quote.objects.get(title="datacrunch__1xA100_80GB__22__120__SPOT")
    assert (spot.accelerator.slug, spot.capacity_model) == ("a100-sxm-80gb", "spot")
    assert spot.price_per_gpu_hour == Decimal("0.5300")
    # An upstream id no table knows and that states no form factor: unknown, never SXM.
    assert outcome.unknown == {"A100-80GB (form factor not stated: SXM or PCIe)": 1}
    assert not Quote.objects.filter(title__startswith="massedcompute").exists()


def test_f13_a_ten_gpu_node_the_file_states_is_imported(lead, catalog, providers):
    outcome = _import(lead, PRIME_INTELLECT, providers["primeintellect"])
    offer = _offers(providers["primeintellect"])[
        "crusoecloud__10xL40S_48GB__80__1470", "united_states"
    ]
    assert offer == ("l40s-48gb", Decimal("1.4500"), 10)  # 14.50 / 10
    assert not any("per instance" in reason for reason in outcome.skipped)


def test_f13_a_ten_gpu_node_survives_a_price_revision(lead, catalog, providers):
    """A re-import revises the 10-GPU quote through the quote rules, which accept its node."""
    _import(lead, PRIME_INTELLECT, providers["primeintellect"])
    cheaper = PRIME_INTELLECT.replace("united_states,14.5,", "united_states,13.5,")
    outcome = _import(lead, cheaper, providers["primeintellect"], captured_on=date(2026, 12, 7))
    assert outcome.revised == 1
    current = Quote.objects.current().get(title="crusoecloud__10xL40S_48GB__80__1470")
    assert (current.gpus_per_node, current.price_per_gpu_hour) == (10, Decimal("1.3500"))


def test_f14_a_hyperstack_file_under_aws_is_refused(lead, catalog, providers):
    with pytest.raises(ImportRejected) as exc:
        _import(lead, HYPERSTACK, providers["aws"])
    message = exc.value.errors[0]["message"]
    assert "Hyperstack instance types" in message
    assert "Amazon Web Services" in message
    assert not Quote.objects.exists()


@pytest.mark.parametrize("cloud", ["aws", "cudo", "primeintellect"])
def test_f14_a_file_of_an_unknown_cloud_is_refused_under_a_cloud_we_can_tell(
    lead, catalog, providers, cloud
):
    text = (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,Region\n"
        "box-h100,H100-SXM,8.0,96.0,1024.0,,20.0,us\n"
    )
    with pytest.raises(ImportRejected) as exc:
        _import(lead, text, providers[cloud])
    assert "most of this file's instance types are not" in exc.value.errors[0]["message"]
    assert not Quote.objects.exists()


def test_f15_same_bytes_under_another_cloud_are_refused_not_already_imported(
    lead, catalog, providers
):
    assert _import(lead, HYPERSTACK, providers["hyperstack"]).created == 8
    with pytest.raises(ImportRejected) as exc:
        _import(lead, HYPERSTACK, providers["cudo"])
    assert "Hyperstack instance types" in exc.value.errors[0]["message"]
    assert not Quote.objects.filter(provider=providers["cudo"]).exists()


def test_f15_same_bytes_under_another_provider_are_imported_there(lead, catalog, providers):
    """A file of a cloud the importer cannot name: the second provider gets its own quotes,
    and only the same provider again is "already imported"."""
    text = (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,Region\n"
        "box-h100,H100-SXM,8.0,96.0,1024.0,,20.0,us\n"
    )
    assert _import(lead, text, providers["smallcloud"]).created == 1
    again = _import(lead, text, providers["othercloud"])
    assert again.duplicate_of is None
    assert again.created == 1
    assert _offers(providers["othercloud"]) == {
        ("box-h100", "us"): ("h100-sxm-80gb", Decimal("2.5000"), 8)  # 20 / 8
    }
    assert _import(lead, text, providers["smallcloud"]).duplicate_of is not None


PRICE_LIST_HEADER = (
    "provider,accelerator,capacity_model,currency,price_per_gpu_hour,gpus_per_node\n"
)


def test_price_list_names_follow_the_same_identity_rules(lead, catalog, providers):
    """Our template: a name that states the variant imports; one that leaves it open is a row
    error that says what is missing, never the SXM card by default."""
    good = PRICE_LIST_HEADER + "smallcloud,A100-80G-PCIe,on_demand,USD,1.35,8\n"
    outcome = catalog_import(
        acting_user=lead,
        kind=ImportKind.PRICE_LIST,
        data=good.encode(),
        filename="list.csv",
        captured_on=DAY,
    )
    assert outcome.created == 1
    assert Quote.objects.get().accelerator.slug == "a100-pcie-80gb"
    bare = PRICE_LIST_HEADER + "smallcloud,V100,on_demand,USD,0.21,8\n"
    with pytest.raises(ImportRejected) as exc:
        catalog_import(
            acting_user=lead,
            kind=ImportKind.PRICE_LIST,
            data=bare.encode(),
            filename="list2.csv",
            captured_on=DAY,
        )
    [error] = exc.value.errors
    assert error["column"] == "accelerator"
    assert "form factor not stated: SXM or PCIe" in error["message"]


def test_f2_a_reimport_corrects_a_quote_an_earlier_import_gave_the_wrong_card(
    lead, catalog, providers
):
    """Quotes imported before the rule (Cudo's 80 GB A100 stored as the 40 GB card) get a new
    version with the card the row states at the next refresh; the old version is kept."""
    _import(lead, CUDO, providers["cudo"])
    title = "epyc-genoa-a100-pcie_1x2v4gb"
    Quote.objects.filter(title=title).update(accelerator=catalog["a100-pcie-40gb"])
    outcome = _import(lead, CUDO, providers["cudo"], captured_on=date(2026, 12, 7))
    assert outcome.revised == 1
    current = Quote.objects.current().get(title=title)
    assert current.accelerator.slug == "a100-pcie-80gb"
    assert current.price_per_gpu_hour == Decimal("1.5294")
    assert current.supersedes.accelerator.slug == "a100-pcie-40gb"


def test_f3_a_quote_an_earlier_import_took_for_a_look_alike_is_withdrawn_saying_why(
    lead, catalog, providers
):
    """Cudo's bare V100 was stored as the SXM2 card; the row still lists it, but no longer
    identifies a catalog GPU, so the quote is withdrawn with that reason (not "left the file")."""
    earlier = QuoteFactory(
        provider=providers["cudo"],
        accelerator=catalog["v100-sxm2-16gb"],
        title="intel-broadwell-v100_1x2v4gb",
        region="ca-montreal-2",
        gpus_per_node=1,
        price_per_gpu_hour=Decimal("0.2100"),
        is_public_list_price=True,
        list_key="skypilot:cudo:intel-broadwell-v100_1x2v4gb|ca-montreal-2|on_demand",
        entered_by=lead,
    )
    outcome = _import(lead, CUDO, providers["cudo"])
    assert outcome.withdrawn == 1
    withdrawn = Quote.objects.get(supersedes=earlier)
    assert withdrawn.status == Quote.Status.WITHDRAWN
    assert withdrawn.notes == (
        "Withdrawn: the imported row no longer identifies a catalog GPU: "
        "V100 (form factor not stated: SXM or PCIe)"
    )


def test_f15_a_litellm_file_for_other_providers_is_not_already_imported(lead, catalog):
    """The same LiteLLM bytes imported for OpenAI, then for Anthropic: the second import
    writes Anthropic's route; only the same selection again is "already imported"."""
    openai = ProviderFactory(slug="openai", name="OpenAI")
    anthropic = ProviderFactory(slug="anthropic", name="Anthropic")
    data = (
        b'{"gpt-4o": {"litellm_provider": "openai", "mode": "chat", '
        b'"input_cost_per_token": 2.5e-06, "output_cost_per_token": 1e-05}, '
        b'"claude-sonnet-4-5": {"litellm_provider": "anthropic", "mode": "chat", '
        b'"input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05}}'
    )

    def run(providers):
        return catalog_import(
            acting_user=lead,
            kind=ImportKind.LITELLM,
            data=data,
            filename="prices.json",
            captured_on=DAY,
            only_providers=providers,
        )

    assert run([openai]).created == 1
    second = run([anthropic])
    assert second.duplicate_of is None
    assert second.created == 1
    route = ModelApiRoute.objects.get(provider=anthropic)
    assert route.price_input_per_m_tokens == Decimal("3.00000000")  # 3e-06 × 10^6
    assert run([openai]).duplicate_of is not None
