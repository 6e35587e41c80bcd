"""Demo catalog data: providers, ~35 current quotes (some versioned, one stale, one withdrawn),
an open RFQ to both demo vendors, FX rates and model API routes. Idempotent.

Prices are realistic public figures, rounded; they are demo data, not advice. Everything goes
through the services, so the demo obeys the same rules as real input.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.utils import timezone

from accounts.models import Provider, Role, User
from catalog import services
from catalog.models import Accelerator, FxRate, ModelApiRoute, ModelProfile, Quote, Rfq
from catalog.services.seed_data import catalog_load

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

# (provider, accelerator, capacity, currency, price/GPU-h, GPUs/node, region, title, extra)
PUBLIC_QUOTES: list[tuple[str, str, str, str, str, int, str, str, dict[str, Any]]] = [
    ("aws", "h100-sxm-80gb", "on_demand", "USD", "6.88", 8, "us-east", "p5.48xlarge", {}),
    ("aws", "h100-sxm-80gb", "spot", "USD", "2.61", 8, "us-east", "p5.48xlarge spot", {}),
    ("aws", "h200-sxm-141gb", "on_demand", "USD", "7.91", 8, "us-east", "p5en.48xlarge", {}),
    ("aws", "a100-sxm-80gb", "on_demand", "USD", "5.12", 8, "eu-west", "p4de.24xlarge", {}),
    ("aws", "l40s-48gb", "on_demand", "USD", "1.86", 4, "eu-west", "g6e.12xlarge", {}),
    ("aws", "l4-24gb", "on_demand", "USD", "0.80", 1, "eu-west", "g6.xlarge", {}),
    ("gcp", "h100-sxm-80gb", "on_demand", "USD", "9.80", 8, "eu-west", "a3-highgpu-8g", {}),
    ("gcp", "h100-sxm-80gb", "spot", "USD", "3.20", 8, "eu-west", "a3-highgpu-8g spot", {}),
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


def _now_minus(days: int) -> Any:
    return timezone.now() - timedelta(days=days)


def _providers() -> dict[str, Provider]:
    for name, slug, kind, website in PUBLIC_PROVIDERS:
        Provider.objects.get_or_create(
            slug=slug, defaults={"name": name, "kind": kind, "website": website}
        )
    for name, slug, website in API_PROVIDERS:
        Provider.objects.get_or_create(
            slug=slug,
            defaults={"name": name, "kind": Provider.Kind.MODEL_API, "website": website},
        )
    return {p.slug: p for p in Provider.objects.all()}


def _public_quotes(lead: User, providers: dict[str, Provider], gpus: dict[str, Accelerator]) -> int:
    created = 0
    for slug, acc, capacity, currency, price, per_node, region, title, extra in PUBLIC_QUOTES:
        provider = providers[slug]
        if Quote.objects.filter(provider=provider, title=title).exists():
            continue
        services.quote_submit(
            acting_user=lead,
            provider=provider,
            is_public_list_price=True,
            data={
                "accelerator": gpus[acc],
                "capacity_model": capacity,
                "currency": currency,
                "price_per_gpu_hour": Decimal(price),
                "gpus_per_node": per_node,
                "region": region,
                "title": title,
                "quoted_at": _now_minus(3 + created % 9),
                "valid_until": timezone.now() + timedelta(days=60),
                "source_url": provider.website,
                **extra,
            },
        )
        created += 1
    return created


def _rfq(lead: User, providers: list[Provider], gpus: dict[str, Accelerator]) -> Rfq:
    rfq = Rfq.objects.filter(title="Support assistant: 64 GPUs for Llama 3.3 70B").first()
    if rfq is None:
        rfq = services.rfq_create(
            acting_user=lead,
            data={
                "title": "Support assistant: 64 GPUs for Llama 3.3 70B",
                "requirements": (
                    "Real-time inference of Llama 3.3 70B (BF16 weights, FP8 KV cache), "
                    "p95 input 3,000 tokens, TTFT p95 under 800 ms, 32 concurrent sessions "
                    "per replica. Data must stay in the EU. Quote node shape, fabric and "
                    "all ancillary costs."
                ),
                "accelerators": [
                    gpus[s]
                    for s in ("h100-sxm-80gb", "h200-sxm-141gb", "b200-hgx-180gb", "mi300x-192gb")
                ],
                "gpus_needed": 64,
                "region": "eu-west",
                "capacity_models": ["on_demand", "reserved", "dedicated_cluster"],
                "term_months": 12,
                "deadline": timezone.now() + timedelta(days=21),
                "providers": providers,
            },
        )
    return rfq


def _vendor_lineage(
    vendor: User,
    title: str,
    versions: list[dict[str, Any]],
    *,
    rfq: Rfq | None = None,
    withdraw: bool = False,
) -> None:
    """Submit version 1, then each following dict as a revision (oldest first)."""
    if Quote.objects.filter(provider=vendor.provider, title=title).exists():
        return
    first, *later = versions
    quote = services.quote_submit(acting_user=vendor, rfq=rfq, data={**first, "title": title})
    for changes in later:
        quote = services.quote_revise(acting_user=vendor, quote=quote, data=changes)
    if withdraw:
        services.quote_withdraw(acting_user=vendor, quote=quote, reason="Capacity sold out.")


def _vendor_quotes(users: dict[str, User], rfq: Rfq, gpus: dict[str, Accelerator]) -> None:
    nw, ct = users.get("vendor_a"), users.get("vendor_b")
    month = timedelta(days=30)
    if nw is not None:
        node = {**COMMON_NODE, "region": "eu-west", "currency": "USD"}
        _vendor_lineage(
            nw,
            "Northwind H100 on-demand",
            [
                {
                    **node,
                    "accelerator": gpus["h100-sxm-80gb"],
                    "capacity_model": "on_demand",
                    "price_per_gpu_hour": Decimal("2.99"),
                    "quoted_at": _now_minus(40),
                },
                {"price_per_gpu_hour": Decimal("2.79"), "quoted_at": _now_minus(20)},
                {
                    "price_per_gpu_hour": Decimal("2.69"),
                    "quoted_at": _now_minus(2),
                    "valid_until": timezone.now() + 2 * month,
                },
            ],
        )
        _vendor_lineage(
            nw,
            "Northwind H200 reserved 12 months",
            [
                {
                    **node,
                    "accelerator": gpus["h200-sxm-141gb"],
                    "capacity_model": "reserved",
                    "price_per_gpu_hour": Decimal("3.10"),
                    "term_months": 12,
                    "min_commitment_gpus": 64,
                    "quoted_at": _now_minus(1),
                    "valid_until": rfq.deadline + month,
                    "cancellation_terms": "Cancel with 90 days' notice; 25% of the remaining term.",
                },
            ],
            rfq=rfq,
        )
        _vendor_lineage(
            nw,
            "Northwind B200 dedicated cluster",
            [
                {
                    **node,
                    "accelerator": gpus["b200-hgx-180gb"],
                    "capacity_model": "dedicated_cluster",
                    "price_per_gpu_hour": Decimal("4.40"),
                    "term_months": 24,
                    "min_commitment_gpus": 64,
                    "placement": "Dedicated pod, single rack row",
                    "quoted_at": _now_minus(5),
                },
                {"price_per_gpu_hour": Decimal("4.20"), "quoted_at": _now_minus(1)},
            ],
            rfq=rfq,
        )
        _vendor_lineage(
            nw,
            "Northwind L40S spot",
            [
                {
                    **node,
                    "accelerator": gpus["l40s-48gb"],
                    "capacity_model": "spot",
                    "currency": "EUR",
                    "price_per_gpu_hour": Decimal("0.65"),
                    "gpus_per_node": 4,
                    "quoted_at": _now_minus(4),
                    "idle_billed": False,
                },
            ],
        )
        _vendor_lineage(
            nw,
            "Northwind HGX H100 purchase",
            [
                {
                    **node,
                    "accelerator": gpus["h100-sxm-80gb"],
                    "capacity_model": "purchase",
                    "price_per_node": Decimal("285000"),
                    "support_per_year": Decimal("24000"),
                    "power_kw_per_node": Decimal("10.2"),
                    "amortisation_months": 36,
                    "quoted_at": _now_minus(6),
                    "source_document": "Northwind offer NW-2291.pdf",
                },
            ],
        )
        _vendor_lineage(
            nw,
            "Northwind A100 80GB on-demand",
            [  # stale on purpose
                {
                    **node,
                    "accelerator": gpus["a100-sxm-80gb"],
                    "capacity_model": "on_demand",
                    "price_per_gpu_hour": Decimal("1.49"),
                    "quoted_at": _now_minus(45),
                },
            ],
        )
    if ct is not None:
        node = {**COMMON_NODE, "region": "eu-west", "currency": "GBP"}
        _vendor_lineage(
            ct,
            "Contoso H100 reserved",
            [
                {
                    **node,
                    "accelerator": gpus["h100-sxm-80gb"],
                    "capacity_model": "reserved",
                    "price_per_gpu_hour": Decimal("2.05"),
                    "term_months": 12,
                    "quoted_at": _now_minus(3),
                },
            ],
            rfq=rfq,
        )
        _vendor_lineage(
            ct,
            "Contoso MI300X on-demand",
            [
                {
                    **node,
                    "currency": "USD",
                    "region": "us-east",
                    "accelerator": gpus["mi300x-192gb"],
                    "capacity_model": "on_demand",
                    "price_per_gpu_hour": Decimal("2.99"),
                    "intra_node_interconnect": "Infinity Fabric",
                    "quoted_at": _now_minus(12),
                },
                {"price_per_gpu_hour": Decimal("2.49"), "quoted_at": _now_minus(2)},
            ],
        )
        _vendor_lineage(
            ct,
            "Contoso H200 on-demand",
            [
                {
                    **node,
                    "currency": "USD",
                    "accelerator": gpus["h200-sxm-141gb"],
                    "capacity_model": "on_demand",
                    "price_per_gpu_hour": Decimal("3.49"),
                    "quoted_at": _now_minus(2),
                },
            ],
            rfq=rfq,
        )
        _vendor_lineage(
            ct,
            "Contoso L40S on-demand",
            [
                {
                    **node,
                    "accelerator": gpus["l40s-48gb"],
                    "capacity_model": "on_demand",
                    "gpus_per_node": 8,
                    "price_per_gpu_hour": Decimal("0.89"),
                    "quoted_at": _now_minus(5),
                },
            ],
        )
        _vendor_lineage(
            ct,
            "Contoso B200 reserved 36 months",
            [
                {
                    **node,
                    "currency": "USD",
                    "region": "us-east",
                    "accelerator": gpus["b200-hgx-180gb"],
                    "capacity_model": "reserved",
                    "price_per_gpu_hour": Decimal("3.65"),
                    "term_months": 36,
                    "min_commitment_gpus": 128,
                    "quoted_at": _now_minus(7),
                },
            ],
        )
        _vendor_lineage(
            ct,
            "Contoso A100 40GB spot",
            [
                {
                    **node,
                    "accelerator": gpus["a100-sxm-40gb"],
                    "capacity_model": "spot",
                    "price_per_gpu_hour": Decimal("0.79"),
                    "quoted_at": _now_minus(10),
                },
            ],
            withdraw=True,
        )


def _fx(finance: User | None) -> None:
    for currency, rate in (("EUR", "1.0850"), ("GBP", "1.2700")):
        if not FxRate.objects.filter(currency=currency).exists():
            FxRate.objects.create(
                currency=currency,
                rate_to_base=Decimal(rate),
                as_of=timezone.now().date() - timedelta(days=1),
                entered_by=finance,
            )


def _api_routes(lead: User, providers: dict[str, Provider]) -> None:
    profiles = {p.slug: p for p in ModelProfile.objects.all()}
    routes = [
        (
            "together-ai",
            "meta-llama/Llama-3.3-70B-Instruct-Turbo",
            "llama-3-3-70b",
            "0.88",
            "0.88",
            None,
        ),
        (
            "fireworks-ai",
            "accounts/fireworks/models/llama-v3p1-8b-instruct",
            "llama-3-1-8b",
            "0.20",
            "0.20",
            None,
        ),
        ("openai", "gpt-4o-mini", None, "0.15", "0.60", "0.075"),
        ("anthropic", "claude-3-5-haiku", None, "0.80", "4.00", "0.08"),
    ]
    for slug, name, profile, price_in, price_out, cached in routes:
        provider = providers[slug]
        if ModelApiRoute.objects.filter(provider=provider, model_name=name).exists():
            continue
        services.api_route_create(
            acting_user=lead,
            provider=provider,
            data={
                "model_name": name,
                "model_profile": profiles.get(profile or ""),
                "currency": "USD",
                "price_input_per_m_tokens": Decimal(price_in),
                "price_output_per_m_tokens": Decimal(price_out),
                "price_cached_input_per_m_tokens": Decimal(cached) if cached else None,
                "is_public_list_price": True,
                "quoted_at": _now_minus(4),
                "source_url": provider.website,
            },
        )


def load(stdout: Any = None) -> None:
    if not Accelerator.objects.exists():
        catalog_load()
    lead = User.objects.filter(role=Role.PROCUREMENT_LEAD).order_by("pk").first()
    if lead is None:
        if stdout:
            stdout.write("catalog demo skipped: no procurement lead (load accounts.demo first)")
        return
    users = {u.username: u for u in User.objects.filter(username__in=["vendor_a", "vendor_b"])}
    providers = _providers()
    gpus = {a.slug: a for a in Accelerator.objects.all()}
    invited = [providers[s] for s in ("northwind", "contoso") if s in providers]
    rfq = _rfq(lead, invited, gpus) if invited else None
    created = _public_quotes(lead, providers, gpus)
    if rfq is not None:
        _vendor_quotes(users, rfq, gpus)
    _fx(User.objects.filter(role=Role.FINANCE_REVIEWER).order_by("pk").first())
    _api_routes(lead, providers)
    if stdout:
        current = Quote.objects.current().count()
        stdout.write(f"catalog demo: {created} list prices added, {current} current quotes")
