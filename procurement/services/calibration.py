"""The calibration ledger's writes: one pair (estimate, measurement) per operating point of
each result a computed comparison costed a row measured on its workload
(docs/engine/calibration.md).

Written in the same transaction as the comparison's rows, so a ledger pair never exists for
a result that was not saved. A point already kept (the same result, accelerator, GPUs, point
shape, precision and workload class) keeps its first pair: the ledger counts measurements,
not recomputes, nor the briefs that compared one file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from catalog.models import CalibrationEntry, Quote
from procurement.models import Comparison


def _pairs(row: Mapping[str, Any]) -> list[dict[str, Any]]:
    perf = row.get("performance") or {}
    found = perf.get("calibration") or {}
    result_id = str((perf.get("evidence") or {}).get("result_id") or "")
    if not (row.get("quote_id") and result_id.isdigit()):
        return []
    model = str(found.get("model") or (perf.get("measured") or {}).get("model_name") or "")
    out = []
    for pair in found.get("pairs") or []:
        estimated, measured = pair.get("estimated_tokens_per_s"), pair.get("measured_tokens_per_s")
        if not (estimated and measured):
            continue
        out.append(
            {
                "quote_id": row["quote_id"],
                "benchmark_result_id": int(result_id),
                "model_name": model[:200],
                "shape": str(pair.get("shape") or "")[:200],
                "gpus": int(row.get("gpus") or 1),
                "precision": str(found.get("precision") or "")[:16],
                "workload_class": str(found.get("workload_class") or "")[:30],
                "estimated_tokens_per_s": float(estimated),
                "measured_tokens_per_s": float(measured),
            }
        )
    return out


def calibration_entries_record(*, comparison: Comparison, rows: Iterable[Mapping[str, Any]]) -> int:
    """Keep the ledger pairs of a computed comparison's measured rows; returns how many pairs
    the rows carried (pairs already kept are not duplicated)."""
    pairs = [p for row in rows for p in _pairs(row)]
    if not pairs:
        return 0
    accelerators = dict(
        Quote.objects.filter(pk__in={p["quote_id"] for p in pairs}).values_list(
            "pk", "accelerator_id"
        )
    )
    model_id = comparison.brief.model_id
    CalibrationEntry.objects.bulk_create(
        [
            CalibrationEntry(
                accelerator_id=accelerators[pair.pop("quote_id")],
                model_profile_id=model_id,
                comparison_id=comparison.pk,
                engine_version=comparison.engine_version,
                **pair,
            )
            for pair in pairs
        ],
        ignore_conflicts=True,  # one pair per result point, precision and workload class
    )
    return len(pairs)
