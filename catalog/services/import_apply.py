"""Writing a planned import so a weekly refresh can repeat it (R2).

Quotes: a planned quote whose offer key matches a current imported quote of the same provider
revises it through `quote_revise` (a new, audited version) when the price changed and leaves it
alone when it did not; current imported quotes of the same providers whose key is no longer in
the file are withdrawn through `quote_withdraw`. Model API routes are not versioned: a changed
route is deactivated and replaced, a route that left the file is deactivated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from catalog.models import ModelApiRoute, Quote
from catalog.services.import_plans import LITELLM_SOURCE, Planned
from catalog.services.quotes import QUOTE_INPUT_FIELDS, quote_revise, quote_withdraw
from procurement.audit import audit_record

QUOTE_PRICE_FIELDS = (
    "price_per_gpu_hour",
    "price_per_node",
    "support_per_year",
    "currency",
    "gpus_per_node",
    "vcpu_per_node",
    "ram_gb_per_node",
    "zones",
    "zone",
    "term_months",
    "valid_until",
)
ROUTE_PRICE_FIELDS = (
    "price_input_per_m_tokens",
    "price_output_per_m_tokens",
    "price_cached_input_per_m_tokens",
    "price_tiers",
    "max_input_tokens",
    "currency",
    "model_profile_id",
)
LEFT_THE_FILE = "no longer in the imported price list"


@dataclass(slots=True)
class Applied:
    created: int = 0
    revised: int = 0
    unchanged: int = 0
    withdrawn: int = 0
    revised_ids: list[int] = field(default_factory=list)


def _differs(old: Any, new: Any, fields: tuple[str, ...]) -> bool:
    return any(getattr(old, f) != getattr(new, f) for f in fields)


def apply_quotes(
    items: list[Planned], *, acting_user: Any, providers: set[int], prefix: str
) -> Applied:
    done = Applied()
    current = {
        q.list_key: q
        for q in Quote.objects.current()
        .filter(provider_id__in=providers, is_public_list_price=True, rfq__isnull=True)
        .filter(list_key__startswith=prefix)
        .select_related("provider", "accelerator")
    }
    new: list[Quote] = []
    for item in items:
        quote: Quote = item.obj
        quote.list_key = quote.list_key or item.key[:300]
        old = current.pop(quote.list_key, None)
        if old is None:
            new.append(quote)
        elif old.accelerator_id == quote.accelerator_id and not _differs(
            old, quote, QUOTE_PRICE_FIELDS
        ):
            done.unchanged += 1
        else:
            data = {f: getattr(quote, f) for f in QUOTE_INPUT_FIELDS}
            revised = quote_revise(
                acting_user=acting_user,
                quote=old,
                data=data,
                imported={"zones": quote.zones, "list_key": quote.list_key},
            )
            done.revised += 1
            done.revised_ids.append(revised.pk)
    Quote.objects.bulk_create(new, batch_size=500)
    done.created = len(new)
    for old in current.values():
        quote_withdraw(acting_user=acting_user, quote=old, reason=LEFT_THE_FILE)
        done.withdrawn += 1
    return done


def apply_routes(items: list[Planned], *, acting_user: Any, providers: set[int]) -> Applied:
    done = Applied()
    current: dict[str, ModelApiRoute] = {}
    for route in ModelApiRoute.objects.filter(
        provider_id__in=providers,
        is_active=True,
        is_public_list_price=True,
        source_url=LITELLM_SOURCE,
    ):
        current.setdefault(f"{route.provider_id}|{route.model_name}", route)
    new: list[ModelApiRoute] = []
    retired: list[int] = []
    for item in items:
        old = current.pop(item.key, None)
        if old is not None and not _differs(old, item.obj, ROUTE_PRICE_FIELDS):
            done.unchanged += 1
            continue
        if old is not None:
            retired.append(old.pk)
            done.revised += 1
        new.append(item.obj)
    gone = [route.pk for route in current.values()]
    ModelApiRoute.objects.filter(pk__in=[*retired, *gone]).update(is_active=False)
    ModelApiRoute.objects.bulk_create(new, batch_size=500)
    done.created = len(new) - done.revised
    done.withdrawn = len(gone)
    if retired or gone:
        audit_record(
            actor=acting_user,
            action="api_route.import_retired",
            object_type="catalog.modelapiroute",
            object_id=str(len(retired) + len(gone)),
            summary={"replaced": retired[:500], "left_the_file": gone[:500]},
        )
    return done
