"""LiteLLM `model_prices_and_context_window.json` → model API route rows.

The file is an object keyed by model name; each entry has `litellm_provider`, `mode` and USD
prices per token (`input_cost_per_token`, `output_cost_per_token`,
`cache_read_input_token_cost`, and `cache_creation_input_token_cost` where the provider prices
a prompt-cache write apart, e.g. Anthropic's 1.25 × input). We keep chat/completion models
and convert to USD per million tokens. Numbers are parsed as Decimal (no float rounding);
NaN/Infinity are refused.

Entries that are not models are skipped, never errors: `sample_spec` (the format's own
documentation, silently), and, counted, `{"alias_of": "<key>"}` aliases (their target entry is
imported instead) and metadata entries with neither provider nor price (routing rules such as
`fallback_generalizations`). Priced variants of the base prices are kept as tiers
(`PriceTier`): batch (`*_batches`), priority and flex (`*_priority`, `*_flex`), long context
(`*_above_200k_tokens`, from N input tokens up) and cache writes
(`cache_creation_input_token_cost`, `*_above_1hr`). Google Cloud's `vertex_ai-<group>` ids
(Claude, Llama, Mistral, AI21 and Google's own models on Vertex AI) are Google Cloud routes
whose publisher is kept.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from catalog.importers.common import ImportFileError, ParseResult, RowError, decode_text
from catalog.importers.names import base_provider, publisher_for

logger = logging.getLogger(__name__)

TEXT_MODES = frozenset({"chat", "completion", "responses"})
PER_MILLION = Decimal(1_000_000)
MAX_ENTRIES = 50_000
NOT_MODELS = frozenset({"sample_spec"})
# Top-level entries LiteLLM ships that are not models (routing rules and the like).
METADATA_KEYS = frozenset({"fallback_generalizations"})
PRICE_KINDS = {
    "input_cost_per_token": "input_per_m",
    "output_cost_per_token": "output_per_m",
    "cache_read_input_token_cost": "cached_input_per_m",
    "cache_creation_input_token_cost": "cache_write_per_m",
}
TIER_KEY = re.compile(
    f"^(?P<kind>{'|'.join(PRICE_KINDS)})"
    r"(?:_(?P<tier>batches|priority|flex|above_(?P<k>\d+)k_tokens|above_1hr))?$"
)
SKIP_ALIAS = "alias of another entry (the target entry is imported)"
SKIP_ALIAS_MISSING = "alias whose target is not in the file"
SKIP_METADATA = "not a model entry (metadata or documentation)"

# Where imported API route prices come from (the source URL every imported route carries).
LITELLM_SOURCE = "https://github.com/BerriAI/litellm"


@dataclass(frozen=True, slots=True)
class LiteLlmRow:
    key: str
    model_name: str
    litellm_provider: str
    input_per_m: Decimal
    output_per_m: Decimal
    cached_input_per_m: Decimal | None
    max_input_tokens: int | None
    tiers: dict[str, dict[str, object]] = field(default_factory=dict)
    publisher: str = ""  # the model's publisher when the provider resells it
    cache_write_per_m: Decimal | None = None  # a 5-minute prompt-cache write, when priced


class _FileProblem(ValueError):
    """A problem this parser words itself (safe to show); any other error is named only."""


def _refuse_constant(name: str) -> Any:
    raise _FileProblem(f"{name} is not a valid number here")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        dupes = sorted({k for k in keys if keys.count(k) > 1})
        raise _FileProblem(f"duplicate key(s) {', '.join(dupes[:5])}")
    return dict(pairs)


def _load(data: bytes) -> dict[str, Any]:
    text = decode_text(data)
    try:
        parsed = json.loads(
            text,
            parse_float=Decimal,
            parse_constant=_refuse_constant,
            object_pairs_hook=_unique_keys,
        )
    except RecursionError as exc:
        raise ImportFileError("The JSON is nested too deeply.") from exc
    except json.JSONDecodeError as exc:
        raise ImportFileError(
            f"The file is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})."
        ) from exc
    except _FileProblem as exc:
        raise ImportFileError(f"The file is not valid JSON: {exc}.") from exc
    except ValueError as exc:
        # Python's own wording (limits, internals) stays in the log, not in the outcome.
        logger.info("LiteLLM file refused: %s", exc)
        raise ImportFileError(
            f"The file has a value this parser cannot read ({type(exc).__name__})."
        ) from exc
    if not isinstance(parsed, dict):
        raise ImportFileError("Expected a JSON object keyed by model name (LiteLLM's format).")
    if len(parsed) > MAX_ENTRIES:
        raise ImportFileError(f"The file has more than {MAX_ENTRIES} entries.")
    return parsed


def _price(entry: dict[str, Any], field: str, key: str, errors: list[RowError]) -> Decimal | None:
    value = entry.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Decimal | int):
        errors.append(RowError(key, field, f"{value!r} is not a number."))
        return None
    if value < 0:
        errors.append(RowError(key, field, "A price cannot be negative."))
        return None
    return Decimal(value) * PER_MILLION


def _tier_name(match: re.Match[str]) -> str:
    tier = match["tier"]
    if tier is None:
        return "standard"
    return {"batches": "batch", "above_1hr": "standard"}.get(tier, tier)


def _tiers(entry: dict[str, Any], key: str, errors: list[RowError]) -> dict[str, dict[str, Any]]:
    """Every priced variant except the three base prices, as strings per million tokens.

    `{"batch": {"input_per_m": "1.25", ...}, "above_200k_tokens": {"above_input_tokens":
    200000, ...}, "standard": {"cache_write_per_m": ...}}`.
    """
    tiers: dict[str, dict[str, Any]] = {}
    for name in sorted(entry):
        match = TIER_KEY.match(name)
        if match is None:
            continue
        tier, price_kind = _tier_name(match), PRICE_KINDS[match["kind"]]
        if tier == "standard" and price_kind != "cache_write_per_m":
            continue  # the base prices are columns of the route
        price = _price(entry, name, key, errors)
        if price is None:
            continue
        if match["tier"] == "above_1hr":
            price_kind = "cache_write_1h_per_m"
        bucket = tiers.setdefault(tier, {})
        if match["k"]:
            bucket["above_input_tokens"] = int(match["k"]) * 1000
        bucket[price_kind] = format(price.normalize(), "f")
    return tiers


def _is_model_entry(entry: dict[str, Any]) -> bool:
    return "litellm_provider" in entry or any(TIER_KEY.match(k) for k in entry)


def parse_litellm_prices(data: bytes) -> ParseResult[LiteLlmRow]:
    result: ParseResult[LiteLlmRow] = ParseResult()
    entries = _load(data)
    for key, entry in entries.items():
        if key in NOT_MODELS:  # the format's own documentation entry
            continue
        if key in METADATA_KEYS:
            result.skip(SKIP_METADATA)
            continue
        if not isinstance(entry, dict):
            result.errors.append(RowError(key, None, "Each entry must be a JSON object."))
            continue
        if "alias_of" in entry and "litellm_provider" not in entry:
            target = entries.get(str(entry["alias_of"]))
            result.skip(SKIP_ALIAS if isinstance(target, dict) else SKIP_ALIAS_MISSING)
            continue
        if not _is_model_entry(entry):
            result.skip(SKIP_METADATA)
            continue
        if entry.get("mode", "chat") not in TEXT_MODES:
            result.skip(f"mode {str(entry.get('mode'))[:30]} (not a text-generation model)")
            continue
        provider = entry.get("litellm_provider")
        if not isinstance(provider, str) or not provider.strip():
            result.errors.append(RowError(key, "litellm_provider", "Missing provider."))
            continue
        before = len(result.errors)
        input_per_m = _price(entry, "input_cost_per_token", key, result.errors)
        output_per_m = _price(entry, "output_cost_per_token", key, result.errors)
        cached = _price(entry, "cache_read_input_token_cost", key, result.errors)
        cache_write = _price(entry, "cache_creation_input_token_cost", key, result.errors)
        tiers = _tiers(entry, key, result.errors)
        if len(result.errors) > before:
            continue
        if not input_per_m or not output_per_m:
            result.skip("free or without token prices")
            continue
        name = key
        for prefix in (f"{provider}/", f"{base_provider(provider)}/"):
            name = name[len(prefix) :] if name.startswith(prefix) else name
        max_input = entry.get("max_input_tokens")
        result.rows.append(
            LiteLlmRow(
                key=key,
                model_name=name[:200],
                litellm_provider=provider.strip(),
                input_per_m=input_per_m,
                output_per_m=output_per_m,
                cached_input_per_m=cached,
                max_input_tokens=max_input
                if isinstance(max_input, int) and not isinstance(max_input, bool) and max_input > 0
                else None,
                tiers=tiers,
                publisher=publisher_for(provider),
                cache_write_per_m=cache_write,
            )
        )
    if not result.rows and not result.errors and set(result.skipped) <= {SKIP_METADATA}:
        result.errors.append(
            RowError(
                None,
                None,
                "The file has no model entries with token prices (LiteLLM's "
                "format: an object keyed by model name, with litellm_provider and prices).",
            )
        )
    return result
