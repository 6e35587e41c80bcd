"""What a price change behind a comparison does to it: the changed row recomputed.

A copy of the comparison's frozen snapshot gets the new price (or loses the withdrawn quote)
and goes through the same compute with the same seed; the comparison itself is never touched.
Its rank and unit cost come from the cost model, not the simulation, so a few hundred draws
are enough here and keep the worker's run short (`services.price_change_delivery` calls
this after the vendor's commit). The result is kept on the flag as JSON:

    {"pct_change": "14.33", "old_unit_cost": "5.64", "new_unit_cost": "6.21",
     "old_commitment_usd": "…", "new_commitment_usd": "…", "rank": 1, "still_first": true,
     "first_label": "…", "first_unit_cost": "…", "unit_label": "…",
     "needs_reapproval": true, "tolerance_pct": 5}

A flag on a vendor part of an approved plan (`on_plan`) says what the price does to the
plan instead of to one row: the approved plan's monthly cost and total commitment against
the cheapest plan recomputed at the new price, that part's own cost before and after, and
whether the recomputed plan still uses the same vendor offers:

    {"plan": true, "part_label": "…", "old_plan_monthly_usd": "…", "new_plan_monthly_usd":
     "…", "old_commitment_usd": "…", "new_commitment_usd": "…", "old_part_monthly_usd": "…",
     "new_part_monthly_usd": "…" | null, "same_vendors": true, "new_plan_reason": "",
     "pct_change": "…", "needs_reapproval": …, "tolerance_pct": 5}
"""

from __future__ import annotations

import copy
import logging
from decimal import Decimal
from typing import Any

from django.conf import settings

from core.values import decimal_or_none
from procurement.models import Comparison, PlanPart, PriceChange
from procurement.services.comparisons.compute import Computed, compute

logger = logging.getLogger(__name__)

IMPACT_SAMPLES = 200


def _text(value: Any, places: str = "0.01") -> str | None:
    number = decimal_or_none(value)
    return None if number is None else str(number.quantize(Decimal(places)))


def pct_change(old: Decimal | None, new: Decimal | None) -> Decimal | None:
    """(new − old) / old in %, two decimals; None without both prices."""
    if old is None or new is None or old == 0:
        return None
    return ((new - old) / old * 100).quantize(Decimal("0.01"))


def _snapshot_with(comparison: Comparison, flag: PriceChange) -> dict[str, Any]:
    snapshot = copy.deepcopy(comparison.snapshot or {})
    quote_id = flag.candidate.quote_id
    quotes = snapshot.get("quotes") or []
    if flag.kind == PriceChange.Kind.WITHDRAWN:
        snapshot["quotes"] = [q for q in quotes if q.get("id") != quote_id]
        return snapshot
    for quote in quotes:
        if quote.get("id") == quote_id:
            field = "price_per_node" if flag.price_unit == "per node" else "price_per_gpu_hour"
            quote[field] = format(flag.new_price, "f") if flag.new_price is not None else None
    return snapshot


def _recomputed(flag: PriceChange, impact: dict[str, Any]) -> Computed | None:
    """The comparison computed again at the new price; None, with the error on `impact`, when
    that fails: the flag and its notice matter more than the figures."""
    comparison = flag.comparison
    try:
        snapshot = _snapshot_with(comparison, flag)
        return compute(snapshot, seed=comparison.seed, samples=IMPACT_SAMPLES)
    except Exception as exc:
        logger.exception("could not recompute price change %s", flag.pk)
        impact["error"] = f"The impact could not be recomputed ({type(exc).__name__})."
        return None


def _plan_impact(flag: PriceChange, base: dict[str, Any]) -> dict[str, Any]:
    """The impact of a flag on a vendor part of the approved plan (module docstring)."""
    parts = list(
        PlanPart.objects.filter(comparison_id=flag.comparison_id, review__approves_plan=True)
        .select_related("candidate")
        .order_by("review__created_at", "review_id", "position")
    )
    first = [p for p in parts if p.review_id == parts[0].review_id] if parts else []
    mine = next((p for p in first if p.candidate_id == flag.candidate_id), None)
    impact = {
        **base,
        "plan": True,
        "part_label": mine.label if mine else flag.candidate.label,
        "old_plan_monthly_usd": _text(sum((p.monthly_cost_usd for p in first), Decimal(0))),
        "old_commitment_usd": _text(sum((p.commitment_usd for p in first), Decimal(0))),
        "old_part_monthly_usd": _text(mine.monthly_cost_usd) if mine else None,
    }
    computed = _recomputed(flag, impact)
    if computed is None:
        return impact
    plan = computed.result.get("plan") or {}
    vendors = {str(v.get("offer_id")): v for v in plan.get("vendors") or []}
    impact["new_plan_monthly_usd"] = _text(plan.get("monthly_cost"))
    impact["new_commitment_usd"] = _text(plan.get("commitment_usd"))
    impact["new_plan_reason"] = str(plan.get("reason") or "")
    changed = vendors.get(flag.candidate.key)
    impact["new_part_monthly_usd"] = (
        _text(changed.get("monthly_cost")) if changed is not None else None
    )
    impact["same_vendors"] = set(vendors) == {p.candidate.key for p in first}
    return impact


def price_change_impact(flag: PriceChange) -> dict[str, Any]:
    """The impact of `flag` on its comparison (see the module docstring)."""
    comparison = flag.comparison
    candidate = flag.candidate
    pct = pct_change(flag.old_price, flag.new_price)
    tolerance = Decimal(settings.PRICE_CHANGE_TOLERANCE_PCT)
    withdrawn = flag.kind == PriceChange.Kind.WITHDRAWN
    base = {
        "pct_change": _text(pct),
        "unit_label": candidate.unit_label,
        "tolerance_pct": settings.PRICE_CHANGE_TOLERANCE_PCT,
        "needs_reapproval": withdrawn or pct is None or abs(pct) > tolerance,
    }
    if flag.on_plan:
        return _plan_impact(flag, base)
    impact: dict[str, Any] = {
        **base,
        "old_unit_cost": None if candidate.unit_cost_usd is None else str(candidate.unit_cost_usd),
        "old_commitment_usd": _text((candidate.detail or {}).get("commitment_usd")),
        "was_first": candidate.key == comparison.recommended_key,
    }
    computed = _recomputed(flag, impact)
    if computed is None:
        return impact
    rows = {row["key"]: row for row in computed.rows}
    row = rows.get(candidate.key)
    first = rows.get(computed.recommended_key)
    if row is not None:
        new_unit = decimal_or_none(row.get("unit_cost_usd"))
        impact["new_unit_cost"] = None if new_unit is None else str(new_unit)
        impact["new_commitment_usd"] = _text(row["detail"].get("commitment_usd"))
        impact["rank"] = row.get("rank")
        impact["eligible"] = bool(row.get("eligible"))
    impact["still_first"] = computed.recommended_key == candidate.key
    if first is not None:
        impact["first_label"] = first.get("label", "")
        first_unit = decimal_or_none(first.get("unit_cost_usd"))
        impact["first_unit_cost"] = None if first_unit is None else str(first_unit)
    return impact
