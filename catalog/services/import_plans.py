"""Import planning: parsed rows → unsaved quotes and routes, each with its offer key.

The offer key identifies a list-price offer across imports (provider + instance type +
region + capacity model, zones collapsed): a re-import revises the current quote with the same
key instead of adding a second one. Nothing here writes to the database.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from accounts.models import Provider
from catalog.importers.common import RowError
from catalog.importers.identity import identify
from catalog.importers.instances import Identified
from catalog.importers.litellm import LITELLM_SOURCE, LiteLlmRow
from catalog.importers.names import model_profile_slug_for, normalise_name, provider_candidates
from catalog.importers.price_list import PriceListRow
from catalog.importers.skypilot import SkyPilotRow
from catalog.models import Accelerator, CapacityModel, ModelApiRoute, ModelProfile, Quote
from catalog.validation import RACK_SCALE_MAX_GPUS, api_route_rule_errors, quote_rule_errors

TOKEN_QUANTUM = Decimal("0.00000001")  # the route's 8 decimals: LiteLLM prices stay exact
SKIP_SAME_MODEL = "model listed again for the same provider (the first entry is imported)"


@dataclass(slots=True)
class Planned:
    row: int | str | None
    key: str
    obj: Any  # an unsaved Quote or ModelApiRoute


@dataclass(slots=True)
class Plan:
    items: list[Planned] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    unknown: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)  # details imported beyond the base
    providers: set[int] = field(default_factory=set)  # whose earlier imports this one replaces
    # offer keys of rows the file lists but whose GPU it does not identify → their label
    unidentified: dict[str, str] = field(default_factory=dict)

    def skip(self, reason: str, count: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + count

    def not_in_catalog(self, label: str) -> None:
        self.unknown[label] = self.unknown.get(label, 0) + 1


def price_list_key(provider_slug: str, accelerator_slug: str, values: Any) -> str:
    get = values.get if isinstance(values, dict) else lambda k: getattr(values, k, "")
    parts = "|".join(
        str(get(k) or "")
        for k in ("region", "zone", "capacity_model", "gpus_per_node", "term_months")
    )
    return f"price_list:{provider_slug}:{accelerator_slug}|{parts}"


def skypilot_key(provider_slug: str, title: str, region: str, capacity: str) -> str:
    return f"skypilot:{provider_slug}:{title}|{region}|{capacity}"


def legacy_key(kind: str, quote: Quote) -> str:
    """The offer key of a quote imported before quotes carried one (same rules as a plan)."""
    if kind == "skypilot":
        return skypilot_key(quote.provider.slug, quote.title, quote.region, quote.capacity_model)
    return price_list_key(quote.provider.slug, quote.accelerator.slug, quote)[:300]


def _accelerators() -> dict[str, Accelerator]:
    return {a.slug: a for a in Accelerator.objects.all()}


def price_list_plan(
    rows: Iterable[PriceListRow], *, acting_user: Any, quoted_at: datetime, filename: str
) -> Plan:
    plan = Plan()
    accelerators = _accelerators()
    rows = list(rows)
    providers = {p.slug: p for p in Provider.objects.filter(slug__in={r.provider for r in rows})}
    for row in rows:
        provider = providers.get(row.provider)
        found = identify(row.accelerator, set(accelerators))
        slug = found.slug
        if provider is None:
            plan.errors.append(
                RowError(
                    row.row,
                    "provider",
                    f"Unknown provider {row.provider!r}: add it on the Providers page first.",
                )
            )
        if slug is None:
            plan.errors.append(
                RowError(
                    row.row,
                    "accelerator",
                    f"{row.accelerator!r} is not a catalog GPU "
                    f"({found.reason}): use a catalog "
                    "slug such as h100-sxm-80gb, or a name that states form factor and memory.",
                )
            )
        values = {**row.values, "quoted_at": quoted_at}
        if not values.get("source_url"):
            values["source_document"] = filename[:200]
        accelerator = accelerators.get(slug or "")
        for column, messages in quote_rule_errors(values, accelerator=accelerator).items():
            if column != "accelerator" or accelerator is not None:
                plan.errors.extend(RowError(row.row, column, m) for m in messages)
        if provider is None or accelerator is None:
            continue
        plan.providers.add(provider.pk)
        plan.items.append(
            Planned(
                row.row,
                price_list_key(provider.slug, accelerator.slug, values),
                Quote(
                    **values,
                    provider=provider,
                    accelerator=accelerator,
                    is_public_list_price=True,
                    entered_by=acting_user,
                ),
            )
        )
    return plan


def _skypilot_accelerator(row: SkyPilotRow, known: set[str]) -> tuple[str | None, str]:
    """(catalog slug or None, the label an unknown row is counted under)."""
    table = Identified(row.table_slug, row.table_card, "") if row.table_card else None
    found = identify(
        row.accelerator_name,
        known,
        table=table,
        form_texts=(row.instance_type,),
        tag_texts=(row.upstream_id,) if row.upstream_id else (),
        gpu_info=row.gpu_info,
    )
    return found.slug, found.label


def skypilot_plan(
    rows: Iterable[SkyPilotRow],
    *,
    acting_user: Any,
    quoted_at: datetime,
    filename: str,
    provider: Provider,
) -> Plan:
    """One quote per (instance type, region, capacity model, price): zones with the same price
    are collapsed into one quote that lists them."""
    plan = Plan(providers={provider.pk})
    accelerators = _accelerators()
    groups: dict[tuple[str, str, str, Decimal], list[tuple[SkyPilotRow, Accelerator]]] = {}
    capacity: str
    for row in rows:
        slug, label = _skypilot_accelerator(row, set(accelerators))
        if slug is None:
            plan.not_in_catalog(label)
            for capacity in (CapacityModel.ON_DEMAND, CapacityModel.SPOT):
                key = skypilot_key(provider.slug, row.title, row.region, capacity)
                plan.unidentified[key[:300]] = label
            continue
        accelerator = accelerators[slug]
        # The file states the node size: a size the catalog has not seen (Crusoe's 10× L40S)
        # is the offer; only more GPUs than any one machine holds is not a node.
        if row.accelerator_count > RACK_SCALE_MAX_GPUS:
            plan.skip(
                f"{row.accelerator_count}× {accelerator.name} per instance: more GPUs than one "
                f"machine or NVLink domain holds ({RACK_SCALE_MAX_GPUS})"
            )
            continue
        for capacity, price in (
            (CapacityModel.ON_DEMAND, row.on_demand_per_gpu_hour),
            (CapacityModel.SPOT, row.spot_per_gpu_hour),
        ):
            if price is None:
                continue
            if price <= 0:
                plan.skip("price rounds to zero per GPU-hour")
                continue
            groups.setdefault((row.title, row.region, capacity, price), []).append(
                (row, accelerator)
            )
    prices_per_offer = Counter((title, region, capacity) for title, region, capacity, _ in groups)
    for (title, region, capacity, price), members in groups.items():
        row, accelerator = members[0]
        zones = sorted({r.zone for r, _ in members if r.zone})
        key = skypilot_key(provider.slug, title, region, capacity)
        if prices_per_offer[(title, region, capacity)] > 1:  # zones priced differently
            key += "|" + ",".join(zones)
        if len(members) > 1:
            plan.skip("zone rows with the same price, merged into one quote", len(members) - 1)
        quote = Quote(
            provider=provider,
            accelerator=accelerator,
            title=title[:200],
            currency="USD",
            gpus_per_node=row.accelerator_count,
            vcpu_per_node=row.vcpus,
            ram_gb_per_node=row.ram_gb,
            region=region,
            zone=zones[0] if len(zones) == 1 else "",
            zones=zones,
            quoted_at=quoted_at,
            source_document=filename[:200],
            notes=row.host_note
            or ("Host machine type price included." if row.host_included else ""),
            is_public_list_price=True,
            entered_by=acting_user,
            capacity_model=capacity,
            price_per_gpu_hour=price,
            list_key=key[:300],
        )
        plan.items.append(Planned(row.row, quote.list_key, quote))
    return plan


def provider_for(name: str, providers: list[Provider]) -> Provider | None:
    """The catalog provider a LiteLLM provider id names, by slug or name."""
    for candidate in provider_candidates(name):
        for provider in providers:
            if candidate in (normalise_name(provider.slug), normalise_name(provider.name)):
                return provider
    return None


def _money(value: Decimal | None) -> Decimal | None:
    return None if value is None else value.quantize(TOKEN_QUANTUM, ROUND_HALF_UP)


def litellm_plan(
    rows: Iterable[LiteLlmRow],
    *,
    acting_user: Any,
    quoted_at: datetime,
    only_providers: list[Provider] | None,
) -> Plan:
    providers = list(only_providers or Provider.objects.all())
    # The file lists every model of every provider: an earlier LiteLLM route of any of these
    # providers that the file no longer has is retired.
    plan = Plan(providers={p.pk for p in providers})
    profiles = {p.slug: p for p in ModelProfile.objects.all()}
    found: dict[str, Provider | None] = {}
    planned: set[str] = set()
    for row in rows:
        if row.litellm_provider not in found:
            found[row.litellm_provider] = provider_for(row.litellm_provider, providers)
        provider = found[row.litellm_provider]
        if provider is None:
            plan.not_in_catalog(f"provider {row.litellm_provider}")
            continue
        # Several LiteLLM provider ids name one of ours (vertex_ai, vertex_ai-language-models
        # → Google Cloud): a model they both list is one offer, not two current routes.
        if (key := f"{provider.pk}|{row.model_name}") in planned:
            plan.skip(SKIP_SAME_MODEL)
            continue
        planned.add(key)
        values: dict[str, Any] = {
            "model_name": row.model_name,
            "currency": "USD",
            "price_input_per_m_tokens": _money(row.input_per_m),
            "price_output_per_m_tokens": _money(row.output_per_m),
            "price_cached_input_per_m_tokens": _money(row.cached_input_per_m),
            "price_cache_write_per_m_tokens": _money(row.cache_write_per_m),
            "quoted_at": quoted_at,
        }
        if api_route_rule_errors(values):
            plan.skip("price rounds to zero per million tokens")
            continue
        if row.tiers:
            for tier in row.tiers:
                plan.kept[f"{tier} prices"] = plan.kept.get(f"{tier} prices", 0) + 1
        profile_slug = model_profile_slug_for(row.model_name, set(profiles))
        plan.items.append(
            Planned(
                row.key,
                key,
                ModelApiRoute(
                    **values,
                    provider=provider,
                    publisher=row.publisher,
                    model_profile=profiles.get(profile_slug or ""),
                    price_tiers=row.tiers,
                    max_input_tokens=row.max_input_tokens,
                    is_public_list_price=True,
                    entered_by=acting_user,
                    source_url=LITELLM_SOURCE,
                ),
            )
        )
    return plan
