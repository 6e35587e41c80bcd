"""LiteLLM `model_prices_and_context_window.json` → model API route rows.

The file is an object keyed by model name; each entry has `litellm_provider`, `mode` and USD
prices per token (`input_cost_per_token`, `output_cost_per_token`,
`cache_read_input_token_cost`). We keep chat/completion models and convert to USD per million
tokens. Numbers are parsed as Decimal (no float rounding); NaN/Infinity are refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from catalog.importers.common import ImportFileError, ParseResult, RowError, decode_text

TEXT_MODES = frozenset({"chat", "completion", "responses"})
PER_MILLION = Decimal(1_000_000)
MAX_ENTRIES = 50_000


@dataclass(frozen=True, slots=True)
class LiteLlmRow:
    key: str
    model_name: str
    litellm_provider: str
    input_per_m: Decimal
    output_per_m: Decimal
    cached_input_per_m: Decimal | None
    max_input_tokens: int | None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a valid number here")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        dupes = sorted({k for k in keys if keys.count(k) > 1})
        raise ValueError(f"duplicate key(s) {', '.join(dupes[:5])}")
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
    except ValueError as exc:
        raise ImportFileError(f"The file is not valid JSON: {exc}.") from exc
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


def parse_litellm_prices(data: bytes) -> ParseResult[LiteLlmRow]:
    result: ParseResult[LiteLlmRow] = ParseResult()
    for key, entry in _load(data).items():
        if key == "sample_spec":
            continue
        if not isinstance(entry, dict):
            result.errors.append(RowError(key, None, "Each entry must be a JSON object."))
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
        if len(result.errors) > before:
            continue
        if not input_per_m or not output_per_m:
            result.skip("free or without token prices")
            continue
        prefix = f"{provider}/"
        name = key[len(prefix) :] if key.startswith(prefix) else key
        max_input = entry.get("max_input_tokens")
        result.rows.append(
            LiteLlmRow(
                key=key,
                model_name=name[:200],
                litellm_provider=provider.strip(),
                input_per_m=input_per_m,
                output_per_m=output_per_m,
                cached_input_per_m=cached,
                max_input_tokens=max_input if isinstance(max_input, int) else None,
            )
        )
    return result
