"""What the pages show of a comparison sized from the brief's traffic trace (issue 42):
the trace's facts and each sized row, cheapest on the trace first."""

from __future__ import annotations

from typing import Any

from core.values import decimal_or_none
from procurement.models import CandidateResult, Comparison


def trace_sizing_of(comparison: Comparison) -> dict[str, Any] | None:
    """None when the comparison was not sized from a trace."""
    facts = (comparison.result or {}).get("trace")
    if not facts:
        return None
    rows = []
    sized = CandidateResult.objects.filter(
        comparison=comparison, detail__has_key="trace_sizing"
    ).only("label", "detail")
    for row in sized:
        sizing = row.detail["trace_sizing"]
        profiles = sizing.get("profiles") or {}
        centre, low = profiles.get("centre") or {}, profiles.get("p10") or {}
        rows.append(
            {
                "label": row.label,
                "holds": bool(centre.get("holds")),
                "attainment": centre.get("attainment"),
                "peak_gpus": centre.get("peak_gpus"),
                "fixed_gpus": centre.get("fixed_gpus"),
                "monthly_cost": decimal_or_none(centre.get("monthly_cost")),
                "basis": centre.get("basis", ""),
                "pessimistic_holds": bool(low.get("holds")),
                "pessimistic_cost": decimal_or_none(low.get("monthly_cost")),
                "pessimistic_extra": decimal_or_none(sizing.get("pessimistic_extra_monthly")),
                "peak_to_average_gpus": sizing.get("peak_to_average_gpus"),
            }
        )
    rows.sort(key=lambda r: (r["monthly_cost"] is None, r["monthly_cost"] or 0, r["label"]))
    return {"facts": facts, "rows": rows}
