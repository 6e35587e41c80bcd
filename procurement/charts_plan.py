"""The cheapest plan across offers as a stacked bar beside the best single candidate (pure:
no Django, no database, no browser).

One horizontal bar for the plan, stacked per vendor and configuration, base (committed)
and overflow apart, and one for the best single candidate carrying the whole brief; x is
USD a month. The vendors' fixed charges and commitment shortfalls are one more segment of the
plan's bar, so the bar is the plan's monthly cost. When the table recommends a row other
than that single candidate (one that cannot carry every request size), a third bar shows that
row's GPUs and APIs (its monthly total less the workload's own lines), so the plan is seen
beside the row a reviewer would otherwise approve. None when there is no plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from core.chart_text import plotly_escaped
from core.values import float_or_none

CHEAPEST = "Cheapest plan across offers"


def _money(value: Any) -> Decimal:
    return Decimal(str(value)) if value not in (None, "") else Decimal(0)


def plan_title(plan: Mapping[str, Any]) -> str:
    """The plan's name on every page, chart and export: "cheapest" only when it costs no more
    than the recommended row in the rows' terms; else what it is and what it costs more."""
    gap = plan.get("vs_recommended_usd")
    if gap in (None, "") or _money(gap) >= 0:
        return CHEAPEST
    return f"Plan across offers, USD {-_money(gap):,.2f} a month more than the recommended row"


def role_words(line: Mapping[str, Any], has_base: bool) -> str:
    """A part's role in words: "committed base", "overflow", "per request" (API); in a plan
    with no committed base an elastic part is "pay as used" (not an overflow of nothing, and
    not "on demand": it may be spot)."""
    if line.get("role") == "base":
        return "committed base"
    if line.get("capacity") == "api":
        return "per request"
    return "overflow" if has_base else "pay as used"


def plan_noun(plan: Mapping[str, Any]) -> str:
    """The plan in a sentence ("approved: …"), by the same rule as its title."""
    cheapest = plan_title(plan) == CHEAPEST
    return "the cheapest plan across offers" if cheapest else "the plan across offers"


def plan_name(plan: Mapping[str, Any]) -> str:
    """The plan's bar in the chart: short, and never "cheapest" when it is not."""
    return "Cheapest plan" if plan_title(plan) == CHEAPEST else "Plan across offers"


def plan_segments(plan: Mapping[str, Any]) -> list[tuple[str, Decimal]]:
    """(name, USD a month) per line of the plan, then the vendors' other charges."""
    out = []
    lines_total = Decimal(0)
    has_base = any(line.get("role") == "base" for line in plan.get("lines") or [])
    for line in plan.get("lines") or []:
        cost = _money(line.get("monthly_cost"))
        lines_total += cost
        role = role_words(line, has_base)
        out.append((f"{line.get('label', line.get('offer_id', ''))} · {role}", cost))
    parts = sum((_money(v.get("monthly_cost")) for v in plan.get("vendors") or []), Decimal(0))
    if parts - lines_total > 0:
        out.append(("commitments, whole nodes and fixed charges", parts - lines_total))
    return out


@plotly_escaped
def plan_figure(result: Mapping[str, Any]) -> dict[str, Any] | None:
    """The plan's stacked bar beside the best single candidate's (module docstring)."""
    plan = result.get("plan") or {}
    if plan.get("status") not in {"optimal", "time_limit", "single"}:
        return None
    single = f"Best single: {plan.get('best_single_label') or plan.get('best_single_id')}"
    bar = plan_name(plan)
    categories = [single, bar] if plan.get("best_single_cost") is not None else [bar]
    recommended = None
    other_row = plan.get("recommended_id") and not str(plan.get("best_single_id") or "").startswith(
        f"{plan.get('recommended_id')}/"
    )
    if other_row and plan.get("recommended_gpu_usd") is not None:
        # the row the table recommends, when it is not the single the plan is held against
        recommended = f"Recommended row: {plan.get('recommended_label')}"
        categories = [recommended, *categories]
    data: list[dict[str, Any]] = [
        {
            "type": "bar",
            "orientation": "h",
            "name": name,
            "y": [bar],
            "x": [float(cost)],
        }
        for name, cost in plan_segments(plan)
    ]
    if plan.get("best_single_cost") is not None:
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": "best single candidate",
                "y": [single],
                "x": [float_or_none(plan["best_single_cost"])],
            }
        )
    if recommended is not None:
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": "recommended row",
                "y": [recommended],
                "x": [float_or_none(plan["recommended_gpu_usd"])],
            }
        )
    return {
        "data": data,
        "layout": {
            "margin": {"l": 60, "r": 20, "t": 40, "b": 60},
            "font": {"family": "system-ui, sans-serif", "size": 12},
            "legend": {"orientation": "h", "y": -0.3, "font": {"size": 11}},
            "paper_bgcolor": "#ffffff",
            "plot_bgcolor": "#ffffff",
            "title": {"text": f"{bar} vs the best single", "font": {"size": 14}},
            "barmode": "stack",
            "xaxis": {"title": {"text": "USD / month"}},
            "yaxis": {"automargin": True, "categoryarray": categories},
            "height": 320,
        },
    }
