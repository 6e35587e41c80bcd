"""The "fetch" step: database rows → one JSON document, frozen into `Comparison.snapshot`.

Everything the engine will see is copied here (brief fields, model and accelerator
figures, each quote version with its id/version/quoted_at, API routes, the FX rates used,
checklist summaries, measured benchmark figures, assumption overrides), so a comparison can
be recomputed from the snapshot + seed + engine version alone, whatever happens to the rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, cast

from django.conf import settings
from django.db import models

from benchmarks.selectors import (
    evidence_results_for,
    hosted_latency_for,
    published_results_for,
    request_sizes_for_brief,
)
from briefs.fit import gpu_spec_for, model_spec_for
from briefs.selectors import ready_trace_for
from catalog.ledger import calibration_summaries_by_model, cost_calibration_for
from catalog.models import FxRate as FxRateRow
from catalog.selectors import same_setup_versions
from checklist.selectors import quote_checklist_summaries
from core.roles import Role
from engine.comparison import ENGINE_VERSION
from procurement.snapshot import assumptions
from procurement.snapshot.schema import (
    SNAPSHOT_FORMAT,
    AcceleratorRow,
    BriefRow,
    CalibrationRow,
    ChecklistSummary,
    CostCalibrationRow,
    FrozenResult,
    FxRate,
    GpuSpecRow,
    HostedLatency,
    JSONValue,
    Measured,
    MeasuredRequests,
    ModelRow,
    ModelSpecRow,
    Overrides,
    QuoteRow,
    RequestSizes,
    RouteRow,
    Selection,
    Snapshot,
    TrafficTraceRow,
)

if TYPE_CHECKING:
    from briefs.models import WorkloadBrief
    from catalog.models import Accelerator, ModelApiRoute, ModelProfile, Quote

# Fields that say nothing about the offer itself.
_SKIPPED_FIELDS = {"created_at"}


def plain(value: object) -> JSONValue:
    """A model field value as JSON (Decimal as its exact string, datetimes in ISO 8601)."""
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def row_fields(obj: models.Model) -> dict[str, JSONValue]:
    """Every concrete field of a row (foreign keys as `<name>_id`)."""
    out: dict[str, JSONValue] = {}
    for field in obj._meta.concrete_fields:
        if field.name in _SKIPPED_FIELDS:
            continue
        out[field.attname] = plain(getattr(obj, field.attname))
    return out


def _accelerator(acc: Accelerator) -> AcceleratorRow:
    return {
        "id": acc.pk,
        "slug": acc.slug,
        "name": acc.name,
        "vendor": acc.vendor,
        "tdp_w": acc.tdp_w,
        "interconnect": acc.interconnect,
        "architecture": acc.architecture,
        "spec": cast(GpuSpecRow, plain(dataclasses.asdict(gpu_spec_for(acc)))),
    }


def _model(profile: ModelProfile) -> ModelRow:
    return {
        "id": profile.pk,
        "slug": profile.slug,
        "name": profile.name,
        "params_active_b": profile.params_active_b,
        "family": profile.family,
        "spec": cast(ModelSpecRow, plain(dataclasses.asdict(model_spec_for(profile)))),
    }


def _quote(quote: Quote) -> QuoteRow:
    data = cast(QuoteRow, row_fields(quote))
    data["provider_name"] = quote.provider.name
    data["accelerator_slug"] = quote.accelerator.slug
    data["label"] = str(quote)
    return data


def _route(route: ModelApiRoute) -> RouteRow:
    data = cast(RouteRow, row_fields(route))
    data["provider_name"] = route.provider.name
    data["label"] = str(route)
    return data


def routes_with_latency(
    api_routes: Sequence[ModelApiRoute], brief: WorkloadBrief
) -> list[RouteRow]:
    """The routes, each with the latency a benchmark run against it measured (or None)."""
    measured = hosted_latency_for([r.pk for r in api_routes], brief.pk, brief.model)
    rows = []
    for route in api_routes:
        row = _route(route)
        found = measured.get(route.pk)
        row["measured_latency"] = None if found is None else cast(HostedLatency, plain(found))
        rows.append(row)
    return rows


def fx_rates(currencies: set[str], *, on: date) -> dict[str, FxRate]:
    """The latest rate of each currency as of `on` (one query); the base currency is 1."""
    base = settings.BASE_CURRENCY
    out: dict[str, FxRate] = {base: {"rate_to_base": "1", "as_of": on.isoformat()}}
    wanted = {c for c in currencies if c and c != base}
    if not wanted:
        return out
    rows = FxRateRow.objects.filter(currency__in=wanted, as_of__lte=on).order_by(
        "currency", "-as_of", "-id"
    )
    for rate in rows.only("currency", "rate_to_base", "as_of"):
        out.setdefault(
            rate.currency,
            {"rate_to_base": format(rate.rate_to_base, "f"), "as_of": rate.as_of.isoformat()},
        )
    return out


def checklist_summaries(quotes: Sequence[Quote]) -> dict[str, ChecklistSummary]:
    """quote id → the checklist summary the comparison judges the quote on."""
    return {
        str(k): cast(ChecklistSummary, plain(v))
        for k, v in quote_checklist_summaries(quotes).items()
    }


def measured_performance(quotes: Sequence[Quote], brief: WorkloadBrief) -> Measured:
    """Every parsed benchmark result on these quotes or their accelerators, with the workload
    it measured, and the published results of the brief's model (or its family) on those
    accelerators. Which one counts for a row is decided at compute time by the matching rules
    (engine/evidence.py), never here."""
    quote_ids, accelerator_ids = [q.pk for q in quotes], sorted({q.accelerator_id for q in quotes})
    found = evidence_results_for(quote_ids, accelerator_ids, brief.pk)
    # Evidence follows the offer: a run on an earlier version that changed no hardware or
    # configuration is on this offer, and says which version it ran on (issue 37, U3).
    lineage = same_setup_versions(quotes)
    for item in found:
        if (moved := lineage.get(item.get("quote_id") or 0)) is not None:
            item["measured_quote_id"], item["quote_id"] = item["quote_id"], moved[0]
            item["measured_on_version"] = moved[1]
    model = brief.model
    published = published_results_for(
        accelerator_ids, model.pk if model else None, model.family if model else ""
    )
    return {
        "results": [cast(FrozenResult, plain(r)) for r in found],
        "published": [cast(FrozenResult, plain(r)) for r in published],
    }


def calibration(accelerators: Sequence[Accelerator]) -> dict[str, CalibrationRow]:
    """Per accelerator slug, the spread of measured / estimate in the calibration ledger: the
    comparison widens (or, with enough pairs, centres) its estimates on it."""
    found = calibration_summaries_by_model(sorted({a.pk for a in accelerators}))
    return {
        key: cast(CalibrationRow, dataclasses.asdict(summary)) for key, summary in found.items()
    }


def workload_part(brief: WorkloadBrief, overrides: Overrides) -> Snapshot:
    """What the engine reads of the workload (the brief, its model, the assumptions): the
    request checks it before saving, the worker freezes it with the candidates."""
    return cast(
        Snapshot,
        {
            "stale_quote_days": settings.STALE_QUOTE_DAYS,
            "brief": cast(BriefRow, row_fields(brief)),
            "model": _model(brief.model) if brief.model is not None else None,
            "assumptions": {
                "overrides": overrides,
                "effective": assumptions.effective(overrides),
            },
        },
    )


def freeze(
    *,
    brief: WorkloadBrief,
    quotes: Sequence[Quote],
    api_routes: Sequence[ModelApiRoute],
    overrides: Overrides,
    selection: Selection,
    as_of: datetime,
) -> Snapshot:
    """The whole input of one comparison as JSON. Quotes need provider and accelerator loaded."""
    accelerators = {q.accelerator.slug: _accelerator(q.accelerator) for q in quotes}
    # Whose word a quote's claims are: a vendor's own entries need a reviewer's acceptance
    # before their private endpoint counts (snapshot/quotes.py), procurement's do not.
    vendor_entered = set(
        type(quotes[0])
        .objects.filter(pk__in=[q.pk for q in quotes], entered_by__role=Role.VENDOR)
        .values_list("pk", flat=True)
        if quotes
        else ()
    )
    currencies = {q.currency for q in quotes} | {r.currency for r in api_routes}
    return {
        "format": SNAPSHOT_FORMAT,
        "engine_version": ENGINE_VERSION,
        "as_of": as_of.isoformat(),
        "base_currency": settings.BASE_CURRENCY,
        "selection": selection,
        **workload_part(brief, overrides),
        "accelerators": accelerators,
        "quotes": [{**_quote(q), "entered_by_vendor": q.pk in vendor_entered} for q in quotes],
        "api_routes": routes_with_latency(api_routes, brief),
        "fx_rates": fx_rates(currencies, on=as_of.date()),
        "checklist": checklist_summaries(quotes),
        "measured": measured_performance(quotes, brief),
        "calibration": calibration([q.accelerator for q in quotes]),
        "cost_calibration": cast(dict[str, CostCalibrationRow], cost_calibration_for(quotes)),
        "request_sizes": cast(list[MeasuredRequests], request_sizes_for_brief(brief.pk)),
        "traffic_trace": traffic_trace_row(brief),
    }


def traffic_trace_row(brief: WorkloadBrief) -> TrafficTraceRow | None:
    """The brief's newest read trace, as the comparison freezes it (issue 42)."""
    trace = ready_trace_for(brief)
    if trace is None:
        return None
    sizes = trace.summary.get("request_sizes") or {}
    return {
        "id": trace.pk,
        "file": str(trace.raw_file.name),
        "sha256": trace.sha256,
        "original_name": trace.original_name,
        "window": trace.window,
        "requests": int(trace.requests or 0),
        "request_sizes": cast(RequestSizes, sizes),
    }
