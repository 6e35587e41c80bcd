"""Demo catalog data as plain values (see catalog/demo.py). Realistic public figures, rounded;
demo data, not advice. Times are relative: `days_ago` for when a price was captured, `valid_days`
for how long from now it holds."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from accounts.models import Provider

# fmt: off
PUBLIC_PROVIDERS = [
    ("Amazon Web Services", "aws", Provider.Kind.HYPERSCALER, "https://aws.amazon.com/ec2/"),
    ("Google Cloud", "gcp", Provider.Kind.HYPERSCALER, "https://cloud.google.com/compute/"),
    ("Lambda", "lambda", Provider.Kind.GPU_CLOUD, "https://lambda.ai/pricing"),
    ("CoreWeave", "coreweave", Provider.Kind.GPU_CLOUD, "https://www.coreweave.com/pricing"),
    ("RunPod", "runpod", Provider.Kind.MARKETPLACE, "https://www.runpod.io/pricing"),
    ("Nebius", "nebius", Provider.Kind.GPU_CLOUD, "https://nebius.com/prices"),
]
API_PROVIDERS = [
    ("Together AI", "together-ai", "https://www.together.ai/pricing"),
    ("OpenAI", "openai", "https://openai.com/api/pricing/"),
    ("Anthropic", "anthropic", "https://www.anthropic.com/pricing"),
    ("Fireworks AI", "fireworks-ai", "https://fireworks.ai/pricing"),
]

# Compute Engine VMs run inside the customer's own VPC, reachable without a public IP (Private
# Service Connect, Cloud Interconnect): the list price states the private endpoint the brief
# requires. Other list prices do not say, so they cannot be shown to meet it.
GCP_VPC: dict[str, Any] = {"private_endpoint": "yes"}
# (provider, accelerator, capacity, currency, price/GPU-h, GPUs/node, region, title, extra)
PUBLIC_QUOTES: list[tuple[str, str, str, str, str, int, str, str, dict[str, Any]]] = [
    ("aws", "h100-sxm-80gb", "on_demand", "USD", "6.88", 8, "us-east", "p5.48xlarge", {}),
    ("aws", "h100-sxm-80gb", "spot", "USD", "2.61", 8, "us-east", "p5.48xlarge spot", {}),
    ("aws", "h200-sxm-141gb", "on_demand", "USD", "7.91", 8, "us-east", "p5en.48xlarge", {}),
    ("aws", "a100-sxm-80gb", "on_demand", "USD", "5.12", 8, "eu-west", "p4de.24xlarge", {}),
    ("aws", "l40s-48gb", "on_demand", "USD", "1.86", 4, "eu-west", "g6e.12xlarge", {}),
    ("aws", "l4-24gb", "on_demand", "USD", "0.80", 1, "eu-west", "g6.xlarge", {}),
    ("gcp", "h100-sxm-80gb", "on_demand", "USD", "9.80", 8, "eu-west", "a3-highgpu-8g", GCP_VPC),
    ("gcp", "h100-sxm-80gb", "spot", "USD", "3.20", 8, "eu-west", "a3-highgpu-8g spot", GCP_VPC),
    ("gcp", "a100-sxm-80gb", "on_demand", "USD", "5.07", 8, "us-east", "a2-ultragpu-8g", {}),
    ("gcp", "l4-24gb", "on_demand", "USD", "0.71", 1, "us-east", "g2-standard-8", {}),
    ("lambda", "h100-sxm-80gb", "on_demand", "USD", "2.99", 8, "us-east", "8x H100 SXM", {}),
    ("lambda", "b200-hgx-180gb", "on_demand", "USD", "4.99", 8, "us-east", "8x B200", {}),
    ("lambda", "a100-sxm-80gb", "on_demand", "USD", "1.79", 8, "us-east", "8x A100 80GB", {}),
    ("coreweave", "h100-sxm-80gb", "on_demand", "USD", "6.16", 8, "us-east", "HGX H100", {}),
    ("coreweave", "h200-sxm-141gb", "on_demand", "USD", "6.31", 8, "us-east", "HGX H200", {}),
    ("coreweave", "b200-hgx-180gb", "on_demand", "USD", "8.60", 8, "us-east", "HGX B200", {}),
    (
        "coreweave",
        "gb200-per-gpu-186gb",
        "reserved",
        "USD",
        "10.50",
        72,
        "us-east",
        "GB200 NVL72",
        {"term_months": 12},
    ),
    ("runpod", "h100-sxm-80gb", "on_demand", "USD", "2.69", 8, "eu-west", "H100 SXM", {}),
    ("runpod", "mi300x-192gb", "on_demand", "USD", "2.49", 8, "eu-west", "MI300X", {}),
    ("runpod", "l40s-48gb", "on_demand", "USD", "0.86", 8, "eu-west", "L40S", {}),
    ("runpod", "rtx-4090-24gb", "marketplace", "USD", "0.69", 2, "eu-west", "RTX 4090", {}),
    ("runpod", "rtx-5090-32gb", "marketplace", "USD", "0.94", 2, "eu-west", "RTX 5090", {}),
    ("nebius", "h100-sxm-80gb", "on_demand", "USD", "2.95", 8, "eu-north", "H100 SXM", {}),
    ("nebius", "h200-sxm-141gb", "on_demand", "USD", "3.50", 8, "eu-north", "H200 SXM", {}),
    (
        "nebius",
        "b200-hgx-180gb",
        "reserved",
        "USD",
        "4.30",
        8,
        "eu-north",
        "B200 reserved",
        {"term_months": 12, "min_commitment_gpus": 64},
    ),
]

COMMON_NODE = {
    "vcpu_per_node": 192,
    "ram_gb_per_node": 2000,
    "intra_node_interconnect": "NVLink / NVSwitch",
    "inter_node_fabric": "InfiniBand NDR",
    "inter_node_bandwidth_gbps": 3200,
    "storage_per_gb_month": Decimal("0.08"),
    "egress_per_gb": Decimal("0.02"),
    "invoice_granularity": "per minute",
    "usage_export_format": "CSV and API",
}

# Vendor quote lineages: (vendor username, title, answers the demo RFQ, withdrawn at the end,
# versions oldest first; the first is complete, later ones carry only what changed).
# Both invited vendors offer a private link (their checklists' network-boundary answers):
# Northwind a dedicated VPC, Contoso VPC peering or a private interconnect.
NW = {**COMMON_NODE, "region": "eu-west", "currency": "USD", "private_endpoint": "yes"}
CT = {**COMMON_NODE, "region": "eu-west", "currency": "GBP", "private_endpoint": "yes"}
VENDOR_LINEAGES: list[tuple[str, str, bool, bool, list[dict[str, Any]]]] = [
    ("vendor_a", "Northwind H100 on-demand", False, False, [
        {**NW, "accelerator": "h100-sxm-80gb", "capacity_model": "on_demand",
         "price_per_gpu_hour": Decimal("2.99"), "days_ago": 40},
        {"price_per_gpu_hour": Decimal("2.79"), "days_ago": 20},
        {"price_per_gpu_hour": Decimal("2.69"), "days_ago": 2, "valid_days": 60},
    ]),
    ("vendor_a", "Northwind H200 reserved 12 months", True, False, [
        {**NW, "accelerator": "h200-sxm-141gb", "capacity_model": "reserved",
         "price_per_gpu_hour": Decimal("3.10"), "term_months": 12, "min_commitment_gpus": 64,
         "days_ago": 1, "valid_days": 60,
         "cancellation_terms": "Cancel with 90 days' notice; 25% of the remaining term."},
    ]),
    ("vendor_a", "Northwind B200 dedicated cluster", True, False, [
        {**NW, "accelerator": "b200-hgx-180gb", "capacity_model": "dedicated_cluster",
         "price_per_gpu_hour": Decimal("4.40"), "term_months": 24, "min_commitment_gpus": 64,
         "placement": "Dedicated pod, single rack row", "days_ago": 5},
        {"price_per_gpu_hour": Decimal("4.20"), "days_ago": 1},
    ]),
    ("vendor_a", "Northwind L40S spot", False, False, [
        {**NW, "accelerator": "l40s-48gb", "capacity_model": "spot", "currency": "EUR",
         "price_per_gpu_hour": Decimal("0.65"), "gpus_per_node": 4, "days_ago": 4,
         "idle_billed": False},
    ]),
    ("vendor_a", "Northwind HGX H100 purchase", False, False, [
        {**NW, "accelerator": "h100-sxm-80gb", "capacity_model": "purchase",
         "price_per_node": Decimal("285000"), "support_per_year": Decimal("24000"),
         "power_kw_per_node": Decimal("10.2"), "amortisation_months": 36, "days_ago": 6,
         "source_document": "Northwind offer NW-2291.pdf"},
    ]),
    ("vendor_a", "Northwind A100 80GB on-demand", False, False, [  # stale on purpose
        {**NW, "accelerator": "a100-sxm-80gb", "capacity_model": "on_demand",
         "price_per_gpu_hour": Decimal("1.49"), "days_ago": 45},
    ]),
    ("vendor_b", "Contoso H100 reserved", True, False, [
        {**CT, "accelerator": "h100-sxm-80gb", "capacity_model": "reserved",
         "price_per_gpu_hour": Decimal("2.05"), "term_months": 12, "days_ago": 3},
    ]),
    ("vendor_b", "Contoso MI300X on-demand", False, False, [
        {**CT, "currency": "USD", "region": "us-east", "accelerator": "mi300x-192gb",
         "capacity_model": "on_demand", "price_per_gpu_hour": Decimal("2.99"),
         "intra_node_interconnect": "Infinity Fabric", "days_ago": 12},
        {"price_per_gpu_hour": Decimal("2.49"), "days_ago": 2},
    ]),
    ("vendor_b", "Contoso H200 on-demand", True, False, [
        {**CT, "currency": "USD", "accelerator": "h200-sxm-141gb", "capacity_model": "on_demand",
         "price_per_gpu_hour": Decimal("3.49"), "days_ago": 2},
    ]),
    ("vendor_b", "Contoso L40S on-demand", False, False, [
        {**CT, "accelerator": "l40s-48gb", "capacity_model": "on_demand", "gpus_per_node": 8,
         "price_per_gpu_hour": Decimal("0.89"), "days_ago": 5},
    ]),
    ("vendor_b", "Contoso B200 reserved 36 months", False, False, [
        {**CT, "currency": "USD", "region": "us-east", "accelerator": "b200-hgx-180gb",
         "capacity_model": "reserved", "price_per_gpu_hour": Decimal("3.65"),
         "term_months": 36, "min_commitment_gpus": 128, "days_ago": 7},
    ]),
    ("vendor_b", "Contoso A100 40GB spot", False, True, [
        {**CT, "accelerator": "a100-sxm-40gb", "capacity_model": "spot",
         "price_per_gpu_hour": Decimal("0.79"), "days_ago": 10},
    ]),
]

# (provider, model name, catalog model profile, input, output, cached input) per 1M tokens.
API_ROUTES = [
    ("together-ai", "meta-llama/Llama-3.3-70B-Instruct-Turbo", "llama-3-3-70b", "0.88", "0.88",
     None),
    ("fireworks-ai", "accounts/fireworks/models/llama-v3p1-8b-instruct", "llama-3-1-8b", "0.20",
     "0.20", None),
    ("openai", "gpt-4o-mini", None, "0.15", "0.60", "0.075"),
    ("anthropic", "claude-3-5-haiku", None, "0.80", "4.00", "0.08"),
]
# fmt: on
