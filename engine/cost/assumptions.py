"""Every default the cost engine used, with its value and where it came from.

``assumptions_applied(inp)`` lists, for the comparison, each assumption that entered a
cost line: its value, its source — "brief", "override" (the comparison's), "product
default" (the workbench's stated default, snapshot/assumptions.py), "quote" (the offer's
own figure) or "engine default" (the dataclass default, when the caller gave none) — and
``not_assessed`` when a money figure is 0 because nobody stated it (shown as "not provided:
counted as 0", never as an assessed 0.00).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from engine.cost.api import failed_attempts_billed
from engine.types import (
    ComparisonInput,
    JsonMixin,
    JSONValue,
    Range,
    to_jsonable,
)

NOT_ASSESSED = "not provided: counted as 0"

# (name, label, is money that may be "not assessed")
WORKLOAD_ITEMS: tuple[tuple[str, str, bool], ...] = (
    ("horizon_months", "Planning horizon (months)", False),
    ("observability_per_month", "Observability per month", True),
    ("serving_stack_per_month", "Team's own serving stack per month (self-managed)", True),
    ("platform_labor_fte", "Platform team (FTE, self-managed)", False),
    ("loaded_monthly_cost_per_fte", "Loaded monthly cost per FTE", True),
    ("vendor_management_fte", "Vendor-management FTE (API, managed endpoint)", False),
    ("utilisation", "Utilisation (busy share of billed elastic / held training hours)", False),
    ("fixed_peak_headroom", "Peak headroom of fixed capacity (share kept free)", False),
    ("spot_rework_share", "Spot interruption rework (share of work redone)", False),
    ("term_residual_use_share", "Residual use of a term beyond the horizon (share)", False),
    ("api_failed_attempts_billed", "Share of failed API attempts billed", False),
    (
        "cached_input_fraction",
        "Cached share of input tokens (APIs; GPU rows whose engine caches prefixes)",
        False,
    ),
    (
        "cache_write_fraction",
        "Share of input tokens written to the prompt cache (APIs that price writes)",
        False,
    ),
    ("storage_gb", "Storage the workload needs (GB)", False),
    ("egress_gb_per_month", "Egress per month (GB)", False),
)
TRAINING_ITEMS: tuple[tuple[str, str], ...] = (
    ("failure_rate_scope", "Node failure rate read per node or per cluster"),
    ("node_mtbf_h", "Mean time between failures (h)"),
    ("restart_h", "Restart after a failure (h)"),
    ("checkpoint_interval_h", "Checkpoint interval (h)"),
)
PURCHASE_ITEMS: tuple[tuple[str, str, bool], ...] = (
    ("price_per_kwh", "Electricity per kWh", True),
    ("pue", "Data-centre PUE", False),
    ("colocation_per_node_month", "Colocation per node-month", True),
    ("life_months", "Hardware life (months)", False),
    ("cost_of_capital_annual", "Cost of capital (a year)", False),
    ("residual_value_share", "Residual value at end of life (share of capex)", False),
    ("support_per_node_year", "Support per node-year", True),
)


@dataclass(frozen=True, slots=True)
class AppliedAssumption(JsonMixin):
    name: str
    label: str
    value: JSONValue
    source: str
    candidate_id: str = ""  # "" for the workload's, else the row it applies to
    note: str = ""


def _is_zero(value: object) -> bool:
    if isinstance(value, Range):
        return value.high == 0
    return isinstance(value, int | float | Decimal) and value == 0


def _item(
    name: str, label: str, value: object, source: str, money: bool, cand: str = ""
) -> AppliedAssumption:
    note = NOT_ASSESSED if money and _is_zero(value) and source != "brief" else ""
    return AppliedAssumption(name, label, to_jsonable(value), source, cand, note)


def assumptions_applied(inp: ComparisonInput) -> tuple[AppliedAssumption, ...]:
    """The assumptions behind every cost line of ``inp`` (see the module docstring)."""
    w = inp.workload
    sources = dict(w.assumption_sources)
    out = [
        _item(name, label, getattr(w, name), sources.get(name, "engine default"), money)
        for name, label, money in WORKLOAD_ITEMS
    ]
    if w.training is not None:
        out += [
            _item(name, label, getattr(w.training, name), sources.get(name, "brief"), False)
            for name, label in TRAINING_ITEMS
        ]
    for cand in inp.candidates:
        if cand.capacity_model == "purchase" and cand.purchase is not None:
            out += [
                _item(
                    f"purchase.{name}",
                    label,
                    getattr(cand.purchase, name),
                    sources.get(f"purchase.{name}", sources.get(name, "engine default")),
                    money,
                    cand.id,
                )
                for name, label, money in PURCHASE_ITEMS
            ]
        if cand.capacity_model == "spot" and cand.spot_rework_share is not None:
            out.append(
                _item(
                    "spot_rework_share",
                    "Spot interruption rework",
                    cand.spot_rework_share,
                    "quote",
                    False,
                    cand.id,
                )
            )
        if cand.is_api:
            own = cand.failed_attempts_billed is not None
            out.append(
                _item(
                    "api_failed_attempts_billed",
                    "Share of failed attempts billed",
                    failed_attempts_billed(w, cand),
                    "route" if own else sources.get("api_failed_attempts_billed", "engine default"),
                    False,
                    cand.id,
                )
            )
        if (cand.is_api or cand.storage_price_is_default) and w.storage_gb > 0:
            out.append(
                _item(
                    "storage_price_per_gb_month",
                    "Storage price per GB-month "
                    + ("(API row)" if cand.is_api else "(the quote states none)"),
                    cand.storage_price_per_gb_month,
                    sources.get("api_storage_per_gb_month", "engine default"),
                    True,
                    cand.id,
                )
            )
    return tuple(out)
