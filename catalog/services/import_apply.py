"""Writing a planned import so a weekly refresh can repeat it.

Quotes: a planned quote whose offer key matches a current imported quote of the same provider
revises it (a new version; the old row is never updated) when the price changed and leaves it
alone when it did not; current imported quotes of the same providers whose key is no longer in
the file are withdrawn (a withdrawn version). Up to BULK_FROM changes go through
`quote_revise` / `quote_withdraw` one by one (one audit event each); a larger refresh writes the
same versions in bulk, after the same locks, checks and rules, with one audit event per
AUDIT_CHUNK versions listing each version and its price change. Model API routes are not
versioned: a changed route is deactivated and replaced, a route that left the file is
deactivated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from catalog import hooks
from catalog.errors import CatalogInvalid
from catalog.importers.litellm import LITELLM_SOURCE
from catalog.models import ModelApiRoute, Quote
from catalog.services.import_plans import Planned, legacy_key
from catalog.services.quotes import (
    IMPORT_FIELDS,
    QUOTE_INPUT_FIELDS,
    next_version,
    quote_revise,
    quote_withdraw,
)
from catalog.validation import quote_rule_errors
from core.audit import audit_record
from core.errors import Conflict
from core.models import AuditEvent

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
    "price_cache_write_per_m_tokens",
    "price_tiers",
    "max_input_tokens",
    "currency",
    "model_profile_id",
    "publisher",
)
LEFT_THE_FILE = "no longer in the imported price list"
NOT_IDENTIFIED = "the imported row no longer identifies a catalog GPU: {label}"
BULK_FROM = 200  # more changes than this are written in bulk
AUDIT_CHUNK = 500


@dataclass(slots=True)
class Applied:
    created: int = 0
    revised: int = 0
    unchanged: int = 0
    withdrawn: int = 0
    revised_ids: list[int] = field(default_factory=list)


def _differs(old: Any, new: Any, fields: tuple[str, ...]) -> bool:
    return any(getattr(old, f) != getattr(new, f) for f in fields)


def _gone_reason(quote: Quote, unidentified: Mapping[str, str]) -> str:
    """Why an offer the file still lists is withdrawn: its row no longer names this card."""
    # A key is "<kind>:<provider>:<title>|<region>|<capacity>", plus "|<zones>" when the
    # zones of one offer are priced differently.
    label = unidentified.get("|".join(quote.list_key.split("|")[:3]))
    return NOT_IDENTIFIED.format(label=label) if label else LEFT_THE_FILE


def apply_quotes(
    items: list[Planned],
    *,
    acting_user: Any,
    providers: set[int],
    prefix: str,
    unidentified: Mapping[str, str] | None = None,
) -> Applied:
    """`unidentified`: offer keys of rows the file lists but whose GPU it no longer
    identifies (→ their label), so their quotes are withdrawn saying so."""
    done = Applied()
    mine = Quote.objects.current().filter(
        provider_id__in=providers, is_public_list_price=True, rfq__isnull=True
    )
    current = {
        q.list_key: q
        for q in mine.filter(list_key__startswith=prefix).select_related("provider", "accelerator")
    }
    # Quotes imported before quotes carried a key (named after an earlier import's file) are
    # matched on the same fields; extra copies of one offer are withdrawn as left the file.
    kind = prefix.rstrip(":")
    files = set(
        AuditEvent.objects.filter(action="catalog.imported", summary__kind=kind).values_list(
            "summary__filename", flat=True
        )
    )
    legacy = mine.filter(list_key="", source_document__in=files - {"", None})
    for q in legacy.select_related("provider", "accelerator").order_by("-quoted_at", "-pk"):
        key = legacy_key(kind, q)
        current[key if key not in current else f"{key}#{q.pk}"] = q
    new: list[Quote] = []
    changes: list[tuple[Quote, Quote]] = []
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
            changes.append((old, quote))
    Quote.objects.bulk_create(new, batch_size=500)
    done.created = len(new)
    gone = list(current.values())
    reasons = {q.pk: _gone_reason(q, unidentified or {}) for q in gone}
    if len(changes) + len(gone) > BULK_FROM:
        _bulk_versions(acting_user, changes, gone, done, reasons)
        return done
    for old, quote in changes:
        data = {f: getattr(quote, f) for f in QUOTE_INPUT_FIELDS}
        revised = quote_revise(
            acting_user=acting_user,
            quote=old,
            data=data,
            imported={"zones": quote.zones, "list_key": quote.list_key},
        )
        done.revised += 1
        done.revised_ids.append(revised.pk)
    for old in gone:
        quote_withdraw(acting_user=acting_user, quote=old, reason=reasons[old.pk])
        done.withdrawn += 1
    return done


def _version_of(
    acting_user: Any, old: Quote, source: Quote | None, reason: str = LEFT_THE_FILE
) -> Quote:
    """The next version of `old`: the import's values (a revision) or old's (a withdrawal)."""
    values = {f: getattr(source or old, f) for f in QUOTE_INPUT_FIELDS}
    if source is None:
        values["notes"] = f"Withdrawn: {reason}"
        return next_version(acting_user, old, values, Quote.Status.WITHDRAWN)
    imported = {f: getattr(source, f) for f in IMPORT_FIELDS}
    return next_version(acting_user, old, values, Quote.Status.SUBMITTED, imported)


def _bulk_versions(
    acting_user: Any,
    changes: list[tuple[Quote, Quote]],
    gone: list[Quote],
    done: Applied,
    reasons: Mapping[int, str] | None = None,
) -> None:
    """Revise and withdraw many quotes at once: the rows being replaced are locked and must
    still be current, every revision passes the quote rules, and each new version is listed
    in an audit event."""
    olds = [old for old, _ in changes] + gone
    ids = [q.pk for q in olds]
    locked = set(
        Quote.objects.select_for_update(of=("self",))
        .filter(pk__in=ids, status=Quote.Status.SUBMITTED)
        .values_list("pk", flat=True)
    )
    if len(locked) != len(ids) or Quote.objects.filter(supersedes_id__in=ids).exists():
        raise Conflict("Some of these quotes changed while importing; import the file again.")
    versions = []
    for old, quote in changes:
        values = {f: getattr(quote, f) for f in QUOTE_INPUT_FIELDS}
        errors = quote_rule_errors(
            values, accelerator=quote.accelerator, require_source=True, node_from_file=True
        )
        if errors:
            raise CatalogInvalid(errors)
        versions.append(_version_of(acting_user, old, quote))
    reasons = reasons or {}
    versions += [
        _version_of(acting_user, old, None, reasons.get(old.pk, LEFT_THE_FILE)) for old in gone
    ]
    Quote.objects.bulk_create(versions, batch_size=500)
    hooks.quote_replaced(list(zip(olds, versions, strict=True)), acting_user)
    done.revised, done.withdrawn = len(changes), len(gone)
    done.revised_ids = [v.pk for v in versions[: len(changes)]]
    rows = [
        {
            "quote": v.pk,
            "supersedes": v.supersedes_id,
            "status": v.status,
            "price_per_gpu_hour": [str(old.price_per_gpu_hour), str(v.price_per_gpu_hour)],
            **({"reason": reasons[old.pk]} if old.pk in reasons else {}),
        }
        for old, v in zip(olds, versions, strict=True)  # versions[i] supersedes olds[i]
    ]
    for start in range(0, len(rows), AUDIT_CHUNK):
        chunk = rows[start : start + AUDIT_CHUNK]
        audit_record(
            actor=acting_user,
            action="quote.revised_by_import",
            object_type="catalog.quote",
            object_id=f"{chunk[0]['quote']}-{chunk[-1]['quote']}",
            summary={"versions": chunk, "reason_withdrawn": LEFT_THE_FILE},
        )


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
