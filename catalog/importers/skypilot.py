"""SkyPilot catalog `vms.csv` (schema v5+): instance list prices → per-GPU-hour rows.

Columns used: InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, GpuInfo, Price,
SpotPrice, Region, AvailabilityZone (column order differs between clouds). Price and SpotPrice
are USD per instance-hour, so the per-GPU-hour price is Price / AcceleratorCount.

Priced as billed: Google Cloud's catalog lists the host machine type (`a2-highgpu-1g`, no
accelerator) and the GPUs (no instance type) in separate rows; a GPU row without an instance
type is combined with its host row (same region and zone, the machine type that carries that
GPU count) and titled by it. GPUs that attach to an N1 VM of the buyer's
choosing (T4, V100, P100, P4, K80) are priced on SkyPilot's default host for them, n1-highmem-8
(8 vCPUs at 4 GB or more per vCPU), titled "n1-highmem-8 + N× GPU" and noted as such. A GPU row
whose host row is missing, or whose host cannot be told from the file, is skipped and named in
the outcome (GPU, count and the host looked for), never imported GPU-only. CPU-only rows and
rows without a price are skipped and counted, never errors. Which card a row is, is decided by
`catalog.importers.identity` from what the row states (instance type, an aggregator's
`UpstreamCloudId`, the GPU name, `GpuInfo`); the parser only carries those texts.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from catalog.importers.common import CellReader, ParseResult, RowError, decode_text, read_csv
from catalog.importers.instances import (
    gpu_of_gcp_n1,
    gpu_of_instance,
    gpu_of_upstream,
    is_gpu_family,
)
from catalog.importers.names import normalise_name

REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
GIB_TO_GB = Decimal("1.073741824")
PRICE_QUANTUM = Decimal("0.0001")
# GCP: the machine types that carry N of these GPUs, cheapest first ({n} = the GPU count).
GCP_HOSTS: dict[str, str | dict[int, tuple[str, ...]]] = {
    "a100": "a2-highgpu-{n}g",
    "a10080gb": "a2-ultragpu-{n}g",
    "h100": "a3-highgpu-{n}g",
    "h100mega": "a3-megagpu-{n}g",
    "h200": "a3-ultragpu-{n}g",
    "b200": "a4-highgpu-{n}g",
    # G2 is the only family L4s attach to; one L4 comes with 4 to 32 vCPUs.
    "l4": {
        1: ("g2-standard-4", "g2-standard-8", "g2-standard-12", "g2-standard-16", "g2-standard-32"),
        2: ("g2-standard-24",),
        4: ("g2-standard-48",),
        8: ("g2-standard-96",),
    },
}
# These attach to any N1 VM, so the file cannot say which one a buyer runs; SkyPilot launches
# them on 8 vCPUs with at least 4 GB per vCPU, which is n1-highmem-8.
GCP_N1_GPUS = frozenset({"t4", "v100", "p100", "p4", "k80"})
GCP_N1_HOST = "n1-highmem-8"
N1_HOST_NOTE = (
    "Host machine type price included: n1-highmem-8, SkyPilot's default host for GPUs attached "
    "to N1 VMs; another N1 shape costs more or less."
)


def skip_no_host(name: str, gpus: int, hosts: tuple[str, ...]) -> str:
    return (
        f"{name} ×{gpus}: host machine type {' or '.join(hosts)} has no price in the file "
        "for that region and zone (not imported GPU-only)"
    )


def skip_attachable(name: str, gpus: int) -> str:
    return (
        f"{name} ×{gpus}: no instance type and no known host machine type, so the price "
        "depends on a VM the file does not name (not imported GPU-only)"
    )


def gcp_hosts_for(name: str, gpus: int) -> tuple[str, ...]:
    """The machine types that can carry `gpus` of this GCP GPU, in order of preference."""
    key = normalise_name(name)
    if key in GCP_N1_GPUS:
        return (GCP_N1_HOST,)
    pattern = GCP_HOSTS.get(key)
    if pattern is None:
        return ()
    if isinstance(pattern, dict):
        return pattern.get(gpus, ())
    if key == "a100" and gpus == 16:
        return ("a2-megagpu-16g",)
    return (pattern.format(n=gpus),)


SKIP_CPU_ONLY = "CPU-only instance (no accelerator)"
SKIP_NO_ACCELERATOR_NAMED = "GPU instance type, but the file names no accelerator for it"
SKIP_SPOT_NOT_CHEAPER = "spot price not below on-demand (the on-demand quote is the offer)"
# How each cloud names its instance types and regions, to check the provider chosen.
CLOUD_PATTERNS = {
    "aws": re.compile(r"^[a-z][a-z0-9-]*\.[0-9a-z]+$"),
    "gcp": re.compile(r"^[a-z][a-z0-9]*-(highgpu|ultragpu|megagpu|edgegpu|standard|highmem)-"),
    "azure": re.compile(r"^Standard_"),
    "lambda": re.compile(r"^gpu_\d+x_"),
    "runpod": re.compile(r"^\d+x_.+_(SECURE|COMMUNITY)$"),
    "nebius": re.compile(r"^(gpu|cpu)-[a-z0-9-]+_\d+(gpu|vcpu)"),
    "oci": re.compile(r"^(BM|VM)\.GPU"),
    "hyperstack": re.compile(r"^n3-"),
    "cudo": re.compile(r"^[a-z0-9-]+_\d+x\d+v\d+gb$"),
    "primeintellect": re.compile(r"^[a-z0-9]+__"),
}
# Clouds whose every instance type, CPU or GPU, follows the pattern (Cudo's and Prime
# Intellect's catalogs list GPU machines only): a file where most rows do not is not theirs.
NAMES_EVERY_TYPE = frozenset({"aws", "azure", "cudo", "primeintellect"})


@dataclass(frozen=True, slots=True)
class SkyPilotRow:
    row: int
    instance_type: str
    accelerator_name: str
    accelerator_count: int
    vcpus: int | None
    ram_gb: int | None
    region: str
    zone: str
    on_demand_per_gpu_hour: Decimal | None
    spot_per_gpu_hour: Decimal | None
    gpu_info: str = ""  # the GpuInfo cell, read by the identity rules
    upstream_id: str = ""  # an aggregator's UpstreamCloudId
    title: str = ""
    host_included: bool = False
    host_note: str = ""  # how the host machine type was chosen, when the file does not say
    # the card the instance-type table names for the instance type, or for an aggregator's
    # upstream instance id ("" when it has no entry)
    table_card: str = ""
    table_slug: str | None = None  # its catalog slug (None: not in the catalog)


@dataclass(frozen=True, slots=True)
class _Host:
    price: Decimal | None
    spot: Decimal | None
    vcpus: Decimal | None
    memory: Decimal | None


def per_gpu(price: Decimal | None, count: int) -> Decimal | None:
    if price is None:
        return None
    return (price / count).quantize(PRICE_QUANTUM, rounding=ROUND_HALF_UP)


def detect_cloud(instance_types: list[str]) -> str | None:
    """The cloud whose naming most instance types follow (None when it is not clear)."""
    votes: Counter[str] = Counter()
    for name in instance_types:
        for cloud, pattern in CLOUD_PATTERNS.items():
            if pattern.match(name):
                votes[cloud] += 1
                break
    if not votes:
        return None
    cloud, count = votes.most_common(1)[0]
    return cloud if count * 2 > len(instance_types) else None


def _sum(a: Decimal | None, b: Decimal | None) -> Decimal | None:
    return None if a is None or b is None else a + b


def parse_skypilot_vms(data: bytes) -> ParseResult[SkyPilotRow]:
    result: ParseResult[SkyPilotRow] = ParseResult()
    _, rows = read_csv(decode_text(data), required=REQUIRED_COLUMNS)
    hosts: dict[tuple[str, str, str], _Host] = {}
    gpu_rows: list[tuple[int, CellReader, Decimal, str]] = []
    unnamed: list[str] = []
    instance_types: list[str] = []
    for number, cells in rows:
        reader = CellReader(number, cells, result.errors)
        name = reader.text("AcceleratorName", max_len=80)
        instance = reader.text("InstanceType", max_len=120)
        if instance:
            instance_types.append(instance)
        price = reader.decimal("Price")
        spot = reader.decimal("SpotPrice")
        for column, value in (("Price", price), ("SpotPrice", spot)):
            if value is not None and value < 0:
                reader.fail(column, f"A price cannot be negative ({value}).")
        region = reader.text("Region", required=True, max_len=60)
        zone = reader.text("AvailabilityZone", max_len=60)
        if not name:
            if reader.ok and instance:
                hosts[(instance, region, zone)] = _Host(
                    price or None,
                    spot or None,
                    reader.decimal("vCPUs"),
                    reader.decimal("MemoryGiB"),
                )
            unnamed.append(instance)
            continue
        count = reader.decimal("AcceleratorCount", required=True)
        if not reader.ok or count is None:
            continue
        if count < 1 or count != count.to_integral_value():
            result.skip("fractional or zero accelerator count (shared GPU)")
            continue
        gpu_rows.append((number, reader, count, name))
    cloud = detect_cloud(instance_types)
    result.facts["cloud"] = cloud
    for instance in unnamed:
        gpu_family = is_gpu_family(cloud, instance)
        result.skip(SKIP_NO_ACCELERATOR_NAMED if gpu_family else SKIP_CPU_ONLY)
    for number, reader, count, name in gpu_rows:
        row = _gpu_row(number, reader, int(count), name, hosts, result, cloud)
        if row is not None:
            result.rows.append(row)
    if not result.rows and not result.errors:
        result.errors.append(RowError(None, None, "The file lists no GPU instance with a price."))
    return result


def _gpu_row(
    number: int,
    reader: CellReader,
    gpus: int,
    name: str,
    hosts: dict[tuple[str, str, str], _Host],
    result: ParseResult[SkyPilotRow],
    cloud: str | None,
) -> SkyPilotRow | None:
    instance = reader.text("InstanceType", max_len=120)
    region = reader.text("Region", max_len=60)
    zone = reader.text("AvailabilityZone", max_len=60)
    price, spot = reader.decimal("Price") or None, reader.decimal("SpotPrice") or None
    vcpus, memory = reader.decimal("vCPUs"), reader.decimal("MemoryGiB")
    host_included, title, host_note = False, instance, ""
    if not instance:  # GCP: the GPUs alone; add the host machine type's price
        candidates = gcp_hosts_for(name, gpus)
        if not candidates:
            result.skip(skip_attachable(name, gpus))
            return None
        found = [
            (host_name, host)
            for host_name in candidates
            if (host := hosts.get((host_name, region, zone))) is not None
            and (host.price is not None or host.spot is not None)
        ]
        if not found:
            result.skip(skip_no_host(name, gpus, candidates))
            return None
        instance, host = found[0]
        price, spot = _sum(price, host.price), _sum(spot, host.spot)
        vcpus, memory, host_included = host.vcpus, host.memory, True
        title = instance
        if instance == GCP_N1_HOST:  # one N1 shape carries many GPU kinds and counts
            title, host_note = f"{instance} + {gpus}× {name}", N1_HOST_NOTE
    on_demand, spot_gpu = per_gpu(price, gpus), per_gpu(spot, gpus)
    if not on_demand and not spot_gpu:
        result.skip("no price listed")
        return None
    # RunPod's file repeats the on-demand price as the spot price: an interruptible copy at
    # the same price is no offer of its own, only a second identical candidate.
    if on_demand and spot_gpu and spot_gpu >= on_demand:
        result.skip(SKIP_SPOT_NOT_CHEAPER)
        spot_gpu = None
    upstream = reader.text("UpstreamCloudId", max_len=120)
    identified = (
        gpu_of_gcp_n1(name)
        if host_included and instance == GCP_N1_HOST
        else gpu_of_instance(cloud, instance) or gpu_of_upstream(instance, upstream)
    )
    return SkyPilotRow(
        row=number,
        instance_type=instance,
        accelerator_name=name,
        accelerator_count=gpus,
        vcpus=int(vcpus) if vcpus else None,
        ram_gb=int(memory * GIB_TO_GB) if memory else None,
        region=region,
        zone=zone,
        on_demand_per_gpu_hour=on_demand or None,
        spot_per_gpu_hour=spot_gpu or None,
        gpu_info=reader.text("GpuInfo", max_len=2000),
        upstream_id=upstream,
        title=title or f"{gpus}x {name}",
        host_included=host_included,
        host_note=host_note,
        table_card=identified.card if identified else "",
        table_slug=identified.slug if identified else None,
    )
