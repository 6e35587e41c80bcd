"""Which GPU each cloud's instance type carries: family and size → the exact catalog SKU.

A GPU name in a price file ("A100-80GB", "H100", "V100") does not say the form factor, the
memory or whether the cards are linked by NVLink; the instance type does, because each cloud
documents which card a family carries. This table is read before any name is guessed from the
accelerator column. Every entry cites the cloud's own page (listed in docs/imports.md with the
date it was read). An entry whose slug is None names a card the catalog does not hold, so it is
reported as unknown instead of being taken for a look-alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from catalog.importers.names import normalise_name


@dataclass(frozen=True, slots=True)
class InstanceGpu:
    pattern: re.Pattern[str]  # matched against the whole instance type
    slug: str | None  # None: the card is known, but not in the catalog
    card: str  # the card as the cloud names it, for messages
    source: str  # a key of SOURCES


def _rule(pattern: str, slug: str | None, card: str, source: str) -> InstanceGpu:
    return InstanceGpu(re.compile(pattern), slug, card, source)


SOURCES: dict[str, str] = {
    "aws-p5": "https://aws.amazon.com/ec2/instance-types/p5/",
    "aws-p4": "https://aws.amazon.com/ec2/instance-types/p4/",
    "aws-p3": "https://aws.amazon.com/ec2/instance-types/p3/",
    "aws-p6": "https://aws.amazon.com/ec2/instance-types/p6/",
    "aws-g5": "https://aws.amazon.com/ec2/instance-types/g5/",
    "aws-g6": "https://aws.amazon.com/ec2/instance-types/g6/",
    "aws-g6e": "https://aws.amazon.com/ec2/instance-types/g6e/",
    "aws-g4": "https://aws.amazon.com/ec2/instance-types/g4/",
    "azure-gpu": "https://learn.microsoft.com/azure/virtual-machines/sizes/overview#gpu-accelerated",
    "gcp-gpu": "https://cloud.google.com/compute/docs/gpus",
    "oci-gpu": "https://docs.oracle.com/iaas/Content/Compute/References/computeshapes.htm",
    "lambda": "https://docs.lambda.ai/public-cloud/on-demand/",
    "runpod": "https://docs.runpod.io/references/gpu-types",
    "hyperstack": "https://www.hyperstack.cloud/gpu-pricing",
    "datacrunch": "https://datacrunch.io/products",
}

INSTANCE_GPUS: dict[str, tuple[InstanceGpu, ...]] = {
    "aws": (
        _rule(r"p5\.(4|48)xlarge", "h100-sxm-80gb", "H100 SXM 80GB", "aws-p5"),
        _rule(r"p5en?\.48xlarge", "h200-sxm-141gb", "H200 SXM 141GB", "aws-p5"),
        _rule(r"p4d\.24xlarge", "a100-sxm-40gb", "A100 SXM 40GB", "aws-p4"),
        _rule(r"p4de\.24xlarge", "a100-sxm-80gb", "A100 SXM 80GB", "aws-p4"),
        _rule(r"p3\.(2|8|16)xlarge", "v100-sxm2-16gb", "V100 SXM2 16GB", "aws-p3"),
        _rule(r"p3dn\.24xlarge", "v100-sxm2-32gb", "V100 SXM2 32GB", "aws-p3"),
        _rule(r"p6-b200\.48xlarge", "b200-hgx-180gb", "B200", "aws-p6"),
        _rule(r"g5\.\w+", "a10g-24gb", "A10G 24GB", "aws-g5"),
        _rule(r"gr?6\.\w+", "l4-24gb", "L4 24GB", "aws-g6"),
        _rule(r"g6e\.\w+", "l40s-48gb", "L40S 48GB", "aws-g6e"),
        _rule(r"g4dn\.\w+", "t4-16gb", "T4 16GB", "aws-g4"),
        _rule(r"g4ad\.\w+", None, "Radeon Pro V520", "aws-g4"),
    ),
    "azure": (
        _rule(r"Standard_NC\d+ads_A100_v4", "a100-pcie-80gb", "A100 PCIe 80GB", "azure-gpu"),
        _rule(r"Standard_ND96asr_v4", "a100-sxm-40gb", "A100 SXM 40GB", "azure-gpu"),
        _rule(r"Standard_ND96amsr_A100_v4", "a100-sxm-80gb", "A100 SXM 80GB", "azure-gpu"),
        _rule(r"Standard_NC\d+adi?s_H100_v5", "h100-nvl-94gb", "H100 NVL 94GB", "azure-gpu"),
        _rule(r"Standard_ND96isr_H100_v5", "h100-sxm-80gb", "H100 SXM 80GB", "azure-gpu"),
        _rule(r"Standard_ND96isr_H200_v5", "h200-sxm-141gb", "H200 SXM 141GB", "azure-gpu"),
        _rule(r"Standard_NC\d+r?s_v3", "v100-pcie-16gb", "V100 PCIe 16GB", "azure-gpu"),
        _rule(r"Standard_ND40rs_v2", "v100-sxm2-32gb", "V100 SXM2 32GB", "azure-gpu"),
        _rule(r"Standard_NC\d+as_T4_v3", "t4-16gb", "T4 16GB", "azure-gpu"),
        _rule(r"Standard_ND96is_MI300X_v5", "mi300x-192gb", "Instinct MI300X", "azure-gpu"),
        _rule(r"Standard_NC\d+r?s_v2", None, "Tesla P100 16GB", "azure-gpu"),
        _rule(r"Standard_ND\d+r?s", None, "Tesla P40 24GB", "azure-gpu"),
        _rule(r"Standard_NC\d+r?", None, "Tesla K80", "azure-gpu"),
    ),
    "gcp": (
        _rule(r"a2-(highgpu-\d+g|megagpu-16g)", "a100-sxm-40gb", "A100 40GB", "gcp-gpu"),
        _rule(r"a2-ultragpu-\d+g", "a100-sxm-80gb", "A100 80GB", "gcp-gpu"),
        _rule(r"a3-(highgpu|megagpu|edgegpu)-\d+g", "h100-sxm-80gb", "H100 80GB", "gcp-gpu"),
        _rule(r"a3-ultragpu-\d+g", "h200-sxm-141gb", "H200 141GB", "gcp-gpu"),
        _rule(r"a4-highgpu-\d+g", "b200-hgx-180gb", "B200", "gcp-gpu"),
        _rule(r"g2-standard-\d+", "l4-24gb", "L4", "gcp-gpu"),
    ),
    "oci": (
        _rule(r"BM\.GPU\.H100\.8", "h100-sxm-80gb", "H100 80GB", "oci-gpu"),
        _rule(r"BM\.GPU\.H200\.8", "h200-sxm-141gb", "H200 141GB", "oci-gpu"),
        _rule(r"BM\.GPU\.B200\.8", "b200-hgx-180gb", "B200", "oci-gpu"),
        _rule(r"BM\.GPU\.GB200\.4", "gb200-per-gpu-186gb", "GB200", "oci-gpu"),
        _rule(r"BM\.GPU\.A100-v2\.8", "a100-sxm-80gb", "A100 80GB", "oci-gpu"),
        _rule(r"BM\.GPU4\.8", "a100-sxm-40gb", "A100 40GB", "oci-gpu"),
        _rule(r"BM\.GPU\.L40S(-NC)?\.4", "l40s-48gb", "L40S", "oci-gpu"),
        _rule(r"(VM\.GPU3\.\d|BM\.GPU3\.8)", "v100-sxm2-16gb", "V100 16GB", "oci-gpu"),
        _rule(r"(VM|BM)\.GPU\.A10\.\d", "a10-24gb", "A10", "oci-gpu"),
        _rule(r"BM\.GPU\.MI300X\.8", "mi300x-192gb", "Instinct MI300X", "oci-gpu"),
        _rule(r"BM\.GPU\.MI355X\.8", "mi355x-288gb", "Instinct MI355X", "oci-gpu"),
        _rule(
            r"BM\.GPU\.RTXPRO\.8",
            "rtx-pro-6000-blackwell-server-96gb",
            "RTX PRO 6000 Blackwell Server Edition",
            "oci-gpu",
        ),
        _rule(r"(VM\.GPU2\.1|BM\.GPU2\.2)", None, "Tesla P100 16GB", "oci-gpu"),
        _rule(r"BM\.GPU\.GB300\.4", None, "GB300", "oci-gpu"),
    ),
    "lambda": (
        _rule(r"gpu_\d+x_h100_sxm5", "h100-sxm-80gb", "H100 SXM5 80GB", "lambda"),
        _rule(r"gpu_\d+x_h100_pcie", "h100-pcie-80gb", "H100 PCIe 80GB", "lambda"),
        _rule(r"gpu_\d+x_a100_sxm4", "a100-sxm-40gb", "A100 SXM4 40GB", "lambda"),
        _rule(r"gpu_\d+x_a100_80gb_sxm4", "a100-sxm-80gb", "A100 SXM4 80GB", "lambda"),
        # Lambda's 8-GPU A100 40GB machine is the SXM4 one; the 1-4 GPU gpu_<n>x_a100 are PCIe.
        _rule(r"gpu_8x_a100", "a100-sxm-40gb", "A100 SXM4 40GB", "lambda"),
        _rule(r"gpu_\d+x_a100", "a100-pcie-40gb", "A100 PCIe 40GB", "lambda"),
        _rule(r"gpu_\d+x_b200_sxm6", "b200-hgx-180gb", "B200 SXM6", "lambda"),
        _rule(r"gpu_\d+x_gh200", "gh200-96gb", "GH200 96GB", "lambda"),
        _rule(r"gpu_\d+x_a10", "a10-24gb", "A10 24GB", "lambda"),
        _rule(r"gpu_\d+x_a6000", "rtx-a6000-48gb", "RTX A6000 48GB", "lambda"),
        _rule(r"gpu_\d+x_v100", "v100-sxm2-16gb", "Tesla V100 SXM2 16GB", "lambda"),
        _rule(r"gpu_\d+x_rtx6000", None, "Quadro RTX 6000 24GB", "lambda"),
    ),
    # Hyperstack's flavors: `-NVLink` is the NVLink bridge between 80 GB PCIe cards (not the
    # H100 NVL 94GB); only `-SXM5` flavors carry SXM boards.
    "hyperstack": (
        _rule(r"n3-H100-SXM5x\d+", "h100-sxm-80gb", "H100 SXM5 80GB", "hyperstack"),
        _rule(r"n3-H100x\d+(-NVLink)?", "h100-pcie-80gb", "H100 PCIe 80GB", "hyperstack"),
        _rule(r"n3-A100x\d+(-NVLink)?", "a100-pcie-80gb", "A100 PCIe 80GB", "hyperstack"),
        _rule(r"n3-L40x\d+", "l40-48gb", "L40 48GB", "hyperstack"),
        _rule(r"n3-RTX-A6000x\d+", "rtx-a6000-48gb", "RTX A6000 48GB", "hyperstack"),
        _rule(r"n3-RTX-A4000x\d+", None, "RTX A4000 16GB", "hyperstack"),
    ),
    # DataCrunch (now Verda) sells its A100, H100 and H200 as SXM boards only; its instance
    # types are <count><GPU>[.<memory>S].<vCPUs>V, the `S` marking SXM.
    "datacrunch": (
        _rule(r"\d+H100\.80S\.\d+V", "h100-sxm-80gb", "H100 SXM5 80GB", "datacrunch"),
        _rule(r"\d+H200\.141S\.\d+V", "h200-sxm-141gb", "H200 SXM5 141GB", "datacrunch"),
        _rule(r"\d+A100\.40S\.\d+V", "a100-sxm-40gb", "A100 SXM4 40GB", "datacrunch"),
        _rule(r"\d+A100\.\d+V", "a100-sxm-80gb", "A100 SXM4 80GB", "datacrunch"),
    ),
}
# An aggregator's instance type names the cloud it resells (`hyperstack__1xH100_80GB__28__180`
# on Prime Intellect) and its `UpstreamCloudId` that cloud's own instance type: the upstream's
# table applies to it (every cloud with a table is named as itself, two also otherwise).
AGGREGATOR_TYPE = re.compile(r"(?P<upstream>[a-z0-9]+)__\d+x.+")
UPSTREAM_CLOUDS = {
    **{cloud: cloud for cloud in (*INSTANCE_GPUS, "runpod")},
    "verda": "datacrunch",
    "lambdalabs": "lambda",
}

# RunPod's instance types are "<count>x_<GPU>_<SECURE|COMMUNITY>"; the GPU part (normalised) is
# RunPod's GPU type. RunPod sells its A100 80GB and H100 in PCIe and SXM versions under different
# names, so the bare "A100-80GB" is the PCIe card and the SXM one always says SXM or HBM3.
RUNPOD_GPUS: dict[str, tuple[str | None, str]] = {
    "a10080gb": ("a100-pcie-80gb", "A100 80GB PCIe"),
    "a100pcie": ("a100-pcie-80gb", "A100 80GB PCIe"),
    "a10080gbsxm4": ("a100-sxm-80gb", "A100 SXM4 80GB"),
    "a100sxm480gb": ("a100-sxm-80gb", "A100 SXM4 80GB"),
    "a100sxm": ("a100-sxm-80gb", "A100 SXM4 80GB"),
    "h10080gbhbm3": ("h100-sxm-80gb", "H100 SXM5 80GB"),
    "h100sxm": ("h100-sxm-80gb", "H100 SXM5 80GB"),
    "h100pcie": ("h100-pcie-80gb", "H100 PCIe 80GB"),
    "h100nvl": ("h100-nvl-94gb", "H100 NVL 94GB"),
    "h200sxm": ("h200-sxm-141gb", "H200 SXM 141GB"),
    "rtx4090": ("rtx-4090-24gb", "GeForce RTX 4090"),
    "rtx5090": ("rtx-5090-32gb", "GeForce RTX 5090"),
    "rtx6000ada": ("rtx-6000-ada-48gb", "RTX 6000 Ada"),
    "rtxa6000": ("rtx-a6000-48gb", "RTX A6000"),
    "a6000": ("rtx-a6000-48gb", "RTX A6000"),
    "l40s": ("l40s-48gb", "L40S"),
    "l40": ("l40-48gb", "L40"),
    "l4": ("l4-24gb", "L4"),
    "mi300x": ("mi300x-192gb", "Instinct MI300X"),
    "a40": (None, "A40 48GB"),
    "rtx3090": (None, "GeForce RTX 3090"),
    "rtxa4000": (None, "RTX A4000"),
    "rtxa4500": (None, "RTX A4500"),
    "rtxa5000": (None, "RTX A5000"),
}
_RUNPOD_TYPE = re.compile(r"\d+x_(?P<gpu>.+)_(SECURE|COMMUNITY)")


@dataclass(frozen=True, slots=True)
class Identified:
    """What the table says an instance type carries."""

    slug: str | None
    card: str
    source_url: str


def gpu_of_instance(cloud: str | None, instance_type: str) -> Identified | None:
    """The card this cloud's instance type carries, or None when the table has no entry."""
    if not cloud or not instance_type:
        return None
    if cloud == "runpod":
        match = _RUNPOD_TYPE.fullmatch(instance_type)
        entry = RUNPOD_GPUS.get(normalise_name(match.group("gpu"))) if match else None
        return Identified(entry[0], entry[1], SOURCES["runpod"]) if entry else None
    for rule in INSTANCE_GPUS.get(cloud, ()):
        if rule.pattern.fullmatch(instance_type):
            return Identified(rule.slug, rule.card, SOURCES[rule.source])
    return None


# Google Cloud's N1 VMs take a GPU of the buyer's choosing: the GPU row names the card, and
# Google documents one board per name (its V100s are the 16 GB SXM2 boards linked by NVLink).
GCP_N1_GPUS: dict[str, tuple[str | None, str]] = {
    "v100": ("v100-sxm2-16gb", "V100 SXM2 16GB"),
    "t4": ("t4-16gb", "T4 16GB"),
}


def gpu_of_gcp_n1(gpu_name: str) -> Identified | None:
    entry = GCP_N1_GPUS.get(normalise_name(gpu_name))
    return Identified(entry[0], entry[1], SOURCES["gcp-gpu"]) if entry else None


def gpu_of_upstream(instance_type: str, upstream_id: str) -> Identified | None:
    """The card an aggregator's row carries, from its upstream cloud's own instance type."""
    match = AGGREGATOR_TYPE.fullmatch(instance_type)
    if match is None or not upstream_id:
        return None
    return gpu_of_instance(UPSTREAM_CLOUDS.get(match.group("upstream")), upstream_id)


def is_gpu_family(cloud: str | None, instance_type: str) -> bool:
    """Whether the table knows this instance type as a GPU one (whatever its card)."""
    return gpu_of_instance(cloud, instance_type) is not None or (
        cloud == "azure" and instance_type.startswith(("Standard_NC", "Standard_ND", "Standard_NV"))
    )
