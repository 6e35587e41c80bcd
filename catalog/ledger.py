"""The calibration ledger's reads (docs/engine/calibration.md): the throughput pairs and billed
months on accelerators, and the summaries a comparison freezes."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.db.models import QuerySet

from catalog.models import CalibrationEntry, Quote
from engine.calibration import CalibrationEntry as CalibrationPair
from engine.calibration import CalibrationSummary, summarise


def calibration_entries_for(accelerator_ids: Iterable[int]) -> QuerySet[CalibrationEntry]:
    """Ledger pairs (estimate, measurement) on these accelerators, newest first."""
    return CalibrationEntry.objects.filter(
        kind=CalibrationEntry.Kind.THROUGHPUT, accelerator_id__in=list(accelerator_ids)
    ).select_related("accelerator")


def cost_entries_for(accelerator_ids: Iterable[int]) -> QuerySet[CalibrationEntry]:
    """Billed months (actual against forecast cost per accepted output) on these
    accelerators' offers, newest first."""
    return CalibrationEntry.objects.filter(
        kind=CalibrationEntry.Kind.COST, accelerator_id__in=list(accelerator_ids)
    ).select_related("quote__provider")


def cost_calibration_for(quotes: Iterable[Quote]) -> dict[str, dict[str, Any]]:
    """Per quote id: the billed months' actual / forecast ratios on its offer (the same
    provider, accelerator and capacity model, any version), for the snapshot (one query)."""
    quotes = list(quotes)
    found: dict[tuple[int, int, str], list[Decimal]] = {}
    billed = cost_entries_for({q.accelerator_id for q in quotes}).values_list(
        "quote__provider_id", "quote__accelerator_id", "quote__capacity_model", "cost_ratio"
    )
    for provider_id, accelerator_id, capacity_model, ratio in billed:
        if ratio is None:  # never on a billed month (the ledger's check)
            continue
        found.setdefault((provider_id, accelerator_id, capacity_model), []).append(ratio)
    out = {}
    for q in quotes:
        ratios = sorted(found.get((q.provider_id, q.accelerator_id, q.capacity_model), []))
        if ratios:
            out[str(q.pk)] = {
                "entries": len(ratios),
                "min_ratio": format(ratios[0], "f"),
                "max_ratio": format(ratios[-1], "f"),
            }
    return out


def calibration_model_key(profile_id: int | None, model_name: str) -> str:
    """How the ledger names a model: its profile when it has one, else its name."""
    return f"profile:{profile_id}" if profile_id else f"name:{model_name}"


def calibration_summaries_by_model(
    accelerator_ids: Iterable[int],
) -> dict[str, CalibrationSummary]:
    """Per ``engine.calibration.ledger_key`` (accelerator slug, model, weight precision,
    workload class): the spread of measured / estimate over the pairs of that key alone,
    counted by distinct results. Pairs kept before engine 1.5.0 (no precision: their
    estimate was taken at a brief's shape, not the point's) are left out."""
    rows = (
        calibration_entries_for(accelerator_ids)
        .exclude(precision="")
        .exclude(workload_class="")
        .values_list(
            "accelerator__slug",
            "model_profile_id",
            "model_name",
            "benchmark_result_id",
            "estimated_tokens_per_s",
            "measured_tokens_per_s",
            "precision",
            "workload_class",
        )
    )
    return summarise(
        (
            CalibrationPair(
                accelerator=slug,
                model=calibration_model_key(profile_id, name),
                shape="",
                estimated_tokens_per_s=estimated,
                measured_tokens_per_s=measured,
                result_id=result_id,
                precision=precision,
                workload_class=cls,
                model_label=name,
            )
            for slug, profile_id, name, result_id, estimated, measured, precision, cls in rows
            if estimated is not None and measured is not None and result_id is not None
        ),
        by_model=True,
    )


def calibration_summaries(accelerator_ids: Iterable[int]) -> dict[str, CalibrationSummary]:
    """Per accelerator slug: the spread of measured / estimate over its ledger (one query)."""
    rows = calibration_entries_for(accelerator_ids).values_list(
        "accelerator__slug", "estimated_tokens_per_s", "measured_tokens_per_s"
    )
    return summarise(
        CalibrationPair(
            accelerator=slug,
            model="",
            shape="",
            estimated_tokens_per_s=estimated,
            measured_tokens_per_s=measured,
        )
        for slug, estimated, measured in rows
        if estimated and measured  # a throughput pair always has both (the ledger's check)
    )
