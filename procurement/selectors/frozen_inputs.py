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


#: rows named in a group of the same applied assumption; the rest are counted (L11)
APPLIED_ROWS_NAMED = 3


def applied_words(comparison: Comparison) -> list[dict[str, Any]]:
    """The applied assumptions in words, one line per assumption, value and source, naming
    the first APPLIED_ROWS_NAMED rows it applied to and counting the rest: a line per
    candidate made a 20,000-candidate page 4.4 MB of "storage price: the workbench's default"
    (L11). One query for the labels of the rows named."""
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for a in applied_assumptions(comparison):
        words = (
            str(a.get("label") or a.get("name")),
            str(a["note"]) if a.get("note") else value_words(str(a.get("name")), a.get("value")),
            SOURCES.get(str(a.get("source")), str(a.get("source") or "")),
        )
        group = groups.setdefault(words, {"keys": [], "count": 0})
        if a.get("candidate_id"):
            group["count"] += 1
            if len(group["keys"]) < APPLIED_ROWS_NAMED:
                group["keys"].append(str(a["candidate_id"]))
    keys = {key for group in groups.values() for key in group["keys"]}
    labels = dict(
        CandidateResult.objects.filter(comparison=comparison, key__in=keys).values_list(
            "key", "label"
        )
        if keys
        else ()
    )
    out = []
    for (label, value, source), group in groups.items():
        named = [labels.get(key, key) for key in group["keys"]]
        rows = ", ".join(named)
        if group["count"] > 1:
            more = group["count"] - len(named)
            rows = f"{group['count']:,} candidates ({rows}{f' and {more:,} more' if more else ''})"
        out.append({"label": label, "row": rows, "value": value, "source": source})
    return out
