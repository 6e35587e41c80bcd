"""Catalog business rules, one place for forms, the API and the importers (via the services).

Forms and serializers check *shape* (a number is a number); these functions check *rules*
(a price is positive, a purchase quote has a node price, the node shape is plausible) and return
`{field: [message, ...]}` so every surface can show the same clear message next to the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils import timezone
from django.utils.text import capfirst

from catalog.models import Accelerator, CapacityModel, PrivateEndpoint, Quote, Rfq
from catalog.models.common import limits_of
from catalog.regions import boundary_reason, is_geography, place_of
from core.values import decimal_or_none
from engine.limits import FX_RATE_MAX, FX_RATE_MIN, MAX_NODES, fx_bound_message

# ISO 4217 codes of the currencies GPU providers price in; others are refused, not guessed.
CURRENCIES = frozenset(
    (  # noqa: SIM905 - a readable block of codes
        "USD EUR GBP JPY CHF CAD AUD NZD CNY HKD SGD INR KRW TWD SEK NOK DKK ISK PLN CZK HUF RON "
        "BGN TRY ILS AED SAR QAR ZAR BRL MXN CLP COP ARS THB MYR IDR PHP VND"
    ).split()
)
# Rack-scale systems (GB200 NVL72-class) are sold as one NVLink domain of up to 72 GPUs.
RACK_SCALE_MAX_GPUS = 72
# A quote captured "in the future" is a typo; allow a little clock skew between machines.
CLOCK_SKEW = timedelta(minutes=5)

PRICES_ABOVE_ZERO = ("price_per_gpu_hour", "price_per_node", "overage_rate_per_gpu_hour")
# Every other bounded money figure of a quote is a fee: 0 when it is free, never negative.
FEES_NOT_NEGATIVE = tuple(
    f.name
    for f in Quote._meta.concrete_fields
    if getattr(f, "decimal_places", None) == 4 and limits_of(f) and f.name not in PRICES_ABOVE_ZERO
)
PURCHASE_REQUIRED = ("price_per_node", "amortisation_months")
# One unit of any listed currency buys between 0.00001 (VND, IDR) and 10,000 units of the
# base; outside that a rate is a typo (GBP→USD 0.000001 was accepted). A new rate more
# than twice or under half the newest one for its currency is refused as well.
FX_RATE_BAND = (Decimal("0.00001"), Decimal("10000"))
FX_JUMP_FACTOR = Decimal(2)


def is_rack_scale(accelerator: Accelerator) -> bool:
    return accelerator.slug.startswith("gb") or "superchip" in accelerator.form_factor.lower()


def max_gpus_per_node_for(accelerator: Accelerator) -> int:
    """The largest plausible node (or NVLink domain) for this accelerator."""
    if is_rack_scale(accelerator):
        return RACK_SCALE_MAX_GPUS
    return int(accelerator.max_gpus_per_node or 8)


def currency_errors(code: Any) -> list[str]:
    if not code:
        return ["Give the currency as a three-letter ISO 4217 code, e.g. USD or EUR."]
    if str(code).upper() not in CURRENCIES:
        return [
            f"Unknown currency {str(code)[:10]!r}: use a three-letter ISO 4217 code such as "
            "USD, EUR or GBP."
        ]
    return []


def _add(errors: dict[str, list[str]], field: str, message: str) -> None:
    errors.setdefault(field, []).append(message)


def _money_errors(values: Mapping[str, Any], errors: dict[str, list[str]]) -> None:
    for field in PRICES_ABOVE_ZERO:
        value = decimal_or_none(values.get(field))
        if value is not None and value <= 0:
            _add(errors, field, "Must be greater than zero.")
    for field in FEES_NOT_NEGATIVE:
        value = decimal_or_none(values.get(field))
        if value is not None and value < 0:
            _add(errors, field, "Cannot be negative (use 0 when it is free).")
    power = decimal_or_none(values.get("power_kw_per_node"))
    if power is not None and power <= 0:
        _add(errors, "power_kw_per_node", "Power draw must be greater than zero kW.")


def field_label(name: str) -> str:
    """A quote field as the form labels it (messages name the field the user sees)."""
    field = Quote._meta.get_field(name)
    return capfirst(str(getattr(field, "verbose_name", name)))


# The quote figures with limits (the model declares them): a 10^9-month term made a $1 node
# free, a 10^8 price overflowed the sums.
BOUNDED = {f.name: limits for f in Quote._meta.concrete_fields if (limits := limits_of(f))}


def bound_message(name: str) -> str:
    low, high = BOUNDED[name]
    return f"{field_label(name)} must be between {low:,g} and {high:,g} (the engine's limits)."


def _bound_errors(values: Mapping[str, Any], errors: dict[str, list[str]]) -> None:
    """Figures the engine could not cost are refused where they are typed, with the field
    named, in the same words from every entry (form, API, import)."""
    for name, (low, high) in BOUNDED.items():
        value = values.get(name)
        if value is None or value == "" or isinstance(value, bool) or name in errors:
            continue  # a sharper message (e.g. "greater than zero") wins
        number = decimal_or_none(value)
        if number is None or not low <= number <= high:
            _add(errors, name, bound_message(name))


def _capacity_errors(values: Mapping[str, Any], errors: dict[str, list[str]]) -> None:
    capacity = values.get("capacity_model")
    if capacity not in CapacityModel.values:
        _add(errors, "capacity_model", "Choose one of: " + ", ".join(CapacityModel.values) + ".")
        return
    if capacity == CapacityModel.PURCHASE:
        for field in PURCHASE_REQUIRED:
            if not values.get(field):
                _add(
                    errors,
                    field,
                    "A purchase quote needs the price per node and the "
                    "amortisation period in months.",
                )
    elif values.get("price_per_gpu_hour") is None:
        _add(
            errors,
            "price_per_gpu_hour",
            "Give the price per GPU-hour (required unless the capacity model is purchase).",
        )
    if capacity == CapacityModel.RESERVED and not values.get("term_months"):
        _add(errors, "term_months", "A reserved quote needs its term in months.")


def _time_errors(values: Mapping[str, Any], errors: dict[str, list[str]], now: datetime) -> None:
    quoted_at = values.get("quoted_at")
    valid_until = values.get("valid_until")
    if quoted_at is None:
        _add(errors, "quoted_at", "Give the date and time the price was captured.")
        return
    if timezone.is_naive(quoted_at):
        _add(errors, "quoted_at", "Give a timezone-aware time (UTC).")
        return
    if quoted_at > now + CLOCK_SKEW:
        _add(errors, "quoted_at", "Cannot be in the future: it is when the price was captured.")
    if valid_until is not None and valid_until < quoted_at:
        _add(errors, "valid_until", "Must be on or after the time the quote was captured.")


def _topology_errors(
    values: Mapping[str, Any],
    accelerator: Accelerator | None,
    errors: dict[str, list[str]],
    node_from_file: bool,
) -> None:
    gpus = values.get("gpus_per_node")
    # A public file that states its node size (10× L40S) is the offer, beyond the catalog's
    # usual node; only more GPUs than one machine or NVLink domain holds is refused.
    if accelerator is None:
        _add(errors, "accelerator", "Choose an accelerator from the catalog.")
    else:
        limit = RACK_SCALE_MAX_GPUS if node_from_file else max_gpus_per_node_for(accelerator)
        if gpus is None or not 1 <= int(gpus) <= limit:
            message = f"{accelerator.name} nodes hold 1 to {limit} GPUs; got {gpus}."
            _add(errors, "gpus_per_node", message)
    commitment, available = values.get("min_commitment_gpus"), values.get("max_gpus_available")
    if commitment and available and int(commitment) > int(available):
        _add(errors, "min_commitment_gpus", "The minimum commitment exceeds the GPUs available.")
    if available and gpus and int(gpus) > 0 and int(available) > MAX_NODES * int(gpus):
        _add(
            errors,
            "max_gpus_available",
            f"At most {MAX_NODES:,} nodes of {int(gpus)} GPUs ({MAX_NODES * int(gpus):,} GPUs) "
            f"can be sized; got {int(available):,}.",
        )


def _rfq_errors(
    values: Mapping[str, Any],
    accelerator: Accelerator | None,
    rfq: Rfq,
    errors: dict[str, list[str]],
) -> None:
    allowed = {a.pk for a in rfq.accelerators.all()}
    if accelerator is not None and allowed and accelerator.pk not in allowed:
        names = ", ".join(sorted(a.name for a in rfq.accelerators.all()))
        _add(errors, "accelerator", f"This RFQ accepts only: {names}.")
    capacity_models = rfq.capacity_models or []
    if capacity_models and values.get("capacity_model") not in capacity_models:
        labels = ", ".join(CapacityModel(c).label for c in capacity_models)
        _add(errors, "capacity_model", f"This RFQ asks for: {labels}.")
    _rfq_region_errors(str(values.get("region") or "").strip(), rfq.region_list(), errors)


def _rfq_region_errors(region: str, asked: list[str], errors: dict[str, list[str]]) -> None:
    """An answer names one region the comparison can place: a list ("eu-west, eu-central") or
    a code outside the vocabulary would be excluded from every comparison of the brief."""
    if not region:
        if asked:
            _add(errors, "region", f"Give the region of the capacity: one of {', '.join(asked)}.")
        return
    if "," in region:
        _add(errors, "region", "Give one region per answer; quote each region separately.")
    elif place_of(region) is None and not is_geography(region):
        _add(
            errors,
            "region",
            f"Region {region} is not in the region vocabulary (use e.g. eu-west, us-east, "
            "eu-west-1 or a country code), so no comparison could place it.",
        )
    elif asked and (reason := boundary_reason([region], asked)):
        _add(errors, "region", f"This RFQ asks for {', '.join(asked)}: the {reason}.")


def quote_rule_errors(
    values: Mapping[str, Any],
    *,
    accelerator: Accelerator | None,
    rfq: Rfq | None = None,
    require_source: bool = False,
    now: datetime | None = None,
    node_from_file: bool = False,
) -> dict[str, list[str]]:
    """Every rule a quote version must satisfy, as {field: [messages]} (empty when valid).

    `node_from_file`: the GPUs per node come from an imported public file, which states them."""
    errors: dict[str, list[str]] = {}
    for message in currency_errors(values.get("currency")):
        _add(errors, "currency", message)
    _money_errors(values, errors)
    _bound_errors(values, errors)
    _capacity_errors(values, errors)
    _time_errors(values, errors, now or timezone.now())
    _topology_errors(values, accelerator, errors, node_from_file)
    if rfq is not None:
        _rfq_errors(values, accelerator, rfq, errors)
    if require_source and not (values.get("source_url") or values.get("source_document")):
        _add(errors, "source_url", "Give the source of the price: a URL or a document name.")
    return errors


def _share(value: Any) -> bool:
    """Whether `value` reads as a number from 0 to 1."""
    try:
        return Decimal(0) <= Decimal(str(value)) <= Decimal(1)
    except InvalidOperation:
        return False


def api_route_rule_errors(
    values: Mapping[str, Any], *, now: datetime | None = None
) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    for message in currency_errors(values.get("currency")):
        _add(errors, "currency", message)
    for field in ("price_input_per_m_tokens", "price_output_per_m_tokens"):
        value = values.get(field)
        if value is None:
            _add(errors, field, "Give the price per million tokens.")
        elif Decimal(value) <= 0:
            _add(errors, field, "Must be greater than zero.")
    for field in ("price_cached_input_per_m_tokens", "price_cache_write_per_m_tokens"):
        price = values.get(field)
        if price is not None and price != "" and Decimal(price) < 0:
            _add(errors, field, "Cannot be negative.")
    if not str(values.get("model_name") or "").strip():
        _add(errors, "model_name", "Give the model name as the API calls it.")
    billed = values.get("failed_attempts_billed")
    if billed is not None and billed != "" and not _share(billed):
        _add(
            errors,
            "failed_attempts_billed",
            "Give the share of failed attempts billed between 0 (none) and 1 (all), or leave "
            "it blank when the provider does not say.",
        )
    if values.get("private_endpoint", PrivateEndpoint.UNKNOWN) not in PrivateEndpoint.values:
        _add(errors, "private_endpoint", "Choose yes, no or unknown (not stated).")
    regions = values.get("processing_regions") or []
    if not isinstance(regions, list) or not all(
        isinstance(r, str) and 0 < len(r.strip()) <= 60 for r in regions
    ):
        _add(errors, "processing_regions", "Give a list of region codes or geographies.")
    elif unknown := [r for r in regions if place_of(r) is None and not is_geography(r)]:
        _add(
            errors,
            "processing_regions",
            f"Unknown region or geography: {', '.join(unknown[:5])} (use e.g. EU, US, DE, "
            "eu-west-1).",
        )
    _time_errors(values, errors, now or timezone.now())
    return errors


def fx_rule_errors(
    values: Mapping[str, Any], *, base_currency: str, newest: tuple[Decimal, Any] | None = None
) -> dict[str, list[str]]:
    """`newest`: the currency's newest recorded (rate, date), for the jump check."""
    errors: dict[str, list[str]] = {}
    currency = str(values.get("currency") or "").upper()
    for message in currency_errors(currency):
        _add(errors, "currency", message)
    if currency == base_currency:
        _add(errors, "currency", f"{base_currency} is the base currency; its rate is always 1.")
    rate = decimal_or_none(values.get("rate_to_base"))
    low, high = FX_RATE_BAND
    if rate is None or rate <= 0:
        _add(errors, "rate_to_base", "Must be greater than zero.")
    elif not Decimal(str(FX_RATE_MIN)) <= rate <= Decimal(str(FX_RATE_MAX)):
        _add(errors, "rate_to_base", fx_bound_message("The rate to the base currency"))
    elif not low <= rate <= high:
        _add(
            errors,
            "rate_to_base",
            f"{rate:f} {base_currency} per unit is outside every real rate "
            f"({low:f} to {high:f}); check the direction and the decimal point.",
        )
    elif newest is not None:
        last, last_date = newest
        if not last / FX_JUMP_FACTOR <= rate <= last * FX_JUMP_FACTOR:
            _add(
                errors,
                "rate_to_base",
                f"More than twice or under half the newest rate ({last:f} on {last_date}); "
                "check the direction and the decimal point.",
            )
    as_of = values.get("as_of")
    if as_of is None:
        _add(errors, "as_of", "Give the date the rate applies to.")
    elif as_of > timezone.now().date():
        _add(errors, "as_of", "Cannot be in the future.")
    return errors


def model_profile_rule_errors(values: Mapping[str, Any]) -> dict[str, list[str]]:
    """Architecture numbers that cannot describe a real transformer are refused."""
    errors: dict[str, list[str]] = {}
    for field in ("params_total_b", "params_active_b", "layers", "kv_heads", "head_dim"):
        value = values.get(field)
        if value is None or value <= 0:
            _add(errors, field, "Must be a positive number.")
    total, active = values.get("params_total_b"), values.get("params_active_b")
    if total and active and active > total:
        _add(errors, "params_active_b", "Active parameters cannot exceed total parameters.")
    heads, kv_heads = values.get("attention_heads"), values.get("kv_heads")
    if heads and kv_heads:
        if kv_heads > heads:
            _add(errors, "kv_heads", "KV heads cannot exceed attention heads.")
        elif heads % kv_heads:
            _add(errors, "kv_heads", "Attention heads must be a multiple of KV heads (GQA).")
    head_dim = values.get("head_dim")
    if head_dim and not 16 <= head_dim <= 1024:
        _add(errors, "head_dim", "A head dimension is usually 64 to 256; 16 to 1024 is allowed.")
    hidden = values.get("hidden_size")
    if hidden and heads and head_dim and heads * head_dim > 4 * hidden:
        _add(errors, "head_dim", "Attention heads × head dim is far larger than the hidden size.")
    window, window_layers = values.get("sliding_window"), values.get("sliding_window_layers") or 0
    layers = values.get("layers") or 0
    if window_layers and not window:
        _add(errors, "sliding_window", "Give the window size for the sliding-window layers.")
    if layers and window_layers > layers:
        _add(errors, "sliding_window_layers", "Cannot exceed the number of layers.")
    max_context = values.get("max_context")
    if max_context is not None and not 128 <= max_context <= 20_000_000:
        _add(errors, "max_context", "The context window should be between 128 and 20M tokens.")
    return errors


def rfq_rule_errors(
    values: Mapping[str, Any], *, now: datetime | None = None
) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    now = now or timezone.now()
    deadline = values.get("deadline")
    if deadline is None:
        _add(errors, "deadline", "Give the deadline for answers.")
    elif deadline <= now:
        _add(errors, "deadline", "The deadline must be in the future.")
    if not values.get("providers"):
        _add(errors, "providers", "Invite at least one provider.")
    unknown = [c for c in values.get("capacity_models") or [] if c not in CapacityModel.values]
    if unknown:
        _add(errors, "capacity_models", f"Unknown capacity model(s): {', '.join(unknown)}.")
    gpus = values.get("gpus_needed")
    if gpus is not None and gpus <= 0:
        _add(errors, "gpus_needed", "Must be at least 1 GPU.")
    regions = [r.strip() for r in str(values.get("region") or "").split(",") if r.strip()]
    if unknown := [r for r in regions if place_of(r) is None and not is_geography(r)]:
        # a vendor answers with one of these; one no comparison can place has no answer
        _add(
            errors,
            "region",
            f"Not in the region vocabulary: {', '.join(unknown)} (use e.g. eu-west, us-east, "
            "eu-west-1, a country code or EU).",
        )
    if not str(values.get("title") or "").strip():
        _add(errors, "title", "Give the RFQ a title.")
    return errors
