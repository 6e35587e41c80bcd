"""Quote writes: submit, revise (a new version), withdraw (a new, withdrawn version).

A submitted quote row is never updated (ADR 0001): a revision copies the current version,
applies the changes, and saves a new row with `version + 1` and `supersedes` pointing at the
old one. The one-to-one `supersedes` link and a row lock make two concurrent revisions of the
same version impossible: the second one gets a clear 409.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Provider, User
from catalog import access, hooks, selectors
from catalog.errors import (
    CatalogInvalid,
    QuoteNotCurrent,
    QuoteWithdrawn,
    RfqClosed,
    UnusualPrice,
)
from catalog.models import Accelerator, CapacityModel, PriceUnit, Quote, Rfq
from catalog.plausibility import price_check, purchase_price_check
from catalog.services.quote_guards import refuse_late_unsolicited, refuse_revision_flood
from catalog.validation import quote_rule_errors
from core.audit import audit_record
from core.errors import Conflict, NotAllowed, NotFound
from core.roles import has_role, is_vendor

# Carried unchanged from one version to the next.
LINEAGE_FIELDS = ("provider", "rfq", "is_public_list_price")
# Set by the catalog import (never by a person); carried to the next version unless the
# import that revises the quote gives new values.
IMPORT_FIELDS = ("zones", "list_key")
# Set by the service: who acts, the version, the plausibility check.
SERVICE_FIELDS = {"id", "version", "supersedes", "status", "entered_by", "created_at"}
SERVICE_FIELDS |= {"price_far_from_market", "price_check"}
_INPUT = [
    field
    for field in Quote._meta.concrete_fields
    if field.name not in {*LINEAGE_FIELDS, *IMPORT_FIELDS, *SERVICE_FIELDS}
]
# What a person enters for a quote: every other field of the model, in its order.
QUOTE_INPUT_FIELDS = tuple(field.name for field in _INPUT)
# The model's defaults, for fields a partial input leaves out or empty (a private endpoint
# "not stated": a brief requiring one finds the offer ineligible).
INPUT_DEFAULTS: dict[str, Any] = {f.name: f.default for f in _INPUT if f.has_default()}
PER_GPU_QUANTUM = Decimal("0.0001")


def _convert_price(values: dict[str, Any], given: Mapping[str, Any]) -> None:
    """A price quoted per node-hour or per instance-hour becomes a price per GPU-hour (the
    comparison's and the plausibility check's unit); the quoted figure and the GPUs it
    covers are kept beside it, so both are shown. A per-GPU price sent alone (an older
    client, or a revision of that figure only) is converted back to the quoted unit."""
    if values.get("capacity_model") == CapacityModel.PURCHASE:
        return
    unit = values.get("price_unit") or PriceUnit.GPU_HOUR
    values["price_unit"] = unit
    if unit == PriceUnit.GPU_HOUR:
        if given.get("price_per_gpu_hour") is None and given.get("price_as_quoted") is not None:
            values["price_per_gpu_hour"] = values["price_as_quoted"]
        # the price per GPU-hour is the quoted price: nothing to keep beside it
        values["price_as_quoted"] = None
        values["gpus_per_priced_unit"] = None
        return
    errors: dict[str, list[str]] = {}
    if unit == PriceUnit.NODE_HOUR:
        gpus = values.get("gpus_per_node") or 8
        values["gpus_per_priced_unit"] = gpus
    else:
        gpus = values.get("gpus_per_priced_unit")
        if not gpus or gpus < 1:
            errors["gpus_per_priced_unit"] = [
                "Give the GPUs in one instance: a price per instance-hour is divided by them."
            ]
    quoted = values.get("price_as_quoted")
    if given.get("price_as_quoted") is None and given.get("price_per_gpu_hour") is not None:
        quoted = None  # the caller changed the per-GPU figure: it leads
    if quoted is None and values.get("price_per_gpu_hour") is not None and gpus:
        quoted = values["price_per_gpu_hour"] * gpus
    if quoted is None:
        errors.setdefault("price_as_quoted", []).append(
            f"Give the price {PriceUnit(unit).label}, as quoted."
        )
    if errors or quoted is None or not gpus:
        raise CatalogInvalid(errors)
    values["price_as_quoted"] = quoted
    values["price_per_gpu_hour"] = (Decimal(quoted) / gpus).quantize(PER_GPU_QUANTUM)


def _clean(data: Mapping[str, Any]) -> dict[str, Any]:
    values = {k: v for k, v in data.items() if k in QUOTE_INPUT_FIELDS}
    for key, default in INPUT_DEFAULTS.items():  # an empty optional field means the default
        if key in values and values[key] in (None, ""):
            values[key] = default
    if isinstance(values.get("currency"), str):
        values["currency"] = values["currency"].strip().upper()
    for key, value in list(values.items()):
        if isinstance(value, str):
            values[key] = value.strip()
    return values


def _validate(
    values: Mapping[str, Any], *, rfq: Rfq | None, require_source: bool, imported: bool = False
) -> None:
    accelerator = values.get("accelerator")
    errors = quote_rule_errors(
        values,
        accelerator=accelerator if isinstance(accelerator, Accelerator) else None,
        rfq=rfq,
        require_source=require_source,
        node_from_file=imported,
    )
    if errors:
        raise CatalogInvalid(errors)


def _plausibility(
    values: Mapping[str, Any],
    *,
    provider: Provider,
    replacing: Quote | None,
    confirmed: bool,
    by_staff: bool,
) -> dict[str, Any]:
    """The quote's flag fields: a price far from the market is refused unless its author
    confirmed it, and then kept with the check's figures (see catalog.plausibility). A price
    that cannot be judged yet (no FX rate) is held: kept, flagged, judged when a rate comes."""
    accelerator = values.get("accelerator")
    if not isinstance(accelerator, Accelerator):
        return {"price_far_from_market": False, "price_check": {}}
    check = _check(values, accelerator, provider, replacing, by_staff)
    if check is None:
        return {"price_far_from_market": False, "price_check": {}}
    if check.get("held"):
        return {"price_far_from_market": True, "price_check": check}
    if not confirmed:
        raise UnusualPrice(check, staff=by_staff)
    check["confirmed_by"] = "staff" if by_staff else "vendor"
    return {"price_far_from_market": True, "price_check": check}


def _check(
    values: Mapping[str, Any],
    accelerator: Accelerator,
    provider: Provider,
    replacing: Quote | None,
    by_staff: bool,
) -> dict[str, Any] | None:
    lineage = [replacing.pk] if replacing is not None else []
    if values.get("capacity_model") == CapacityModel.PURCHASE:
        return purchase_price_check(
            accelerator_id=accelerator.pk,
            currency=str(values.get("currency") or ""),
            price_per_node=values.get("price_per_node"),
            gpus_per_node=values.get("gpus_per_node"),
            lineage_ids=lineage,
            provider_id=provider.pk,
            by_staff=by_staff,
        )
    return price_check(
        accelerator_id=accelerator.pk,
        capacity_model=str(values.get("capacity_model")),
        currency=str(values.get("currency") or ""),
        price=values.get("price_per_gpu_hour"),
        lineage_ids=lineage,
        provider_id=provider.pk,
        by_staff=by_staff,
    )


def quotes_rejudge(*, acting_user: User, currency: str) -> int:
    """Judge every current priced quote in `currency` again (a rate for it was entered or
    changed): a held price becomes plausible or far, a plausible one may become far. A far
    price keeps the confirmation it had, if any; one nobody confirmed blocks its rows until
    procurement enters the price itself. Public list prices are the market: not judged.
    Returns how many quotes changed; each change is audited."""
    changed = 0
    quotes = (
        Quote.objects.current()
        .filter(currency=currency, is_public_list_price=False)
        .exclude(status=Quote.Status.WITHDRAWN)
        .select_related("accelerator", "provider", "entered_by")
        .select_for_update(of=("self",))
    )
    for quote in quotes:
        values = {field: getattr(quote, field) for field in QUOTE_INPUT_FIELDS}
        by_staff = not access.entered_by_vendor(quote)
        check = _check(values, quote.accelerator, quote.provider, quote, by_staff)
        before = quote.price_check or {}
        if check is not None and before.get("confirmed_by") and not before.get("held"):
            check["confirmed_by"] = before["confirmed_by"]
        flags = {"price_far_from_market": check is not None, "price_check": check or {}}
        if flags == {"price_far_from_market": quote.price_far_from_market, "price_check": before}:
            continue
        # The judgement is not the vendor's figure: updating it in place keeps the version.
        Quote.objects.filter(pk=quote.pk).update(**flags)
        changed += 1
        audit_record(
            actor=acting_user,
            action="quote.price_rejudged",
            obj=quote,
            summary={
                "currency": currency,
                "was_held": bool(before.get("held")),
                "price_far_from_market": flags["price_far_from_market"],
                "message": str((check or {}).get("message") or ""),
            },
        )
    return changed


def _audit_summary(quote: Quote) -> dict[str, Any]:
    price = quote.price_per_gpu_hour
    return {
        "provider": quote.provider.slug,
        "accelerator": quote.accelerator.slug,
        "capacity_model": quote.capacity_model,
        "version": quote.version,
        "price_per_gpu_hour": str(price) if price is not None else None,
        "price_per_node": str(quote.price_per_node) if quote.price_per_node else None,
        "currency": quote.currency,
        "status": quote.status,
        "price_far_from_market": quote.price_far_from_market,
    }


def _resolve_submitter(
    acting_user: User, provider: Provider | None, rfq: Rfq | None
) -> tuple[Provider, bool]:
    """(provider the quote belongs to, whether it was entered by staff)."""
    if is_vendor(acting_user):
        if rfq is not None and not access.rfqs_for(acting_user).filter(pk=rfq.pk).exists():
            raise NotFound("No such RFQ.")
        if acting_user.provider is None:  # the vendor_has_provider constraint forbids it
            raise NotAllowed("This vendor account belongs to no provider.")
        return acting_user.provider, False
    if not has_role(acting_user, *access.CATALOG_WRITERS):
        raise NotAllowed("Only procurement leads, admins and vendors can enter quotes.")
    if provider is None:
        raise CatalogInvalid({"provider": ["Choose the provider this quote comes from."]})
    if rfq is not None and not rfq.providers.filter(pk=provider.pk).exists():
        raise CatalogInvalid({"rfq": [f"{provider} is not invited to this RFQ."]})
    return provider, True


@transaction.atomic
def quote_submit(
    *,
    acting_user: User,
    data: Mapping[str, Any],
    provider: Provider | None = None,
    rfq: Rfq | None = None,
    is_public_list_price: bool = False,
    confirm_unusual_price: bool = False,
) -> Quote:
    """Create version 1 of a quote. Vendors always submit for their own organisation.

    A price far from the market needs `confirm_unusual_price` (catalog.plausibility)."""
    provider, by_staff = _resolve_submitter(acting_user, provider, rfq)
    if rfq is not None and not by_staff and not rfq.is_open_for_answers():
        raise RfqClosed()
    values = {**INPUT_DEFAULTS, **_clean(data)}
    if rfq is None and not by_staff:
        refuse_late_unsolicited(provider, values)
    _convert_price(values, data)
    _validate(values, rfq=rfq, require_source=by_staff and rfq is None)
    flags = _plausibility(
        values,
        provider=provider,
        replacing=None,
        confirmed=confirm_unusual_price,
        by_staff=by_staff,
    )
    quote = Quote.objects.create(
        **values,
        **flags,
        provider=provider,
        rfq=rfq,
        is_public_list_price=is_public_list_price and by_staff,
        version=1,
        status=Quote.Status.SUBMITTED,
        entered_by=acting_user,
    )
    audit_record(
        actor=acting_user, action="quote.submitted", obj=quote, summary=_audit_summary(quote)
    )
    return quote


def _lock_current(acting_user: User, quote: Quote, *, withdrawing: bool = False) -> Quote:
    """Lock the version being replaced; refuse anything but the live, current version."""
    if not access.quotes_for(acting_user).filter(pk=quote.pk).exists():
        raise NotFound("No such quote.")
    locked = (
        Quote.objects.select_for_update(of=("self",))
        .select_related("rfq", "provider")
        .get(pk=quote.pk)
    )
    if Quote.objects.filter(supersedes_id=locked.pk).exists():
        raise QuoteNotCurrent(selectors.quote_latest_version(locked).version)
    if locked.status == Quote.Status.WITHDRAWN:
        raise QuoteWithdrawn()
    allowed = access.can_withdraw_quote if withdrawing else access.can_revise_quote
    if not allowed(acting_user, locked):
        if is_vendor(acting_user):
            raise RfqClosed()
        if access.entered_by_vendor(locked):
            raise NotAllowed(
                "This price was submitted by the vendor: ask them for a revision, or enter a "
                "quote of your own (it is marked as entered by procurement)."
            )
        raise NotAllowed("Only procurement leads, admins and the quoting vendor can change it.")
    return locked


def next_version(
    acting_user: User,
    old: Quote,
    values: dict[str, Any],
    status: str,
    imported: Mapping[str, Any] | None = None,
    flags: Mapping[str, Any] | None = None,
) -> Quote:
    """The unsaved version after `old`: these input values, old's lineage and import fields
    (the `imported` ones replacing them), the service's flags."""
    lineage = {field: getattr(old, field) for field in (*LINEAGE_FIELDS, *IMPORT_FIELDS)}
    lineage.update({k: v for k, v in (imported or {}).items() if k in IMPORT_FIELDS})
    return Quote(
        **values,
        **lineage,
        **(flags or {}),
        version=old.version + 1,
        supersedes=old,
        status=status,
        entered_by=acting_user,
    )


def _saved(new: Quote) -> Quote:
    try:
        with transaction.atomic():
            new.save(force_insert=True)
    except IntegrityError as exc:  # the one-to-one link: someone revised it first
        raise Conflict() from exc
    return new


def _changes(old: Quote, new: Quote) -> dict[str, list[str]]:
    changed = {}
    for field in QUOTE_INPUT_FIELDS:
        before, after = getattr(old, field), getattr(new, field)
        if before != after:
            changed[field] = [str(before), str(after)]
    return changed


@transaction.atomic
def quote_revise(
    *,
    acting_user: User,
    quote: Quote,
    data: Mapping[str, Any],
    imported: Mapping[str, Any] | None = None,
    confirm_unusual_price: bool = False,
) -> Quote:
    """Save a new version with the changes; the old row stays exactly as it was.

    `imported`: the import-only fields (`IMPORT_FIELDS`) a catalog re-import sets (imports
    are the market, so they are not checked for plausibility). A price far from the market
    needs `confirm_unusual_price`."""
    old = _lock_current(acting_user, quote)
    if is_vendor(acting_user):
        refuse_revision_flood(old.provider)
    values = {field: getattr(old, field) for field in QUOTE_INPUT_FIELDS}
    # A revision is a new capture of the price unless the caller says when it was captured.
    values["quoted_at"] = timezone.now()
    values.update(_clean(data))
    _convert_price(values, data)

    by_staff = has_role(acting_user, *access.CATALOG_WRITERS)
    _validate(
        values,
        rfq=old.rfq,
        require_source=by_staff and old.rfq is None,
        imported=imported is not None,
    )
    flags = (
        None
        if imported is not None
        else _plausibility(
            values,
            provider=old.provider,
            replacing=old,
            confirmed=confirm_unusual_price,
            by_staff=by_staff,
        )
    )
    new = _saved(next_version(acting_user, old, values, Quote.Status.SUBMITTED, imported, flags))
    hooks.quote_replaced([(old, new)], acting_user)  # approved decisions learn of it
    audit_record(
        actor=acting_user,
        action="quote.revised",
        obj=new,
        summary={**_audit_summary(new), "supersedes": old.pk, "changed": _changes(old, new)},
    )
    return new


@transaction.atomic
def quote_withdraw(*, acting_user: User, quote: Quote, reason: str = "") -> Quote:
    """Withdraw by adding a version with status withdrawn (nothing is deleted)."""
    old = _lock_current(acting_user, quote, withdrawing=True)
    values = {field: getattr(old, field) for field in QUOTE_INPUT_FIELDS}
    reason = reason.strip()
    if reason:
        values["notes"] = f"Withdrawn: {reason}"
    new = _saved(next_version(acting_user, old, values, Quote.Status.WITHDRAWN))
    hooks.quote_replaced([(old, new)], acting_user)
    audit_record(
        actor=acting_user,
        action="quote.withdrawn",
        obj=new,
        summary={**_audit_summary(new), "supersedes": old.pk, "reason": reason[:500]},
    )
    return new
