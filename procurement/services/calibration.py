"""The calibration ledger's writes: one pair (estimate, measurement) per candidate measured on
its comparison's workload (docs/engine/calibration.md).

Written in the same transaction as the comparison's rows, so a ledger pair never exists for
a result that was not saved. A result measured again at the same shape by a later comparison
keeps its first pair (the ledger counts measurements, not recomputes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from catalog.models import CalibrationEntry, Quote
from procurement.models import Comparison


def _pair(row: Mapping[str, Any]) -> dict[str, Any] | None:
    perf = row.get("performance") or {}
    found = perf.get("calibration") or {}
    result_id = str((perf.get("evidence") or {}).get("result_id") or "")
    estimated, measured = found.get("estimated_tokens_per_s"), found.get("measured_tokens_per_s")
    if not (row.get("quote_id") and result_id.isdigit() and estimated and measured):
        return None
    return {
        "quote_id": row["quote_id"],
        "benchmark_result_id": int(result_id),
        "model_name": str(found.get("model") or (perf.get("measured") or {}).get("model_name"))[
            :200
        ],
        "shape": str(found.get("shape") or "")[:200],
        "gpus": int(row.get("gpus") or 1),
        "estimated_tokens_per_s": float(estimated),
        "measured_tokens_per_s": float(measured),
    }


def calibration_entries_record(*, comparison: Comparison, rows: Iterable[Mapping[str, Any]]) -> int:
    """Keep the ledger pairs of a computed comparison's measured rows; returns how many rows
    carried one (pairs already kept are not duplicated)."""
    pairs = [p for p in (_pair(row) for row in rows) if p is not None]
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
        ignore_conflicts=True,  # one pair per result, accelerator, GPU count and shape
    )
    return len(pairs)
