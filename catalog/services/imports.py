"""Bulk imports of public list prices: all rows valid, or nothing saved.

The pure parsers (`catalog.importers`) turn bytes into rows and shape errors; this module maps
the rows onto the catalog (unknown accelerators, models and providers are reported, never
invented), applies the same rules as a hand-entered quote, and writes everything in one
transaction. A rejected file is still audit-logged (after the rollback). Importing the same
bytes again for the same date is a no-op that says so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db import transaction

from accounts.models import Provider, User
from catalog import access
from catalog.errors import ImportRejected
from catalog.importers.common import ImportFileError, ParseResult, RowError
from catalog.importers.litellm import LiteLlmRow, parse_litellm_prices
from catalog.importers.names import accelerator_slug_for, model_profile_slug_for
from catalog.importers.price_list import PriceListRow, parse_price_list
from catalog.importers.skypilot import SkyPilotRow, parse_skypilot_vms
from catalog.models import Accelerator, CapacityModel, ModelApiRoute, ModelProfile, Quote
from catalog.validation import api_route_rule_errors, max_gpus_per_node_for, quote_rule_errors
from core.audit import audit_record
from core.models import AuditEvent
from core.roles import require_role


class ImportKind:
    PRICE_LIST = "price_list"
    SKYPILOT = "skypilot"
    LITELLM = "litellm"
    CHOICES = (
        (PRICE_LIST, "Price-list CSV (our template)"),
        (SKYPILOT, "SkyPilot catalog vms.csv"),
        (LITELLM, "LiteLLM model_prices_and_context_window.json"),
    )


@dataclass(slots=True)
class ImportOutcome:
    kind: str
    created: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    unknown: dict[str, int] = field(default_factory=dict)
    duplicate_of: str | None = None

    def skip(self, reason: str, count: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + count


@dataclass(slots=True)
class _Plan:
    objects: list[Any] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)


def _moment(captured_on: date) -> datetime:
    return datetime(captured_on.year, captured_on.month, captured_on.day, tzinfo=UTC)


def _accelerators() -> dict[str, Accelerator]:
    return {a.slug: a for a in Accelerator.objects.all()}


# --- Price-list CSV --------------------------------------------------------------------------


def _plan_price_list(
    rows: Iterable[PriceListRow], *, acting_user: User, quoted_at: datetime, filename: str
) -> _Plan:
    plan = _Plan()
    accelerators = _accelerators()
    rows = list(rows)
    providers = {p.slug: p for p in Provider.objects.filter(slug__in={r.provider for r in rows})}
    for row in rows:
        provider = providers.get(row.provider)
        slug = accelerator_slug_for(row.accelerator, set(accelerators))
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
                    f"{row.accelerator!r} is not in "
                    "the catalog (use a catalog slug such as h100-sxm-80gb).",
                )
            )
        values = {**row.values, "quoted_at": quoted_at}
        if not values.get("source_url"):
            values["source_document"] = filename[:200]
        accelerator = accelerators.get(slug or "")
        for column, messages in quote_rule_errors(values, accelerator=accelerator).items():
            if column != "accelerator" or accelerator is not None:
                plan.errors.extend(RowError(row.row, column, m) for m in messages)
        if provider is not None and accelerator is not None:
            plan.objects.append(
                Quote(
                    **values,
                    provider=provider,
                    accelerator=accelerator,
                    is_public_list_price=True,
                    entered_by=acting_user,
                )
            )
    return plan


# --- SkyPilot vms.csv --------------------------------------------------------------------------


def _plan_skypilot(
    rows: Iterable[SkyPilotRow],
    *,
    acting_user: User,
    quoted_at: datetime,
    filename: str,
    provider: Provider,
    outcome: ImportOutcome,
) -> _Plan:
    plan = _Plan()
    accelerators = _accelerators()
    for row in rows:
        slug = accelerator_slug_for(row.accelerator_name, set(accelerators))
        if slug is None:
            outcome.unknown[row.accelerator_name] = outcome.unknown.get(row.accelerator_name, 0) + 1
            continue
        accelerator = accelerators[slug]
        if row.accelerator_count > max_gpus_per_node_for(accelerator):
            outcome.skip(f"more GPUs per instance than the catalog allows for {accelerator.name}")
            continue
        common = {
            "provider": provider,
            "accelerator": accelerator,
            "title": row.instance_type,
            "currency": "USD",
            "gpus_per_node": row.accelerator_count,
            "vcpu_per_node": row.vcpus,
            "ram_gb_per_node": row.ram_gb,
            "region": row.region,
            "zone": row.zone,
            "quoted_at": quoted_at,
            "source_document": filename[:200],
            "is_public_list_price": True,
            "entered_by": acting_user,
        }
        for capacity, price in (
            (CapacityModel.ON_DEMAND, row.on_demand_per_gpu_hour),
            (CapacityModel.SPOT, row.spot_per_gpu_hour),
        ):
            if price is None:
                continue
            if price <= 0:
                outcome.skip("price rounds to zero per GPU-hour")
                continue
            plan.objects.append(Quote(**common, capacity_model=capacity, price_per_gpu_hour=price))
    return plan


# --- LiteLLM JSON -------------------------------------------------------------------------------


def _provider_for(name: str, providers: dict[str, Provider]) -> Provider | None:
    for candidate in (name, name.replace("_", "-"), name.lower().replace("_", "-")):
        if candidate in providers:
            return providers[candidate]
    return None


def _plan_litellm(
    rows: Iterable[LiteLlmRow],
    *,
    acting_user: User,
    quoted_at: datetime,
    only_providers: list[Provider] | None,
    outcome: ImportOutcome,
) -> _Plan:
    plan = _Plan()
    providers = {p.slug: p for p in (only_providers or Provider.objects.all())}
    profiles = {p.slug: p for p in ModelProfile.objects.all()}
    quantum = Decimal("0.0001")
    for row in rows:
        provider = _provider_for(row.litellm_provider, providers)
        if provider is None:
            label = f"provider {row.litellm_provider}"
            outcome.unknown[label] = outcome.unknown.get(label, 0) + 1
            continue
        values: dict[str, Any] = {
            "model_name": row.model_name,
            "currency": "USD",
            "price_input_per_m_tokens": row.input_per_m.quantize(quantum, ROUND_HALF_UP),
            "price_output_per_m_tokens": row.output_per_m.quantize(quantum, ROUND_HALF_UP),
            "price_cached_input_per_m_tokens": (
                row.cached_input_per_m.quantize(quantum, ROUND_HALF_UP)
                if row.cached_input_per_m is not None
                else None
            ),
            "quoted_at": quoted_at,
        }
        if api_route_rule_errors(values):
            outcome.skip("price rounds to zero per million tokens")
            continue
        profile_slug = model_profile_slug_for(row.model_name, set(profiles))
        plan.objects.append(
            ModelApiRoute(
                **values,
                provider=provider,
                model_profile=profiles.get(profile_slug or ""),
                is_public_list_price=True,
                entered_by=acting_user,
                source_url="https://github.com/BerriAI/litellm",
            )
        )
    return plan


# --- The service -------------------------------------------------------------------------------


def _previous_import(sha256: str, kind: str, captured_on: date) -> AuditEvent | None:
    return (
        AuditEvent.objects.filter(
            action="catalog.imported",
            summary__sha256=sha256,
            summary__kind=kind,
            summary__captured_on=captured_on.isoformat(),
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


def catalog_import(
    *,
    acting_user: User,
    kind: str,
    data: bytes,
    filename: str,
    captured_on: date,
    provider: Provider | None = None,
    only_providers: list[Provider] | None = None,
) -> ImportOutcome:
    """Import one file of public list prices; raises ImportRejected with every row error."""
    require_role(acting_user, *access.CATALOG_WRITERS)
    sha256 = hashlib.sha256(data).hexdigest()
    summary = {
        "kind": kind,
        "filename": filename[:200],
        "sha256": sha256,
        "captured_on": captured_on.isoformat(),
        "bytes": len(data),
    }
    outcome = ImportOutcome(kind=kind)
    if kind == ImportKind.SKYPILOT and provider is None:
        raise _reject(
            acting_user,
            summary,
            [
                RowError(
                    None, "provider", "Choose the provider (cloud) this SkyPilot catalog lists."
                )
            ],
        )
    if previous := _previous_import(sha256, kind, captured_on):
        outcome.duplicate_of = f"{previous.created_at:%Y-%m-%d %H:%M} UTC by {previous.actor_name}"
        return outcome
    quoted_at = _moment(captured_on)
    try:
        plan = _plan(
            kind,
            data,
            acting_user=acting_user,
            quoted_at=quoted_at,
            filename=filename,
            provider=provider,
            only_providers=only_providers,
            outcome=outcome,
        )
    except ImportFileError as exc:
        raise _reject(acting_user, summary, [RowError(None, None, str(exc))]) from exc
    if plan.errors:
        raise _reject(acting_user, summary, plan.errors)
    with transaction.atomic():
        model = ModelApiRoute if kind == ImportKind.LITELLM else Quote
        model.objects.bulk_create(plan.objects, batch_size=500)
        outcome.created = len(plan.objects)
        audit_record(
            actor=acting_user,
            action="catalog.imported",
            object_type="catalog.import",
            object_id=sha256[:40],
            summary={
                **summary,
                "created": outcome.created,
                "unknown": outcome.unknown,
                "provider": provider.slug if provider else None,
            },
        )
    return outcome


def _row_order(error: RowError) -> tuple[int, int, str]:
    if isinstance(error.row, int):
        return (1, error.row, "")
    return (0, 0, "") if error.row is None else (2, 0, str(error.row))


def _plan(kind: str, data: bytes, *, outcome: ImportOutcome, **context: Any) -> _Plan:
    common = {"acting_user": context["acting_user"], "quoted_at": context["quoted_at"]}
    parsed: ParseResult[Any]
    if kind == ImportKind.PRICE_LIST:
        parsed = parse_price_list(data)
        plan = _plan_price_list(parsed.rows, filename=context["filename"], **common)
    elif kind == ImportKind.SKYPILOT:
        parsed = parse_skypilot_vms(data)
        plan = _plan_skypilot(
            parsed.rows,
            filename=context["filename"],
            provider=context["provider"],
            outcome=outcome,
            **common,
        )
    elif kind == ImportKind.LITELLM:
        parsed = parse_litellm_prices(data)
        plan = _plan_litellm(
            parsed.rows, only_providers=context["only_providers"], outcome=outcome, **common
        )
    else:
        raise ImportFileError(f"Unknown import kind {kind!r}.")
    for reason, count in parsed.skipped.items():
        outcome.skip(reason, count)
    # One message per cell: a shape error ("not a number") hides the rule error it causes.
    seen = {(e.row, e.column) for e in parsed.errors}
    rule_errors = [e for e in plan.errors if (e.row, e.column) not in seen]
    plan.errors = sorted([*parsed.errors, *rule_errors], key=_row_order)
    return plan
