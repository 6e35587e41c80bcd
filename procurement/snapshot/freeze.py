"""The "fetch" step: database rows → one JSON document, frozen into `Comparison.snapshot`.

Everything the engine will see is copied here (brief fields, model and accelerator
figures, each quote version with its id/version/quoted_at, API routes, the FX rates used,
checklist summaries, measured benchmark figures, assumption overrides), so a comparison can
be recomputed from the snapshot + seed + engine version alone, whatever happens to the rows.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models

from briefs.fit import gpu_spec_for, model_spec_for
from engine.comparison import ENGINE_VERSION
from procurement.snapshot import assumptions

if TYPE_CHECKING:
    from briefs.models import WorkloadBrief
    from catalog.models import Accelerator, ModelApiRoute, Quote

logger = logging.getLogger(__name__)

SNAPSHOT_FORMAT = 1
# Fields that say nothing about the offer itself.
_SKIPPED_FIELDS = {"created_at"}


def plain(value: Any) -> Any:
    """A model field value as JSON (Decimal as its exact string, datetimes in ISO 8601)."""
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return value


def row_fields(obj: models.Model) -> dict[str, Any]:
    """Every concrete field of a row (foreign keys as `<name>_id`)."""
    out: dict[str, Any] = {}
    for field in obj._meta.concrete_fields:
        if field.name in _SKIPPED_FIELDS:
            continue
        out[field.attname] = plain(getattr(obj, field.attname))
    return out


def _spec_dict(spec: Any) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(spec).items()}


def _accelerator(acc: Accelerator) -> dict[str, Any]:
    return {
        "id": acc.pk,
        "slug": acc.slug,
        "name": acc.name,
        "vendor": acc.vendor,
        "tdp_w": acc.tdp_w,
        "interconnect": acc.interconnect,
        "spec": _spec_dict(gpu_spec_for(acc)),
    }


def _quote(quote: Quote) -> dict[str, Any]:
    data = row_fields(quote)
    data["provider_name"] = quote.provider.name
    data["accelerator_slug"] = quote.accelerator.slug
    data["label"] = str(quote)
    return data


def _route(route: ModelApiRoute) -> dict[str, Any]:
    data = row_fields(route)
    data["provider_name"] = route.provider.name
    data["label"] = str(route)
    return data


def fx_rates(currencies: set[str], *, on: date) -> dict[str, dict[str, str]]:
    """The latest rate of each currency as of `on` (one query); the base currency is 1."""
    from catalog.models import FxRate

    base = settings.BASE_CURRENCY
    out: dict[str, dict[str, str]] = {base: {"rate_to_base": "1", "as_of": on.isoformat()}}
    wanted = {c for c in currencies if c and c != base}
    if not wanted:
        return out
    rows = FxRate.objects.filter(currency__in=wanted, as_of__lte=on).order_by(
        "currency", "-as_of", "-id"
    )
    for rate in rows.only("currency", "rate_to_base", "as_of"):
        out.setdefault(
            rate.currency,
            {"rate_to_base": format(rate.rate_to_base, "f"), "as_of": rate.as_of.isoformat()},
        )
    return out


def checklist_summaries(quotes: Sequence[Quote]) -> dict[str, Any] | None:
    """quote id → checklist summary, or None when the checklist area is not installed."""
    try:
        from checklist.selectors import quote_checklist_summaries
    except ImportError:
        logger.warning("checklist.selectors is missing: comparisons carry no checklist data")
        return None
    return {str(k): v for k, v in quote_checklist_summaries(quotes).items()}


def measured_performance(
    quotes: Sequence[Quote], brief: WorkloadBrief
) -> dict[str, dict[str, Any]] | None:
    """Measured figures per quote and per accelerator, or None without the benchmarks area."""
    try:
        from benchmarks.selectors import measured_performance_for
    except ImportError:
        logger.warning("benchmarks.selectors is missing: every figure will be estimated")
        return None
    quote_ids, accelerator_ids = [q.pk for q in quotes], sorted({q.accelerator_id for q in quotes})
    found = measured_performance_for(quote_ids, accelerator_ids, brief.pk)
    out = {
        "by_quote": {str(k): plain(v) for k, v in found.get("by_quote", {}).items()},
        "by_accelerator": {str(k): plain(v) for k, v in found.get("by_accelerator", {}).items()},
    }
    try:
        from benchmarks.selectors import evidence_results_for
    except ImportError:  # an older benchmarks area: the legacy figures only
        return out
    out["results"] = plain(evidence_results_for(quote_ids, accelerator_ids, brief.pk))
    return out


def calibration(accelerators: Sequence[Accelerator]) -> dict[str, dict[str, Any]]:
    """Per accelerator slug, the spread of measured / estimate in the calibration ledger: the
    comparison widens (or, with enough pairs, centres) its estimates on it."""
    from catalog.selectors import calibration_summaries_by_model

    found = calibration_summaries_by_model(sorted({a.pk for a in accelerators}))
    return {key: dataclasses.asdict(summary) for key, summary in found.items()}


def freeze(
    *,
    brief: WorkloadBrief,
    quotes: Sequence[Quote],
    api_routes: Sequence[ModelApiRoute],
    overrides: dict[str, Any],
    selection: dict[str, Any],
    as_of: datetime,
) -> dict[str, Any]:
    """The whole input of one comparison as JSON. Quotes need provider and accelerator loaded."""
    brief_data = row_fields(brief)
    model = None
    if brief.model is not None:
        model = {
            "id": brief.model.pk,
            "slug": brief.model.slug,
            "name": brief.model.name,
            "params_active_b": brief.model.params_active_b,
            "family": brief.model.family,
            "spec": _spec_dict(model_spec_for(brief.model)),
        }
    accelerators = {q.accelerator.slug: _accelerator(q.accelerator) for q in quotes}
    currencies = {q.currency for q in quotes} | {r.currency for r in api_routes}
    return {
        "format": SNAPSHOT_FORMAT,
        "engine_version": ENGINE_VERSION,
        "as_of": as_of.isoformat(),
        "base_currency": settings.BASE_CURRENCY,
        "stale_quote_days": settings.STALE_QUOTE_DAYS,
        "selection": selection,
        "brief": brief_data,
        "model": model,
        "assumptions": {
            "overrides": overrides,
            "effective": assumptions.effective(overrides),
        },
        "accelerators": accelerators,
        "quotes": [_quote(q) for q in quotes],
        "api_routes": [_route(r) for r in api_routes],
        "fx_rates": fx_rates(currencies, on=as_of.date()),
        "checklist": checklist_summaries(quotes),
        "measured": measured_performance(quotes, brief),
        "calibration": calibration([q.accelerator for q in quotes]),
    }
