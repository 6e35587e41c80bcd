"""Seed the 20 procurement checklist items (docs/domain.md, four sections), in the product's words.

`is_basic` marks the eight items asked even of on-demand and spot capacity: what the GPU
actually is, where it runs, what software it supports, how it is reached, what it costs
beyond the GPU-hour, whether idle time is billed, and the network and identity boundary.
docs/checklist.md explains the choice. Update-or-create by code, so re-running is safe.
"""

from django.db import migrations

# (code, section, title, what good evidence looks like, is_basic)
ITEMS: list[tuple[str, str, str, str, bool]] = [
    (
        "gpu-model-node-shape",
        "hardware",
        "Exact GPU model, memory per GPU, node shape and GPUs per node",
        "The instance-type page or spec sheet naming the exact SKU (for example H100 SXM "
        "80 GB, not just 'H100'), memory per GPU and GPUs per node, ideally with the "
        "nvidia-smi output of a node of this type.",
        True,
    ),
    (
        "interconnect",
        "hardware",
        "Interconnect inside the node and between nodes",
        "A topology diagram or datasheet: NVLink/NVSwitch generation inside the node; "
        "InfiniBand, RoCE, EFA or the provider fabric between nodes, with bandwidth per GPU. "
        "An NCCL all-reduce result on the offered nodes is the strongest evidence.",
        False,
    ),
    (
        "node-resources",
        "hardware",
        "CPU, RAM, local NVMe, storage bandwidth and network bandwidth per node",
        "The node specification with vCPU and RAM per node, local NVMe capacity, and "
        "measured or guaranteed storage and network throughput (fio or iperf output helps).",
        False,
    ),
    (
        "region-placement",
        "hardware",
        "Region, zone, placement group, rack or dedicated-cluster assumptions",
        "The region and zone the capacity sits in, whether nodes share a placement group or "
        "rack, and what is assumed about a dedicated cluster; a capacity confirmation naming "
        "the location is good evidence.",
        True,
    ),
    (
        "hardware-replacement",
        "hardware",
        "Replacement process for failed GPUs, nodes, storage and network devices",
        "The runbook or contract clause: how failures are detected, who replaces what, the "
        "time to replace, and whether spare capacity or credits cover the gap.",
        False,
    ),
    (
        "software-versions",
        "software",
        "Supported driver, CUDA, cuDNN, NCCL, container runtime and framework versions",
        "The image or platform release notes listing driver, CUDA, cuDNN and NCCL versions, "
        "the container runtime, and the framework versions supported (PyTorch, JAX...).",
        True,
    ),
    (
        "access-model",
        "software",
        "Access model: Kubernetes, Slurm, managed endpoint or bare metal",
        "Documentation of how the team reaches the GPUs (kubeconfig, Slurm login node, "
        "endpoint API or SSH to bare metal) and which part of the stack the provider runs.",
        True,
    ),
    (
        "serving-frameworks",
        "software",
        "Support for vLLM, SGLang, TensorRT-LLM, Triton, Ray or media pipelines",
        "Which serving and orchestration frameworks are supported or pre-installed, with "
        "versions, and an example deployment or benchmark on this hardware.",
        False,
    ),
    (
        "observability",
        "software",
        "Observability: GPU utilisation, memory, queue wait, latency, errors and spend",
        "The metrics and logs exposed (names, granularity, retention), how they are exported "
        "to the team's tools, and a sample dashboard or metrics endpoint.",
        False,
    ),
    (
        "upgrade-rollback",
        "software",
        "Upgrade and rollback process",
        "How driver, firmware and platform upgrades are announced and scheduled, whether the "
        "team can pin versions, and how a bad upgrade is rolled back.",
        False,
    ),
    (
        "capacity-model",
        "commercial",
        "Capacity model: on-demand, spot, reserved, marketplace, dedicated cluster, private "
        "cloud or managed endpoint",
        "The order form or price page stating the capacity model, what is guaranteed (and "
        "what can be pre-empted or reclaimed), and how capacity is requested.",
        False,
    ),
    (
        "commitment-terms",
        "commercial",
        "Minimum commitment, cancellation rights, overage rates and support tiers",
        "The contract terms: minimum GPUs and months, cancellation and exit rights, the "
        "overage rate, and the support tier with its response times.",
        False,
    ),
    (
        "ancillary-costs",
        "commercial",
        "Costs of storage, egress, snapshots, public IP, load balancer and private networking",
        "A price list with every line beyond the GPU-hour: storage per GB-month, egress per "
        "GB, snapshots, public IPs, load balancers and private networking.",
        True,
    ),
    (
        "usage-export-invoicing",
        "commercial",
        "Usage-export format and invoice granularity",
        "A sample usage export (CSV, API or FOCUS format) and a sample invoice showing the "
        "granularity: per hour, per GPU, per project or tag.",
        False,
    ),
    (
        "idle-billing-shutdown",
        "commercial",
        "Whether idle capacity is billed and how shutdown automation works",
        "The billing rule for idle or stopped capacity, and how instances are stopped or "
        "scaled to zero automatically (API, schedule, idle timeout).",
        True,
    ),
    (
        "network-boundary",
        "security",
        "Network boundary, VPC/VNet model, private endpoint support and egress policy",
        "An architecture diagram or documentation of the network isolation model, private "
        "endpoint or peering options, and how outbound traffic is restricted.",
        True,
    ),
    (
        "iam-audit",
        "security",
        "IAM, secrets handling, audit logs, support access and incident notification",
        "The identity and access model (SSO, roles), secrets storage, audit log contents and "
        "retention, how provider staff access customer systems, and the incident "
        "notification commitment.",
        True,
    ),
    (
        "data-lifecycle",
        "security",
        "Data storage, checkpoint retention, backup, deletion and legal hold",
        "Where data and checkpoints are stored, how long they are kept, backup and restore, "
        "certified deletion at the end of the contract, and legal-hold support.",
        False,
    ),
    (
        "compliance-evidence",
        "security",
        "Compliance evidence and vendor-review support",
        "Current certificates or reports (SOC 2 Type II, ISO 27001...) covering this offer, "
        "and a completed security questionnaire or an offer to answer one.",
        False,
    ),
    (
        "budgets-chargeback",
        "security",
        "Per-team budgets, quotas, tags and chargeback/showback support",
        "How spend is split by team or project: budgets and alerts, quotas, tags carried to "
        "the usage export, and chargeback or showback reports.",
        False,
    ),
]


def seed_items(apps, schema_editor) -> None:  # noqa: ARG001 - migration signature
    item_model = apps.get_model("checklist", "ChecklistItem")
    for order, (code, section, title, help_text, is_basic) in enumerate(ITEMS, start=1):
        item_model.objects.update_or_create(
            code=code,
            defaults={
                "section": section,
                "order": order,
                "title": title,
                "help_text": help_text,
                "is_basic": is_basic,
            },
        )


def unseed_items(apps, schema_editor) -> None:  # noqa: ARG001 - migration signature
    item_model = apps.get_model("checklist", "ChecklistItem")
    item_model.objects.filter(code__in=[row[0] for row in ITEMS], answers__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("checklist", "0001_initial")]

    operations = [migrations.RunPython(seed_items, unseed_items)]
