"""Bulk imports of public list prices, repeatable as a weekly refresh.

The pure parsers (`catalog.importers`) turn bytes into rows and shape errors;
`import_plans` maps the rows onto the catalog (unknown accelerators, models and providers are
reported, never invented) and applies the same rules as a hand-entered quote; `import_apply`
writes them in one transaction, revising the matching current quote rather than adding a
second one, and withdrawing the offers that left the file.

All or nothing: our price-list template is refused whole when any row is wrong (the default
for it). Public files (SkyPilot, LiteLLM) import their good rows and report the bad ones,
unless the caller asks for all-or-nothing. A rejected file is still audit-logged (after the
rollback). Importing the same bytes again under the same provider for the same date is a no-op
that says so; under another provider it is a new import (and a file of another cloud is refused).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from django.db import transaction

from accounts.models import Provider, User
from catalog import access
from catalog.errors import ImportRejected
from catalog.importers.common import ImportFileError, ParseResult, RowError
from catalog.importers.litellm import parse_litellm_prices
from catalog.importers.names import normalise_name
from catalog.importers.price_list import parse_price_list
from catalog.importers.skypilot import NAMES_EVERY_TYPE, parse_skypilot_vms
from catalog.services.import_apply import Applied, apply_quotes, apply_routes
from catalog.services.import_plans import Plan, litellm_plan, price_list_plan, skypilot_plan
from core.audit import audit_record
from core.models import AuditEvent
from core.roles import require_role

CLOUD_NAMES = {
    "aws": "AWS",
    "gcp": "Google Cloud",
    "azure": "Azure",
    "lambda": "Lambda",
    "runpod": "RunPod",
    "nebius": "Nebius",
    "oci": "Oracle Cloud",
    "hyperstack": "Hyperstack",
    "cudo": "Cudo Compute",
    "primeintellect": "Prime Intellect",
}
# Provider slug or name (normalised) → the cloud whose SkyPilot catalog lists it: each cloud's
# key and name, and the other names its provider goes by.
PROVIDER_CLOUDS = {
    **{normalise_name(cloud): cloud for cloud in CLOUD_NAMES},
    **{normalise_name(name): cloud for cloud, name in CLOUD_NAMES.items()},
    "amazonwebservices": "aws",
    "microsoftazure": "azure",
    "lambdalabs": "lambda",
}


class ImportKind:
    PRICE_LIST = "price_list"
    SKYPILOT = "skypilot"
    LITELLM = "litellm"
    CHOICES = (
        (PRICE_LIST, "Price-list CSV (our template)"),
        (SKYPILOT, "SkyPilot catalog vms.csv"),
        (LITELLM, "LiteLLM model_prices_and_context_window.json"),
    )
    ALL_OR_NOTHING_BY_DEFAULT = frozenset({PRICE_LIST})


@dataclass(slots=True)
class ImportOutcome:
    kind: str
    created: int = 0
    revised: int = 0
    unchanged: int = 0
    withdrawn: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    unknown: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)  # rows reported, not imported
    duplicate_of: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _moment(captured_on: date) -> datetime:
    return datetime(captured_on.year, captured_on.month, captured_on.day, tzinfo=UTC)


def _scope(provider: Provider | None, only_providers: list[Provider] | None) -> list[str] | None:
    """The providers an import writes for (None: every provider the file names)."""
    if provider is not None:
        return [provider.slug]
    return sorted(p.slug for p in only_providers) if only_providers else None


def _previous_import(
    sha256: str, kind: str, captured_on: date, scope: list[str] | None
) -> AuditEvent | None:
    """The earlier import of these bytes for this date for the same providers: the same bytes
    under another provider were never imported there."""
    return (
        AuditEvent.objects.filter(
            action="catalog.imported",
            summary__sha256=sha256,
            summary__kind=kind,
            summary__captured_on=captured_on.isoformat(),
            summary__scope=scope,
        )
        .order_by("-id")
        .first()
    )


def _reject(acting_user: User, summary: dict[str, Any], errors: list[RowError]) -> ImportRejected:
    audit_record(
        actor=acting_user,
        action="catalog.import_rejected",
        outcome="rejected",
        object_type="catalog.import",
        object_id=summary["sha256"][:40],
        summary={**summary, "errors": len(errors)},
    )
    return ImportRejected([e.as_dict() for e in errors])


def cloud_mismatch(provider: Provider, file_cloud: object) -> RowError | None:
    """A SkyPilot file is imported only under the provider it belongs to: a file whose
    instance types are another cloud's is refused, and so is a file under AWS, Azure, Cudo or
    Prime Intellect (whose every instance type we can tell) when most of its rows are not
    theirs."""
    chosen = PROVIDER_CLOUDS.get(normalise_name(provider.slug)) or PROVIDER_CLOUDS.get(
        normalise_name(provider.name)
    )
    file_cloud = file_cloud if isinstance(file_cloud, str) else None
    if chosen == file_cloud or (file_cloud is None and chosen not in NAMES_EVERY_TYPE):
        return None
    if file_cloud is not None:
        message = (
            f"This file lists {CLOUD_NAMES[file_cloud]} instance types, but the provider chosen "
            f"is {provider.name}: choose {CLOUD_NAMES[file_cloud]}'s provider or the right file."
        )
    else:
        message = (
            f"The provider chosen is {provider.name}, but most of this file's instance types "
            f"are not {CLOUD_NAMES[str(chosen)]} ones: choose the provider the file belongs to."
        )
    return RowError(None, "provider", message)


def catalog_import(
    *,
    acting_user: User,
    kind: str,
    data: bytes,
    filename: str,
    captured_on: date,
    provider: Provider | None = None,
    only_providers: list[Provider] | None = None,
    all_or_nothing: bool | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> ImportOutcome:
    """Import one file of public list prices; raises ImportRejected with every row error.

    `all_or_nothing`: refuse the whole file when any row is wrong (default: yes for our
    price-list template, no for public files, whose bad rows are reported in the outcome).
    `progress(fraction, stage)` is called between the stages (read, planned, written)."""
    report = progress or (lambda fraction, stage: None)
    require_role(acting_user, *access.CATALOG_WRITERS)
    sha256 = hashlib.sha256(data).hexdigest()
    scope = _scope(provider, only_providers)
    summary = {
        "kind": kind,
        "filename": filename[:200],
        "sha256": sha256,
        "captured_on": captured_on.isoformat(),
        "bytes": len(data),
        "scope": scope,
    }
    if all_or_nothing is None:
        all_or_nothing = kind in ImportKind.ALL_OR_NOTHING_BY_DEFAULT
    outcome = ImportOutcome(kind=kind)
    if kind == ImportKind.SKYPILOT and provider is None:
        choose = "Choose the provider (cloud) this SkyPilot catalog lists."
        raise _reject(acting_user, summary, [RowError(None, "provider", choose)])
    if previous := _previous_import(sha256, kind, captured_on, scope):
        outcome.duplicate_of = f"{previous.created_at:%Y-%m-%d %H:%M} UTC by {previous.actor_name}"
        return outcome
    report(0.1, "reading the file")
    try:
        plan, errors = _plan(
            kind,
            data,
            acting_user=acting_user,
            quoted_at=_moment(captured_on),
            filename=filename,
            provider=provider,
            only_providers=only_providers,
        )
    except ImportFileError as exc:
        raise _reject(acting_user, summary, [RowError(None, None, str(exc))]) from exc
    if errors and (all_or_nothing or not plan.items):
        raise _reject(acting_user, summary, errors)
    report(0.5, f"writing {len(plan.items)} offers")
    bad_rows = {e.row for e in errors}
    items = [item for item in plan.items if item.row is None or item.row not in bad_rows]
    outcome.skipped, outcome.unknown, outcome.kept = plan.skipped, plan.unknown, plan.kept
    outcome.errors = [e.as_dict() for e in errors]
    with transaction.atomic():
        applied: Applied
        if kind == ImportKind.LITELLM:
            applied = apply_routes(items, acting_user=acting_user, providers=plan.providers)
        else:
            applied = apply_quotes(
                items,
                acting_user=acting_user,
                providers=plan.providers,
                prefix=f"{kind}:",
                unidentified=plan.unidentified,
            )
        outcome.created, outcome.revised = applied.created, applied.revised
        outcome.unchanged, outcome.withdrawn = applied.unchanged, applied.withdrawn
        audit_record(
            actor=acting_user,
            action="catalog.imported",
            object_type="catalog.import",
            object_id=sha256[:40],
            summary={
                **summary,
                "created": outcome.created,
                "revised": outcome.revised,
                "unchanged": outcome.unchanged,
                "withdrawn": outcome.withdrawn,
                "row_errors": len(errors),
                "unknown": outcome.unknown,
                "provider": provider.slug if provider else None,
            },
        )
    report(1.0, "done")
    return outcome


def _row_order(error: RowError) -> tuple[int, int, str]:
    if isinstance(error.row, int):
        return (1, error.row, "")
    return (0, 0, "") if error.row is None else (2, 0, str(error.row))


def _plan(kind: str, data: bytes, **context: Any) -> tuple[Plan, list[RowError]]:
    common = {"acting_user": context["acting_user"], "quoted_at": context["quoted_at"]}
    parsed: ParseResult[Any]
    if kind == ImportKind.PRICE_LIST:
        parsed = parse_price_list(data)
        plan = price_list_plan(parsed.rows, filename=context["filename"], **common)
    elif kind == ImportKind.SKYPILOT:
        parsed = parse_skypilot_vms(data)
        mismatch = cloud_mismatch(context["provider"], parsed.facts.get("cloud"))
        if mismatch is not None:
            raise ImportFileError(mismatch.message)
        plan = skypilot_plan(
            parsed.rows, filename=context["filename"], provider=context["provider"], **common
        )
    elif kind == ImportKind.LITELLM:
        parsed = parse_litellm_prices(data)
        plan = litellm_plan(parsed.rows, only_providers=context["only_providers"], **common)
    else:
        raise ImportFileError(f"Unknown import kind {kind!r}.")
    for reason, count in parsed.skipped.items():
        plan.skip(reason, count)
    # One message per cell: a shape error ("not a number") hides the rule error it causes.
    seen = {(e.row, e.column) for e in parsed.errors}
    rule_errors = [e for e in plan.errors if (e.row, e.column) not in seen]
    return plan, sorted([*parsed.errors, *rule_errors], key=_row_order)
