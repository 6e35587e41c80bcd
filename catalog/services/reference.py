"""Writes to reference data: providers, custom model profiles, model API routes, FX rates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from accounts.models import Provider, User
from catalog import access
from catalog.errors import CatalogInvalid
from catalog.model_names import ProfileNames, clean_aliases, resolve_model
from catalog.models import FxRate, ModelApiRoute, ModelProfile, PrivateEndpoint
from catalog.services.quotes import quotes_rejudge
from catalog.validation import api_route_rule_errors, fx_rule_errors, model_profile_rule_errors
from core.audit import audit_record
from core.roles import Role, require_role

# Who may add a custom model profile: those who write briefs or size hardware.
MODEL_WRITERS = access.CATALOG_WRITERS | {Role.PLATFORM_ENGINEER}

PROVIDER_FIELDS = ("name", "slug", "kind", "website", "contact_email")
MODEL_FIELDS = (
    "name",
    "family",
    "params_total_b",
    "params_active_b",
    "layers",
    "hidden_size",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "mla_latent_dim",
    "sliding_window",
    "sliding_window_layers",
    "max_context",
    "vocab_size",
    "tied_embeddings",
    "license",
    "source_url",
    "aliases",
    "notes",
)
# A route's fields as entered, in the model's order: the provider is passed apart; the import
# (publisher, tiers, input limit) and the service set the others.
_ROUTE_NOT_ENTERED = {"provider", "publisher", "price_tiers", "max_input_tokens", "is_active"}
API_ROUTE_FIELDS = tuple(
    f.name
    for f in ModelApiRoute._meta.concrete_fields
    if f.editable and f.name not in {*_ROUTE_NOT_ENTERED, "id", "entered_by"}
)


def _pick(data: Mapping[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    values = {k: data[k] for k in fields if k in data and data[k] is not None}
    for key, value in list(values.items()):
        if isinstance(value, str):
            values[key] = value.strip()
    return values


@transaction.atomic
def provider_create(*, acting_user: User, data: Mapping[str, Any]) -> Provider:
    require_role(acting_user, *access.CATALOG_WRITERS)
    values = _pick(data, PROVIDER_FIELDS)
    values["slug"] = slugify(values.get("slug") or values.get("name") or "")
    errors: dict[str, list[str]] = {}
    if not values.get("name"):
        errors["name"] = ["Give the organisation's name."]
    if not values["slug"]:
        errors["slug"] = ["Give a short identifier (letters, digits and hyphens)."]
    if Provider.objects.filter(name__iexact=values.get("name", "")).exists():
        errors["name"] = ["A provider with this name exists already."]
    if Provider.objects.filter(slug=values["slug"]).exists():
        errors["slug"] = ["A provider with this identifier exists already."]
    if errors:
        raise CatalogInvalid(errors)
    provider = Provider.objects.create(**values)
    audit_record(actor=acting_user, action="provider.created", obj=provider)
    return provider


def _aliases_taken(aliases: list[str]) -> list[str]:
    """An alias that already names another profile would make both unmatchable (a name two
    profiles claim binds to neither), so it is refused with the profile it names."""
    known = list(ModelProfile.objects.values_list("pk", "slug", "name", "aliases"))
    names = {pk: name for pk, _, name, _ in known}
    profiles = [ProfileNames(pk, (slug, name, *(extra or []))) for pk, slug, name, extra in known]
    out = []
    for alias in aliases:
        if (pk := resolve_model(alias, profiles).profile_id) is not None:
            out.append(f"{alias!r} already names the model profile {names[pk]}.")
    return out


@transaction.atomic
def model_profile_create(*, acting_user: User, data: Mapping[str, Any]) -> ModelProfile:
    """Add a custom model; its slug comes from the name and never collides with a seeded one."""
    require_role(acting_user, *MODEL_WRITERS)
    values = _pick(data, MODEL_FIELDS)
    values.setdefault("params_active_b", values.get("params_total_b"))
    errors = model_profile_rule_errors(values)
    values["aliases"] = clean_aliases(values.get("aliases") or [])
    if taken := _aliases_taken(values["aliases"]):
        errors.setdefault("aliases", []).extend(taken)
    slug = slugify(data.get("slug") or values.get("name") or "")[:80]
    if not values.get("name") or not slug:
        errors.setdefault("name", []).append("Give the model a name.")
    elif ModelProfile.objects.filter(slug=slug).exists():
        errors.setdefault("name", []).append(f"A model with the identifier {slug!r} exists.")
    if errors:
        raise CatalogInvalid(errors)
    profile = ModelProfile.objects.create(
        **values, slug=slug, is_custom=True, created_by=acting_user
    )
    audit_record(
        actor=acting_user,
        action="model_profile.created",
        obj=profile,
        summary={"params_total_b": profile.params_total_b, "layers": profile.layers},
    )
    return profile


@transaction.atomic
def api_route_create(
    *, acting_user: User, data: Mapping[str, Any], provider: Provider | None
) -> ModelApiRoute:
    require_role(acting_user, *access.CATALOG_WRITERS)
    values = _pick(data, API_ROUTE_FIELDS)
    values["currency"] = str(values.get("currency") or "USD").upper()
    # An empty answer is "not stated", as on quotes: a brief requiring one refuses the route.
    values["private_endpoint"] = values.get("private_endpoint") or PrivateEndpoint.UNKNOWN
    errors = api_route_rule_errors(values)
    if provider is None:
        errors["provider"] = ["Choose the provider of this model API."]
    if errors or provider is None:
        raise CatalogInvalid(errors)
    route = ModelApiRoute.objects.create(**values, provider=provider, entered_by=acting_user)
    audit_record(
        actor=acting_user,
        action="api_route.created",
        obj=route,
        summary={
            "provider": provider.slug if provider else None,
            "input": str(route.price_input_per_m_tokens),
            "output": str(route.price_output_per_m_tokens),
            "currency": route.currency,
        },
    )
    return route


@transaction.atomic
def fx_rate_create(*, acting_user: User, data: Mapping[str, Any]) -> FxRate:
    """Record a rate (finance or admin only); one rate per currency and day."""
    require_role(acting_user, *access.FX_WRITERS)
    values = _pick(data, ("currency", "rate_to_base", "as_of"))
    values["currency"] = str(values.get("currency") or "").upper()
    newest = (
        FxRate.objects.filter(currency=values["currency"])
        .order_by("-as_of")
        .values_list("rate_to_base", "as_of")
        .first()
    )
    if errors := fx_rule_errors(values, base_currency=settings.BASE_CURRENCY, newest=newest):
        raise CatalogInvalid(errors)
    try:
        with transaction.atomic():
            rate = FxRate.objects.create(**values, entered_by=acting_user)
    except IntegrityError as exc:
        raise CatalogInvalid(
            {"as_of": [f"A {values['currency']} rate for {values['as_of']} exists already."]}
        ) from exc
    audit_record(
        actor=acting_user,
        action="fx_rate.created",
        obj=rate,
        summary={"currency": rate.currency, "rate_to_base": str(rate.rate_to_base)},
    )
    # Prices held for want of this rate, and those it moves, are judged again now (R9).
    quotes_rejudge(acting_user=acting_user, currency=rate.currency)
    return rate
