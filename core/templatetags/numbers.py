"""One number format for every page.

- ``{{ v|money }}`` → "USD 54,518.64": two decimals, thousands separators, the currency;
- ``{{ v|unit_price }}`` → "0.00015", "0.89" or "11.36": two decimals from one up; below
  one up to four significant digits, at least two decimals (per-token prices stay readable);
- ``{{ v|pct }}`` → "64 %" from the fraction 0.6429 (``pct:1`` → "64.3 %");
- ``{{ v|thousands }}`` → "10,000" (``thousands:1`` → "2,614.9");
- ``{{ code|human }}`` → "API compute", "On-demand", "Latency unmeasured": labels for cost
  lines, capacity models and warning codes; templates keep the code in a ``title``.

None and "" render as "—". Decimal in, text out: money never goes through float here.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import template

from core.cost_lines import LINE_LABELS
from core.values import decimal_or_none

register = template.Library()

DASH = "—"
LABELS = {
    **LINE_LABELS,
    # capacity models
    "on_demand": "On-demand",
    "spot": "Spot / preemptible",
    "reserved": "Reserved",
    "marketplace": "Marketplace",
    "dedicated_cluster": "Dedicated cluster",
    "private_cloud": "Private cloud",
    "managed_endpoint": "Managed endpoint",
    "purchase": "Purchase",
    "api": "Model API",
    # warning codes whose words are not the code's
    "PERF_PROXY": "Performance from a similar GPU",
    "FX_MISSING": "Exchange rate missing",
    "CHEAPEST_HOURLY_NOT_CHEAPEST_OUTPUT": "Cheapest per hour, not per output",
    "NO_ACCEPTANCE_DATA": "No acceptance data",
    "NO_PLATFORM_LABOR": "No platform labour",
    # what bounds a row's throughput
    "memory_bandwidth": "Memory bandwidth",
}
# Names of a row's fit, performance and checklist figures, with their units, as the side by
# side lists them; a name not here reads as its words ("context_tokens" → "Context tokens").
FIGURE_LABELS = {
    "gpus_required": "GPUs required",
    "offered_gpus": "GPUs offered",
    "headroom_margin_pct": "Headroom margin (%)",
    "headroom_pct": "Headroom (%)",
    "headroom_pct_at_context_window": "Headroom at the context window (%)",
    "kv_cache_gb": "KV cache (GB)",
    "per_gpu_gb": "Memory needed per GPU (GB)",
    "usable_gb_per_gpu": "Usable memory per GPU (GB)",
    "weights_gb": "Weights (GB)",
    "e2e_p99_ms": "E2E p99 (ms)",
    "itl_p95_ms": "ITL p95 (ms)",
    "ttft_p95_ms": "TTFT p95 (ms)",
    "tokens_per_s": "Output tokens/s",
    "bound": "Bound by",
    "completeness_pct": "Completeness (%)",
}


@register.filter
def money(value: Any, currency: str = "USD") -> str:
    number = decimal_or_none(value)
    if number is None:
        return DASH
    text = f"{number:,.2f}"
    return f"{currency} {text}" if currency else text


@register.filter
def money_abs(value: Any, currency: str = "USD") -> str:
    """Money without its sign, where the words say which way it goes ("costs … more")."""
    number = decimal_or_none(value)
    return money(None if number is None else abs(number), currency)


@register.filter
def amount(value: Any) -> str:
    """Money without the currency (a column header states it): "54,518.64"."""
    return money(value, "")


@register.filter
def unit_price(value: Any, currency: str = "") -> str:
    number = decimal_or_none(value)
    if number is None:
        return DASH
    if number == 0 or abs(number) >= 1:
        text = f"{number:,.2f}"
    else:
        exponent = number.adjusted()  # 0.000150 → -4
        places = max(2, 3 - exponent)  # four significant digits...
        text = f"{number:,.{places}f}"
        whole, _, decimals = text.partition(".")
        decimals = decimals.rstrip("0").ljust(2, "0")  # ...without trailing zeros past two
        text = f"{whole}.{decimals}"
    return f"{currency} {text}" if currency else text


@register.filter
def pct(value: Any, places: int = 0) -> str:
    number = decimal_or_none(value)
    if number is None:
        return DASH
    return f"{number * 100:,.{int(places)}f} %"


@register.filter
def thousands(value: Any, places: int = 0) -> str:
    number = decimal_or_none(value)
    if number is None:
        return DASH
    return f"{number:,.{int(places)}f}"


@register.filter
def fact(value: Any) -> Any:
    """A record's number for reading: 2000000.0 → "2,000,000", Decimal 18000.00 →
    "18,000.00", 0.005 stays; text and booleans pass through."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return value
    if isinstance(value, float) and value.is_integer():
        return f"{value:,.0f}"
    return f"{value:,}"


@register.filter
def readable(value: Any) -> Any:
    """A side-by-side cell: numbers with separators and no trailing zeros past the cent,
    known codes (`on_demand`) in words; other text as it is."""
    if isinstance(value, Decimal) and value.is_finite():
        cents = value.quantize(Decimal("0.01"))
        return fact(cents if cents == value else value.normalize())
    if isinstance(value, str) and value in LABELS:
        return LABELS[value]
    if isinstance(value, float) and not value.is_integer() and abs(value) >= 1:
        # An engine figure (11167.977 ms, 44.475 GB): as precise as a reader compares it.
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.1f}"
    return fact(value)


@register.filter
def human(code: Any) -> str:
    if code is None or code == "":
        return DASH
    text = str(code)
    if text in LABELS:
        return LABELS[text]
    if text in FIGURE_LABELS:
        return FIGURE_LABELS[text]
    if " " in text:  # already words ("Total (USD)"): lower-casing would lose "USD", "GPU"
        return text
    if "_" not in text and "." not in text and text not in (text.upper(), text.lower()):
        return text  # one word in its own case ("GPUs", "Provider"), not a code
    words = text.replace("_", " ").replace(".", " ").strip()
    return words[:1].upper() + words[1:].lower()


@register.filter
def commitment_horizon(detail: Any) -> str:
    """ "12-month commitment" from a row's ``detail.commitment`` (the engine's months)."""
    return commitment_term(detail.get("commitment") if isinstance(detail, dict) else None)


@register.filter
def commitment_term(found: Any) -> str:
    """ "12-month commitment" from the engine's commitment terms themselves (the dashboard
    reads only those, not the whole row)."""
    if not isinstance(found, dict):
        return "commitment"
    contracted = _contracted(found)
    months = found.get("months_counted") if contracted else found.get("horizon_months")
    if not contracted:
        # Elastic capacity and APIs bind nothing: the figure is what the horizon is expected
        # to cost, paid as used, and must not read as a contract.
        return f"expected spend over {months} months, no contract" if months else "expected spend"
    if _spend_above_contract(found):
        # The figure is the larger of the two (ADR 0006): a short term's contract under the
        # horizon's expected spend must not read as "1-month commitment" beside six months.
        horizon = found.get("horizon_months")
        return f"expected spend over {horizon} months, above the {months}-month contract"
    return f"{months}-month commitment" if months else "commitment"


@register.filter
def commitment_label(detail: Any) -> str:
    """ "Expected spend" where the recommended row binds no contract (elastic capacity, an
    API), else "Commitment": a figure paid as used must not be labelled a commitment."""
    found = detail.get("commitment") if isinstance(detail, dict) else None
    return "Expected spend" if isinstance(found, dict) and not _contracted(found) else "Commitment"


def _contracted(found: dict[str, Any]) -> bool:
    """The row binds a contract (the engine states its value); else it is paid as used."""
    return found.get("contract_usd") is not None


def _spend_above_contract(found: dict[str, Any]) -> bool:
    contract = decimal_or_none(found.get("contract_usd"))
    spend = decimal_or_none(found.get("expected_spend_usd"))
    return contract is not None and spend is not None and spend > contract


@register.filter
def ordinal(value: Any) -> str:
    """1 → "1st", 2 → "2nd", 3 → "3rd", 11 → "11th", 33 → "33rd"."""
    number = decimal_or_none(value)
    if number is None:
        return DASH
    whole = int(number.to_integral_value())
    suffix = "th" if 10 <= whole % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(whole % 10, "th")
    return f"{whole}{suffix}"
