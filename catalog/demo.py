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

from accounts.models import Provider, User
from catalog import services
from catalog.demo_data import (
    API_PROVIDERS,
    API_ROUTES,
    PUBLIC_PROVIDERS,
    PUBLIC_QUOTES,
    VENDOR_LINEAGES,
)
from catalog.models import Accelerator, FxRate, ModelApiRoute, ModelProfile, Quote, Rfq
from catalog.services.seed_data import catalog_load
from core.roles import Role


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


# The briefs demo links this RFQ to the support chat brief it was written for (briefs/demo.py):
# the catalog demo runs first, before any brief exists.
RFQ_TITLE = "Support assistant: 64 GPUs for Llama 3.1 70B"


def _rfq(lead: User, providers: list[Provider], gpus: dict[str, Accelerator]) -> Rfq:
    rfq = Rfq.objects.filter(title=RFQ_TITLE).first()
    if rfq is None:
        rfq = services.rfq_create(
            acting_user=lead,
            data={
                "title": RFQ_TITLE,
                "requirements": (
                    "Real-time inference of Llama 3.1 70B (BF16 weights and KV cache) for "
                    "the customer support chat assistant: p95 input 3,500 tokens, TTFT p95 "
                    "under 800 ms, 48 concurrent sequences at peak. Data must stay in the EU "
                    "(eu-west or eu-central) behind a private endpoint. Quote node shape, "
                    "fabric and all ancillary costs."
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


def _version_values(version: dict[str, Any], gpus: dict[str, Accelerator]) -> dict[str, Any]:
    values = {k: v for k, v in version.items() if k not in ("days_ago", "valid_days")}
    if "accelerator" in values:
        values["accelerator"] = gpus[values["accelerator"]]
    values["quoted_at"] = _now_minus(version["days_ago"])
    if "valid_days" in version:
        values["valid_until"] = timezone.now() + timedelta(days=version["valid_days"])
    return values


def _vendor_quotes(users: dict[str, User], rfq: Rfq, gpus: dict[str, Accelerator]) -> None:
    for username, title, answers_rfq, withdraw, versions in VENDOR_LINEAGES:
        vendor = users.get(username)
        if vendor is None:
            continue
        _vendor_lineage(
            vendor,
            title,
            [_version_values(v, gpus) for v in versions],
            rfq=rfq if answers_rfq else None,
            withdraw=withdraw,
        )


def _fx(keeper: User | None) -> None:
    for currency, rate in (("EUR", "1.0850"), ("GBP", "1.2700")):
        if not FxRate.objects.filter(currency=currency).exists():
            FxRate.objects.create(
                currency=currency,
                rate_to_base=Decimal(rate),
                as_of=timezone.now().date() - timedelta(days=1),
                entered_by=keeper,
            )


def _api_routes(lead: User, providers: dict[str, Provider]) -> None:
    profiles = {p.slug: p for p in ModelProfile.objects.all()}
    for slug, name, profile, price_in, price_out, cached in API_ROUTES:
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
    # The admin keeps the FX rates: whoever enters a rate may not approve money converted with
    # it, so rates entered by a finance reviewer would leave that reviewer unable to approve
    # the demo comparison. First: a price in a currency without a rate is held (R9).
    _fx(User.objects.filter(role=Role.ADMIN).order_by("pk").first())
    created = _public_quotes(lead, providers, gpus)
    if rfq is not None:
        _vendor_quotes(users, rfq, gpus)
    _api_routes(lead, providers)
    if stdout:
        current = Quote.objects.current().count()
        stdout.write(f"catalog demo: {created} list prices added, {current} current quotes")
