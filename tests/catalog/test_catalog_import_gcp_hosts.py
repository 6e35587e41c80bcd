"""GCP GPUs that attach to a VM priced on its own row (findings R3, R12): N1 + T4/V100/P100 and
G2 + L4 are priced as billed, host VM + GPU; a GPU whose host is not in the file is named.

The file is written for the test in the format of SkyPilot's GCP `vms.csv`; the figures are
made up.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from catalog.importers.skypilot import N1_HOST_NOTE, skip_attachable, skip_no_host
from catalog.models import Quote
from catalog.services import ImportKind, catalog_import
from tests.factories import ProviderFactory

pytestmark = pytest.mark.django_db

HEADER = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
    "Region,AvailabilityZone\n"
)
GCP_ATTACHABLE = HEADER + (
    "n1-highmem-8,,,8.0,52.0,,0.4736,0.0946,us-central1,us-central1-a\n"
    "n1-standard-8,,,8.0,30.0,,0.3800,0.0800,us-central1,us-central1-a\n"
    ",T4,1.0,,,,0.35,0.07,us-central1,us-central1-a\n"
    ",T4,4.0,,,,1.40,0.28,us-central1,us-central1-a\n"
    ",V100,8.0,,,,19.84,3.97,us-central1,us-central1-a\n"
    ",P100,1.0,,,,1.46,0.29,us-central1,us-central1-a\n"
    "g2-standard-4,,,4.0,16.0,,0.2000,0.0800,us-central1,us-central1-a\n"
    "g2-standard-8,,,8.0,32.0,,0.3000,0.1200,us-central1,us-central1-a\n"
    ",L4,1.0,,,,0.56,0.22,us-central1,us-central1-a\n"
    ",L4,2.0,,,,1.12,0.44,us-central1,us-central1-a\n"
    ",T4,1.0,,,,0.35,0.07,europe-west4,europe-west4-a\n"
    ",tpu-v4-8,1.0,,,,12.88,,us-central1,us-central1-a\n"
)


def _import(user, provider):
    return catalog_import(
        acting_user=user,
        kind=ImportKind.SKYPILOT,
        data=GCP_ATTACHABLE.encode(),
        filename="vms.csv",
        captured_on=date(2026, 11, 20),
        provider=provider,
    )


@pytest.fixture
def gcp(db):
    return ProviderFactory(slug="gcp", name="Google Cloud")


def _quotes(gcp):
    return {(q.title, q.capacity_model): q for q in Quote.objects.filter(provider=gcp)}


def test_r3_n1_gpus_priced_with_skypilots_default_host(lead, catalog, gcp):
    """N1 + T4/V100: the n1-highmem-8 price is added, per GPU, and the quote says which host."""
    _import(lead, gcp)
    quotes = _quotes(gcp)
    t4 = quotes["n1-highmem-8 + 1× T4", "on_demand"]
    assert t4.price_per_gpu_hour == Decimal("0.8236")  # 0.4736 host + 0.35 GPU
    assert quotes["n1-highmem-8 + 1× T4", "spot"].price_per_gpu_hour == Decimal("0.1646")
    assert t4.accelerator.slug == "t4-16gb"
    assert (t4.vcpu_per_node, t4.gpus_per_node) == (8, 1)
    assert t4.notes == N1_HOST_NOTE
    four = quotes["n1-highmem-8 + 4× T4", "on_demand"]
    assert four.price_per_gpu_hour == Decimal("0.4684")  # (0.4736 + 1.40) / 4
    v100 = quotes["n1-highmem-8 + 8× V100", "on_demand"]
    assert v100.price_per_gpu_hour == Decimal("2.5392")  # (0.4736 + 19.84) / 8
    assert v100.accelerator.slug == "v100-sxm2-16gb"


def test_r3_g2_l4_priced_with_the_smallest_g2_host_in_the_file(lead, catalog, gcp):
    """G2 + L4: one L4 is priced on g2-standard-4 (the smallest G2 shape listed)."""
    _import(lead, gcp)
    l4 = _quotes(gcp)["g2-standard-4", "on_demand"]
    assert l4.price_per_gpu_hour == Decimal("0.7600")  # 0.20 host + 0.56 GPU
    assert l4.accelerator.slug == "l4-24gb"
    assert l4.notes == "Host machine type price included."


def test_r3_gpu_rows_without_a_host_in_the_file_are_named_and_counted(lead, catalog, gcp):
    """Never GPU-only: each skipped row is reported with the GPU, its count and the host."""
    outcome = _import(lead, gcp)
    assert outcome.skipped[skip_no_host("L4", 2, ("g2-standard-24",))] == 1
    assert outcome.skipped[skip_no_host("T4", 1, ("n1-highmem-8",))] == 1  # europe-west4
    assert outcome.skipped[skip_attachable("tpu-v4-8", 1)] == 1
    assert outcome.unknown == {"P100": 1}  # priced, but not in the catalog (R12): listed
    assert not Quote.objects.filter(region="europe-west4").exists()
    # Every imported GPU price carries its host: none is below the host's own price.
    for quote in Quote.objects.filter(provider=gcp, capacity_model="on_demand"):
        assert quote.notes
        assert quote.price_per_gpu_hour * quote.gpus_per_node > Decimal("0.2")
