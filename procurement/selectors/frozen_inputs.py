"""The "inputs frozen in this comparison" block of the results page, in words: each override
and applied assumption by its label, shares as percentages, ranges as "likely (low–high)",
the source named, and a row-specific figure by the row's label rather than its key."""

from __future__ import annotations

from typing import Any

from procurement.models import CandidateResult, Comparison
from procurement.selectors.reviews.record import applied_assumptions
from procurement.snapshot.assumptions import RANGED, SCALARS

# Figures the engine holds as a share of 1; a reader expects a percentage.
SHARES = frozenset(
    {
        "utilisation",
        "acceptance_rate",
        "failure_rate",
        "safety_margin",
        "memory_efficiency",
        "compute_efficiency",
        "cached_input_fraction",
        "cache_write_fraction",
        "mfu_spread",
        "fixed_peak_headroom",
        "spot_rework_share",
        "api_failed_attempts_billed",
        "cost_of_capital_annual",
        "residual_value_share",
    }
)
SOURCES = {
    "brief": "the brief",
    "override": "this comparison's override",
    "product default": "the workbench's stated default",
    "engine default": "the engine's default",
    "quote": "the offer's own figure",
    "route": "the API route's own figure",
}


def _number(value: Any, share: bool) -> str:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)  # already words (money formatted with its currency, a scope name)
    if share:
        return f"{round(number * 100, 2):g} %"
    return f"{number:,.0f}" if number == int(number) else f"{number:,.4g}"


def value_words(name: str, value: Any) -> str:
    """One figure as a reader says it; a {low, likely, high} range as 'likely (low–high)'."""
    share = name.removeprefix("purchase.") in SHARES
    if isinstance(value, dict) and {"low", "likely", "high"} <= value.keys():
        low, likely, high = (_number(value[k], share) for k in ("low", "likely", "high"))
        return likely if low == high else f"{likely} ({low} – {high})"
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "—"}[value]
    return _number(value, share)


def _label(name: str) -> str:
    spec = RANGED.get(name) or SCALARS.get(name)
    return spec.label if spec is not None else name.replace("_", " ").capitalize()


def overrides_words(overrides: dict[str, Any]) -> list[dict[str, str]]:
    return [
        {"label": _label(name), "value": value_words(name, value)}
        for name, value in (overrides or {}).items()
    ]


def applied_words(comparison: Comparison) -> list[dict[str, str]]:
    """The applied assumptions in words; one query for the labels of the rows named."""
    applied = applied_assumptions(comparison)
    keys = {str(a["candidate_id"]) for a in applied if a.get("candidate_id")}
    labels = dict(
        CandidateResult.objects.filter(comparison=comparison, key__in=keys).values_list(
            "key", "label"
        )
        if keys
        else ()
    )
    return [
        {
            "label": str(a.get("label") or a.get("name")),
            "row": labels.get(str(a.get("candidate_id")), str(a.get("candidate_id") or "")),
            "value": str(a["note"])
            if a.get("note")
            else value_words(str(a.get("name")), a.get("value")),
            "source": SOURCES.get(str(a.get("source")), str(a.get("source") or "")),
        }
        for a in applied
    ]
